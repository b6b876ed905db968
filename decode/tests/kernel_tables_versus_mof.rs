//! The kernel's built-in tables (`etw_classic::payload::kernel`) against PerfView's
//! `kerneltraceeventparser.mof` (the kernel's classes from Windows Vista's source tree, read
//! from `../shared/data/schemas`, never copied), parsed with this crate's MOF parser.
//!
//! 1. For every (class GUID, event type, version) both describe, the fields agree position by
//!    position: in-type (so pointer-sizedness: `pointer` and `SizeT` are 4 or 8 bytes by the
//!    event's pointer size), out-type, count, length (so a string's kind: UTF-16 or 8-bit,
//!    NUL-terminated, counted or of a fixed number of characters), structure and map; the
//!    disagreements are exactly [`KNOWN_LAYOUT_DEPARTURES`], each with its reason. The names
//!    are compared apart, position by position: they differ exactly as
//!    [`KNOWN_NAME_DEPARTURES`] lists.
//! 2. What only the MOF describes, among the tables' classes, is exactly [`MOF_ONLY`].
//! 3. Where the traces decide: every kernel event of the five PerfView traces whose key both
//!    describe decodes to the same values through the MOF's schema as through the table's,
//!    but for the keys of the departures, where the bytes show the MOF's layout to be the
//!    wrong one (the first events of each key, to keep the test short).
//!
//! The MOF's classes without `EventVersion` ("the event MOF class that does not contain the
//! EventVersion qualifier is considered the latest version", Microsoft's "Publishing Your
//! Event Schema for a Classic Provider") are taken as version 2, the newest `EventVersion` in
//! this file (`Process`, `Thread`, `Image`, ... are `EventVersion(2)`; no class has a higher
//! one): `DiskIo_TypeGroup1` there has the eight fields of version 2 (version 3 adds
//! `IssuingThreadId`).
//!
//! The departures the tables' own documentation names are against the Windows 10 MOF
//! (`wmicore.mof`), not this one: this file's `EventTrace_Header.PointerSize` is a plain
//! `uint32` (no `pointer` qualifier), like the table's; it has no `PartitionInfoExtension`
//! class (event type 80); and its `StackWalk_Event` has `Stack1` ... `Stack32`, which the
//! table holds as one array (below).
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`, the MOF from
//! `$ETW_SCHEMAS_DIR`, else `../shared/data/schemas`; a missing file skips the checks unless
//! `ETW_REQUIRE_TRACES=1` (see `shared_files/mod.rs`).

#[path = "../../examples/common/kernel_key.rs"]
mod kernel_key;
mod shared_files;

use std::collections::BTreeMap;

use kernel_key::kernel_key;

use etw_classic::payload::kernel::{self, KernelEvent, KernelField, CLASSES};
use etw_classic::payload::{FieldSchema, ItemKind, PayloadDecoder, Value};
use etw_classic::{Bitness, EtlFile, Guid};
use etw_classic_decode::mof::{parse_mof, Mof, MofEvent, MofKey};
use etw_classic_decode::Name;

/// The version a class without `EventVersion` describes in this file (the module's
/// documentation): 2, but for `Lost_Event`, whose events Windows writes as version 0, the only
/// version it has (the tables' `RT_LostEvent`, and dissect.etl's description of the class,
/// `version="0"` for its three event types).
fn unversioned(class: Guid) -> u16 {
    if class == kernel::LOST_EVENT {
        0
    } else {
        2
    }
}

fn kernel_mof() -> Option<Mof> {
    let text = shared_files::schema_file("kerneltraceeventparser.mof")?;
    Some(parse_mof(&text, "kerneltraceeventparser.mof").unwrap_or_else(|e| panic!("{e}")))
}

/// The MOF's description of `class`, `event_type`, `version`: the class of that
/// `EventVersion`, or for the version [`unversioned`] says a class without one.
fn mof_event(mof: &Mof, class: Guid, event_type: u8, version: u16) -> Option<&MofEvent> {
    let key = |version| MofKey {
        guid: class,
        event_type,
        version,
    };
    mof.events
        .get(&key(Some(version)))
        .or_else(|| (version == unversioned(class)).then(|| mof.events.get(&key(None)))?)
}

/// What the table and the MOF say of one field, names aside.
fn layout<N>(field: &FieldSchema<N>) -> String {
    format!(
        "{:?} {:?} count {:?} length {:?}{}",
        field.in_type,
        field.out_type,
        field.count,
        field.length,
        if field.members > 0 {
            format!(" members {}", field.members)
        } else {
            String::new()
        }
    )
}

/// How one event is named in the lists below: `Thread type 4 version 1 (Thread_V1_TypeGroup1 /
/// Thread_V1_TypeGroup2)`, the table's MOF class, then the file's.
fn place(class: &str, table: &KernelEvent, mof: &MofEvent) -> String {
    format!(
        "{class} type {} version {} ({} / {})",
        table.event_type, table.version, table.mof_class, mof.class_name
    )
}

/// The layout differences (names aside) and the name differences between a table's event and
/// the MOF's description of it, each a line.
fn differences(place: &str, table: &[KernelField], mof: &[FieldSchema<Name>]) -> [Vec<String>; 2] {
    let mut layouts = Vec::new();
    let mut names = Vec::new();
    if table.len() != mof.len() {
        layouts.push(format!(
            "{place}: {} fields in the table, {} in the MOF",
            table.len(),
            mof.len()
        ));
    }
    for (index, (a, b)) in table.iter().zip(mof).enumerate() {
        if layout(a) != layout(b) {
            layouts.push(format!(
                "{place}: field #{index} {}: {} in the table, {} in the MOF",
                a.name,
                layout(a),
                layout(b)
            ));
        }
        if a.map.is_some() || b.map.is_some() {
            layouts.push(format!(
                "{place}: field #{index} {}: map {:?} in the table, {:?} in the MOF",
                a.name, a.map, b.map
            ));
        }
        if a.name != &*b.name {
            names.push(format!(
                "{place}: field #{index} is {} in the table, {} in the MOF",
                a.name, b.name
            ));
        }
    }
    [layouts, names]
}

/// Every layout difference between the tables and the MOF, and why the table is as it is.
/// The tables are written from the Windows 10 MOF (`wmicore.mof`, their sources in
/// `payload::kernel`'s documentation), and this file is Vista's; on each point below
/// dissect.etl's own descriptions of the class (the XML files of its `manifests` folder, read
/// at the installed package) say what the tables say. Where the traces hold events of the key,
/// test 3 lets their bytes decide; where they hold none, the tables keep the newer
/// description.
const KNOWN_LAYOUT_DEPARTURES: &[(&str, &str)] = &[
    (
        "Thread type 4 version 1 (Thread_V1_TypeGroup1 / Thread_V1_TypeGroup2): 9 fields in the table, 2 in the MOF",
        // Version 1 thread events come from Windows XP and Server 2003: this file and
        // Microsoft's pages of `Thread_V1_TypeGroup1` (`EventType{1, 3}`) and
        // `Thread_V1_TypeGroup2` (`EventType{2, 4}`) give DCEnd the two ids of the end events;
        // the tables and dissect.etl (`Thread/DCEnd` version 1, template
        // `Thread_V1_TypeGroup1`) the nine fields of the start events. No trace holds a
        // version-1 thread event.
        "DCEnd of version 1 is Thread_V1_TypeGroup1 in the tables' source; no bytes decide",
    ),
    (
        "Thread type 36 version 1 (CSwitch_V1 / CSwitch_V1): 10 fields in the table, 11 in the MOF",
        // This file ends version 1's context switch with `uint32 NewThreadWaitTime`; the
        // tables and dissect.etl end it after `OldThreadWaitIdealProcessor`. No trace holds a
        // version-1 context switch.
        "NewThreadWaitTime is not in the tables' source; no bytes decide",
    ),
    (
        "Thread type 53 version 2 (ThreadAffinity / ReserveDisjoinThread): 4 fields in the table, 2 in the MOF",
        // Event type 53 of version 2 is Vista's `ReserveDisjoinThread` here (one of the
        // bandwidth reservation events, see `MOF_ONLY`), `ThreadAffinity` (`Affinity`,
        // `ThreadId`, `Group`, `Reserved`) in the tables and dissect.etl: the type was given
        // to another event after Vista. No trace holds one.
        "type 53 is ThreadAffinity in the tables' source",
    ),
    (
        "ALPC type 36 version 2 (ALPC_Wait_For_New_Message / ALPC_Wait_For_New_Message): field #1 PortName: UNICODE_STRING NULL count One length Natural in the table, ANSI_STRING NULL count One length Natural in the MOF",
        // This file (and PerfView's parser, `GetUTF8StringAt`) read 8-bit text; the tables and
        // dissect.etl (`win:WString`, which it reads as `wchar[]`) UTF-16. No trace holds an
        // ALPC event.
        "PortName is UTF-16 in the tables' source; no bytes decide",
    ),
    (
        "PerfInfo type 46 version 2 (SampledProfile / SampledProfile): 4 fields in the table, 3 in the MOF",
        // The MOF's `uint32 Count` is the table's `uint16 Count` and `uint16 Reserved`: the
        // bytes decide for the table (test 3).
        "Count is 16 bits, then flags: the bytes and PerfView's baseline (test 3)",
    ),
    (
        "PerfInfo type 46 version 2 (SampledProfile / SampledProfile): field #2 Count: UINT16 NULL count One length Natural in the table, UINT32 NULL count One length Natural in the MOF",
        "the same departure, field by field",
    ),
    (
        "PerfInfo type 67 version 2 (ISR / ISR): field #3 Vector: UINT16 NULL count One length Natural in the table, UINT8 NULL count One length Natural in the MOF",
        // This file has `uint8 Vector` then `uint16 Reserved`, the tables and dissect.etl
        // `uint16 Vector` then `uint8 Reserved`: the same 3 bytes after `ReturnValue`, cut
        // differently. PerfView's parser reads `Vector` as the one byte after `ReturnValue`
        // (`GetByteAt(HostOffset(13, 1))`), which both agree on for a vector below 256. No
        // trace holds an ISR event.
        "Vector is 16 bits in the tables' source; no bytes decide",
    ),
    (
        "PerfInfo type 67 version 2 (ISR / ISR): field #4 Reserved: UINT8 NULL count One length Natural in the table, UINT16 NULL count One length Natural in the MOF",
        "the same departure, the next field",
    ),
    (
        "StackWalk type 32 version 2 (StackWalk_Event / StackWalk_Event): 4 fields in the table, 35 in the MOF",
        // `Stack1` ... `Stack32` are one array in the table, of as many frames as the event
        // holds (at most 192, `StackWalk_TypeGroup1.StackFrame[192]` of the Windows 10 MOF):
        // the bytes decide (test 3).
        "the frames are one array sized by the data (test 3)",
    ),
    (
        "StackWalk type 32 version 2 (StackWalk_Event / StackWalk_Event): field #3 Stack: POINTER NULL count Fixed(192) length Natural in the table, POINTER NULL count One length Natural in the MOF",
        "the same departure: the array against Stack1",
    ),
];

/// Every name difference, position by position, and why. Everywhere else the table's field
/// names are this file's (the MOF's names, which TDH gives).
const KNOWN_NAME_DEPARTURES: &[(&str, &str)] = &[
    (
        "Thread type 53 version 2 (ThreadAffinity / ReserveDisjoinThread): field #0 is Affinity in the table, Reserve in the MOF",
        "event type 53 was reused (above)",
    ),
    (
        "Thread type 53 version 2 (ThreadAffinity / ReserveDisjoinThread): field #1 is ThreadId in the table, TThreadId in the MOF",
        "event type 53 was reused (above)",
    ),
    (
        "StackWalk type 32 version 2 (StackWalk_Event / StackWalk_Event): field #3 is Stack in the table, Stack1 in the MOF",
        "the frames are one array (above)",
    ),
];

/// The event types the MOF describes for the tables' classes that the tables do not hold.
const MOF_ONLY: &[(&str, &str)] = &[
    // Vista's bandwidth reservation events, which neither the tables nor dissect.etl describe
    // (there 48, 49 and 52 are the version-3 priority events `SetPriority`, `SetBasePriority`
    // and `SetIoPriority`); no trace holds one (tests/payload_kernel.rs fails on a kernel
    // event of the traces the tables do not hold).
    ("Thread type 48 version 2 (ReserveCreate)", "Vista only"),
    ("Thread type 49 version 2 (ReserveDelete)", "Vista only"),
    ("Thread type 52 version 2 (ReserveJoinThread)", "Vista only"),
    ("Thread type 54 version 2 (ReserveState)", "Vista only"),
    ("Thread type 55 version 2 (ReserveBandwidth)", "Vista only"),
    ("Thread type 56 version 2 (ReserveLateCount)", "Vista only"),
];

/// Tests 1 and 2: every (class, event type, version) of the tables that the MOF describes too
/// (227 of them), compared field by field; the differences are printed one per line and must be
/// exactly the known ones; and the MOF's event types of the tables' classes that the tables do
/// not hold are exactly [`MOF_ONLY`].
#[test]
fn the_kernel_tables_agree_with_the_mof_where_both_describe_an_event() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    let mut compared = 0;
    let mut layouts = Vec::new();
    let mut names = Vec::new();
    for class in &CLASSES {
        for event in class.events {
            let Some(described) =
                mof_event(&mof, class.guid, event.event_type, event.version.into())
            else {
                continue;
            };
            compared += 1;
            let place = place(class.name, event, described);
            let [layout, name] = differences(&place, event.fields, &described.schema.fields);
            layouts.extend(layout);
            names.extend(name);
        }
    }
    let mut mof_only = Vec::new();
    for (key, event) in &mof.events {
        let Some(class) = kernel::class_of(key.guid) else {
            continue;
        };
        let version = key.version.unwrap_or_else(|| unversioned(key.guid));
        if class.event(key.event_type, version).is_none() {
            mof_only.push(format!(
                "{} type {} version {version} ({})",
                class.name, key.event_type, event.class_name
            ));
        }
    }
    for line in layouts.iter().chain(&names).chain(&mof_only) {
        println!("{line}");
    }
    println!("{compared} event types and versions described by both");
    let known = |list: &[(&str, &str)]| {
        list.iter()
            .map(|(line, _)| line.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(layouts, known(KNOWN_LAYOUT_DEPARTURES));
    assert_eq!(names, known(KNOWN_NAME_DEPARTURES));
    assert_eq!(mof_only, known(MOF_ONLY));
    // (class, event type, version) keys of the tables the file describes too.
    assert_eq!(compared, 227);
}

/// The five PerfView traces.
const TRACES: [&str; 5] = [
    "SelfDescribingSingleEvent.etl",
    "gcevents.etl",
    "net.4.5.2.x64.etl",
    "net.4.5.2.x86.etl",
    "primitive-types.etl",
];

/// How many events of each key and pointer size of each trace test 3 decodes through both.
const DECODED_PER_KEY: usize = 300;

/// A kernel event of a trace.
struct KernelData {
    table: &'static KernelEvent,
    bitness: Bitness,
    data: Vec<u8>,
}

/// The first [`DECODED_PER_KEY`] events of each kernel key and pointer size of the trace
/// `name` that the tables hold: the version-first headers' events (the class from the hook's
/// group), and the classic events of a kernel class GUID.
fn kernel_events(name: &'static str) -> Option<Vec<KernelData>> {
    let bytes = shared_files::trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut taken: BTreeMap<(Guid, u8, u16, Bitness), usize> = BTreeMap::new();
    let mut found = Vec::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        for event in buffer.trace_buffer(&mut scratch).unwrap().events() {
            let event = event.unwrap();
            let Some(key) = kernel_key(event.kind()) else {
                continue;
            };
            let (event_type, version, data) = (key.event_type, key.version, key.data);
            let Some(table) = kernel::lookup(key.class, event_type, version) else {
                continue;
            };
            let bitness = event.header_type.bitness().unwrap();
            let seen = taken
                .entry((table.class, event_type, version, bitness))
                .or_default();
            *seen += 1;
            if *seen <= DECODED_PER_KEY {
                found.push(KernelData {
                    table,
                    bitness,
                    data: data.to_vec(),
                });
            }
        }
    }
    Some(found)
}

/// The values of `data` decoded with `fields` (each with its offset), the error that stopped
/// them, and the bytes left.
fn values<'d, N>(
    fields: &[FieldSchema<N>],
    data: &'d [u8],
    bitness: Bitness,
) -> (Vec<(usize, Value<'d>)>, bool, usize) {
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    let mut found = Vec::new();
    let mut failed = false;
    for item in decoder.by_ref() {
        match item {
            Ok(item) => {
                if let ItemKind::Value(value) = item.kind {
                    found.push((item.offset, value));
                }
            }
            Err(_) => failed = true,
        }
    }
    (found, failed, decoder.rest().len())
}

/// Test 3: the events of the five traces whose key both describe (the first
/// [`DECODED_PER_KEY`] of each key, pointer size and trace) decode to the same values, offset
/// by offset, through the MOF's schema as through the table's, but those of the two departures
/// the traces hold, where the bytes decide for the table:
/// - `PerfInfo/Sample` (`SampledProfile` version 2): the MOF's `uint32 Count` reads the
///   table's `Count` and `Reserved` as one number. The bytes after the count are flags:
///   PerfView reads `Count` as 16 bits and its `Priority`, `ExecutingDPC` and `ExecutingISR`
///   from the next byte (`KernelTraceEventParser.cs`, `SampledProfileTraceData`), and its x64
///   baseline prints the sample at `InstructionPointer=0xffffffffffd03003` of thread 3780 with
///   `Priority=11; Count=1`: the table's `Count` 1 and `Reserved` 88 (`88 >> 3` is 11), where
///   the MOF's `Count` would be 5,767,169.
/// - `StackWalk/Stack`: the events hold as many frames as the stack had (16 bytes then the
///   frames); the MOF's 32 frames fail on a shorter stack and leave bytes on a longer one.
#[test]
fn where_the_traces_hold_events_both_describe_the_bytes_decide() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    let mut compared: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut samples, mut baseline_row, mut short_stacks, mut long_stacks) = (0, 0, 0, 0);
    for trace in TRACES {
        let Some(events) = kernel_events(trace) else {
            return;
        };
        for event in &events {
            let table = event.table;
            let Some(described) =
                mof_event(&mof, table.class, table.event_type, table.version.into())
            else {
                continue;
            };
            let fields = table.fields_for(event.data.len(), event.bitness);
            let by_table = values(&fields, &event.data, event.bitness);
            let by_mof = values(&described.schema.fields, &event.data, event.bitness);
            assert_eq!(
                (by_table.1, by_table.2),
                (false, 0),
                "{trace}: the table's {}",
                table.mof_class
            );
            match (table.class, table.event_type) {
                (kernel::PERF_INFO, 46) => {
                    let [_, _, (_, Value::U16(count)), (_, Value::U16(reserved))] = by_table.0[..]
                    else {
                        panic!(
                            "{trace}: SampledProfile through the table: {:?}",
                            by_table.0
                        );
                    };
                    let [_, _, (_, Value::U32(mof_count))] = by_mof.0[..] else {
                        panic!("{trace}: SampledProfile through the MOF: {:?}", by_mof.0);
                    };
                    assert_eq!(mof_count, u32::from(count) | u32::from(reserved) << 16);
                    if trace == "net.4.5.2.x64.etl"
                        && by_table.0[..2]
                            == [
                                (0, Value::Pointer(0xffff_ffff_ffd0_3003)),
                                (8, Value::U32(3780)),
                            ]
                    {
                        assert_eq!((count, reserved >> 3, mof_count), (1, 11, 5_767_169));
                        baseline_row += 1;
                    }
                    samples += 1;
                }
                (kernel::STACK_WALK, 32) => {
                    let pointer = match event.bitness {
                        Bitness::Bits32 => 4,
                        Bitness::Bits64 => 8,
                    };
                    let frames = (event.data.len() - 16) / pointer;
                    let (failed, rest) = (by_mof.1, by_mof.2);
                    if frames < 32 {
                        assert!(failed, "{trace}: {frames} frames through the MOF");
                        short_stacks += 1;
                    } else {
                        assert_eq!((failed, rest), (false, (frames - 32) * pointer));
                        long_stacks += usize::from(frames > 32);
                    }
                }
                _ => {
                    assert_eq!(by_table, by_mof, "{trace}: {}", table.mof_class);
                    *compared.entry(table.mof_class).or_default() += 1;
                }
            }
        }
    }
    println!("decoded alike through both: {compared:?}");
    println!(
        "{samples} samples, {short_stacks} stacks shorter than 32 frames, {long_stacks} longer"
    );
    assert!(baseline_row >= 1, "the baseline's sample");
    assert!(short_stacks > 0 && long_stacks > 0);
    // The classes of the traces' events both describe: the logfile header and its extensions,
    // image loads, file names, hard faults, process counters, TCP and UDP, system
    // configuration (at least these: each key is listed in the printed counts).
    for class in [
        "EventTrace_Header",
        "Header_Extension_TypeGroup",
        "RDComplete",
        "Image_Load_V2",
        "FileIo_V2_Name",
        "PageFault_HardFault",
        "Process_V2_TypeGroup2",
        "TcpIp_TypeGroup1",
        "UdpIp_TypeGroup1",
        "SystemConfig_V2_NIC",
    ] {
        assert!(compared.contains_key(class), "{class}");
    }
}
