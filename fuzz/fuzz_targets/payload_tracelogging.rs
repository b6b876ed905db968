//! TraceLogging metadata and the payload decoder on any bytes.
//!
//! Input: one byte choosing the pointer size (bit 0: 32-bit), then the metadata (its own `u16`
//! `Size` says where it ends; the rest of the input is the event's data). Laws:
//! - reading the metadata and walking the data never panic;
//! - every metadata error names an offset inside the metadata;
//! - the items' bytes, in order, are the data up to where the walk stands, and an error's offset
//!   is that place (nothing is skipped, nothing read twice);
//! - the walk is deterministic: a second walk gives the same items and the same end.
#![no_main]

use std::hash::{DefaultHasher, Hash, Hasher};

use etw_classic::payload::{FieldSchema, ItemKind, PayloadDecoder, TraceLoggingEvent};
use etw_classic::Bitness;
use libfuzzer_sys::fuzz_target;

/// Walks `data`, returning a digest of the items (how many, and a hash of each one's index and
/// kind, so that memory stays flat however many items an array of empty values yields), their
/// bytes and where the walk stopped.
fn walk(
    fields: &[FieldSchema<&str>],
    data: &[u8],
    bitness: Bitness,
) -> ((usize, u64), Vec<u8>, usize, bool) {
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    let mut kinds = (0usize, DefaultHasher::new());
    let mut bytes = Vec::new();
    let mut failed = false;
    for item in decoder.by_ref() {
        match item {
            Ok(item) => {
                assert!(item.offset <= data.len());
                assert_eq!(item.offset, bytes.len(), "items tile the data");
                bytes.extend_from_slice(item.bytes);
                kinds.0 += 1;
                item.index.hash(&mut kinds.1);
                item.element.hash(&mut kinds.1);
                if let ItemKind::Value(value) = item.kind {
                    format!("{value:?}").hash(&mut kinds.1);
                } else {
                    format!("{:?}", item.kind).hash(&mut kinds.1);
                }
            }
            Err(error) => {
                assert_eq!(
                    error.offset,
                    bytes.len(),
                    "an error is where its field starts"
                );
                assert!(usize::from(error.field) < fields.len().max(1));
                error.named(fields).to_string().hash(&mut kinds.1);
                failed = true;
            }
        }
    }
    assert_eq!(decoder.failed(), failed);
    ((kinds.0, kinds.1.finish()), bytes, decoder.offset(), failed)
}

fuzz_target!(|input: &[u8]| {
    let Some((&choice, rest)) = input.split_first() else {
        return;
    };
    let bitness = if choice & 1 == 1 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let event = match TraceLoggingEvent::parse(rest) {
        Ok(event) => event,
        Err(error) => {
            assert!(error.offset <= rest.len());
            return;
        }
    };
    let size = usize::from(event.size);
    let data = rest.get(size..).unwrap_or_default();
    let fields: heapless::Vec<FieldSchema<&str>, 64> = match event.collect_fields() {
        Ok(fields) => fields,
        Err(error) => {
            assert!(error.offset <= size, "{error}");
            return;
        }
    };
    let first = walk(&fields, data, bitness);
    assert_eq!(&first.1[..], &data[..first.2]);
    let second = walk(&fields, data, bitness);
    assert_eq!(first, second, "the walk is deterministic");
});
