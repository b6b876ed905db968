//! Arbitrary bytes walked as the events of a trace buffer, and read as a whole buffer whose
//! classic events are delivered and whose instance events build an instance tree.
//!
//! The input is used twice: as the bytes of `Events::new`, and as a buffer for
//! `TraceBuffer::parse`. What the library gives is compared with reference models written from
//! the layouts (`etw_classic_fuzz::model`, citing `../shared/reference/LAYOUTS.md`):
//! - the walk yields exactly the events the rules find (`model::walk`): the same offsets, each
//!   8-aligned after the previous one's `Size`, header type, marker flags and `Size`, its bytes
//!   the input slice at that offset;
//! - each event's header (`EVENT_TRACE_HEADER`, `EVENT_INSTANCE_GUID_HEADER`,
//!   `SYSTEM_TRACE_HEADER`) decodes member by member at the offsets of its table, and
//!   `parse_event` of the event accepts it exactly when its marker flags are 0xC0;
//! - the walk ends where the rules end it: cleanly past the bytes, at fewer than four bytes or
//!   at the end mark 0xFFFFFFFF, or with the same error at the same offset, then `None` for ever;
//! - `TraceBuffer::parse` succeeds exactly when the input holds a 0x48-byte header without
//!   `ETW_BUFFER_FLAG_COMPRESSED` whose `Offset` lies in `0x48..=len`, and fails with the
//!   documented error otherwise; its event bytes are the input from 0x48 to `Offset`, and
//!   `events()` is the walk of them;
//! - `classic_events(Bits32/Bits64)` yields `deliver` of each walked `FULL_HEADER32/64` and
//!   `INSTANCE32/64` event in order, then the walk's error: as many events as the walk has
//!   classic ones; `deliver` gives `None` for the others and, for a classic one, the
//!   `EVENT_TRACE` whose bytes are the event's header and instance fields, `MofData` the data's
//!   offset from the buffer start, `MofLength` its length and the buffer's `ClientContext`, at
//!   the offsets of the 32- or 64-bit layout;
//! - an `InstanceTree` built from the delivered instance events matches a model of `add`
//!   (first parent named sticks, conflicts counted, `InstanceTreeFull` leaves it unchanged),
//!   and `get`, `parent`, `children`, `roots` and `depth` never panic and agree with it: a
//!   parent returned has the parent key named, and `depth` is `None` only for a loop.
#![no_main]

use etw_classic::TraceBuffer;
use etw_classic_fuzz::model::{self, BUFFER_HEADER_LEN};
use etw_classic_fuzz::{check_buffer, check_events, TreeCheck};
use libfuzzer_sys::fuzz_target;

/// Instances the tree has room for: few, so that fuzzing fills it.
const TREE_CAPACITY: usize = 8;

/// `TraceBuffer::parse` against `model::trace_buffer`: the same error, or a buffer whose header
/// is the input's first 0x48 bytes and whose events are the input from 0x48 to `Offset`.
fn check_parse(data: &[u8]) -> Option<TraceBuffer<'_>> {
    let result = TraceBuffer::parse(data);
    let end = match model::trace_buffer(data) {
        Ok(end) => end,
        Err(expected) => {
            assert_eq!(result, Err(expected.into()), "TraceBuffer::parse");
            return None;
        }
    };
    let buffer = result.expect("a buffer the rules accept");
    model::check_wmi_buffer_header(&buffer.header, data);
    let events = buffer.event_bytes();
    assert_eq!(events.len(), end - BUFFER_HEADER_LEN);
    assert_eq!(events.as_ptr(), data[BUFFER_HEADER_LEN..].as_ptr());
    assert_eq!(TraceBuffer::from_parts(buffer.header, events), buffer);
    Some(buffer)
}

fuzz_target!(|data: &[u8]| {
    let _ = check_events(data);

    if let Some(buffer) = check_parse(data) {
        let mut tree = TreeCheck::<TREE_CAPACITY>::new();
        check_buffer(&buffer, &data[..BUFFER_HEADER_LEN], &mut tree);
        tree.check_queries();
    }
});
