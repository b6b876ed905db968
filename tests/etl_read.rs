//! The .etl reader on the real PerfView traces, compressed buffers included: every buffer and
//! every event is read, the header-type counts equal dissect.etl's, and the classic headers
//! quoted in `tests/data/perfview-full-headers.json` are found at their buffer and offset with
//! the fields dissect.etl decoded.
//!
//! Traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; a missing trace is
//! reported and skipped, or fails the test with `ETW_REQUIRE_TRACES=1` (see
//! `tests/common/mod.rs`). Under Miri the traces over 100 KB are skipped on purpose.

use std::collections::BTreeMap;

use etw_classic::{
    read::{BufferPosition, EtlBuffer, XpressHuffmanError},
    wire::CompressionFormat,
    Bitness, ClockType, EtlFile, EventKind, HeaderType, ReadError, ReadErrorKind, WmiBufferHeader,
};

mod common;

use common::trace;

fn expected() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/perfview-full-headers.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_trace_is_read_completely_with_dissect_etls_counts() {
    let json = expected();
    let files: Vec<String> = json["counts"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(files.len(), 5);
    for name in files {
        let Some(bytes) = trace(&name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        assert_eq!(
            file.bitness(),
            Bitness::Bits64,
            "{name}: all five loggers are 64-bit"
        );
        assert_eq!(
            file.logfile_header.reserved_flags(),
            ClockType::QUERY_PERFORMANCE_COUNTER
        );
        let mut scratch = vec![0u8; file.buffer_size()];
        let mut counts = BTreeMap::<String, u64>::new();
        let mut buffers = 0u32;
        let mut compressed = 0u32;
        let mut end = 0;
        for buffer in file.buffers() {
            let buffer = buffer.unwrap();
            assert_eq!(buffer.index, usize::try_from(buffers).unwrap());
            assert_eq!(buffer.file_offset, end, "{name}: buffers are contiguous");
            end = buffer.file_offset + buffer.bytes.len();
            buffers += 1;
            compressed += u32::from(buffer.is_compressed());
            let events = buffer.trace_buffer(&mut scratch).unwrap();
            for event in events.events() {
                let event =
                    event.unwrap_or_else(|error| panic!("{name} buffer {}: {error}", buffer.index));
                let kind = event.header_type.name().unwrap().to_owned();
                *counts.entry(kind).or_default() += 1;
            }
        }
        assert_eq!(end, bytes.len(), "{name}: the last buffer ends the file");
        assert_eq!(
            buffers,
            file.logfile_header.buffers_written(),
            "{name}: BuffersWritten"
        );
        let expected: BTreeMap<String, u64> = json["counts"][&name]
            .as_object()
            .unwrap()
            .iter()
            .map(|(kind, count)| (kind.clone(), count.as_u64().unwrap()))
            .collect();
        assert_eq!(counts, expected, "{name}");
        eprintln!("{name}: {buffers} buffers ({compressed} compressed), {counts:?}");
    }
}

#[test]
fn classic_headers_are_where_dissect_etl_found_them() {
    let json = expected();
    let (mut checked, mut skipped) = (0, 0);
    for vector in json["vectors"].as_array().unwrap() {
        let name = vector["file"].as_str().unwrap();
        let Some(bytes) = trace(name) else {
            skipped += 1;
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        let index = usize::try_from(vector["buffer"].as_u64().unwrap()).unwrap();
        let offset = usize::try_from(vector["offset"].as_u64().unwrap()).unwrap();
        let buffer = file.buffers().nth(index).unwrap().unwrap();
        let mut scratch = vec![0u8; file.buffer_size()];
        let events = buffer.trace_buffer(&mut scratch).unwrap();
        let event = events
            .events()
            .map(Result::unwrap)
            .find(|event| event.offset == offset)
            .unwrap_or_else(|| panic!("{}: no event at the offset", vector["name"]));
        let EventKind::Full { header, .. } = event.kind() else {
            panic!("{}: not a full header", vector["name"]);
        };
        let fields = &vector["fields"];
        let hex: String = event.bytes[..0x30]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(hex, vector["hex"].as_str().unwrap());
        assert_eq!(u64::from(header.size), fields["size"].as_u64().unwrap());
        assert_eq!(
            u64::from(header.class.event_type.0),
            fields["class_type"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(header.class.level.0),
            fields["class_level"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(header.class.version),
            fields["class_version"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(header.thread_id),
            fields["thread_id"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(header.process_id),
            fields["process_id"].as_u64().unwrap()
        );
        assert_eq!(header.timestamp, fields["timestamp"].as_i64().unwrap());
        assert_eq!(
            header.guid.guid().to_string(),
            fields["guid"].as_str().unwrap()
        );
        assert_eq!(
            u64::from(header.times.kernel_time()),
            fields["kernel_time"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(header.times.user_time()),
            fields["user_time"].as_u64().unwrap()
        );
        checked += 1;
    }
    assert_eq!(checked + skipped, 30);
    assert!(checked > 0 || skipped == 30);
}

#[test]
fn truncated_and_corrupt_files_give_errors_with_offsets() {
    let Some(bytes) = trace("primitive-types.etl") else {
        return;
    };
    // Cut inside the second buffer's header: the first buffer reads, the second does not.
    let cut = &bytes[..0x2000 + 0x20];
    let file = EtlFile::parse(cut).unwrap();
    let results: Vec<_> = file.buffers().collect();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[1],
        Err(ReadError::new(
            Some(BufferPosition {
                index: 1,
                file_offset: 0x2000
            }),
            ReadErrorKind::BufferHeaderTruncated {
                needed: 0x48,
                available: 0x20
            }
        ))
    );
    // A second buffer claiming more bytes than the file has.
    let mut corrupt = bytes.clone();
    corrupt[0x2000..0x2004].copy_from_slice(&0x10_0000u32.to_le_bytes());
    let file = EtlFile::parse(&corrupt).unwrap();
    assert_eq!(
        file.buffers().nth(1),
        Some(Err(ReadError::new(
            Some(BufferPosition {
                index: 1,
                file_offset: 0x2000
            }),
            ReadErrorKind::BufferSizeOutOfRange {
                buffer_size: 0x10_0000,
                min: 0x48,
                max: 0x2000
            }
        )))
    );
    // A BufferSize of zero would never advance: an error, and the walk ends.
    corrupt[0x2000..0x2004].fill(0);
    let file = EtlFile::parse(&corrupt).unwrap();
    let mut buffers = file.buffers();
    assert!(buffers.next().unwrap().is_ok());
    assert!(matches!(
        buffers.next(),
        Some(Err(ReadError {
            kind: ReadErrorKind::BufferSizeOutOfRange { buffer_size: 0, .. },
            ..
        }))
    ));
    assert_eq!(buffers.next(), None);
    // No file at all, and a first buffer without its logfile header.
    assert!(matches!(
        EtlFile::parse(&[]),
        Err(ReadError {
            buffer: Some(BufferPosition {
                index: 0,
                file_offset: 0
            }),
            kind: ReadErrorKind::BufferHeaderTruncated { .. },
            ..
        })
    ));
    let mut no_header = bytes[..0x2000].to_vec();
    no_header[0x48..0x4C].fill(0xFF);
    let error = EtlFile::parse(&no_header).unwrap_err();
    assert_eq!(error.kind, ReadErrorKind::MissingLogfileHeader);
    assert_eq!(
        error.to_string(),
        "buffer 0 at file offset 0x0: expected the logfile header event at the start of the \
         first buffer, found no event"
    );
}

#[test]
fn a_malformed_first_event_is_the_walks_error() {
    // A first buffer of 0x100 bytes whose events run to its end.
    let mut bytes = [0xFFu8; 0x100];
    let header = WmiBufferHeader {
        buffer_size: 0x100,
        offset: 0x100,
        ..WmiBufferHeader::default()
    };
    header.emit(&mut bytes).unwrap();
    // No TRACE_HEADER_FLAG where the logfile header event should start.
    bytes[0x48..0x4C].copy_from_slice(&[0x30, 0x00, 0x02, 0x40]);
    assert_eq!(
        EtlFile::parse(&bytes).unwrap_err().kind,
        ReadErrorKind::NotAnEventHeader {
            offset: 0,
            found: 0x4002_0030
        }
    );
    // A SYSTEM64 header whose Size runs past the 0xB8 bytes of events.
    bytes[0x48..0x4E].copy_from_slice(&[0x02, 0x00, 0x02, 0xC0, 0x00, 0x02]);
    assert_eq!(
        EtlFile::parse(&bytes).unwrap_err().kind,
        ReadErrorKind::EventSizeBeyondBuffer {
            offset: 0,
            header_type: HeaderType::SYSTEM64,
            size: 0x200,
            available: 0xB8
        }
    );
}

#[test]
fn corrupt_compressed_buffers_are_refused() {
    let Some(bytes) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let file = EtlFile::parse(&bytes).unwrap();
    let buffer = file.buffers().nth(1).unwrap().unwrap();
    assert!(buffer.is_compressed());
    let mut scratch = vec![0u8; file.buffer_size()];
    // Too little scratch for what Offset says.
    let mut small = vec![0u8; 0x100];
    assert!(matches!(
        buffer.trace_buffer(&mut small),
        Err(ReadError {
            buffer: Some(BufferPosition { index: 1, .. }),
            kind: ReadErrorKind::BufferOffsetOutOfRange { .. },
            ..
        })
    ));
    // A stream cut short decompresses to less than Offset says, or fails; either way the error
    // names the buffer, and a decompression error is its source.
    let mut cut = buffer;
    cut.bytes = &buffer.bytes[..buffer.bytes.len() / 2];
    let error = cut.trace_buffer(&mut scratch).unwrap_err();
    assert_eq!(error.buffer, Some(buffer.position()));
    let text = error.to_string();
    let prefix = format!(
        "buffer 1 at file offset {:#x}: compressed events: ",
        buffer.file_offset
    );
    assert!(text.starts_with(&prefix), "{text}");
    let expected_len = buffer.header.offset as usize - 0x48;
    match error.kind {
        ReadErrorKind::Decompress(lz77) => {
            let source = std::error::Error::source(&error).expect("the LZ77 error under it");
            assert_eq!(source.to_string(), lz77.to_string());
            assert!(text.ends_with(&lz77.to_string()), "{text}");
        }
        ReadErrorKind::DecompressedLengthMismatch { expected, found } => {
            assert_eq!(expected, expected_len);
            assert!(found < expected);
            assert!(std::error::Error::source(&error).is_none());
            assert!(
                text.ends_with(&format!(
                    "decompressed data ends at byte {found}, {expected} expected (the buffer's \
                     Offset - 0x48)"
                )),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A corrupt Offset is reported as that, before anything is decompressed.
    let mut header_bytes = buffer.bytes.to_vec();
    header_bytes[0x30..0x34].copy_from_slice(&0x40u32.to_le_bytes());
    let corrupt =
        etw_classic::read::EtlBuffer::parse(&header_bytes, 1, buffer.file_offset).unwrap();
    let error = corrupt.trace_buffer(&mut scratch).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "buffer 1 at file offset {:#x}: WMI_BUFFER_HEADER.Offset: expected between 0x48 and \
             {:#x}, found 0x40",
            buffer.file_offset,
            0x48 + scratch.len()
        )
    );
    // The intact buffer still reads.
    assert!(buffer.trace_buffer(&mut scratch).is_ok());
}

#[test]
fn a_compressed_buffer_whose_state_names_lznt1_or_xpress_huffman_is_decoded_so_unless_plain_lz77() {
    let Some(bytes) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let file = EtlFile::parse(&bytes).unwrap();
    let buffer = file.buffers().nth(1).unwrap().unwrap();
    assert!(buffer.is_compressed());
    // As stored: State 3, which decodes as Plain LZ77 (COMPRESSION_FORMAT_XPRESS).
    assert_eq!(buffer.header.state, 3);
    assert_eq!(buffer.compression_format(), Some(CompressionFormat::XPRESS));
    let mut scratch = vec![0xA5u8; file.buffer_size()];
    let events = buffer
        .trace_buffer(&mut scratch)
        .unwrap()
        .event_bytes()
        .len();
    assert_eq!(events, buffer.header.offset as usize - 0x48);

    // The same buffer with the low word of State (0x2C) patched; the high word is kept out of
    // the format.
    let patched = |state: u32| {
        let mut copy = buffer.bytes.to_vec();
        copy[0x2C..0x30].copy_from_slice(&state.to_le_bytes());
        copy
    };
    // With a stream that is not Plain LZ77 (its first flags word says 32 literals, more than
    // the stream holds after it is cut to 16 bytes), the bytes are decoded in the format the
    // word names, and its error reported: 16 zero bytes are an LZNT1 buffer that ends at once
    // (a chunk header of 0), shorter than `Offset` says, and too short for an LZ77+Huffman
    // table.
    for (state, name) in [(2, "LZNT1"), (4, "XPRESS_HUFF"), (0x0007_0002, "LZNT1")] {
        let mut copy = patched(state);
        copy.truncate(0x48 + 16);
        copy[0..4].copy_from_slice(&(0x48u32 + 16).to_le_bytes()); // BufferSize
        copy[0x48..0x4C].fill(0);
        let patched = EtlBuffer::parse(&copy, 1, buffer.file_offset).unwrap();
        assert_eq!(
            patched.compression_format().map(|format| format.0),
            Some(state as u16)
        );
        let mut scratch = vec![0xA5u8; file.buffer_size()];
        let error = patched.trace_buffer(&mut scratch).unwrap_err();
        let expected = buffer.header.offset as usize - 0x48;
        let kind = if name == "LZNT1" {
            ReadErrorKind::DecompressedLengthMismatch { expected, found: 0 }
        } else {
            ReadErrorKind::XpressHuffman(XpressHuffmanError::TableTruncated {
                offset: 0,
                available: 16,
            })
        };
        assert_eq!(error, ReadError::new(Some(buffer.position()), kind));
        if name == "XPRESS_HUFF" {
            assert_eq!(
                error.to_string(),
                format!(
                    "buffer 1 at file offset {:#x}: compressed events (State names \
                     COMPRESSION_FORMAT_XPRESS_HUFF, not Plain LZ77): LZ77+Huffman: expected a \
                     256-byte table of code lengths (or the end of the input), found 16 bytes at \
                     offset 0x0",
                    buffer.file_offset
                )
            );
            assert!(std::error::Error::source(&error).is_some());
        }
    }

    // Every value is decoded as Plain LZ77 first, as every compressed buffer seen so far needs:
    // the same events as with State 3. A 2 or a 4 whose bytes are Plain LZ77 (a buffer pending
    // compression, or a context-switch buffer, by the other reading of State) decodes too.
    for state in [0, 1, 2, 3, 4, 5, 0xFFFF, 0x0004_0003, 0x0007_0002] {
        let copy = patched(state);
        let patched = EtlBuffer::parse(&copy, 1, buffer.file_offset).unwrap();
        let mut other = vec![0u8; file.buffer_size()];
        let decoded = patched
            .trace_buffer(&mut other)
            .unwrap()
            .event_bytes()
            .to_vec();
        assert_eq!(
            decoded,
            scratch_events(&buffer, file.buffer_size()),
            "State {state:#x}"
        );
    }

    // An uncompressed buffer has no compression format, whatever its State.
    let first = file.buffers().next().unwrap().unwrap();
    assert!(!first.is_compressed());
    assert_eq!(first.compression_format(), None);
}

/// The events of a compressed buffer, decompressed into fresh scratch space.
fn scratch_events(buffer: &EtlBuffer<'_>, size: usize) -> Vec<u8> {
    let mut scratch = vec![0u8; size];
    buffer
        .trace_buffer(&mut scratch)
        .unwrap()
        .event_bytes()
        .to_vec()
}

#[test]
fn buffers_can_be_read_one_at_a_time() {
    let Some(bytes) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    for from_file in file.buffers().map(Result::unwrap) {
        // What a reader holding only this buffer's bytes gets.
        let alone =
            bytes[from_file.file_offset..from_file.file_offset + from_file.bytes.len()].to_vec();
        let buffer =
            etw_classic::read::EtlBuffer::parse(&alone, from_file.index, from_file.file_offset)
                .unwrap();
        assert_eq!(buffer, from_file);
        let count = buffer.trace_buffer(&mut scratch).unwrap().events().count();
        assert!(count > 0);
    }
    assert!(matches!(
        etw_classic::read::EtlBuffer::parse(&bytes[..0x40], 0, 0),
        Err(ReadError {
            kind: ReadErrorKind::BufferHeaderTruncated {
                needed: 0x48,
                available: 0x40,
            },
            ..
        })
    ));
}
