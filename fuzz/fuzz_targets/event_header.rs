//! Arbitrary bytes read as an `EVENT_HEADER` event and as the extended data items after one,
//! compared with the rules of `../shared/reference/EVENT-HEADERS.md` §1 and §2
//! (`etw_classic_fuzz::model`).
//!
//! Checked on each input:
//! - `EventHeader::parse` and `parse_event` never panic; they succeed exactly when the rules
//!   accept the bytes (at least 0x50 of them, marker flags 0xC0, `EVENT_HEADER32` or
//!   `EVENT_HEADER64`, a `Size` of at least 0x50 and, for `parse_event`, no more than the input),
//!   else fail with an error whose values the bytes hold;
//! - `from_bytes` of the first 0x50 bytes decodes every member at its offset, `to_bytes` gives
//!   the bytes back, and `emit` of a parsed header writes them back and nothing else;
//! - the items after the header, with the header's flags and with `EXTENDED_INFO` forced: each
//!   stays inside the event's `Size` (or the input), is where the rules put it, re-encodes
//!   exactly, and has a typed payload exactly when its data fits its type; the walk ends where
//!   the rules end it, with the user data or the same fault (`check_items`).
#![no_main]

use etw_classic::{wire::EventHeaderFlags, EventHeader};
use etw_classic_fuzz::{check_event_header_event, check_items, model};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wire = model::Wire::EventHeader;
    match (EventHeader::parse(data), wire.parse(data)) {
        (Ok((header, rest)), Ok(len)) => {
            assert_eq!(len, 0x50);
            assert_eq!(rest.as_ptr(), data[0x50..].as_ptr(), "parse: rest");
            let mut out = [0xA5u8; 0x57];
            let left = header.emit(&mut out).expect("emit into enough room");
            assert_eq!(left, [0xA5; 7], "emit wrote past the header");
            assert_eq!(&out[..0x50], &data[..0x50], "emit(parse(b)) != b");
        }
        (Err(error), Err(allowed)) => {
            assert!(
                allowed.contains(&error),
                "parse: {error:?}, the rules {allowed:?}"
            );
        }
        (result, expected) => panic!("parse gave {result:?}, the rules {expected:?}"),
    }
    match (EventHeader::parse_event(data), wire.parse_event(data)) {
        (Ok((header, body, rest)), Ok(size)) => {
            assert_eq!(body.bytes, &data[0x50..size]);
            assert_eq!(rest.as_ptr(), data[size..].as_ptr(), "parse_event: rest");
            check_event_header_event(&data[..size], &header, &body);
        }
        (Err(error), Err(allowed)) => {
            assert!(
                allowed.contains(&error),
                "parse_event: {error:?}, the rules {allowed:?}"
            );
        }
        (result, expected) => panic!(
            "parse_event gave {:?}, the rules {expected:?}",
            result.map(|(header, _, _)| header)
        ),
    }
    if let Some((prefix, body)) = data.split_first_chunk::<0x50>() {
        let header = EventHeader::from_bytes(prefix);
        model::check_event_header(&header, prefix);
        assert_eq!(&header.to_bytes(), prefix, "to_bytes(from_bytes(b)) != b");
        assert_eq!(EventHeader::from_bytes(&header.to_bytes()), header);
        check_items(header.flags, body);
        check_items(header.flags | EventHeaderFlags::EXTENDED_INFO, body);
    }
});
