//! Walks the events of real trace buffers from the PerfView test traces (see
//! `../shared/data/perfview/PROVENANCE.md`): the first buffer of `SelfDescribingSingleEvent.etl`
//! field by field, and every buffer of the traces that hold no compressed buffer, against the
//! event counts dissect.etl found (`tests/data/perfview-full-headers.json`), and the logfile
//! header event at the start of every trace (`tests/data/perfview-logfile-headers.json`).
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview` next to the
//! crate; when a trace is not there the test says so and passes without checking it, unless
//! `ETW_REQUIRE_TRACES=1` is set, which makes it fail (see `tests/common/mod.rs`).

use std::collections::BTreeMap;

use etw_classic::{
    wire::{BufferFlags, BufferType, DEFAULT_TRACE_ALIGNMENT},
    Bitness, Event, EventKind, Events, HeaderType, MarkerFlags, TraceBuffer, TraceLogfileHeader,
    WmiBufferHeader,
};

mod common;
use common::trace;

/// The buffer header at `start` and the buffer's event bytes (after the header, up to
/// `BufferSize`).
fn buffer(file: &[u8], start: usize) -> (WmiBufferHeader, &[u8]) {
    let (header, _) = WmiBufferHeader::parse(&file[start..]).unwrap();
    let end = start + usize::try_from(header.buffer_size).unwrap();
    (header, &file[start + WmiBufferHeader::LEN..end])
}

/// Every event of `events`, which must all be well formed.
fn walk(events: &[u8]) -> Vec<Event<'_>> {
    Events::new(events).map(Result::unwrap).collect()
}

/// Where the walk ended: after the last event and its padding (0 for a buffer without events).
fn end_of_events(events: &[Event<'_>]) -> usize {
    events.last().map_or(0, |last| {
        last.offset + usize::from(last.size).next_multiple_of(DEFAULT_TRACE_ALIGNMENT)
    })
}

#[test]
fn first_buffer_of_self_describing_single_event() {
    let Some(file) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let (header, bytes) = buffer(&file, 0);
    // The header buffer of an .etl file is never compressed (the later ones of this trace are).
    assert!(
        !header.is_compressed(),
        "the first buffer of SelfDescribingSingleEvent.etl is compressed"
    );
    assert_eq!(header.buffer_size, 0x400);
    assert_eq!(header.buffer_type, BufferType::HEADER);
    assert_eq!(header.buffer_flag, BufferFlags::FLUSH_MARKER);

    // Decoded independently with Python's struct module: two SYSTEM64 events (version-first
    // headers, Size at offset 4) at 0x48 + 0 and 0x48 + 0x170, the end mark at 0x48 + 0x1C0.
    let events = walk(bytes);
    let summary: Vec<(usize, HeaderType, u16)> = events
        .iter()
        .map(|event| (event.offset, event.header_type, event.size))
        .collect();
    assert_eq!(
        summary,
        [
            (0x000, HeaderType::SYSTEM64, 0x16C),
            (0x170, HeaderType::SYSTEM64, 0x050),
        ]
    );

    // The first event is the logfile header: marker 0xC0020002 (a 64-bit logger's SYSTEM64).
    let logfile = &events[0];
    assert_eq!(logfile.marker_flags, MarkerFlags::EVENT_TRACE_HEADER);
    assert_eq!(&logfile.bytes[..4], &0xC002_0002u32.to_le_bytes());
    assert!(
        matches!(logfile.kind(), EventKind::System { header, extra, data } if header.header_type == HeaderType::SYSTEM64 && extra.is_empty() && data.len() == 0x16C - 0x20)
    );

    // The events end where the header's `Offset` says, with the end mark there.
    let end = end_of_events(&events);
    assert_eq!(
        end + WmiBufferHeader::LEN,
        usize::try_from(header.offset).unwrap()
    );
    assert_eq!(&bytes[end..end + 4], &[0xFF; 4]);

    // The classic events of this trace in perfview-full-headers.json are in "buffer 1": the
    // second buffer in file order (dissect.etl counts from 0), whose events are compressed, so
    // they cannot be walked here.
    let (second, _) = buffer(&file, 0x400);
    assert_eq!(second.sequence_number, 1);
    assert_eq!(
        second.buffer_flag,
        BufferFlags::COMPRESSED | BufferFlags::PROC_INDEX
    );
    assert!(second.is_compressed());
}

#[test]
fn uncompressed_traces_have_the_event_counts_dissect_etl_found() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/perfview-full-headers.json"
    ))
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();

    // The two traces in which no buffer is compressed.
    for (name, buffers) in [("gcevents.etl", 5), ("primitive-types.etl", 2)] {
        let Some(file) = trace(name) else {
            continue;
        };
        let mut counts = BTreeMap::<String, u64>::new();
        let mut start = 0;
        let mut walked = 0;
        while start < file.len() {
            let (header, bytes) = buffer(&file, start);
            assert!(!header.is_compressed(), "{name} buffer {walked}");
            let events = walk(bytes);
            for event in &events {
                let name = event.header_type.name().unwrap().to_owned();
                *counts.entry(name).or_default() += 1;
            }
            let end = end_of_events(&events);
            assert_eq!(
                end + WmiBufferHeader::LEN,
                usize::try_from(header.offset).unwrap(),
                "{name} buffer {walked}: the events end at Offset"
            );
            // The consumer's view, bounded by Offset, sees the same events.
            let whole = &file[start..start + WmiBufferHeader::LEN + bytes.len()];
            let consumer = TraceBuffer::parse(whole).unwrap();
            assert_eq!(consumer.header, header);
            let seen: Vec<Event<'_>> = consumer.events().map(Result::unwrap).collect();
            assert_eq!(seen, events, "{name} buffer {walked}");
            start += bytes.len() + WmiBufferHeader::LEN;
            walked += 1;
        }
        assert_eq!(walked, buffers, "{name}");
        let expected: BTreeMap<String, u64> = json["counts"][name]
            .as_object()
            .unwrap()
            .iter()
            .map(|(kind, count)| (kind.clone(), count.as_u64().unwrap()))
            .collect();
        assert_eq!(counts, expected, "{name}");
    }
}

/// The first event of every trace, read from the trace itself: the logfile header event, whose
/// bytes are those `tests/data/perfview-logfile-headers.json` holds, and whose two names after
/// the `TRACE_LOGFILE_HEADER` are the ones dissect.etl read.
#[test]
fn logfile_header_event_and_names_of_every_trace() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/perfview-logfile-headers.json"
    ))
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for expected in json["events"].as_array().unwrap() {
        let name = expected["file"].as_str().unwrap();
        let Some(file) = trace(name) else {
            continue;
        };
        let (header, bytes) = buffer(&file, 0);
        assert!(
            !header.is_compressed(),
            "{name}: buffer 0 is not compressed"
        );
        assert_eq!(header.buffer_type, BufferType::HEADER, "{name}");

        let (system, logfile, names, _) = TraceLogfileHeader::parse_event(bytes).unwrap();
        let size = usize::from(system.size);
        let hex: String = bytes[..size].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            expected["hex"].as_str().unwrap(),
            "{name}: event bytes"
        );
        assert_eq!(logfile.bitness(), Bitness::Bits64, "{name}");
        assert_eq!(logfile.pointer_size(), 8, "{name}");

        assert!(names.terminated && names.rest.is_empty(), "{name}");
        assert_eq!(
            names.logger_name.to_string(),
            expected["names"]["logger_name"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            names.log_file_name.to_string(),
            expected["names"]["log_file_name"].as_str().unwrap(),
            "{name}"
        );
        // The event walker agrees on where the event ends.
        let first = Events::new(bytes).next().unwrap().unwrap();
        assert_eq!(
            (first.header_type, first.bytes.len()),
            (HeaderType::SYSTEM64, size)
        );
    }
}
