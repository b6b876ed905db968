//! Time on the real PerfView traces: each event's raw timestamp (`Event::timestamp`), its
//! FILETIME (`TraceClock`) against the values dissect.etl computes
//! (`tests/data/dissect-filetimes.json`, written by `tools/etl-crosscheck/filetimes.py`), the
//! claims of EVENT-HEADERS.md §6 and §7, and the time-ordered merge (`TimeOrder`) of every
//! buffer of every trace. Also `Event::timestamp` on hand-built events of the kinds the traces
//! lack (message, compact, instance, error).
//!
//! Traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; a missing trace is
//! reported and skipped, or fails the test with `ETW_REQUIRE_TRACES=1` (see
//! `tests/common/mod.rs`). Under Miri the traces over 100 KB are skipped on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use etw_classic::{
    read::{BufferOrder, BufferPosition, MergeCursor, ProcessorOrder, TimeOrder, TraceClock},
    wire::UtcDateTime,
    EtlFile, Event, EventKind, Events, HeaderType, SystemTraceHeader, WmiBufferHeader,
};

mod common;

use common::trace;

/// The five PerfView traces.
const TRACES: [&str; 5] = [
    "SelfDescribingSingleEvent.etl",
    "gcevents.etl",
    "net.4.5.2.x64.etl",
    "net.4.5.2.x86.etl",
    "primitive-types.etl",
];

/// One buffer of a file, its events decompressed into a `Vec` when they were compressed.
struct Buffer {
    position: BufferPosition,
    header: WmiBufferHeader,
    order: BufferOrder,
    processor_order: ProcessorOrder,
    events: Vec<u8>,
}

impl Buffer {
    fn events(&self) -> Events<'_> {
        Events::in_buffer(&self.events, Some(self.position))
    }
}

/// A trace and its buffers, decompressed.
struct Loaded {
    bytes: Vec<u8>,
    buffers: Vec<Buffer>,
}

impl Loaded {
    fn file(&self) -> EtlFile<'_> {
        EtlFile::parse(&self.bytes).unwrap()
    }
}

/// The trace `name` with its buffers decompressed, read once for all the tests of this file
/// (the five traces in parallel); `None` when it is skipped (see [`trace`]).
fn loaded(name: &str) -> Option<&'static Loaded> {
    static LOADED: OnceLock<Vec<Option<Loaded>>> = OnceLock::new();
    let all = LOADED.get_or_init(|| {
        std::thread::scope(|scope| {
            let threads: Vec<_> = TRACES
                .iter()
                .map(|&name| {
                    scope.spawn(move || {
                        let bytes = trace(name)?;
                        let buffers = buffers(&EtlFile::parse(&bytes).unwrap());
                        Some(Loaded { bytes, buffers })
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| thread.join().unwrap())
                .collect()
        })
    });
    let at = TRACES.iter().position(|&trace| trace == name).unwrap();
    all[at].as_ref()
}

/// Every buffer of `file`, in file order.
fn buffers(file: &EtlFile<'_>) -> Vec<Buffer> {
    let mut scratch = vec![0; file.buffer_size()];
    file.buffers()
        .map(|buffer| {
            let buffer = buffer.unwrap();
            let events = buffer
                .trace_buffer(&mut scratch)
                .unwrap()
                .event_bytes()
                .to_vec();
            Buffer {
                position: buffer.position(),
                header: buffer.header,
                order: BufferOrder::of(&buffer),
                processor_order: ProcessorOrder::of(&buffer),
                events,
            }
        })
        .collect()
}

/// `(buffer index, offset, raw timestamp)` of every event of `items`, which must hold no error.
fn summary<'a, Id>(
    items: impl Iterator<Item = (Id, Result<Event<'a>, etw_classic::ReadError>)>,
    index: impl Fn(Id) -> usize,
) -> Vec<(usize, usize, Option<i64>)> {
    items
        .map(|(id, item)| {
            let event = item.unwrap();
            (index(id), event.offset, event.timestamp())
        })
        .collect()
}

/// The events of every buffer, in file order.
fn file_order(buffers: &[Buffer]) -> Vec<(usize, usize, Option<i64>)> {
    summary(
        buffers
            .iter()
            .flat_map(|buffer| buffer.events().map(|item| (buffer.position.index, item))),
        |index| index,
    )
}

/// The merge of one cursor per buffer, keyed by `BufferOrder`.
fn time_order(buffers: &[Buffer]) -> Vec<(usize, usize, Option<i64>)> {
    let mut cursors: Vec<MergeCursor<'_, BufferOrder>> = buffers
        .iter()
        .map(|buffer| MergeCursor::new(buffer.order, buffer.events()))
        .collect();
    summary(TimeOrder::new(&mut cursors), |order| order.index)
}

#[test]
fn merging_every_buffer_yields_every_event_once_in_time_order() {
    let mut total = 0;
    for name in TRACES {
        let Some(loaded) = loaded(name) else {
            continue;
        };
        let buffers = &loaded.buffers;
        let in_file = file_order(buffers);
        let merged = time_order(buffers);

        // Every event exactly once.
        assert_eq!(merged.len(), in_file.len(), "{name}");
        let once: BTreeSet<(usize, usize)> = merged.iter().map(|&(b, o, _)| (b, o)).collect();
        assert_eq!(once.len(), merged.len(), "{name}: an event came out twice");
        let all: BTreeSet<(usize, usize)> = in_file.iter().map(|&(b, o, _)| (b, o)).collect();
        assert_eq!(once, all, "{name}");

        // Every event of the traces has a timestamp, and they come out non-decreasing.
        assert!(merged.iter().all(|&(_, _, timestamp)| timestamp.is_some()));
        for pair in merged.windows(2) {
            assert!(pair[0].2 <= pair[1].2, "{name}: {pair:?}");
        }

        // Each buffer's events in file order.
        let mut last_offset: BTreeMap<usize, usize> = BTreeMap::new();
        for &(buffer, offset, _) in &merged {
            if let Some(previous) = last_offset.insert(buffer, offset) {
                assert!(previous < offset, "{name}: buffer {buffer}");
            }
        }
        total += merged.len();
    }
    eprintln!("{total} events merged");
    if common::traces_required() && !cfg!(miri) {
        // The sum of dissect.etl's counts in tests/data/perfview-full-headers.json.
        assert_eq!(total, 347_873);
    }
}

#[test]
fn gcevents_in_time_order_is_not_file_order() {
    let Some(loaded) = loaded("gcevents.etl") else {
        return;
    };
    let buffers = &loaded.buffers;
    // Stored order: the header buffer, then SequenceNumbers 2, 3, 4 and 1 last.
    let stored: Vec<(usize, i64, u16)> = buffers
        .iter()
        .map(|buffer| {
            (
                buffer.position.index,
                buffer.header.sequence_number,
                buffer.header.processor(),
            )
        })
        .collect();
    assert_eq!(
        stored,
        [(0, 0, 0), (1, 2, 7), (2, 3, 6), (3, 4, 2), (4, 1, 4)]
    );
    let merged = time_order(buffers);
    assert_ne!(merged, file_order(buffers));
    // In time order the last buffer stored (SequenceNumber 1, processor 4) starts right after
    // the header buffer, before the three stored before it.
    let mut first_seen = Vec::new();
    for &(buffer, _, _) in &merged {
        if !first_seen.contains(&buffer) {
            first_seen.push(buffer);
        }
    }
    assert_eq!(first_seen, [0, 4, 1, 2, 3]);
    let first_of = |index: usize| merged.iter().position(|&(buffer, _, _)| buffer == index);
    assert!(first_of(4) < first_of(1));
}

#[test]
fn each_processors_buffers_continue_its_time_order() {
    for name in TRACES {
        let Some(loaded) = loaded(name) else {
            continue;
        };
        let mut buffers: Vec<&Buffer> = loaded.buffers.iter().collect();
        buffers.sort_unstable_by_key(|buffer| buffer.processor_order);
        // EVENT-HEADERS.md §7: per processor, buffers by SequenceNumber, events non-decreasing.
        let mut violations = 0;
        let mut last: Option<(u16, i64)> = None;
        for buffer in &buffers {
            let processor = buffer.header.processor();
            for event in buffer.events() {
                let timestamp = event.unwrap().timestamp().unwrap();
                if let Some((previous_processor, previous)) = last {
                    if previous_processor == processor && timestamp < previous {
                        violations += 1;
                    }
                }
                last = Some((processor, timestamp));
            }
        }
        assert_eq!(violations, 0, "{name}");

        // One cursor per processor, chaining its buffers: the same events, still in time order.
        let mut cursors = Vec::new();
        for group in buffers.chunk_by(|a, b| a.header.processor() == b.header.processor()) {
            let processor = group[0].header.processor();
            let chain = group.iter().flat_map(|buffer| {
                buffer
                    .events()
                    .map(move |item| (buffer.position.index, item))
            });
            cursors.push(MergeCursor::new(processor, chain.map(|(_, item)| item)));
        }
        let merged: Vec<Option<i64>> = TimeOrder::new(&mut cursors)
            .map(|(_, item)| item.unwrap().timestamp())
            .collect();
        assert_eq!(merged.len(), file_order(&loaded.buffers).len(), "{name}");
        assert!(merged.windows(2).all(|pair| pair[0] <= pair[1]), "{name}");
    }
}

#[test]
fn the_header_event_converts_to_start_time_and_the_first_event_to_it_within_a_microsecond() {
    for name in TRACES {
        let Some(loaded) = loaded(name) else {
            continue;
        };
        let file = loaded.file();
        let clock = TraceClock::from_etl(&file).unwrap();
        let start_time = file.logfile_header.start_time();
        // All samples: QPC at 10 MHz.
        assert_eq!(clock.ticks_per_second().get(), 10_000_000, "{name}");
        assert_eq!(
            clock.to_filetime(file.system_header.system_time),
            Some(start_time)
        );

        let times: Vec<(usize, i64)> = file_order(&loaded.buffers)
            .into_iter()
            .map(|(buffer, _, timestamp)| (buffer, clock.to_filetime(timestamp.unwrap()).unwrap()))
            .collect();
        let first = times.iter().map(|&(_, time)| time).min().unwrap();
        // Without the header buffer (whose first event is the header event itself).
        let first_data = times
            .iter()
            .filter(|&&(buffer, _)| buffer > 0)
            .map(|&(_, time)| time)
            .min()
            .unwrap();
        eprintln!(
            "{name}: StartTime {} = {}, earliest event {:+} x 100 ns, earliest in a data \
             buffer {:+} x 100 ns",
            start_time,
            UtcDateTime::from_filetime(start_time),
            first - start_time,
            first_data - start_time,
        );
        // StartTime in UTC, as Python's `datetime(1601, 1, 1) + timedelta(microseconds=t // 10)`
        // gives it (plus the last digit, t % 10).
        let expected = match name {
            "SelfDescribingSingleEvent.etl" => "2022-04-20T21:27:15.2722435Z",
            "gcevents.etl" => "2023-03-14T00:46:36.6946549Z",
            "net.4.5.2.x64.etl" => "2020-07-29T00:07:00.6236167Z",
            "net.4.5.2.x86.etl" => "2020-07-29T00:06:19.7984230Z",
            _ => "2021-09-09T14:59:32.8578510Z",
        };
        let header_time = clock.to_utc(file.system_header.system_time).unwrap();
        assert_eq!(header_time.to_string(), expected);
        // EVENT-HEADERS.md §6: the smallest event time equals StartTime (to 1 µs). In every
        // trace it is the header event's own; the relogged ones repeat it in a data buffer,
        // while the data of gcevents and primitive-types start 8.2 s and 2.9 s later.
        assert!((first - start_time).abs() < 10, "{name}");
        assert!(first_data >= start_time, "{name}");
        let later = match name {
            "gcevents.etl" => 81_846_742,
            "primitive-types.etl" => 29_423_057,
            _ => 0,
        };
        assert_eq!(first_data - start_time, later, "{name}");
    }
}

/// The dissect.etl figures.
fn dissect_filetimes() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/dissect-filetimes.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn filetimes_equal_dissect_etls() {
    if cfg!(miri) {
        // Parsing the quarter-megabyte of JSON alone takes minutes under Miri; the values are
        // host-independent, and the other tests read the same timestamps on big-endian.
        eprintln!("SKIPPED under Miri: the dissect.etl figures");
        return;
    }
    let json = dissect_filetimes();
    let traces = json["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 5);
    let mut compared = 0;
    for expected in traces {
        let name = expected["file"].as_str().unwrap();
        let Some(loaded) = loaded(name) else {
            continue;
        };
        let file = loaded.file();
        let clock = TraceClock::from_etl(&file).unwrap();
        assert_eq!(clock.start_time(), expected["start_time"].as_i64().unwrap());
        assert_eq!(
            clock.reference_timestamp(),
            expected["header_event_raw"].as_i64().unwrap()
        );
        assert_eq!(
            i64::try_from(clock.ticks_per_second().get()).unwrap(),
            expected["perf_freq"].as_i64().unwrap()
        );
        assert_eq!(
            u64::from(file.logfile_header.reserved_flags().0),
            expected["reserved_flags"].as_u64().unwrap()
        );
        let buffers = &loaded.buffers;
        for sample in expected["buffers"].as_array().unwrap() {
            let index = usize::try_from(sample["buffer"].as_u64().unwrap()).unwrap();
            let events: BTreeMap<usize, Event<'_>> = buffers[index]
                .events()
                .map(|item| {
                    let event = item.unwrap();
                    (event.offset, event)
                })
                .collect();
            for triple in sample["events"].as_array().unwrap() {
                let offset = usize::try_from(triple[0].as_u64().unwrap()).unwrap();
                let event = &events[&offset];
                let raw = triple[1].as_i64();
                assert_eq!(
                    event.timestamp(),
                    raw,
                    "{name} buffer {index} offset {offset:#x}"
                );
                let filetime = raw.and_then(|raw| clock.to_filetime(raw));
                assert_eq!(
                    filetime,
                    triple[2].as_i64(),
                    "{name} buffer {index} offset {offset:#x}"
                );
                compared += 1;
            }
        }
    }
    eprintln!("{compared} events compared with dissect.etl");
    if common::traces_required() && !cfg!(miri) {
        assert_eq!(compared, 6381);
    }
}

#[test]
fn timestamps_are_the_decoded_headers_fields() {
    let mut kinds: BTreeMap<HeaderType, usize> = BTreeMap::new();
    for name in TRACES {
        let Some(loaded) = loaded(name) else {
            continue;
        };
        for buffer in &loaded.buffers {
            for event in buffer.events() {
                let event = event.unwrap();
                let decoded = match event.kind() {
                    EventKind::Full { header, .. } => header.timestamp,
                    EventKind::Instance { header, .. } => header.header.timestamp,
                    _ if matches!(
                        event.header_type,
                        HeaderType::SYSTEM32 | HeaderType::SYSTEM64
                    ) =>
                    {
                        let (header, _) = SystemTraceHeader::parse(event.bytes).unwrap();
                        header.system_time
                    }
                    _ => continue,
                };
                assert_eq!(event.timestamp(), Some(decoded), "{name}");
                *kinds.entry(event.header_type).or_default() += 1;
            }
        }
    }
    eprintln!("{kinds:?}");
}

/// The one event of `bytes`.
fn only_event(bytes: &[u8]) -> Event<'_> {
    let mut events = Events::new(bytes);
    let event = events.next().unwrap().unwrap();
    assert!(events.next().is_none());
    event
}

/// A message event (marker byte 3 = 0x90) with `option_flags` and `fields` after its header.
fn message(option_flags: u16, fields: &[u8]) -> Vec<u8> {
    let size = u16::try_from(8 + fields.len()).unwrap();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&size.to_le_bytes());
    bytes.extend_from_slice(&[0x00, 0x90, 0x07, 0x00]);
    bytes.extend_from_slice(&option_flags.to_le_bytes());
    bytes.extend_from_slice(fields);
    bytes
}

#[test]
fn message_timestamps_follow_the_optional_fields() {
    let time: i64 = 0x0102_0304_0506_0708;
    let t = time.to_le_bytes();
    let sequence = 0xAAAA_AAAAu32.to_le_bytes();
    let guid = [0xBB; 16];
    let component = 0xCCCC_CCCCu32.to_le_bytes();
    let info = [0xDD; 8];
    let cat = |parts: &[&[u8]]| parts.concat();
    // TIMESTAMP alone: right after the 8-byte header.
    assert_eq!(
        only_event(&message(0x08, &cat(&[&t]))).timestamp(),
        Some(time)
    );
    // SEQUENCE + TIMESTAMP + SYSTEMINFO.
    let bytes = message(0x29, &cat(&[&sequence, &t, &info]));
    assert_eq!(only_event(&bytes).timestamp(), Some(time));
    // SEQUENCE + GUID + TIMESTAMP.
    let bytes = message(0x0B, &cat(&[&sequence, &guid, &t]));
    assert_eq!(only_event(&bytes).timestamp(), Some(time));
    // GUID + TIMESTAMP + PERFORMANCE_TIMESTAMP + SYSTEMINFO (the usual WPP flags 0x3A).
    let bytes = message(0x3A, &cat(&[&guid, &t, &info]));
    assert_eq!(only_event(&bytes).timestamp(), Some(time));
    // COMPONENTID + TIMESTAMP.
    let bytes = message(0x0C, &cat(&[&component, &t]));
    assert_eq!(only_event(&bytes).timestamp(), Some(time));
    // No TIMESTAMP flag: none, whatever follows.
    assert_eq!(
        only_event(&message(0x22, &cat(&[&guid, &t]))).timestamp(),
        None
    );
    // GUID and COMPONENTID together: no documented layout.
    let bytes = message(0x0E, &cat(&[&guid, &t]));
    assert_eq!(only_event(&bytes).timestamp(), None);
    // A Size that ends before the time stamp does.
    let bytes = message(0x0A, &cat(&[&guid, &t[..7]]));
    assert_eq!(only_event(&bytes).timestamp(), None);
}

#[test]
fn other_kinds_read_their_documented_offset_or_none() {
    let time: i64 = -0x0102_0304_0506_0708;
    // COMPACT64 (version-first, 0x18 bytes): SystemTime at 0x10.
    let mut compact = [0u8; 0x18];
    compact[..8].copy_from_slice(&[0x02, 0x00, 0x04, 0xC0, 0x18, 0x00, 0x01, 0x02]);
    compact[0x10..].copy_from_slice(&time.to_le_bytes());
    assert_eq!(only_event(&compact).timestamp(), Some(time));
    // EVENT_HEADER64 (0x50 bytes): TimeStamp at 0x10.
    let mut event_header = [0u8; 0x50];
    event_header[..4].copy_from_slice(&[0x50, 0x00, 0x13, 0xC0]);
    event_header[0x10..0x18].copy_from_slice(&time.to_le_bytes());
    assert_eq!(only_event(&event_header).timestamp(), Some(time));
    // INSTANCE32 (0x48 bytes): TimeStamp at 0x10.
    let mut instance = [0u8; 0x48];
    instance[..4].copy_from_slice(&[0x48, 0x00, 0x0B, 0xC0]);
    instance[0x10..0x18].copy_from_slice(&time.to_le_bytes());
    assert_eq!(only_event(&instance).timestamp(), Some(time));
    // ERROR: no documented timestamp.
    let mut error = [0u8; 0x18];
    error[..4].copy_from_slice(&[0x18, 0x00, 0x0D, 0xC0]);
    error[0x10..].copy_from_slice(&time.to_le_bytes());
    assert_eq!(only_event(&error).timestamp(), None);
    // A hand-built event shorter than its kind's header.
    let mut short = only_event(&instance);
    short.bytes = &instance[..0x17];
    assert_eq!(short.timestamp(), None);
    short.header_type = HeaderType::TIMED;
    short.bytes = &instance;
    assert_eq!(short.timestamp(), None);
}
