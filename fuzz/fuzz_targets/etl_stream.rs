//! Arbitrary bytes read as an .etl file by the streaming reader (`EtlReader` over a `Cursor`,
//! feature `std`), compared with the in-memory reader (`EtlFile::parse` over the same bytes),
//! which the `etl_reader` target checks against the rules.
//!
//! Laws, on any bytes, besides never panicking:
//! - `EtlReader::new` fails exactly when `EtlFile::parse` does, with `NotAnEtl` holding the
//!   file's first (up to 8) bytes and the same error; the one difference allowed is a first
//!   `BufferSize` below 0x48 or above `MAX_BUFFER_SIZE`, which the streaming reader reports as
//!   `BufferSizeBeyondLimits` from the header alone where `EtlFile` says
//!   `BufferSizeOutOfRange` (the file is shorter than the claim: inputs are below 16 MiB).
//!   On success both give the same buffer header, logfile header, names, bitness and
//!   `BufferSize`.
//! - `next_buffer` then yields, in order, what `EtlFile::buffers` and `EtlBuffer::trace_buffer`
//!   give: each buffer at the same index and file offset, with the same header, the processor
//!   of its `ETW_BUFFER_CONTEXT` (`ProcessorIndex` with `ETW_BUFFER_FLAG_PROC_INDEX` 0x20, else
//!   `ProcessorNumber`), the same events and the same error among them; the same error for a
//!   buffer that does not decompress; the same framing error (or `BufferSizeBeyondLimits` for
//!   the same `BufferSize`), after which it is done; a file that ends between two buffers
//!   before the logfile header's `BuffersWritten` (and is not circular) ends with the same
//!   `FileEndsBeforeBuffersWritten` from both. When `EtlFile`'s walk ends cleanly, the
//!   streaming reader ends too. After its last item it yields `None` for ever.
//! - `for_each_event` hands over the events of that walk up to its first error, which it
//!   returns, and is done after it; `read_stored_buffer` reads the same buffers as stored.
//! - `for_each_event_in_time_order` gives what `etw_classic_fuzz::time_order` says from that
//!   walk: one error for each buffer whose processor the logfile header does not count, every
//!   other event and error of the walk exactly once, each processor's events in its chain's
//!   order, merged by timestamp when the chains are sorted, in memory within the documented
//!   bound; then the reader is done.
#![no_main]

use std::io::Cursor;

use etw_classic::{
    read::{StoredBuffer, MAX_BUFFER_SIZE},
    EtlFile, EtlReader, EtlReaderError, ReadError, ReadErrorKind,
};
use etw_classic_fuzz::model::{le16, BUFFER_HEADER_LEN};
use etw_classic_fuzz::time_order::{self, CountingAllocator, Walked, WalkedBuffer, WalkedEvent};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// `ETW_BUFFER_FLAG_PROC_INDEX` (ntwmi.h), in `BufferFlag` (u16 @0x34).
const BUFFER_FLAG_PROC_INDEX: u16 = 0x20;
/// `EVENT_TRACE_FILE_MODE_CIRCULAR` (evntrace.h), in `LogFileMode`.
const FILE_MODE_CIRCULAR: u32 = 0x2;

/// One event of the walk: buffer index and file offset, event offset, bytes.
type Seen = (usize, usize, usize, Vec<u8>);

/// The processor a buffer's header names (EVENT-HEADERS.md section 7).
fn processor(stored: &[u8]) -> u16 {
    if le16(stored, 0x34) & BUFFER_FLAG_PROC_INDEX != 0 {
        le16(stored, 0x28)
    } else {
        u16::from(stored[0x28])
    }
}

/// The reader's error as a `ReadError`; any other kind is a finding.
fn read_error(error: EtlReaderError) -> ReadError {
    match error {
        EtlReaderError::Read(error) => error,
        other => panic!("a ReadError expected, found {other:?}"),
    }
}

/// Whether the streaming reader's framing error `streamed` is what `EtlFile`'s `expected` allows.
fn same_framing_error(streamed: ReadError, expected: ReadError) -> bool {
    if streamed == expected {
        return true;
    }
    match (streamed.kind, expected.kind) {
        (
            ReadErrorKind::BufferSizeBeyondLimits {
                buffer_size,
                min,
                max,
            },
            ReadErrorKind::BufferSizeOutOfRange {
                buffer_size: found, ..
            },
        ) => {
            let size = buffer_size as usize;
            streamed.buffer == expected.buffer
                && buffer_size == found
                && (min, max) == (BUFFER_HEADER_LEN, MAX_BUFFER_SIZE)
                && !(BUFFER_HEADER_LEN..=MAX_BUFFER_SIZE).contains(&size)
        }
        _ => false,
    }
}

/// Walks `EtlFile` and the streaming reader side by side (the second law); returns the events
/// and the first error of the walk, and the walk as the time order's laws take it.
fn lockstep(data: &[u8], file: &EtlFile<'_>) -> (Vec<Seen>, Option<ReadError>, Walked) {
    let mut reader = EtlReader::new(Cursor::new(data)).expect("EtlFile::parse accepted it");
    assert_eq!(reader.first_buffer(), file.first_buffer);
    assert_eq!(reader.system_header(), file.system_header);
    assert_eq!(reader.logfile_header(), file.logfile_header);
    assert_eq!(reader.names(), file.names);
    assert_eq!(reader.bitness(), file.bitness());
    assert_eq!(reader.buffer_size(), file.buffer_size());

    let mut scratch = vec![0u8; file.buffer_size()];
    let mut seen = Vec::new();
    let mut first_error = None;
    let mut walked = Walked {
        buffer_size: file.buffer_size(),
        ..Walked::default()
    };
    let mut buffers = 0;
    let mut framing_error = false;
    for buffer in file.buffers() {
        let streamed = reader.next_buffer().expect("a buffer EtlFile finds");
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(expected) => {
                let error = read_error(streamed.expect_err("EtlFile's framing error"));
                assert!(
                    same_framing_error(error, expected),
                    "EtlReader: {error:?}, EtlFile: {expected:?}"
                );
                first_error.get_or_insert(error);
                walked.errors.push(error);
                framing_error = true;
                break;
            }
        };
        buffers += 1;
        let decoded = buffer.trace_buffer(&mut scratch);
        walked.buffers.push(WalkedBuffer {
            position: buffer.position(),
            stored_len: buffer.bytes.len(),
            decoded_len: decoded
                .as_ref()
                .ok()
                .map(|trace_buffer| trace_buffer.event_bytes().len()),
        });
        match (decoded, streamed) {
            (Ok(expected), Ok(streamed)) => {
                assert_eq!(streamed.position, buffer.position());
                assert_eq!(streamed.header(), buffer.header);
                assert_eq!(streamed.stored_len, buffer.bytes.len());
                assert_eq!(streamed.processor, processor(buffer.bytes));
                let mut expected_events = expected.events();
                for event in streamed.events() {
                    assert_eq!(Some(&event), expected_events.next().as_ref());
                    match event {
                        Ok(event) => {
                            seen.push((
                                buffer.index,
                                buffer.file_offset,
                                event.offset,
                                event.bytes.to_vec(),
                            ));
                            walked.events.push(WalkedEvent {
                                index: buffer.index,
                                offset: event.offset,
                                bytes: event.bytes.to_vec(),
                                timestamp: event.timestamp(),
                            });
                        }
                        Err(error) => {
                            first_error.get_or_insert(error);
                            walked.errors.push(error);
                        }
                    }
                }
                assert!(expected_events.next().is_none(), "events left");
            }
            (Err(expected), Err(streamed)) => {
                let error = read_error(streamed);
                assert_eq!(error, expected);
                first_error.get_or_insert(error);
                walked.errors.push(error);
            }
            (expected, streamed) => panic!("EtlFile: {expected:?}, EtlReader: {streamed:?}"),
        }
    }
    let last = reader.next_buffer().map(|item| item.map(|_| ()));
    // `EtlFile` ends a file cut between two buffers as the streaming reader does: with the
    // same `FileEndsBeforeBuffersWritten`, met above as its last framing error.
    assert!(last.is_none(), "{last:?} after EtlFile's last item");
    if !framing_error {
        let written = file.logfile_header.buffers_written();
        let circular = file.logfile_header.log_file_mode() & FILE_MODE_CIRCULAR != 0;
        assert!(
            written as usize <= buffers || circular,
            "EtlFile ended cleanly before the {written} buffers of BuffersWritten"
        );
    }
    assert!(reader.is_done());
    assert!(reader.next_buffer().is_none());
    assert!(reader.next_buffer().is_none());
    (seen, first_error, walked)
}

fuzz_target!(|data: &[u8]| {
    let file = match (EtlFile::parse(data), EtlReader::new(Cursor::new(data))) {
        (Ok(file), Ok(_)) => file,
        (
            Err(expected),
            Err(EtlReaderError::NotAnEtl {
                first_bytes,
                len,
                error,
            }),
        ) => {
            let shown = data.len().min(8);
            assert_eq!((len, &first_bytes[..len]), (shown, &data[..shown]));
            assert!(
                same_framing_error(error, expected),
                "EtlReader::new: {error:?}, EtlFile::parse: {expected:?}"
            );
            return;
        }
        (file, reader) => panic!("EtlFile::parse: {file:?}, EtlReader::new: {reader:?}"),
    };

    let (seen, first_error, walked) = lockstep(data, &file);

    // for_each_event: the same events up to the first error, which it returns.
    let mut reader = EtlReader::new(Cursor::new(data)).unwrap();
    let mut handed = Vec::new();
    let result = reader.for_each_event(|buffer, event| {
        handed.push((
            buffer.position.index,
            buffer.position.file_offset,
            event.offset,
            event.bytes.to_vec(),
        ))
    });
    match (result, first_error) {
        (Ok(()), None) => assert!(handed == seen),
        (Err(error), Some(expected)) => {
            assert_eq!(read_error(error), expected);
            assert!(seen.starts_with(&handed));
            let position = expected.buffer.expect("every error names its buffer");
            assert!(handed.iter().all(|(index, ..)| *index <= position.index));
        }
        (result, expected) => panic!("for_each_event: {result:?}, the walk's error {expected:?}"),
    }
    assert!(reader.is_done());
    assert!(reader
        .for_each_event(|_, _| panic!("an event after the end"))
        .is_ok());

    // for_each_event_in_time_order: the laws of etw_classic_fuzz::time_order.
    time_order::check_time_order(data, &walked, None);

    // read_stored_buffer: the buffers as stored, the same as EtlFile's.
    let mut reader = EtlReader::new(Cursor::new(data)).unwrap();
    let mut stored = StoredBuffer::new();
    for buffer in file.buffers() {
        let Ok(buffer) = buffer else { break };
        reader
            .read_stored_buffer(&mut stored)
            .expect("a buffer EtlFile finds")
            .expect("a buffer EtlFile reads");
        assert_eq!(stored.as_etl_buffer(), buffer);
    }
});
