//! The laws the schema parsers of text (`manifest_xml`, `mof_text`) share: a schema they load
//! is one the core's decoder can walk, and every place they name lies in the text.
//!
//! "A schema that contradicts itself (a manifest referring to a missing template, a MOF class
//! with a gap in `WmiDataId`) is a clear error at load time, naming the file and line": so a
//! loaded schema passes the core's `check_fields`, names only maps it carries, and names the
//! place it came from as `place:line` with a line of the text; an error names a line of the
//! text and a column of at least 1, and says so first when shown (`place:line:column: ...`).

use etw_classic::payload::check_fields;
use etw_classic_decode::EventSchema;

/// How many lines `text` has: one more than its newlines (an empty text has one, empty).
pub fn line_count(text: &str) -> usize {
    text.bytes().filter(|byte| *byte == b'\n').count() + 1
}

/// A line number the parsers report: from 1 to the text's last line.
pub fn check_line(line: u32, text: &str, what: &str) {
    let line = usize::try_from(line).unwrap();
    assert!(
        (1..=line_count(text)).contains(&line),
        "{what}: line {line} is not a line of the text ({} lines)",
        line_count(text)
    );
}

/// A parser's error: its place, a line of the text, a column of at least 1, and a message that
/// starts with them.
pub fn check_error(shown: &str, place: &str, line: u32, column: u32, text: &str) {
    check_line(line, text, shown);
    assert!(column >= 1, "{shown}: column 0");
    let prefix = format!("{place}:{line}:{column}: ");
    assert!(
        shown.starts_with(&prefix),
        "{shown:?} does not start with {prefix:?}"
    );
}

/// A loaded schema: the core accepts its fields, each map a field names is among the schema's
/// maps, and its origin is `place:line` with a line of the text.
pub fn check_schema(schema: &EventSchema, place: &str, text: &str) {
    if let Err(error) = check_fields(&schema.fields) {
        panic!(
            "{}: a loaded schema fails the core's check: {error}",
            schema.origin.place
        );
    }
    for field in &schema.fields {
        if let Some(map) = &field.map {
            assert!(
                schema.map(map).is_some(),
                "{}: field {} names map {map}, which the schema does not carry",
                schema.origin.place,
                field.name
            );
        }
    }
    let line = schema
        .origin
        .place
        .strip_prefix(place)
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|line| line.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("origin {:?} is not {place}:line", schema.origin.place));
    check_line(line, text, &schema.origin.place);
}
