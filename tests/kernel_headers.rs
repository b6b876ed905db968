//! The kernel's event headers (`SYSTEM_TRACE_HEADER`, its compact form, `PERFINFO_TRACE_HEADER`)
//! and the message header, on real traces and on any bytes.
//!
//! The values of real events come from dissect.etl, an independent parser, through
//! `tools/kernel-header-vectors/print_kernel_events.py` (run with `--at
//! net.4.5.2.x64.etl:5:0x58`); each block names the line of its output it copies. The traces are
//! read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; a missing trace skips the check
//! unless `ETW_REQUIRE_TRACES=1` (see `tests/common/mod.rs`).

use std::collections::BTreeMap;

use etw_classic::{
    wire::{
        EventTraceGroup, ExtraWords, HookId, MessageFields, MessageGuid, MessageSystemInfo,
        TraceMessageFlags,
    },
    CodecError, CompactTraceHeader, EtlFile, Event, EventKind, Events, HeaderType, Layout,
    MarkerFlags, MessageTraceHeader, PerfInfoTraceHeader, SystemTraceHeader,
};
use proptest::prelude::*;

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

/// Calls `each(buffer index, event)` for every event of every buffer of `file`, decompressing
/// the compressed ones; every buffer and event must read without error.
fn for_each_event(file: &[u8], mut each: impl FnMut(usize, &Event<'_>)) {
    let etl = EtlFile::parse(file).unwrap();
    let mut scratch = vec![0u8; etl.buffer_size()];
    for buffer in etl.buffers() {
        let buffer = buffer.unwrap();
        let trace_buffer = buffer.trace_buffer(&mut scratch).unwrap();
        for event in trace_buffer.events() {
            each(buffer.index, &event.unwrap());
        }
    }
}

/// The bytes and header type of the event at `offset` of buffer `index` of `file` (only that
/// buffer is decompressed).
fn event_at(file: &[u8], index: usize, offset: usize) -> (Vec<u8>, HeaderType) {
    let etl = EtlFile::parse(file).unwrap();
    let mut scratch = vec![0u8; etl.buffer_size()];
    let buffer = etl
        .buffers()
        .map(Result::unwrap)
        .find(|buffer| buffer.index == index)
        .unwrap_or_else(|| panic!("no buffer {index}"));
    let trace_buffer = buffer.trace_buffer(&mut scratch).unwrap();
    let event = trace_buffer
        .events()
        .map(Result::unwrap)
        .find(|event| event.offset == offset)
        .unwrap_or_else(|| panic!("no event at buffer {index} offset {offset:#x}"));
    (event.bytes.to_vec(), event.header_type)
}

/// The kind of the event `bytes` as a walk of them alone finds it.
fn kind_of(bytes: &[u8]) -> EventKind<'_> {
    let mut events = Events::new(bytes);
    let event = events.next().unwrap().unwrap();
    assert_eq!(event.bytes, bytes);
    event.kind()
}

/// The worked example of EVENT-HEADERS.md §3: `net.4.5.2.x64.etl`, buffer 5 (compressed), data
/// offset 0x58. The script's line: `buffer 5, offset 0x58, PERFINFO64, version 2, flags 0xc0,
/// size 170, hook_id 0x1403, group 0x14, type 3, system_time 1942912437, data_len 154, data[..8]
/// 0000f169f7070000`.
#[test]
fn the_worked_example_of_a_perfinfo64_event() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    let (bytes, header_type) = event_at(&file, 5, 0x58);
    assert_eq!(header_type, HeaderType::PERFINFO64);
    assert_eq!(bytes[..8], [0x02, 0x00, 0x11, 0xc0, 0xaa, 0x00, 0x03, 0x14]);
    let EventKind::PerfInfo {
        header,
        extra,
        data,
    } = kind_of(&bytes)
    else {
        panic!("{:?}", kind_of(&bytes))
    };
    assert_eq!(
        header,
        PerfInfoTraceHeader {
            version: 2,
            header_type: HeaderType::PERFINFO64,
            flags: MarkerFlags::EVENT_TRACE_HEADER,
            size: 170,
            hook_id: 0x1403,
            system_time: 1_942_912_437,
        }
    );
    assert_eq!(header.hook(), HookId::new(EventTraceGroup::IMAGE, 3));
    assert_eq!(extra, ExtraWords::EMPTY);
    assert_eq!(data.len(), 154);
    assert_eq!(data[..8], [0x00, 0x00, 0xf1, 0x69, 0xf7, 0x07, 0x00, 0x00]);
    // The checking decoder reads the same, and the encoder gives the bytes back.
    let (parsed, body, rest) = PerfInfoTraceHeader::parse_event(&bytes).unwrap();
    assert_eq!((parsed, body, rest.len()), (header, data, 0));
    assert_eq!(header.to_bytes(), bytes[..0x10]);
}

/// A system or perfinfo event as dissect.etl reads it: (trace, buffer, offset, header type,
/// version, size, hook id, thread id, process id, system time, kernel time, user time, data
/// length, first 8 bytes of data). Thread, process and CPU times are 0 for perfinfo events,
/// which have none.
type Expected = (
    &'static str,
    usize,
    usize,
    HeaderType,
    u16,
    u16,
    u16,
    u32,
    u32,
    i64,
    u32,
    u32,
    usize,
    [u8; 8],
);

/// Lines of `print_kernel_events.py`, field for field.
const DISSECT_EVENTS: [Expected; 8] = [
    // "buffer 0, offset 0x170, SYSTEM64, version 2, flags 0xc0, size 80, hook_id 0x0050, group
    // 0x0, type 80, thread_id 112044, process_id 10460, system_time 6459791009101, kernel_time 0,
    // user_time 2, data_len 48, data[..8] 0000000000000000"
    (
        "SelfDescribingSingleEvent.etl",
        0,
        0x170,
        HeaderType::SYSTEM64,
        2,
        80,
        0x0050,
        112_044,
        10_460,
        6_459_791_009_101,
        0,
        2,
        48,
        [0; 8],
    ),
    // "buffer 0, offset 0x0, SYSTEM64, version 2, flags 0xc0, size 424, hook_id 0x0000, group
    // 0x0, type 0, thread_id 179388, process_id 179356, system_time 5464821681081, kernel_time
    // 22, user_time 8, data_len 392, data[..8] 000001000a000105"
    (
        "gcevents.etl",
        0,
        0,
        HeaderType::SYSTEM64,
        2,
        424,
        0x0000,
        179_388,
        179_356,
        5_464_821_681_081,
        22,
        8,
        392,
        [0x00, 0x00, 0x01, 0x00, 0x0a, 0x00, 0x01, 0x05],
    ),
    // "buffer 1, offset 0x38, PERFINFO64, version 4, flags 0xc0, size 91, hook_id 0x0303, group
    // 0x3, type 3, system_time 1942893807, data_len 75, data[..8] 00927d2100f8ffff"
    (
        "net.4.5.2.x64.etl",
        1,
        0x38,
        HeaderType::PERFINFO64,
        4,
        91,
        0x0303,
        0,
        0,
        1_942_893_807,
        0,
        0,
        75,
        [0x00, 0x92, 0x7d, 0x21, 0x00, 0xf8, 0xff, 0xff],
    ),
    // "buffer 1, offset 0x98, SYSTEM64, version 3, flags 0xc0, size 104, hook_id 0x0503, group
    // 0x5, type 3, thread_id 0, process_id 0, system_time 1942893827, kernel_time 12125,
    // user_time 0, data_len 72, data[..8] 0000000000000000"
    (
        "net.4.5.2.x64.etl",
        1,
        0x98,
        HeaderType::SYSTEM64,
        3,
        104,
        0x0503,
        0,
        0,
        1_942_893_827,
        12_125,
        0,
        72,
        [0; 8],
    ),
    // "buffer 184, offset 0x56b0, SYSTEM32, version 2, flags 0xc0, size 68, hook_id 0x0b17,
    // group 0xb, type 23, thread_id 3784, process_id 3988, system_time 2041991572, kernel_time
    // 2, user_time 40, data_len 36, data[..8] 0000000001000000"
    (
        "net.4.5.2.x64.etl",
        184,
        0x56b0,
        HeaderType::SYSTEM32,
        2,
        68,
        0x0b17,
        3784,
        3988,
        2_041_991_572,
        2,
        40,
        36,
        [0, 0, 0, 0, 1, 0, 0, 0],
    ),
    // "buffer 1, offset 0x38, PERFINFO64, version 2, flags 0xc0, size 32, hook_id 0x0b11, group
    // 0xb, type 17, system_time 1534523221, data_len 16, data[..8] 20000000ffffffff"
    (
        "net.4.5.2.x86.etl",
        1,
        0x38,
        HeaderType::PERFINFO64,
        2,
        32,
        0x0b11,
        0,
        0,
        1_534_523_221,
        0,
        0,
        16,
        [0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
    ),
    // "buffer 127, offset 0xd1a0, SYSTEM32, version 2, flags 0xc0, size 68, hook_id 0x0b17, group
    // 0xb, type 23, thread_id 2916, process_id 3988, system_time 1640775658, kernel_time 0,
    // user_time 0, data_len 36, data[..8] 0000000002000000"
    (
        "net.4.5.2.x86.etl",
        127,
        0xd1a0,
        HeaderType::SYSTEM32,
        2,
        68,
        0x0b17,
        2916,
        3988,
        1_640_775_658,
        0,
        0,
        36,
        [0, 0, 0, 0, 2, 0, 0, 0],
    ),
    // "buffer 0, offset 0x190, SYSTEM64, version 2, flags 0xc0, size 80, hook_id 0x0050, group
    // 0x0, type 80, thread_id 29376, process_id 39096, system_time 2603587641205, kernel_time 0,
    // user_time 0, data_len 48, data[..8] 0000000000000000"
    (
        "primitive-types.etl",
        0,
        0x190,
        HeaderType::SYSTEM64,
        2,
        80,
        0x0050,
        29_376,
        39_096,
        2_603_587_641_205,
        0,
        0,
        48,
        [0; 8],
    ),
];

#[test]
fn system_and_perfinfo_events_read_as_dissect_etl_reads_them() {
    for (
        name,
        index,
        offset,
        header_type,
        version,
        size,
        hook_id,
        tid,
        pid,
        time,
        kernel,
        user,
        data_len,
        start,
    ) in DISSECT_EVENTS
    {
        let Some(file) = trace(name) else {
            continue;
        };
        let what = format!("{name} buffer {index} offset {offset:#x}");
        let (bytes, found_type) = event_at(&file, index, offset);
        assert_eq!(found_type, header_type, "{what}");
        let (prefix, data) = match kind_of(&bytes) {
            EventKind::System {
                header,
                extra,
                data,
            } => {
                assert!(extra.is_empty(), "{what}");
                assert_eq!(
                    (header.thread_id, header.process_id, header.system_time),
                    (tid, pid, time),
                    "{what}"
                );
                assert_eq!(
                    (header.kernel_time, header.user_time),
                    (kernel, user),
                    "{what}"
                );
                (
                    (
                        header.version,
                        header.header_type,
                        header.flags,
                        header.size,
                        header.hook_id,
                    ),
                    data,
                )
            }
            EventKind::PerfInfo {
                header,
                extra,
                data,
            } => {
                assert!(extra.is_empty(), "{what}");
                assert_eq!(header.system_time, time, "{what}");
                (
                    (
                        header.version,
                        header.header_type,
                        header.flags,
                        header.size,
                        header.hook_id,
                    ),
                    data,
                )
            }
            other => panic!("{what}: {other:?}"),
        };
        assert_eq!(
            prefix,
            (
                version,
                header_type,
                MarkerFlags::EVENT_TRACE_HEADER,
                size,
                hook_id
            ),
            "{what}"
        );
        assert_eq!(data.len(), data_len, "{what}");
        assert_eq!(data[..8], start, "{what}");
    }
}

/// Sums over every event of one header type of a trace, as the script's `totals` lines give
/// them: count, Size, HookId, ThreadId, ProcessId, data length, SystemTime (wrapping).
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    count: u64,
    size: u64,
    hook_id: u64,
    thread_id: u64,
    process_id: u64,
    data_len: u64,
    system_time: u64,
}

impl Totals {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        size: u16,
        hook_id: u16,
        thread_id: u32,
        process_id: u32,
        data: usize,
        time: i64,
    ) {
        self.count += 1;
        self.size += u64::from(size);
        self.hook_id += u64::from(hook_id);
        self.thread_id += u64::from(thread_id);
        self.process_id += u64::from(process_id);
        self.data_len += data as u64;
        self.system_time = self.system_time.wrapping_add(time as u64);
    }
}

/// The script's `totals` lines: (trace, header type, count, size, hook_id, thread_id,
/// process_id, data_len, system_time mod 2^64).
const DISSECT_TOTALS: [(&str, &str, [u64; 7]); 9] = [
    // "totals SYSTEM64: count 4, size 604, hook_id 240, thread_id 448176, process_id 41840,
    // data_len 476, system_time 25839197691004 (mod 2^64)"
    (
        "SelfDescribingSingleEvent.etl",
        "SYSTEM64",
        [4, 604, 240, 448_176, 41_840, 476, 25_839_197_691_004],
    ),
    // "totals SYSTEM64: count 2, size 504, hook_id 80, thread_id 358776, process_id 358712,
    // data_len 440, system_time 10929643362162 (mod 2^64)"
    (
        "gcevents.etl",
        "SYSTEM64",
        [2, 504, 80, 358_776, 358_712, 440, 10_929_643_362_162],
    ),
    // "totals SYSTEM32: count 2, size 136, hook_id 5678, thread_id 7568, process_id 7976,
    // data_len 72, system_time 4083983534 (mod 2^64)"
    (
        "net.4.5.2.x64.etl",
        "SYSTEM32",
        [2, 136, 5678, 7568, 7976, 72, 4_083_983_534],
    ),
    // "totals SYSTEM64: count 3189, size 303578, hook_id 4412362, thread_id 9409804, process_id
    // 6234044, data_len 201530, system_time 6350638291916 (mod 2^64)"
    (
        "net.4.5.2.x64.etl",
        "SYSTEM64",
        [
            3189,
            303_578,
            4_412_362,
            9_409_804,
            6_234_044,
            201_530,
            6_350_638_291_916,
        ],
    ),
    // "totals PERFINFO64: count 100157, size 4889737, hook_id 406195774, thread_id 0, process_id
    // 0, data_len 3287225, system_time 199769835183411 (mod 2^64)"
    (
        "net.4.5.2.x64.etl",
        "PERFINFO64",
        [
            100_157,
            4_889_737,
            406_195_774,
            0,
            0,
            3_287_225,
            199_769_835_183_411,
        ],
    ),
    // "totals SYSTEM32: count 2, size 136, hook_id 5678, thread_id 5832, process_id 7976,
    // data_len 72, system_time 3281549954 (mod 2^64)"
    (
        "net.4.5.2.x86.etl",
        "SYSTEM32",
        [2, 136, 5678, 5832, 7976, 72, 3_281_549_954],
    ),
    // "totals SYSTEM64: count 4472, size 368856, hook_id 4925531, thread_id 13322720, process_id
    // 8599180, data_len 225752, system_time 7115755544597 (mod 2^64)"
    (
        "net.4.5.2.x86.etl",
        "SYSTEM64",
        [
            4472,
            368_856,
            4_925_531,
            13_322_720,
            8_599_180,
            225_752,
            7_115_755_544_597,
        ],
    ),
    // "totals PERFINFO64: count 115091, size 5698767, hook_id 469097267, thread_id 0, process_id
    // 0, data_len 3857311, system_time 183248228587636 (mod 2^64)"
    (
        "net.4.5.2.x86.etl",
        "PERFINFO64",
        [
            115_091,
            5_698_767,
            469_097_267,
            0,
            0,
            3_857_311,
            183_248_228_587_636,
        ],
    ),
    // "totals SYSTEM64: count 2, size 478, hook_id 80, thread_id 58752, process_id 78192,
    // data_len 414, system_time 5207175282410 (mod 2^64)"
    (
        "primitive-types.etl",
        "SYSTEM64",
        [2, 478, 80, 58_752, 78_192, 414, 5_207_175_282_410],
    ),
];

/// Every system and perfinfo event of the five traces: `parse_event` accepts it, `kind` types
/// it, the header, its extra words and its data encode back to exactly the event's bytes, and
/// the sums over all of them, field by field, are those of dissect.etl. The counts per header
/// type also equal those of `tests/data/perfview-full-headers.json` (dissect.etl, as the
/// cross-check prints them).
#[test]
fn every_kernel_event_of_the_perfview_traces_decodes_and_re_encodes_exactly() {
    let counts_json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/perfview-full-headers.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for name in TRACES {
        let Some(file) = trace(name) else {
            continue;
        };
        let mut totals = BTreeMap::<&'static str, Totals>::new();
        for_each_event(&file, |buffer, event| {
            let what = format!("{name} buffer {buffer} offset {:#x}", event.offset);
            let encoded = match event.kind() {
                EventKind::System {
                    header,
                    extra,
                    data,
                } => {
                    let (parsed, body, _) = SystemTraceHeader::parse_event(event.bytes).unwrap();
                    assert_eq!(parsed, header, "{what}");
                    assert_eq!(header.split_extra_words(body), Ok((extra, data)), "{what}");
                    totals
                        .entry(header.header_type.name().unwrap())
                        .or_default()
                        .add(
                            header.size,
                            header.hook_id,
                            header.thread_id,
                            header.process_id,
                            data.len(),
                            header.system_time,
                        );
                    [&header.to_bytes()[..], extra.as_bytes(), data].concat()
                }
                EventKind::PerfInfo {
                    header,
                    extra,
                    data,
                } => {
                    let (parsed, body, _) = PerfInfoTraceHeader::parse_event(event.bytes).unwrap();
                    assert_eq!(parsed, header, "{what}");
                    assert_eq!(header.split_extra_words(body), Ok((extra, data)), "{what}");
                    totals
                        .entry(header.header_type.name().unwrap())
                        .or_default()
                        .add(
                            header.size,
                            header.hook_id,
                            0,
                            0,
                            data.len(),
                            header.system_time,
                        );
                    [&header.to_bytes()[..], extra.as_bytes(), data].concat()
                }
                EventKind::Compact { .. }
                | EventKind::Message { .. }
                | EventKind::Opaque { .. }
                | EventKind::Malformed { .. } => panic!("{what}: no sample has {event:?}"),
                _ => return,
            };
            assert_eq!(encoded, event.bytes, "{what}");
        });
        let expected: BTreeMap<&str, Totals> = DISSECT_TOTALS
            .iter()
            .filter(|(trace, _, _)| *trace == name)
            .map(
                |&(
                    _,
                    kind,
                    [count, size, hook_id, thread_id, process_id, data_len, system_time],
                )| {
                    (
                        kind,
                        Totals {
                            count,
                            size,
                            hook_id,
                            thread_id,
                            process_id,
                            data_len,
                            system_time,
                        },
                    )
                },
            )
            .collect();
        assert_eq!(totals, expected, "{name}");
        for (kind, sums) in &totals {
            assert_eq!(
                counts_json["counts"][name][kind].as_u64(),
                Some(sums.count),
                "{name} {kind}"
            );
        }
    }
}

/// A buffer of one message event per `OptionFlags` value 0..=0xFF, each with its fields built
/// by hand in the documented order and three argument bytes; then the same with one byte too
/// few, which the walk still steps over and `kind` reports as malformed.
#[test]
fn message_events_with_every_flag_combination() {
    let mut buffer = Vec::new();
    let mut expected = Vec::new();
    for flags in 0..=0xFFu16 {
        let mut fields = MessageFields::default();
        if flags & 0x01 != 0 {
            fields.sequence = Some(u32::from(flags) + 1);
        }
        if flags & 0x04 != 0 {
            fields.message_guid = Some(MessageGuid::ComponentId(0xC0C0_0000 | u32::from(flags)));
        } else if flags & 0x02 != 0 {
            fields.message_guid = Some(MessageGuid::Guid(etw_classic::Guid::from_fields(
                u32::from(flags),
                2,
                3,
                [4; 8],
            )));
        }
        if flags & 0x08 != 0 {
            fields.timestamp = Some(-i64::from(flags));
        }
        if flags & 0x20 != 0 {
            fields.system_info = Some(MessageSystemInfo {
                thread_id: 100 + u32::from(flags),
                process_id: 200,
            });
        }
        let option_flags = TraceMessageFlags(flags);
        let len = MessageFields::announced_len(option_flags);
        assert_eq!(fields.len(), len, "{flags:#x}");
        let header = MessageTraceHeader {
            size: u16::try_from(MessageTraceHeader::LEN + len + 3).unwrap(),
            reserved: 0,
            version: MessageTraceHeader::VERSION,
            message_number: flags,
            option_flags,
        };
        let mut event = vec![0u8; usize::from(header.size)];
        let rest = header.emit(&mut event).unwrap();
        let rest = fields.emit(rest).unwrap();
        rest.copy_from_slice(b"arg");
        let start = buffer.len();
        buffer.extend_from_slice(&event);
        buffer.resize(buffer.len().next_multiple_of(8), 0xEE);
        expected.push((start, header, fields));
        // The same event with a Size one byte short of its fields.
        if len > 0 {
            let mut short = header;
            short.size = u16::try_from(MessageTraceHeader::LEN + len - 1).unwrap();
            let start = buffer.len();
            buffer.extend_from_slice(&short.to_bytes());
            buffer.resize(start + usize::from(short.size), 0x5A);
            buffer.resize(buffer.len().next_multiple_of(8), 0xEE);
            expected.push((start, short, MessageFields::default()));
        }
    }
    let events: Vec<Event<'_>> = Events::new(&buffer).map(Result::unwrap).collect();
    assert_eq!(events.len(), expected.len());
    for (event, (start, header, fields)) in events.iter().zip(expected) {
        assert_eq!(event.offset, start);
        assert_eq!(event.header_type, HeaderType::MESSAGE);
        let flags = header.option_flags;
        match event.kind() {
            EventKind::Message {
                header: found,
                fields: found_fields,
                args,
            } => {
                assert_eq!(
                    (found, found_fields, args),
                    (header, fields, &b"arg"[..]),
                    "{flags:?}"
                );
                assert_eq!(
                    found_fields.option_flags(),
                    flags
                        & TraceMessageFlags::WITH_FIELDS.without(
                            if flags.contains(TraceMessageFlags::COMPONENTID) {
                                TraceMessageFlags::GUID
                            } else {
                                TraceMessageFlags::EMPTY
                            }
                        )
                );
            }
            EventKind::Malformed { error, .. } => {
                let needed = MessageFields::announced_len(flags);
                assert_eq!(
                    error,
                    CodecError::AnnouncedBeyondSize {
                        layout: Layout::MessageTraceHeader,
                        member: "OptionFlags",
                        needed,
                        available: needed - 1
                    },
                    "{flags:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A header type's checking decoder.
type Parse<H> = fn(&[u8]) -> Result<(H, &[u8]), CodecError>;

/// Values of the three version-first headers and the message header from any bytes, and the
/// checks of `parse` made by hand.
fn check_version_first<const LEN: usize, H: Copy + PartialEq + std::fmt::Debug>(
    bytes: &[u8],
    types: [u8; 2],
    from_bytes: fn(&[u8; LEN]) -> H,
    to_bytes: fn(&H) -> [u8; LEN],
    parse: Parse<H>,
) -> Result<(), TestCaseError> {
    let result = parse(bytes);
    let Some(prefix) = bytes.first_chunk::<LEN>() else {
        let truncated = matches!(
            result,
            Err(CodecError::Truncated { needed, found, .. }) if needed == LEN && found == bytes.len()
        );
        prop_assert!(truncated, "{:?}", result);
        return Ok(());
    };
    let header = from_bytes(prefix);
    prop_assert_eq!(&to_bytes(&header), prefix);
    prop_assert_eq!(from_bytes(&to_bytes(&header)), header);
    let size = usize::from(u16::from_le_bytes([bytes[4], bytes[5]]));
    let valid = bytes[3] & 0xC0 == 0xC0 && types.contains(&bytes[2]) && size >= LEN;
    match result {
        Ok((parsed, rest)) => {
            prop_assert!(valid);
            prop_assert_eq!(parsed, header);
            prop_assert_eq!(rest, &bytes[LEN..]);
        }
        Err(_) => prop_assert!(!valid),
    }
    Ok(())
}

proptest! {
    #[test]
    fn version_first_headers_are_lossless_and_parse_by_the_rules(
        bytes in proptest::collection::vec(
            prop_oneof![any::<u8>(), Just(0xC0u8), Just(0x01u8), Just(0x04u8), Just(0x11u8), Just(0u8)],
            0..0x30,
        )
    ) {
        check_version_first(&bytes, [1, 2], SystemTraceHeader::from_bytes, SystemTraceHeader::to_bytes, SystemTraceHeader::parse)?;
        check_version_first(&bytes, [3, 4], CompactTraceHeader::from_bytes, CompactTraceHeader::to_bytes, CompactTraceHeader::parse)?;
        check_version_first(&bytes, [0x10, 0x11], PerfInfoTraceHeader::from_bytes, PerfInfoTraceHeader::to_bytes, PerfInfoTraceHeader::parse)?;
        // The message header: Size at 0, 0x90 in byte 3.
        match (bytes.first_chunk::<8>(), MessageTraceHeader::parse(&bytes)) {
            (None, result) => {
                let truncated = matches!(result, Err(CodecError::Truncated { .. }));
                prop_assert!(truncated, "{:?}", result);
            }
            (Some(prefix), result) => {
                let header = MessageTraceHeader::from_bytes(prefix);
                prop_assert_eq!(&header.to_bytes(), prefix);
                let valid = bytes[3] & 0x90 == 0x90 && u16::from_le_bytes([bytes[0], bytes[1]]) >= 8;
                prop_assert_eq!(result.is_ok(), valid);
            }
        }
    }

    /// Any bytes walked as events: `kind` never panics, and each kernel, message or malformed
    /// event is exactly its parts: header, then extra words or fields, then data, inside `Size`.
    /// (Five minutes under Miri for four cases; the big-endian lane covers the same decoding
    /// through the other tests of this file and the walks of the real traces.)
    #[test]
    #[cfg_attr(miri, ignore = "minutes under Miri; runs natively")]
    fn kinds_of_any_walked_event_are_their_bytes(
        bytes in proptest::collection::vec(
            prop_oneof![
                any::<u8>(), Just(0xC0u8), Just(0x90u8), Just(0x02u8), Just(0x03u8),
                Just(0x10u8), Just(0x0Cu8), Just(0x87u8), Just(0x00u8)
            ],
            0..400,
        )
    ) {
        for event in Events::new(&bytes).flatten() {
            let parts: Option<Vec<u8>> = match event.kind() {
                EventKind::System { header, extra, data } => {
                    prop_assert_eq!(extra.len(), ExtraWords::announced_len(header.version));
                    Some([&header.to_bytes()[..], extra.as_bytes(), data].concat())
                }
                EventKind::Compact { header, extra, data } => {
                    Some([&header.to_bytes()[..], extra.as_bytes(), data].concat())
                }
                EventKind::PerfInfo { header, extra, data } => {
                    prop_assert_eq!(extra.pmc_counters().len(), ExtraWords::announced_pmc_count(header.version));
                    Some([&header.to_bytes()[..], extra.as_bytes(), data].concat())
                }
                EventKind::Message { header, fields, args } => {
                    let mut encoded = vec![0; fields.len()];
                    fields.emit(&mut encoded).unwrap();
                    Some([&header.to_bytes()[..], &encoded, args].concat())
                }
                EventKind::Malformed { error, .. } => {
                    let CodecError::AnnouncedBeyondSize { needed, available, .. } = error else {
                        return Err(TestCaseError::fail(format!("{error:?}")));
                    };
                    prop_assert!(needed > available);
                    None
                }
                EventKind::Opaque { header_type, bytes: opaque } => {
                    prop_assert!([0x0C, 0x0D, 0x0E].contains(&header_type.0));
                    prop_assert_eq!(opaque, event.bytes);
                    None
                }
                _ => None,
            };
            if let Some(parts) = parts {
                prop_assert_eq!(parts, event.bytes);
            }
        }
    }
}
