//! Instrumentation manifests: `etw_classic_decode::manifest` on any bytes.
//!
//! Checked on every input (the laws of `etw_classic_fuzz::schema_text`):
//! - `parse_manifest_bytes` never panics, and gives the same result twice (parsing is
//!   deterministic);
//! - bytes that are UTF-8 parse as their text does with `parse_manifest_as`; bytes that are not
//!   text (UTF-8, or UTF-16 after its byte order mark) are `NotText` at line 1;
//! - an error names the place given, a line of the text and a column from 1;
//! - a loaded manifest's providers start on a line of the text, and each event's schema passes
//!   the core's `check_fields`, carries the maps its fields name, and comes from `place:line`
//!   with a line of the text, the line of an `<event>` element.
#![no_main]

use etw_classic_decode::manifest::{manifest_text, parse_manifest_as, parse_manifest_bytes};
use etw_classic_decode::SchemaSource;
use etw_classic_fuzz::schema_text::{check_error, check_line, check_schema};
use libfuzzer_sys::fuzz_target;

const PLACE: &str = "fuzz.man";

fuzz_target!(|data: &[u8]| {
    let first = parse_manifest_bytes(data, PLACE, SchemaSource::Manifest);
    let second = parse_manifest_bytes(data, PLACE, SchemaSource::Manifest);
    assert_eq!(first, second, "parsing is not deterministic");

    let Some(text) = manifest_text(data) else {
        let error = first.expect_err("bytes that are not text parsed");
        assert_eq!((error.line, error.column), (1, 1));
        check_error(&error.to_string(), PLACE, error.line, error.column, "");
        return;
    };
    if let Ok(utf8) = std::str::from_utf8(data) {
        if !utf8.starts_with('\u{feff}') {
            assert_eq!(
                parse_manifest_as(utf8, PLACE, SchemaSource::Manifest),
                first,
                "the bytes and their text parse differently"
            );
        }
    }
    match first {
        Err(error) => check_error(&error.to_string(), PLACE, error.line, error.column, &text),
        Ok(manifest) => {
            for provider in &manifest.providers {
                check_line(provider.line, &text, &provider.name);
                for ((id, version), event) in &provider.events {
                    assert_eq!((*id, *version), (event.id, event.version));
                    assert_eq!(event.schema.origin.source, SchemaSource::Manifest);
                    assert_eq!(event.schema.provider_name.as_deref(), Some(&*provider.name));
                    check_schema(&event.schema, PLACE, &text);
                }
            }
        }
    }
});
