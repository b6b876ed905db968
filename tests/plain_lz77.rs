//! Decompresses every compressed buffer of the real Windows traces of the PerfView test suite
//! (see `../shared/data/perfview/PROVENANCE.md`) and compares the length and SHA-256 of the
//! result with what dissect.util's independent decompressor produced
//! (`tests/data/lz77-perfview.json`, written by `tools/lz77-vectors/extract.py`).
//!
//! What the data shows about the header of a compressed buffer in an .etl file (all 636
//! compressed buffers of the three traces that have them):
//! - `BufferSize` is 0x48 plus the compressed length, and the next buffer starts `BufferSize`
//!   bytes later;
//! - the decompressed length is `Offset - 0x48`, and `SavedOffset` equals `Offset`: `Offset` is
//!   where the events end in the buffer as it was before compression, header included;
//! - the decompressed bytes are the events that follow the header, from event offset 0.
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview` next to the
//! crate; when a trace is not there the test says so and passes without checking it, unless
//! `ETW_REQUIRE_TRACES=1` is set, which makes it fail (see `tests/common/mod.rs`). Under Miri
//! (minutes for the 150 KB of JSON alone) only `output_sized_from_the_header_is_exactly_full`
//! runs, on the smallest trace.

use etw_classic::plain_lz77::decompress;
use etw_classic::{read::Lz77Error, Events, WmiBufferHeader};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod common;
use common::trace;

fn vectors() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/lz77-perfview.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn number(record: &Value, key: &str) -> usize {
    usize::try_from(record[key].as_u64().unwrap()).unwrap()
}

/// One compressed buffer as the JSON records it.
#[derive(Debug, PartialEq)]
struct Recorded {
    buffer: usize,
    file_offset: usize,
    saved_offset: usize,
    offset: usize,
    compressed_len: usize,
    decompressed_len: usize,
    sha256: String,
}

fn recorded(json: &Value, file: &str) -> Vec<Recorded> {
    json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["file"] == file)
        .map(|record| Recorded {
            buffer: number(record, "buffer"),
            file_offset: number(record, "file_offset"),
            saved_offset: number(record, "saved_offset"),
            offset: number(record, "offset"),
            compressed_len: number(record, "compressed_len"),
            decompressed_len: number(record, "decompressed_len"),
            sha256: record["sha256"].as_str().unwrap().to_owned(),
        })
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The decompressed length follows from the header alone, in the independent data.
#[test]
fn decompressed_length_is_offset_minus_the_header() {
    if cfg!(miri) {
        eprintln!("SKIPPED under Miri: too slow");
        return;
    }
    let json = vectors();
    let buffers = json["buffers"].as_array().unwrap();
    assert_eq!(buffers.len(), 359 + 275 + 2);
    for record in buffers {
        let offset = number(record, "offset");
        assert_eq!(number(record, "saved_offset"), offset, "{record}");
        assert_eq!(
            number(record, "decompressed_len") + WmiBufferHeader::LEN,
            offset,
            "{record}"
        );
    }
}

#[test]
fn every_compressed_buffer_decompresses_as_dissect_util_does() {
    if cfg!(miri) {
        eprintln!("SKIPPED under Miri: too slow");
        return;
    }
    let json = vectors();
    let files = [
        ("net.4.5.2.x64.etl", 359),
        ("net.4.5.2.x86.etl", 275),
        ("SelfDescribingSingleEvent.etl", 2),
    ];
    // Room for more than any buffer holds: decoding must stop by itself at the input's end.
    let mut output = vec![0u8; 1 << 17];
    for (name, compressed_buffers) in files {
        let Some(file) = trace(name) else {
            continue;
        };
        let expected = recorded(&json, name);
        assert_eq!(expected.len(), compressed_buffers, "{name}");
        let mut found = Vec::new();
        let (mut start, mut index) = (0, 0);
        while start < file.len() {
            let (header, _) = WmiBufferHeader::parse(&file[start..]).unwrap();
            let buffer_size = usize::try_from(header.buffer_size).unwrap();
            let end = start + buffer_size;
            if header.is_compressed() {
                let compressed = &file[start + WmiBufferHeader::LEN..end];
                let written = decompress(compressed, &mut output)
                    .unwrap_or_else(|error| panic!("{name} buffer {index}: {error}"));
                let decompressed = &output[..written];

                // The decompressed bytes are the buffer's events, from offset 0 to the end.
                for event in Events::new(decompressed) {
                    event.unwrap_or_else(|error| panic!("{name} buffer {index}: {error}"));
                }

                found.push(Recorded {
                    buffer: index,
                    file_offset: start,
                    saved_offset: usize::try_from(header.saved_offset).unwrap(),
                    offset: usize::try_from(header.offset).unwrap(),
                    compressed_len: compressed.len(),
                    decompressed_len: written,
                    sha256: sha256_hex(decompressed),
                });
            }
            start = end;
            index += 1;
        }
        assert_eq!(start, file.len(), "{name}");
        assert_eq!(found.len(), expected.len(), "{name}");
        for (ours, theirs) in found.iter().zip(&expected) {
            assert_eq!(ours, theirs, "{name}");
        }
        eprintln!(
            "{name}: {} compressed buffers, {} bytes in, {} bytes out, as dissect.util decoded them",
            found.len(),
            found.iter().map(|r| r.compressed_len).sum::<usize>(),
            found.iter().map(|r| r.decompressed_len).sum::<usize>(),
        );
    }
}

/// A buffer sized from the header (`Offset - 0x48`) is exactly full; one byte less is too small.
#[test]
fn output_sized_from_the_header_is_exactly_full() {
    let Some(file) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let (first, _) = WmiBufferHeader::parse(&file).unwrap();
    let start = usize::try_from(first.buffer_size).unwrap();
    let (header, _) = WmiBufferHeader::parse(&file[start..]).unwrap();
    assert!(header.is_compressed());
    let end = start + usize::try_from(header.buffer_size).unwrap();
    let compressed = &file[start + WmiBufferHeader::LEN..end];
    let len = usize::try_from(header.offset).unwrap() - WmiBufferHeader::LEN;

    let mut output = vec![0u8; len];
    assert_eq!(decompress(compressed, &mut output), Ok(len));

    let mut short = vec![0u8; len - 1];
    let error = decompress(compressed, &mut short).unwrap_err();
    assert!(
        matches!(error, Lz77Error::OutputTooSmall { offset, .. } if offset < compressed.len()),
        "{error:?}"
    );
    // What was decoded before the item that did not fit is the start of the full output.
    let Lz77Error::OutputTooSmall { available, .. } = error else {
        unreachable!()
    };
    let decoded = short.len() - available;
    assert_eq!(short[..decoded], output[..decoded]);
}
