//! The kernel's version-first headers (`SYSTEM_TRACE_HEADER`, its compact form,
//! `PERFINFO_TRACE_HEADER`) and the message header, decoded from and encoded back to arbitrary
//! bytes, and compared with reference models written from `../shared/reference/EVENT-HEADERS.md`
//! §3 and §4 (`etw_classic_fuzz::model`).
//!
//! Checked on every input, for each of the three version-first headers:
//! - `from_bytes` reads every member at the offset EVENT-HEADERS §3 gives, little-endian, and
//!   the `Marker`, `Header` and `HookId` views are those bytes; `to_bytes(from_bytes(b)) == b`,
//!   `from_bytes(to_bytes(v)) == v`, and the views set back give the same value;
//! - `parse` accepts exactly the headers the rules accept (marker flags 0xC0, one of the two
//!   header types, a `Size` that covers the header), and fails with an error naming a violation
//!   the bytes have; `parse_event` splits off exactly `Size` bytes;
//! - `split_extra_words` of the body is the model's reading of the PEBS index and PMC counters
//!   that `Version` announces: the words right after the header, the data right after them, both
//!   inside `Size`, or `AnnouncedBeyondSize` with the model's lengths exactly when they do not
//!   fit; and parse then emit is the identity: the header's `emit`, the words and the data are
//!   the event's bytes.
//!
//! For the message header: the members at their offsets (EVENT-HEADERS §4), lossless both ways;
//! `parse` gives the model's result (too short, byte 3 without 0x90, `Size` under 8); the
//! optional fields `split_fields` reads are the model's (order SEQUENCE, COMPONENTID else GUID,
//! TIMESTAMP, SYSTEMINFO, packed), the arguments start right after them and end at `Size`, or the
//! error is the model's; and the header's `emit`, the fields' `emit` and the arguments are the
//! event's bytes, the fields reading back the same through the flags they announce.
//!
//! Then the input is walked as a buffer's events and every event's kind checked against the
//! models (`etw_classic_fuzz::check_events`), so the kernel, message, opaque and malformed kinds
//! meet the same laws inside a walk.
#![no_main]

use etw_classic::{
    wire::MessageFields, CodecError, CompactTraceHeader, MessageTraceHeader, PerfInfoTraceHeader,
    SystemTraceHeader,
};
use etw_classic_fuzz::model::{self, Wire};
use libfuzzer_sys::fuzz_target;

/// Checks one version-first header type on `data`.
macro_rules! check_version_first {
    ($ty:ident, $wire:expr, $check:path, $data:expr) => {{
        let (wire, data): (Wire, &[u8]) = ($wire, $data);
        let result = $ty::parse(data);
        match data.first_chunk::<{ $ty::LEN }>() {
            None => assert_eq!(
                result.map(|_| ()),
                Err(CodecError::Truncated {
                    layout: wire.layout(),
                    needed: wire.header_len(),
                    found: data.len()
                }),
                "{wire:?}: parse of a short input"
            ),
            Some(prefix) => {
                assert_eq!($ty::LEN, wire.header_len(), "{wire:?}: LEN");
                let header = $ty::from_bytes(prefix);
                $check(&header, prefix);
                assert_eq!(&header.to_bytes(), prefix, "{wire:?}: to_bytes(from_bytes(b))");
                assert_eq!($ty::from_bytes(&header.to_bytes()), header, "{wire:?}: lossless");
                let by_views = $ty::default()
                    .with_marker(header.marker())
                    .with_header(header.header());
                let rest = by_views.to_bytes();
                assert_eq!(rest[..8], prefix[..8], "{wire:?}: the views set back");
                match (result, wire.parse(data)) {
                    (Ok((parsed, after)), Ok(_)) => {
                        assert_eq!(parsed, header, "{wire:?}: parse is from_bytes");
                        assert_eq!(after, &data[$ty::LEN..], "{wire:?}: the rest after parse");
                    }
                    (Err(error), Err(allowed)) => assert!(
                        allowed.contains(&error),
                        "{wire:?}: {error:?}, the rules find {allowed:?}"
                    ),
                    (result, rules) => panic!("{wire:?}: parse gave {result:?}, rules {rules:?}"),
                }
                match ($ty::parse_event(data), wire.parse_event(data)) {
                    (Ok((parsed, body, rest)), Ok(size)) => {
                        assert_eq!(parsed, header);
                        assert_eq!(body, &data[$ty::LEN..size], "{wire:?}: the body");
                        assert_eq!(rest, &data[size..], "{wire:?}: the rest after the event");
                        let expected = model::extra_words(wire.layout(), header.version, body);
                        match (header.split_extra_words(body), expected) {
                            (Ok((extra, event_data)), Ok((pebs, counters, len))) => {
                                assert_eq!(extra.pebs_index(), pebs, "{wire:?}: PEBS index");
                                assert!(extra.pmc_counters().eq(counters), "{wire:?}: counters");
                                assert_eq!(extra.as_bytes(), &body[..len], "{wire:?}: words");
                                assert_eq!(event_data, &body[len..], "{wire:?}: data");
                                // Parse then emit: the header, the words and the data are the
                                // event's bytes, all inside Size.
                                let mut out = [0xA5u8; 0x10000 + 0x20];
                                let after = header.emit(&mut out).expect("room for the header");
                                assert_eq!(after.len(), out.len() - $ty::LEN);
                                let mut encoded = out[..$ty::LEN].to_vec();
                                encoded.extend_from_slice(extra.as_bytes());
                                encoded.extend_from_slice(event_data);
                                assert_eq!(encoded, &data[..size], "{wire:?}: parse then emit");
                            }
                            (Err(error), Err(expected)) => {
                                assert_eq!(error, expected, "{wire:?}: words beyond Size")
                            }
                            (found, expected) => panic!(
                                "{wire:?}: split_extra_words gave {found:?}, model {expected:?}"
                            ),
                        }
                    }
                    (Err(error), Err(allowed)) => assert!(
                        allowed.contains(&error),
                        "{wire:?}: parse_event {error:?}, the rules find {allowed:?}"
                    ),
                    (result, rules) => {
                        panic!("{wire:?}: parse_event gave {result:?}, rules {rules:?}")
                    }
                }
            }
        }
    }};
}

/// The message header, its optional fields and arguments on `data`.
fn check_message(data: &[u8]) {
    let result = MessageTraceHeader::parse(data);
    let expected = model::message_parse(data);
    assert_eq!(
        result.as_ref().map(|_| ()).map_err(|error| *error),
        expected.map(|_| ()),
        "MessageTraceHeader::parse"
    );
    let Some(prefix) = data.first_chunk::<8>() else {
        return;
    };
    let header = MessageTraceHeader::from_bytes(prefix);
    model::check_message_header(&header, prefix);
    assert_eq!(&header.to_bytes(), prefix, "to_bytes(from_bytes(b))");
    assert_eq!(MessageTraceHeader::from_bytes(&header.to_bytes()), header);
    if let Ok((parsed, rest)) = result {
        assert_eq!((parsed, rest), (header, &data[8..]));
    }
    let event = MessageTraceHeader::parse_event(data);
    let Ok((parsed, body, _)) = event else {
        if expected.is_ok() {
            let size = header.size;
            assert_eq!(
                event.map(|_| ()),
                Err(CodecError::SizeBeyondInput {
                    layout: MessageTraceHeader::LAYOUT,
                    size,
                    available: data.len()
                })
            );
            assert!(usize::from(size) > data.len());
        }
        return;
    };
    let size = usize::from(header.size);
    assert_eq!((parsed, body), (header, &data[8..size]));
    match (
        header.split_fields(body),
        model::message_fields(header.option_flags.0, body),
    ) {
        (Ok((fields, args)), Ok((expected, len))) => {
            etw_classic_fuzz::check_message_fields(&fields, &expected);
            assert_eq!(fields.len(), len, "the fields' length");
            assert_eq!(
                args,
                &body[len..],
                "the arguments run from the fields to Size"
            );
            // Parse then emit: header, fields and arguments are the event's bytes.
            let mut encoded = header.to_bytes().to_vec();
            let mut room = [0xA5u8; MessageFields::MAX_LEN + 3];
            let rest = fields.emit(&mut room).expect("room for the fields");
            assert_eq!(rest.len(), room.len() - len);
            encoded.extend_from_slice(&room[..len]);
            encoded.extend_from_slice(args);
            assert_eq!(encoded, &data[..size], "parse then emit");
            // The flags the fields announce read the same fields back.
            assert_eq!(
                MessageFields::parse(fields.option_flags(), &room[..len]),
                Ok((fields, &[][..]))
            );
        }
        (Err(error), Err(expected)) => assert_eq!(error, expected, "fields beyond Size"),
        (found, expected) => panic!("split_fields gave {found:?}, model {expected:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    check_version_first!(
        SystemTraceHeader,
        Wire::System,
        model::check_system_trace_header,
        data
    );
    check_version_first!(
        CompactTraceHeader,
        Wire::Compact,
        model::check_compact_header,
        data
    );
    check_version_first!(
        PerfInfoTraceHeader,
        Wire::PerfInfo,
        model::check_perfinfo_header,
        data
    );
    check_message(data);
    let _ = etw_classic_fuzz::check_events(data);
});
