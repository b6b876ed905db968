//! Arbitrary bytes walked as the events of a trace buffer, and read as a whole buffer whose
//! classic events are delivered and whose instance events build an instance tree.
//!
//! The input is used twice: as the bytes of `Events::new`, and as a buffer for
//! `TraceBuffer::parse`. Laws checked (the walk's in `etw_classic_fuzz::check_events`):
//! - each event the walk yields starts where `Events::offset()` said, 8-aligned and strictly
//!   after the previous one, and `offset + Size <= len`; its bytes are the input slice at that
//!   offset; its header type, marker flags and `Size` are what its first bytes say;
//! - each event's header (`EVENT_TRACE_HEADER`, `EVENT_INSTANCE_GUID_HEADER`,
//!   `SYSTEM_TRACE_HEADER`) decodes and re-encodes to its own bytes, and `parse_event` of the
//!   event accepts it exactly when its marker flags are 0xC0;
//! - the walk ends without an error only past the bytes, at fewer than four bytes or at the end
//!   mark 0xFFFFFFFF; an error carries the offset `offset()` gave, inside the bytes, names a
//!   violation the bytes there have, and is followed by `None` for ever;
//! - `TraceBuffer::parse` succeeds exactly when the input holds a 0x48-byte header without
//!   `ETW_BUFFER_FLAG_COMPRESSED` whose `Offset` lies in `0x48..=len`, and fails with the
//!   documented error otherwise; its event bytes are the input from 0x48 to `Offset`, and
//!   `events()` is the walk of them;
//! - `classic_events(Bits32/Bits64)` yields `deliver` of each walked `FULL_HEADER32/64` and
//!   `INSTANCE32/64` event in order, then the walk's error: as many events as the walk has
//!   classic ones; `deliver` gives `None` for the others and, for a classic one, the
//!   `EVENT_TRACE` with the event's header and instance fields, `MofData` the data's offset
//!   from the buffer start, `MofLength` its length and the buffer's `ClientContext`;
//! - an `InstanceTree` built from the delivered instance events matches a model of `add`
//!   (first parent named sticks, conflicts counted, `InstanceTreeFull` leaves it unchanged),
//!   and `get`, `parent`, `children`, `roots` and `depth` never panic and agree with it: a
//!   parent returned has the parent key named, and `depth` is `None` only for a loop.
#![no_main]

use etw_classic::{Error, TraceBuffer, WmiBufferHeader};
use etw_classic_fuzz::{check_buffer, check_events, TreeCheck};
use libfuzzer_sys::fuzz_target;

/// Instances the tree has room for: few, so that fuzzing fills it.
const TREE_CAPACITY: usize = 8;

/// `TraceBuffer::parse` is `Ok` exactly when the documentation says, with the documented error
/// otherwise.
fn check_parse(data: &[u8]) -> Option<TraceBuffer<'_>> {
    let result = TraceBuffer::parse(data);
    let Some(prefix) = data.first_chunk::<{ WmiBufferHeader::LEN }>() else {
        assert_eq!(
            result,
            Err(Error::Truncated {
                layout: WmiBufferHeader::LAYOUT,
                needed: WmiBufferHeader::LEN,
                found: data.len(),
            })
        );
        return None;
    };
    let header = WmiBufferHeader::from_bytes(prefix);
    if header.is_compressed() {
        assert_eq!(
            result,
            Err(Error::CompressedBuffer {
                buffer_flag: header.buffer_flag,
            })
        );
        return None;
    }
    let end = header.offset as usize;
    if !(WmiBufferHeader::LEN..=data.len()).contains(&end) {
        assert_eq!(
            result,
            Err(Error::BufferOffsetOutOfRange {
                offset: header.offset,
                min: WmiBufferHeader::LEN,
                max: data.len(),
            })
        );
        return None;
    }
    let buffer = result.expect("a buffer the documentation accepts");
    assert_eq!(buffer.header, header);
    let events = buffer.event_bytes();
    assert_eq!(events.len(), end - WmiBufferHeader::LEN);
    assert_eq!(events.as_ptr(), data[WmiBufferHeader::LEN..].as_ptr());
    assert_eq!(TraceBuffer::from_parts(header, events), buffer);
    Some(buffer)
}

fuzz_target!(|data: &[u8]| {
    let _ = check_events(data);

    if let Some(buffer) = check_parse(data) {
        let mut tree = TreeCheck::<TREE_CAPACITY>::new();
        check_buffer(&buffer, &mut tree);
        tree.check_queries();
    }
});
