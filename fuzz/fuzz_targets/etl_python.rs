//! Arbitrary bytes read as an .etl file the way the Python module (`python/src/lib.rs`) reads
//! one, through the library calls it makes: `EtlReader::new`, the header it shows (names,
//! headers, bitness, clock), then the events in file order (`read_stored_buffer` and
//! `StoredBuffer::decode_growing` into a scratch that starts empty, as `FileOrder` does) and in
//! time order (`for_each_event_in_time_order` on a reader of its own, as `TimeOrder` does), and
//! `buffers_written_was_zero` at the end.
//!
//! Laws, besides never panicking:
//! - the file order gives, buffer by buffer, what `EtlReader::next_buffer` gives (which
//!   `etl_stream` checks against `EtlFile`): the same buffers, events and errors, then `None`
//!   for ever once an error has ended the reading;
//! - the scratch grows only for a compressed buffer, to the length its `Offset` says it
//!   decompresses to (`Offset` - 0x48, u32 @0x30), or to the file's `BufferSize` when that is
//!   more: never longer than `BufferSize`, never longer than the longest of those;
//! - the time order gives what `etw_classic_fuzz::time_order` says from the file order (in
//!   memory within the documented bound);
//! - `buffers_written_was_zero` is whether `BuffersWritten` (u32 @0x24 of the
//!   `TRACE_LOGFILE_HEADER`, after the 0x48-byte buffer header and the 0x20-byte
//!   `SYSTEM_TRACE_HEADER`) is 0.
#![no_main]

use std::io::Cursor;

use etw_classic::{read::StoredBuffer, EtlReader, EtlReaderError};
use etw_classic_fuzz::model::{le16, le32, BUFFER_HEADER_LEN};
use etw_classic_fuzz::time_order::{self, CountingAllocator, Walked, WalkedBuffer, WalkedEvent};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// `ETW_BUFFER_FLAG_COMPRESSED` (ntwmi.h), in `BufferFlag` (u16 @0x34).
const COMPRESSED: u16 = 0x40;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = EtlReader::new(Cursor::new(data)) else {
        return;
    };
    // What the module's header dict shows.
    let names = reader.names();
    let _ = (
        names.logger_name.to_string(),
        names.log_file_name.to_string(),
    );
    let _ = (
        reader.logfile_header(),
        reader.system_header(),
        reader.bitness(),
    );
    let _ = reader.clock();
    let buffer_size = reader.buffer_size();

    // File order, as FileOrder::next_item, next to next_buffer.
    let mut lockstep = EtlReader::new(Cursor::new(data)).unwrap();
    let mut stored = StoredBuffer::new();
    let mut scratch = Vec::new();
    let mut longest = 0;
    let mut walked = Walked {
        buffer_size,
        ..Walked::default()
    };
    loop {
        let expected = lockstep.next_buffer();
        let Some(read) = reader.read_stored_buffer(&mut stored) else {
            assert!(expected.is_none(), "next_buffer has a buffer more");
            break;
        };
        let expected = expected.expect("next_buffer has as many buffers");
        if let Err(error) = read {
            let expected = expected.expect_err("next_buffer's error");
            assert_eq!(format!("{error:?}"), format!("{expected:?}"));
            match error {
                EtlReaderError::Read(error) => walked.errors.push(error),
                other => panic!("file order: {other}"),
            }
            assert!(
                reader.read_stored_buffer(&mut stored).is_none(),
                "after the error"
            );
            assert!(reader.is_done());
            break;
        }
        let bytes = stored.bytes();
        if le16(bytes, 0x34) & COMPRESSED != 0 {
            let said = (le32(bytes, 0x30) as usize).checked_sub(BUFFER_HEADER_LEN);
            longest = longest.max(
                said.filter(|&len| len <= buffer_size)
                    .unwrap_or(buffer_size),
            );
        }
        let position = stored.position();
        let stored_len = bytes.len();
        match (stored.decode_growing(&mut scratch, buffer_size), expected) {
            (Ok(buffer), Ok(expected)) => {
                assert_eq!(buffer.position, expected.position);
                assert_eq!(buffer.processor, expected.processor);
                assert_eq!(buffer.header(), expected.header());
                assert_eq!(buffer.stored_len, stored_len);
                assert!(buffer.events().eq(expected.events()));
                walked.buffers.push(WalkedBuffer {
                    position,
                    stored_len,
                    decoded_len: Some(buffer.trace_buffer.event_bytes().len()),
                });
                for event in buffer.events() {
                    match event {
                        Ok(event) => walked.events.push(WalkedEvent {
                            index: position.index,
                            offset: event.offset,
                            bytes: event.bytes.to_vec(),
                            timestamp: event.timestamp(),
                        }),
                        Err(error) => walked.errors.push(error),
                    }
                }
            }
            (Err(EtlReaderError::Read(error)), Err(EtlReaderError::Read(expected))) => {
                assert_eq!(error, expected);
                walked.buffers.push(WalkedBuffer {
                    position,
                    stored_len,
                    decoded_len: None,
                });
                walked.errors.push(error);
            }
            (decoded, expected) => panic!("decode_growing: {decoded:?}, next_buffer: {expected:?}"),
        }
        assert!(
            scratch.len() <= buffer_size && scratch.len() == longest,
            "the scratch"
        );
    }
    assert!(lockstep.next_buffer().is_none());

    // Time order, as TimeOrder::start.
    time_order::check_time_order(data, &walked, None);

    let buffers_written = le32(data, BUFFER_HEADER_LEN + 0x20 + 0x24);
    assert_eq!(reader.buffers_written_was_zero(), buffers_written == 0);
});
