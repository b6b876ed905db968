//! An .etl file whose second buffer is compressed with LZNT1 or LZ77+Huffman by a compressor
//! written independently of this crate (`tests/data/compression-vectors.json`, written by
//! `tools/compression-vectors/generate.py` with the PyPI packages `lznt1` and `ntcompress`), its
//! `State` naming the format: the reader decompresses it and walks every event back, in memory
//! (`EtlFile`) and, with the `std` feature, streaming (`EtlReader`). The same bytes under a
//! `State` of 3 (Plain LZ77) are refused with the Plain LZ77 error; a corrupt stream in the
//! named format is that format's error, with the buffer's index and file offset.
//!
//! Not under Miri, which takes minutes to parse the JSON.

use etw_classic::read::BufferPosition;
use etw_classic::wire::{BufferFlags, VersionDetail};
use etw_classic::{
    Bitness, ClockType, EtlFile, EtlHeader, HeaderType, ReadError, ReadErrorKind, WmiBufferHeader,
};
use serde_json::Value;

/// The logfile header's `BufferSize`.
const BUFFER_SIZE: usize = 0x1000;
/// `State`'s low word: `COMPRESSION_FORMAT_LZNT1` and `COMPRESSION_FORMAT_XPRESS_HUFF`.
const LZNT1: u32 = 2;
const XPRESS_HUFF: u32 = 4;

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

/// One compression of the buffer's events: its format, its compressor and the compressed bytes.
type Compressed = (String, String, Vec<u8>);

/// The three compressions of the buffer's events, and the events.
fn vectors() -> (Vec<Compressed>, Vec<u8>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/compression-vectors.json"
    );
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut events = None;
    let found = document["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|vector| vector["name"] == "40 FULL_HEADER64 events")
        .map(|vector| {
            events = Some(hex(vector["decompressed"].as_str().unwrap()));
            (
                vector["format"].as_str().unwrap().to_owned(),
                vector["compressor"].as_str().unwrap().to_owned(),
                hex(vector["compressed"].as_str().unwrap()),
            )
        })
        .collect::<Vec<_>>();
    assert_eq!(found.len(), 3);
    (found, events.unwrap())
}

/// A file of two buffers: the logfile header's, then `compressed` as the events of a compressed
/// buffer whose `State` is `state` and whose `Offset` says `events_len` bytes of events.
fn etl_file(compressed: &[u8], events_len: usize, state: u32) -> Vec<u8> {
    let mut file = vec![0; BUFFER_SIZE];
    let mut header = EtlHeader::new(Bitness::Bits64, BUFFER_SIZE as u32);
    header.buffers_written = 2;
    header.number_of_processors = 1;
    header.cpu_speed_in_mhz = 100;
    header.timer_resolution = 156_250;
    header.clock_type = ClockType::SYSTEM_TIME;
    header.perf_freq = 10_000_000;
    header.version = VersionDetail::default();
    header.logger_name = "compressed";
    header.log_file_name = "compressed.etl";
    header.write_first_buffer(&mut file).unwrap();
    let buffer = WmiBufferHeader {
        buffer_size: u32::try_from(WmiBufferHeader::LEN + compressed.len()).unwrap(),
        saved_offset: u32::try_from(WmiBufferHeader::LEN + events_len).unwrap(),
        offset: u32::try_from(WmiBufferHeader::LEN + events_len).unwrap(),
        buffer_flag: BufferFlags::COMPRESSED,
        state,
        ..WmiBufferHeader::default()
    };
    file.extend_from_slice(&buffer.to_bytes());
    file.extend_from_slice(compressed);
    file
}

/// The offsets and sizes of the events of `bytes`, walked, and checks that each is a
/// FULL_HEADER64 event.
fn walk(bytes: &[u8]) -> Vec<(usize, u16)> {
    etw_classic::Events::new(bytes)
        .map(|event| {
            let event = event.unwrap();
            assert_eq!(event.header_type, HeaderType::FULL_HEADER64);
            (event.offset, event.size)
        })
        .collect()
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn a_buffer_compressed_as_its_state_says_is_read_back_event_by_event() {
    let (vectors, events) = vectors();
    let expected = walk(&events);
    assert_eq!(expected.len(), 40);
    // The last event and its padding to 8 bytes end the events.
    assert_eq!(
        (expected[39].0 + usize::from(expected[39].1)).next_multiple_of(8),
        events.len()
    );
    for (format, compressor, compressed) in &vectors {
        let state = if format == "lznt1" {
            LZNT1
        } else {
            XPRESS_HUFF
        };
        // The high word of State is not part of the format.
        for state in [state, 0x0001_0000 | state] {
            let file = etl_file(compressed, events.len(), state);
            let etl = EtlFile::parse(&file).unwrap();
            let mut scratch = vec![0xA5u8; etl.buffer_size()];
            let buffers: Vec<_> = etl.buffers().map(Result::unwrap).collect();
            assert_eq!(buffers.len(), 2);
            let buffer = buffers[1];
            assert!(buffer.is_compressed());
            let decoded = buffer
                .trace_buffer(&mut scratch)
                .unwrap_or_else(|error| panic!("{format} by {compressor}: {error}"));
            assert_eq!(
                decoded.event_bytes(),
                &events[..],
                "{format} by {compressor}"
            );
            assert_eq!(walk(decoded.event_bytes()), expected);
            assert_eq!(decoded.events().count(), 40);
            #[cfg(feature = "std")]
            {
                let mut reader = etw_classic::EtlReader::new(std::io::Cursor::new(&file)).unwrap();
                let mut seen = Vec::new();
                while let Some(buffer) = reader.next_buffer() {
                    let buffer = buffer.unwrap();
                    if buffer.trace_buffer.header.is_compressed() {
                        seen.push(buffer.trace_buffer.event_bytes().to_vec());
                    }
                }
                assert_eq!(
                    seen,
                    std::slice::from_ref(&events),
                    "EtlReader, {format} by {compressor}"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn the_same_bytes_under_another_state_are_the_plain_lz77_error() {
    let (vectors, events) = vectors();
    for (format, compressor, compressed) in &vectors {
        let file = etl_file(compressed, events.len(), 3);
        let etl = EtlFile::parse(&file).unwrap();
        let mut scratch = vec![0u8; etl.buffer_size()];
        let buffer = etl.buffers().nth(1).unwrap().unwrap();
        let error = buffer.trace_buffer(&mut scratch).unwrap_err();
        assert!(
            matches!(
                error.kind,
                ReadErrorKind::Decompress(_) | ReadErrorKind::DecompressedLengthMismatch { .. }
            ),
            "{format} by {compressor}: {error:?}"
        );
    }
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn a_corrupt_stream_in_the_named_format_is_that_formats_error() {
    let (vectors, events) = vectors();
    let position = Some(BufferPosition {
        index: 1,
        file_offset: BUFFER_SIZE,
    });
    for (format, compressor, compressed) in &vectors {
        let state = if format == "lznt1" {
            LZNT1
        } else {
            XPRESS_HUFF
        };
        // Cut short: an LZNT1 chunk that runs past the input, or a Huffman bit stream whose
        // next word is missing.
        let cut = &compressed[..compressed.len() / 2];
        let file = etl_file(cut, events.len(), state);
        let etl = EtlFile::parse(&file).unwrap();
        let mut scratch = vec![0u8; etl.buffer_size()];
        let error = etl
            .buffers()
            .nth(1)
            .unwrap()
            .unwrap()
            .trace_buffer(&mut scratch)
            .unwrap_err();
        assert_eq!(error.buffer, position, "{format} by {compressor}");
        let source = std::error::Error::source(&error).unwrap().to_string();
        match error.kind {
            ReadErrorKind::Lznt1(inner) => {
                assert_eq!(format, "lznt1");
                assert_eq!(source, inner.to_string());
                assert!(source.starts_with("LZNT1: "), "{source}");
            }
            ReadErrorKind::XpressHuffman(inner) => {
                assert_eq!(format, "xpress_huffman");
                assert_eq!(source, inner.to_string());
                assert!(source.starts_with("LZ77+Huffman: "), "{source}");
            }
            other => panic!("{format} by {compressor}: {other:?}"),
        }
        let text = error.to_string();
        assert!(
            text.starts_with("buffer 1 at file offset 0x1000: compressed events (State names"),
            "{text}"
        );
        // A stream that decodes to fewer bytes than `Offset` says.
        let file = etl_file(compressed, events.len() + 8, state);
        let etl = EtlFile::parse(&file).unwrap();
        let error = etl
            .buffers()
            .nth(1)
            .unwrap()
            .unwrap()
            .trace_buffer(&mut scratch)
            .unwrap_err();
        assert_eq!(
            error,
            ReadError::new(
                position,
                ReadErrorKind::DecompressedLengthMismatch {
                    expected: events.len() + 8,
                    found: events.len()
                }
            ),
            "{format} by {compressor}"
        );
    }
}
