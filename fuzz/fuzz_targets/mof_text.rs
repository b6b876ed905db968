//! Classic MOF text: `etw_classic_decode::mof::parse_mof` on any text (the input's bytes as
//! UTF-8, invalid sequences replaced).
//!
//! Checked on every input (the laws of `etw_classic_fuzz::schema_text`):
//! - `parse_mof` never panics, and gives the same result twice (parsing is deterministic);
//! - an error names the place given, a line of the text and a column from 1;
//! - a loaded text's providers start on a line of the text; each event's key agrees with its
//!   schema's lookup (`Mof::schema` of a versioned key gives that schema), and each schema
//!   passes the core's `check_fields`, carries the maps its fields name, and comes from
//!   `place:line` with a line of the text, the line of its event type class.
#![no_main]

use etw_classic_decode::mof::parse_mof;
use etw_classic_decode::SchemaSource;
use etw_classic_fuzz::schema_text::{check_error, check_line, check_schema};
use libfuzzer_sys::fuzz_target;

const PLACE: &str = "fuzz.mof";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let first = parse_mof(&text, PLACE);
    let second = parse_mof(&text, PLACE);
    assert_eq!(first, second, "parsing is not deterministic");
    match first {
        Err(error) => check_error(&error.to_string(), PLACE, error.line, error.column, &text),
        Ok(mof) => {
            for provider in &mof.providers {
                check_line(provider.line, &text, &provider.name);
            }
            for (key, event) in &mof.events {
                check_line(event.line, &text, &event.class_name);
                assert_eq!(event.schema.origin.source, SchemaSource::Mof);
                check_schema(&event.schema, PLACE, &text);
                if let Some(version) = key.version {
                    assert_eq!(
                        mof.schema(key.guid, key.event_type, version),
                        Some(&event.schema),
                        "the lookup of {key:?} gives another schema"
                    );
                }
            }
        }
    }
});
