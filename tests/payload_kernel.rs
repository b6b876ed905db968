//! The kernel's built-in classes on the five PerfView traces.
//!
//! 1. Every kernel event (`SYSTEM`, `COMPACT`, `PERFINFO` headers, and classic `FULL_HEADER`
//!    events of a class GUID of the tables, KernelTraceControl's `SysConfig` and `ImageID`
//!    among them) whose class, type and version the tables hold decodes
//!    with no error and no byte left over; the events the tables do not hold are exactly the
//!    ones listed in [`NOT_IN_TABLES`], each with the reason.
//! 2. Values PerfView's own test baselines print for these traces
//!    (`src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.baseline.txt` and `...x86...` in
//!    microsoft/perfview, MIT): each expected value below quotes the baseline's line.
//! 3. The sizes of fixed-size events on 32- and 64-bit loggers, against the length checks of
//!    PerfView's `KernelTraceEventParser.cs` and `SymbolTraceEventParser.cs`, and where the
//!    strings of KernelTraceControl's `ImageID` events start on each.
//! 4. KernelTraceControl's `ImageID` events: their counts by name against the baselines'
//!    `COUNT` lines, their values against the baselines' sample lines, and the `ProcessID`
//!    each `DbgID` event holds against its header's.
//!
//! The comparison of every field with dissect.etl's decoding is
//! `tools/etl-crosscheck/kernel_payloads.py`.
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; a missing
//! trace skips the checks unless `ETW_REQUIRE_TRACES=1` (see `tests/common/mod.rs`).

mod common;
#[path = "../examples/common/kernel_key.rs"]
mod kernel_key;

use std::collections::BTreeMap;

use kernel_key::kernel_key;

use common::trace;
use etw_classic::payload::kernel;
use etw_classic::payload::{ItemKind, OutType, PayloadDecoder, Value};
use etw_classic::{Bitness, EtlFile, Guid};

/// The five PerfView traces.
const TRACES: [&str; 5] = [
    "SelfDescribingSingleEvent.etl",
    "gcevents.etl",
    "net.4.5.2.x64.etl",
    "net.4.5.2.x86.etl",
    "primitive-types.etl",
];

/// A kernel event of a trace, with what it needs to be looked up and decoded.
struct KernelData {
    /// The class GUID: the hook's group's, or the classic header's.
    class: Guid,
    event_type: u8,
    version: u16,
    bitness: Bitness,
    data: Vec<u8>,
    /// Where it is: buffer index and offset in the buffer.
    at: (usize, usize),
    /// The header's `ProcessId`, for the classic events.
    process_id: Option<u32>,
}

/// Every kernel event of the trace `name` (`None` when the trace cannot be read): the
/// version-first headers' events, and the classic events whose GUID is a kernel class.
fn kernel_events(name: &str) -> Option<Vec<KernelData>> {
    let bytes = trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut found = Vec::new();
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let index = buffer.index;
        let events = buffer.trace_buffer(&mut scratch).unwrap();
        for event in events.events() {
            let event = event.unwrap();
            let bitness = event.header_type.bitness();
            let Some(key) = kernel_key(event.kind()) else {
                continue;
            };
            found.push(KernelData {
                class: key.class,
                event_type: key.event_type,
                version: key.version,
                bitness: bitness.unwrap(),
                data: key.data.to_vec(),
                at: (index, event.offset),
                process_id: key.process_id,
            });
        }
    }
    Some(found)
}

/// The kernel events of the traces the tables do not hold: (class, event type, version) and
/// why. Each has no layout in the kernel's MOF nor in PerfView's parser.
const NOT_IN_TABLES: [(Guid, u8, u8, &str); 1] = [(
    kernel::SYS_CONFIG,
    37,
    0,
    "SysConfig type 37: PerfView prints it as `SysConfig/Opcode(37)` with no fields; no source gives its 16 bytes a layout",
)];

/// Test 1: every kernel event of every trace whose key the tables hold decodes with no error
/// and no byte left over; the others are exactly [`NOT_IN_TABLES`].
#[test]
fn every_kernel_event_of_the_traces_decodes_to_its_last_byte() {
    let mut any = false;
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    for name in TRACES {
        let Some(events) = kernel_events(name) else {
            continue;
        };
        any = true;
        let mut decoded: BTreeMap<String, usize> = BTreeMap::new();
        let mut missing: BTreeMap<(Guid, u8, u16), usize> = BTreeMap::new();
        for event in &events {
            let Some(schema) = kernel::lookup(event.class, event.event_type, event.version) else {
                *missing
                    .entry((event.class, event.event_type, event.version))
                    .or_default() += 1;
                continue;
            };
            let fields = schema.fields_for(event.data.len(), event.bitness);
            let mut decoder = PayloadDecoder::new(&fields, &event.data, event.bitness);
            let error = decoder.by_ref().find_map(Result::err);
            let problem = match error {
                Some(error) => Some(error.named(fields.as_slice()).to_string()),
                None if !decoder.rest().is_empty() => Some(format!(
                    "{} bytes left after the last field: {:02x?}",
                    decoder.rest().len(),
                    decoder.rest()
                )),
                None => None,
            };
            if let Some(problem) = problem {
                let key = format!(
                    "{name}: {} version {} ({:?})",
                    schema.event_name(),
                    schema.version,
                    event.bitness
                );
                failures.entry(key).or_insert_with(|| {
                    format!(
                        "buffer {} offset {:#x}, {} bytes: {problem}; data {:02x?}",
                        event.at.0,
                        event.at.1,
                        event.data.len(),
                        event.data
                    )
                });
                continue;
            }
            *decoded
                .entry(format!("{} v{}", schema.event_name(), schema.version))
                .or_default() += 1;
        }
        let total: usize = decoded.values().sum();
        let not_in_tables: usize = missing.values().sum();
        println!("{name}: {total} kernel events decoded, {not_in_tables} not in the tables");
        for (event, count) in &decoded {
            println!("    {count:>6} {event}");
        }
        for ((class, event_type, version), count) in &missing {
            println!(
                "    {count:>6} not in the tables: {class} type {event_type} version {version}"
            );
            assert!(
                NOT_IN_TABLES.iter().any(|(c, t, v, _)| c == class
                    && t == event_type
                    && u16::from(*v) == *version),
                "{name}: {class} type {event_type} version {version} ({count} events) is not in the tables"
            );
        }
    }
    if !any {
        eprintln!("SKIPPED: no PerfView trace");
    }
    for (key, failure) in &failures {
        println!("FAILED {key}: {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} kinds of kernel event do not decode to their last byte",
        failures.len()
    );
}

/// What a field is expected to hold, as PerfView's baseline prints it.
#[derive(Clone, Copy, Debug)]
enum Is {
    /// A number (an integer of any width, a pointer; ports in host order, as PerfView prints
    /// them).
    Num(u64),
    /// Text, whole.
    Text(&'static str),
    /// Text the baseline cut after 20 characters (`...`): its start.
    Starts(&'static str),
}

/// A field's value as text or a number, as the baseline prints it: ports big-endian (the
/// out-type says so), IPv4 addresses dotted in network order, IPv6 addresses as eight groups.
fn render(value: &Value<'_>, out_type: OutType) -> Result<u64, String> {
    Ok(match *value {
        Value::U8(v) => v.into(),
        Value::U16(v) if out_type == OutType::PORT => u16::from_be_bytes(v.to_le_bytes()).into(),
        Value::U16(v) => v.into(),
        Value::U32(v) if out_type == OutType::IPV4 => {
            let [a, b, c, d] = v.to_le_bytes();
            return Err(format!("{a}.{b}.{c}.{d}"));
        }
        Value::U32(v) => v.into(),
        Value::U64(v) | Value::Pointer(v) => v,
        Value::I8(v) => v as u8 as u64,
        Value::I16(v) => v as u16 as u64,
        Value::I32(v) => v as u32 as u64,
        Value::I64(v) => v as u64,
        Value::Utf16(text) => return Err(text.chars().collect()),
        Value::Ansi(text) => return Err(String::from_utf8_lossy(text).into_owned()),
        Value::Guid(guid) => return Err(guid.to_string()),
        Value::Binary(bytes) if out_type == OutType::IPV6 => {
            let groups: Vec<String> = bytes
                .chunks(2)
                .map(|pair| format!("{:x}", u16::from_be_bytes([pair[0], pair[1]])))
                .collect();
            return Err(groups.join(":"));
        }
        ref other => return Err(format!("{other:?}")),
    })
}

fn matches(value: &Value<'_>, out_type: OutType, expected: Is) -> bool {
    match (render(value, out_type), expected) {
        (Ok(number), Is::Num(want)) => number == want,
        (Err(text), Is::Text(want)) => text == want,
        (Err(text), Is::Starts(want)) => text.starts_with(want),
        _ => false,
    }
}

/// Asserts that the trace holds an event named `event` (TraceEvent's `Task/Opcode`) whose
/// fields hold `expected`, and that it decodes to its last byte.
fn assert_event(events: &[KernelData], trace: &str, event: &str, expected: &[(&str, Is)]) {
    let mut candidates = 0;
    for data in events {
        let Some(schema) = kernel::lookup(data.class, data.event_type, data.version) else {
            continue;
        };
        if schema.event_name().to_string() != event {
            continue;
        }
        candidates += 1;
        let fields = schema.fields_for(data.data.len(), data.bitness);
        let mut decoder = PayloadDecoder::new(&fields, &data.data, data.bitness);
        let mut found = BTreeMap::new();
        for item in decoder.by_ref() {
            let item = item.unwrap();
            if let (ItemKind::Value(value), None) = (item.kind, item.element) {
                found.insert(item.field.name, (value, item.field.out_type));
            }
        }
        let all = expected.iter().all(|(name, want)| {
            found
                .get(name)
                .is_some_and(|(value, out_type)| matches(value, *out_type, *want))
        });
        if all {
            assert!(decoder.rest().is_empty());
            return;
        }
    }
    panic!("{trace}: none of the {candidates} `{event}` events holds {expected:?}");
}

/// Test 2, net.4.5.2.x64.etl: values from PerfView's `net.4.5.2.x64.baseline.txt`, each block
/// quoting the baseline line it takes them from. Where PerfView names a field differently from
/// the MOF (its own accessor names), the MOF's name is used and PerfView's is in the comment.
#[test]
fn net_4_5_2_x64_values_agree_with_perfviews_baseline() {
    let Some(events) = kernel_events("net.4.5.2.x64.etl") else {
        return;
    };
    let trace = "net.4.5.2.x64";
    // "Windows Kernel/EventTrace ... DataLen=332; BufferSize=65,536; Version=131,590;
    // ProviderVersion=9,200; NumberOfProcessors=8; ... TimerResolution=156,250;
    // MaxFileSize=500; LogFileMode=67,174,401; BuffersWritten=360; StartBuffers=1;
    // PointerSize=8; EventsLost=0; CPUSpeed=3,592; ... PerfFreq=10,000,000; ...
    // ReservedFlags=1; BuffersLost=0; SessionName=Relogger; LogFileName=[multiple files]"
    assert_event(
        &events,
        trace,
        "EventTrace",
        &[
            ("BufferSize", Is::Num(65_536)),
            ("Version", Is::Num(131_590)),
            ("ProviderVersion", Is::Num(9_200)),
            ("NumberOfProcessors", Is::Num(8)),
            ("TimerResolution", Is::Num(156_250)),
            ("MaxFileSize", Is::Num(500)),
            ("LogFileMode", Is::Num(67_174_401)),
            ("BuffersWritten", Is::Num(360)),
            ("StartBuffers", Is::Num(1)),
            ("PointerSize", Is::Num(8)),
            ("EventsLost", Is::Num(0)),
            ("CPUSpeed", Is::Num(3_592)),
            ("PerfFreq", Is::Num(10_000_000)),
            ("ReservedFlags", Is::Num(1)),
            ("BuffersLost", Is::Num(0)),
            ("SessionNameString", Is::Text("Relogger")),
            ("LogFileNameString", Is::Text("[multiple files]")),
        ],
    );
    // "Windows Kernel/EventTrace/Extension ... GroupMask1=75,535; GroupMask2=2; GroupMask3=0;
    // ... KernelEventVersion=42"
    assert_event(
        &events,
        trace,
        "EventTrace/Extension",
        &[
            ("GroupMask1", Is::Num(75_535)),
            ("GroupMask2", Is::Num(2)),
            ("GroupMask3", Is::Num(0)),
            ("KernelEventVersion", Is::Num(42)),
        ],
    );
    // "Windows Kernel/EventTrace/EndExtension ... GroupMask1=0; ... KernelEventVersion=42"
    assert_event(
        &events,
        trace,
        "EventTrace/EndExtension",
        &[
            ("GroupMask1", Is::Num(0)),
            ("KernelEventVersion", Is::Num(42)),
        ],
    );
    // "Windows Kernel/SysConfig/SystemPaths ... DataLen=64; SystemDirectory=C:\Windows\system32;
    // SystemWindowsDirectory=C:\Windows\"
    assert_event(
        &events,
        trace,
        "SysConfig/SystemPaths",
        &[
            ("SystemDirectory", Is::Text(r"C:\Windows\system32")),
            ("SystemWindowsDirectory", Is::Text(r"C:\Windows\")),
        ],
    );
    // "Windows Kernel/SysConfig/VolumeMapping ... NtPath=\SystemRoot\; DosPath=C:\Windows\"
    // and "... NtPath=\Device\Floppy0\; DosPath=A:\"
    assert_event(
        &events,
        trace,
        "SysConfig/VolumeMapping",
        &[
            ("NtPath", Is::Text(r"\SystemRoot\")),
            ("DosPath", Is::Text(r"C:\Windows\")),
        ],
    );
    assert_event(
        &events,
        trace,
        "SysConfig/VolumeMapping",
        &[
            ("NtPath", Is::Text(r"\Device\Floppy0\")),
            ("DosPath", Is::Text(r"A:\")),
        ],
    );
    // "Windows Kernel/SysConfig/UnknownVolume ... DataLen=50; Value=\Device\HarddiskVolu..."
    assert_event(
        &events,
        trace,
        "SysConfig/UnknownVolume",
        &[("Value", Is::Starts(r"\Device\HarddiskVolu"))],
    );
    // "Windows Kernel/SystemConfig/Network ... TcbTablePartitions=32; MaxHashTableSize=-1;
    // MaxUserPort=65,536; TcpTimedWaitDelay=120" (the MOF's uint32 holds PerfView's -1)
    assert_event(
        &events,
        trace,
        "SystemConfig/Network",
        &[
            ("TcbTablePartitions", Is::Num(32)),
            ("MaxHashTableSize", Is::Num(0xFFFF_FFFF)),
            ("MaxUserPort", Is::Num(65_536)),
            ("TcpTimedWaitDelay", Is::Num(120)),
        ],
    );
    // "Windows Kernel/UdpIp/Recv PID=2108; ... DataLen=32; context=0xad0000083c;
    // saddr=10.128.0.117; sport=60,441; size=173; daddr=239.255.255.250; dport=1,900"
    // (PerfView's `context` is the MOF's PID and size read as one number: 0xad = 173,
    // 0x83c = 2108.) The ports are big-endian: `extension("Port")`.
    assert_event(
        &events,
        trace,
        "UdpIp/Recv",
        &[
            ("PID", Is::Num(2_108)),
            ("size", Is::Num(173)),
            ("saddr", Is::Text("10.128.0.117")),
            ("sport", Is::Num(60_441)),
            ("daddr", Is::Text("239.255.255.250")),
            ("dport", Is::Num(1_900)),
        ],
    );
    // "Windows Kernel/TcpIp/SendIPV6 PID=4; ... DataLen=64; size=65,652;
    // daddr=2001:4898:e0:81:7cb9...; saddr=2001:4898:f0:26:b18e...; dport=445; sport=64,025;
    // startime=1,942; endtime=1,942; seqnum=0; connid=0x00000000"
    assert_event(
        &events,
        trace,
        "TcpIp/SendIPV6",
        &[
            ("PID", Is::Num(4)),
            ("size", Is::Num(65_652)),
            ("daddr", Is::Starts("2001:4898:e0:81:7cb9")),
            ("saddr", Is::Starts("2001:4898:f0:26:b18e")),
            ("dport", Is::Num(445)),
            ("sport", Is::Num(64_025)),
            ("startime", Is::Num(1_942)),
            ("endtime", Is::Num(1_942)),
            ("seqnum", Is::Num(0)),
            ("connid", Is::Num(0)),
        ],
    );
    // "Windows Kernel/Thread/Stop PID=3988; TID=3840; ... DataLen=72;
    // StackBase=0xfffff88006daa000; StackLimit=0xfffff88006da4000; UserStackBase=0x10120000;
    // UserStackLimit=0x1011e000; StartAddr=0x000000ff; Win32StartAddr=0x7476a8c0;
    // TebBase=0xff61f000; SubProcessTag=0; BasePriority=8; PagePriority=5; IoPriority=2;
    // ThreadFlags=0" (PerfView's StartAddr is the MOF's Affinity)
    assert_event(
        &events,
        trace,
        "Thread/Stop",
        &[
            ("ProcessId", Is::Num(3_988)),
            ("TThreadId", Is::Num(3_840)),
            ("StackBase", Is::Num(0xffff_f880_06da_a000)),
            ("StackLimit", Is::Num(0xffff_f880_06da_4000)),
            ("UserStackBase", Is::Num(0x1012_0000)),
            ("UserStackLimit", Is::Num(0x1011_e000)),
            ("Affinity", Is::Num(0xff)),
            ("Win32StartAddr", Is::Num(0x7476_a8c0)),
            ("TebBase", Is::Num(0xff61_f000)),
            ("SubProcessTag", Is::Num(0)),
            ("BasePriority", Is::Num(8)),
            ("PagePriority", Is::Num(5)),
            ("IoPriority", Is::Num(2)),
            ("ThreadFlags", Is::Num(0)),
        ],
    );
    // "Windows Kernel/Process/Start PID=3676; ... DataLen=123; ProcessID=3,676;
    // ParentID=3,508; ImageFileName=Test.x64.exe; PageDirectoryBase=0x558fb000; Flags=None;
    // SessionID=1; ExitStatus=259; UniqueProcessKey=0xfffffa8300cfb380;
    // CommandLine=Test.x64.exe; PackageFullName=; ApplicationID="
    // (PerfView's PageDirectoryBase is the MOF's DirectoryTableBase)
    assert_event(
        &events,
        trace,
        "Process/Start",
        &[
            ("UniqueProcessKey", Is::Num(0xffff_fa83_00cf_b380)),
            ("ProcessId", Is::Num(3_676)),
            ("ParentId", Is::Num(3_508)),
            ("SessionId", Is::Num(1)),
            ("ExitStatus", Is::Num(259)),
            ("DirectoryTableBase", Is::Num(0x558f_b000)),
            ("Flags", Is::Num(0)),
            ("ImageFileName", Is::Text("Test.x64.exe")),
            ("CommandLine", Is::Text("Test.x64.exe")),
            ("PackageFullName", Is::Text("")),
            ("ApplicationId", Is::Text("")),
        ],
    );
    // "Windows Kernel/Process/DCStart PID=0; ... DataLen=75; ProcessID=0; ParentID=0;
    // ImageFileName=Idle; PageDirectoryBase=0x00187000; Flags=None; SessionID=-1; ExitStatus=0;
    // UniqueProcessKey=0xfffff800217d9200"
    assert_event(
        &events,
        trace,
        "Process/DCStart",
        &[
            ("UniqueProcessKey", Is::Num(0xffff_f800_217d_9200)),
            ("ProcessId", Is::Num(0)),
            ("SessionId", Is::Num(0xFFFF_FFFF)),
            ("ExitStatus", Is::Num(0)),
            ("DirectoryTableBase", Is::Num(0x0018_7000)),
            ("ImageFileName", Is::Text("Idle")),
        ],
    );
    // "Windows Kernel/Process/PerfCtr PID=3676; ... DataLen=104; ProcessID=3,676;
    // MemoryCount=0; HandleCount=0; PeakVirtualSize=492,675,072; PeakWorkingSetSize=18,219,008;
    // PeakPagefileUsage=10,784,768; QuotaPeakPagedPoolUsage=145,520;
    // QuotaPeakNonPagedPoolUsage=26,752; VirtualSize=0" (PerfView's MemoryCount is the MOF's
    // PageFaultCount)
    assert_event(
        &events,
        trace,
        "Process/PerfCtr",
        &[
            ("ProcessId", Is::Num(3_676)),
            ("PageFaultCount", Is::Num(0)),
            ("HandleCount", Is::Num(0)),
            ("PeakVirtualSize", Is::Num(492_675_072)),
            ("PeakWorkingSetSize", Is::Num(18_219_008)),
            ("PeakPagefileUsage", Is::Num(10_784_768)),
            ("QuotaPeakPagedPoolUsage", Is::Num(145_520)),
            ("QuotaPeakNonPagedPoolUsage", Is::Num(26_752)),
            ("VirtualSize", Is::Num(0)),
        ],
    );
    // "Windows Kernel/Image/Load PID=3508; ... DataLen=274; ImageBase=0x2d3360000;
    // ImageSize=32,768; ImageChecksum=0; TimeDateStamp=-1,726,546,814; ..." (PerfView prints
    // the file name turned into a user path; the event holds the kernel's, `\Device\Mup\...`)
    assert_event(
        &events,
        trace,
        "Image/Load",
        &[
            ("ImageBase", Is::Num(0x2_d336_0000)),
            ("ImageSize", Is::Num(32_768)),
            ("ImageChecksum", Is::Num(0)),
            (
                "TimeDateStamp",
                Is::Num(u64::from((-1_726_546_814i32) as u32)),
            ),
        ],
    );
    // "MSNT_SystemTrace/Image/KernelBase ... DataLen=8; ImageBase=0xfffff80021489000"
    assert_event(
        &events,
        trace,
        "Image/KernelBase",
        &[("ImageBase", Is::Num(0xffff_f800_2148_9000))],
    );
    // "Windows Kernel/DiskIO/Write PID=4; TID=44; ... DataLen=52; DiskNumber=0; ...
    // TransferSize=4,096; ByteOffset=6,109,835,264; Irp=0xfffffa830047e8f0; ...
    // FileKey=0xfffff8a0045ffc50" (PerfView's FileKey is the MOF's FileObject)
    assert_event(
        &events,
        trace,
        "DiskIO/Write",
        &[
            ("DiskNumber", Is::Num(0)),
            ("TransferSize", Is::Num(4_096)),
            ("ByteOffset", Is::Num(6_109_835_264)),
            ("FileObject", Is::Num(0xffff_f8a0_045f_fc50)),
            ("Irp", Is::Num(0xffff_fa83_0047_e8f0)),
        ],
    );
    // "Windows Kernel/DiskIO/WriteInit ... DataLen=12; Irp=0xfffffa830047e8f0"
    assert_event(
        &events,
        trace,
        "DiskIO/WriteInit",
        &[("Irp", Is::Num(0xffff_fa83_0047_e8f0))],
    );
    // "Windows Kernel/DiskIO/FlushBuffers ... DataLen=28; DiskNumber=0; IrpFlags=None;
    // Irp=0xfffffa83017ffb80" (PerfView's IrpFlags leave out the I/O priority bits 17 to 19,
    // which it prints as Priority)
    assert_event(
        &events,
        trace,
        "DiskIO/FlushBuffers",
        &[
            ("DiskNumber", Is::Num(0)),
            ("Irp", Is::Num(0xffff_fa83_017f_fb80)),
        ],
    );
    // "Windows Kernel/Memory/HardFault PID=144; TID=1716; ... DataLen=40; ...
    // ReadOffset=283,648; VirtualAddress=0x7f9c7a891f0; FileKey=0xfffff8a001300c50;
    // ByteCount=8,704"
    assert_event(
        &events,
        trace,
        "Memory/HardFault",
        &[
            ("ReadOffset", Is::Num(283_648)),
            ("VirtualAddress", Is::Num(0x7f9_c7a8_91f0)),
            ("FileObject", Is::Num(0xffff_f8a0_0130_0c50)),
            ("TThreadId", Is::Num(1_716)),
            ("ByteCount", Is::Num(8_704)),
        ],
    );
    // "Windows Kernel/PerfInfo/CollectionStart ... DataLen=24; SampleSource=0;
    // NewInterval=10,000; OldInterval=10,000" (PerfView's SampleSource is the MOF's Source)
    assert_event(
        &events,
        trace,
        "PerfInfo/CollectionStart",
        &[
            ("Source", Is::Num(0)),
            ("NewInterval", Is::Num(10_000)),
            ("OldInterval", Is::Num(10_000)),
        ],
    );
    // "Windows Kernel/PerfInfo/Sample PID=3988; TID=3780; ... DataLen=16;
    // InstructionPointer=0xfffff80021434313; ... Count=1"
    assert_event(
        &events,
        trace,
        "PerfInfo/Sample",
        &[
            ("InstructionPointer", Is::Num(0xffff_f800_2143_4313)),
            ("ThreadId", Is::Num(3_780)),
            ("Count", Is::Num(1)),
        ],
    );
    // "Windows Kernel/SystemConfig/CPU ... DataLen=828; MHz=3,592; NumberOfProcessors=8;
    // MemSize=4,096; PageSize=4,096; AllocationGranularity=65,536; ComputerName=BRIANROB-W8;
    // DomainName=; HyperThreadingFlag=0x00000000"
    assert_event(
        &events,
        trace,
        "SystemConfig/CPU",
        &[
            ("MHz", Is::Num(3_592)),
            ("NumberOfProcessors", Is::Num(8)),
            ("MemSize", Is::Num(4_096)),
            ("PageSize", Is::Num(4_096)),
            ("AllocationGranularity", Is::Num(65_536)),
            ("ComputerName", Is::Text("BRIANROB-W8")),
            ("DomainName", Is::Text("")),
            ("HyperThreadingFlag", Is::Num(0)),
        ],
    );
    // "Windows Kernel/SystemConfig/PhyDisk ... DataLen=568; DiskNumber=0; BytesPerSector=512;
    // SectorsPerTrack=63; TracksPerCylinder=255; Cylinders=16,578; ...
    // Manufacturer=Virtual HD ATA Devic...; PartitionCount=2; WriteCacheEnabled=1;
    // BootDriveLetter=C"
    assert_event(
        &events,
        trace,
        "SystemConfig/PhyDisk",
        &[
            ("BytesPerSector", Is::Num(512)),
            ("SectorsPerTrack", Is::Num(63)),
            ("TracksPerCylinder", Is::Num(255)),
            ("Cylinders", Is::Num(16_578)),
            ("Manufacturer", Is::Starts("Virtual HD ATA Devic")),
            ("PartitionCount", Is::Num(2)),
            ("WriteCacheEnabled", Is::Num(1)),
            ("BootDriveLetter", Is::Starts("C")),
        ],
    );
    // "Windows Kernel/SystemConfig/LogDisk ... DataLen=112; StartOffset=368,050,176;
    // PartitionSize=135,996,112,896; DiskNumber=0; Size=112; DriveType=1;
    // DriveLetterString=C:; PartitionNumber=2; SectorsPerCluster=8; BytesPerSector=512;
    // NumberOfFreeClusters=29,898,381; TotalNumberOfClusters=33,202,175; FileSystem=NTFS;
    // VolumeExt=0"
    assert_event(
        &events,
        trace,
        "SystemConfig/LogDisk",
        &[
            ("StartOffset", Is::Num(368_050_176)),
            ("PartitionSize", Is::Num(135_996_112_896)),
            ("Size", Is::Num(112)),
            ("DriveType", Is::Num(1)),
            ("DriveLetterString", Is::Text("C:")),
            ("PartitionNumber", Is::Num(2)),
            ("SectorsPerCluster", Is::Num(8)),
            ("NumberOfFreeClusters", Is::Num(29_898_381)),
            ("TotalNumberOfClusters", Is::Num(33_202_175)),
            ("FileSystem", Is::Text("NTFS")),
            ("VolumeExt", Is::Num(0)),
        ],
    );
    // "Windows Kernel/SystemConfig/NIC ... DataLen=210; PhysicalAddrLen=0; PhysicalAddr=0;
    // Ipv4Index=1; Ipv6Index=1; NICDescription=Software Loopback In...;
    // IpAddresses=::1;127.0.0.1"
    assert_event(
        &events,
        trace,
        "SystemConfig/NIC",
        &[
            ("PhysicalAddr", Is::Num(0)),
            ("PhysicalAddrLen", Is::Num(0)),
            ("Ipv4Index", Is::Num(1)),
            ("Ipv6Index", Is::Num(1)),
            ("NICDescription", Is::Starts("Software Loopback In")),
            ("IpAddresses", Is::Text("::1;127.0.0.1")),
        ],
    );
    // "Windows Kernel/SystemConfig/Services PID=144; ... DataLen=104; ServiceName=Appinfo;
    // DisplayName=Application Informat...; ProcessName=svchost; ProcessID=144;
    // ServiceState=4; SubProcessTag=5" (the MOF's ProcessName holds the image name,
    // `svchost.exe`, which PerfView prints without its extension)
    assert_event(
        &events,
        trace,
        "SystemConfig/Services",
        &[
            ("ProcessId", Is::Num(144)),
            ("ServiceState", Is::Num(4)),
            ("SubProcessTag", Is::Num(5)),
            ("ServiceName", Is::Text("Appinfo")),
            ("DisplayName", Is::Starts("Application Informat")),
            ("ProcessName", Is::Starts("svchost")),
        ],
    );
    // "Windows Kernel/SystemConfig/PnP ... DataLen=118; DeviceID=ACPI\PNP0C01\1;
    // DeviceDescription=System board; FriendlyName=; PdoName=\Device\00000018; ServiceName="
    assert_event(
        &events,
        trace,
        "SystemConfig/PnP",
        &[
            ("DeviceID", Is::Text(r"ACPI\PNP0C01\1")),
            ("DeviceDescription", Is::Text("System board")),
            ("FriendlyName", Is::Text("")),
            ("PdoName", Is::Text(r"\Device\00000018")),
            ("ServiceName", Is::Text("")),
        ],
    );
    // "Windows Kernel/SystemConfig/Power ... DataLen=8; S1=0; S2=0; S3=0; S4=0; S5=1"
    assert_event(
        &events,
        trace,
        "SystemConfig/Power",
        &[
            ("S1", Is::Num(0)),
            ("S2", Is::Num(0)),
            ("S3", Is::Num(0)),
            ("S4", Is::Num(0)),
            ("S5", Is::Num(1)),
        ],
    );
    // "MSNT_SystemTrace/SystemConfig/Platform ... DataLen=112;
    // SystemManufacturer=Microsoft Corporatio...; SystemProductName=Virtual Machine;
    // BiosDate=12/07/2018; BiosVersion=090008"
    assert_event(
        &events,
        trace,
        "SystemConfig/Platform",
        &[
            ("SystemManufacturer", Is::Starts("Microsoft Corporatio")),
            ("SystemProductName", Is::Text("Virtual Machine")),
            ("BiosDate", Is::Text("12/07/2018")),
            ("BiosVersion", Is::Text("090008")),
        ],
    );
}

/// Test 2, net.4.5.2.x86.etl: values from PerfView's `net.4.5.2.x86.baseline.txt`. The trace
/// was recorded for a 32-bit process on 64-bit Windows: its kernel events are 64-bit
/// (`SYSTEM64`/`PERFINFO64`, and its logfile header says `PointerSize=8`), except the two
/// `SystemConfig/IDEChannel` events, which the kernel logged with `SYSTEM32` headers.
#[test]
fn net_4_5_2_x86_values_agree_with_perfviews_baseline() {
    let Some(events) = kernel_events("net.4.5.2.x86.etl") else {
        return;
    };
    let trace = "net.4.5.2.x86";
    // "Windows Kernel/EventTrace ... DataLen=332; BufferSize=65,536; ... BuffersWritten=276;
    // StartBuffers=1; PointerSize=8; EventsLost=0; CPUSpeed=3,592"
    assert_event(
        &events,
        trace,
        "EventTrace",
        &[
            ("BufferSize", Is::Num(65_536)),
            ("BuffersWritten", Is::Num(276)),
            ("PointerSize", Is::Num(8)),
            ("CPUSpeed", Is::Num(3_592)),
        ],
    );
    // "Windows Kernel/SystemConfig/IDEChannel ... DataLen=36; TargetID=0; DeviceType=2;
    // DeviceTimingMode=1,040; LocationInformationLen=9; LocationInformation=Channel 1"
    let ide = events
        .iter()
        .filter(|event| event.bitness == Bitness::Bits32)
        .count();
    assert_eq!(
        ide, 2,
        "the two IDEChannel events are the trace's 32-bit kernel events"
    );
    assert_event(
        &events,
        trace,
        "SystemConfig/IDEChannel",
        &[
            ("TargetId", Is::Num(0)),
            ("DeviceType", Is::Num(2)),
            ("DeviceTimingMode", Is::Num(1_040)),
            ("LocationInformationLen", Is::Num(9)),
            ("LocationInformation", Is::Text("Channel 1")),
        ],
    );
    // "Windows Kernel/UdpIp/Send PID=2108; ... DataLen=32; context=0x1870000083c;
    // saddr=10.128.0.55; sport=1,900; size=391; daddr=10.128.0.77; dport=64,174"
    assert_event(
        &events,
        trace,
        "UdpIp/Send",
        &[
            ("PID", Is::Num(2_108)),
            ("size", Is::Num(391)),
            ("saddr", Is::Text("10.128.0.55")),
            ("sport", Is::Num(1_900)),
            ("daddr", Is::Text("10.128.0.77")),
            ("dport", Is::Num(64_174)),
        ],
    );
    // "Windows Kernel/TcpIp/Accept PID=4; ... DataLen=48; size=0; daddr=10.128.0.77;
    // saddr=10.128.0.55; dport=60,841; sport=2,869; mss=1,460; sackopt=1; tsopt=0; wsopt=1;
    // rcvwin=65,700; rcvwinscale=8; sndwinscale=8; seqnum=0; connid=0x00000000"
    assert_event(
        &events,
        trace,
        "TcpIp/Accept",
        &[
            ("size", Is::Num(0)),
            ("daddr", Is::Text("10.128.0.77")),
            ("saddr", Is::Text("10.128.0.55")),
            ("dport", Is::Num(60_841)),
            ("sport", Is::Num(2_869)),
            ("mss", Is::Num(1_460)),
            ("sackopt", Is::Num(1)),
            ("tsopt", Is::Num(0)),
            ("wsopt", Is::Num(1)),
            ("rcvwin", Is::Num(65_700)),
            ("rcvwinscale", Is::Num(8)),
            ("sndwinscale", Is::Num(8)),
            ("seqnum", Is::Num(0)),
            ("connid", Is::Num(0)),
        ],
    );
    // "Windows Kernel/TcpIp/Send PID=4; ... DataLen=40; size=4,147; daddr=10.128.0.77;
    // saddr=10.128.0.55; dport=60,841; sport=2,869; startime=1,584; endtime=1,584"
    assert_event(
        &events,
        trace,
        "TcpIp/Send",
        &[
            ("size", Is::Num(4_147)),
            ("dport", Is::Num(60_841)),
            ("sport", Is::Num(2_869)),
            ("startime", Is::Num(1_584)),
            ("endtime", Is::Num(1_584)),
        ],
    );
    // "Windows Kernel/TcpIp/Disconnect ... DataLen=32; daddr=10.128.0.77; saddr=10.128.0.55;
    // dport=60,841; sport=2,869; size=0"
    assert_event(
        &events,
        trace,
        "TcpIp/Disconnect",
        &[
            ("daddr", Is::Text("10.128.0.77")),
            ("sport", Is::Num(2_869)),
            ("size", Is::Num(0)),
        ],
    );
    // "Windows Kernel/Process/Start PID=3644; ... DataLen=123; ProcessID=3,644;
    // ParentID=3,508; ImageFileName=Test.x86.exe; PageDirectoryBase=0x02b4d000; Flags=Wow64;
    // SessionID=1; ExitStatus=259; UniqueProcessKey=0xfffffa8300c27080;
    // CommandLine=Test.x86.exe" (Flags: PerfView's ProcessFlags.Wow64 is 2)
    assert_event(
        &events,
        trace,
        "Process/Start",
        &[
            ("UniqueProcessKey", Is::Num(0xffff_fa83_00c2_7080)),
            ("ProcessId", Is::Num(3_644)),
            ("ParentId", Is::Num(3_508)),
            ("DirectoryTableBase", Is::Num(0x02b4_d000)),
            ("Flags", Is::Num(2)),
            ("ImageFileName", Is::Text("Test.x86.exe")),
            ("CommandLine", Is::Text("Test.x86.exe")),
        ],
    );
    // "Windows Kernel/Thread/Start PID=3644; TID=3708; ... DataLen=72;
    // StackBase=0xfffff880039c7000; StackLimit=0xfffff880039c1000; UserStackBase=0x0084fd30;
    // UserStackLimit=0x00848000; StartAddr=0x000000ff; Win32StartAddr=0x007c287a;
    // TebBase=0xfed3a000"
    assert_event(
        &events,
        trace,
        "Thread/Start",
        &[
            ("ProcessId", Is::Num(3_644)),
            ("TThreadId", Is::Num(3_708)),
            ("StackBase", Is::Num(0xffff_f880_039c_7000)),
            ("StackLimit", Is::Num(0xffff_f880_039c_1000)),
            ("UserStackBase", Is::Num(0x0084_fd30)),
            ("UserStackLimit", Is::Num(0x0084_8000)),
            ("Win32StartAddr", Is::Num(0x007c_287a)),
            ("TebBase", Is::Num(0xfed3_a000)),
        ],
    );
    // "Windows Kernel/Image/Load PID=3644; ... DataLen=118; ImageBase=0x77710000;
    // ImageSize=1,404,928; ImageChecksum=1,450,643; TimeDateStamp=1,343,270,522; ..."
    assert_event(
        &events,
        trace,
        "Image/Load",
        &[
            ("ImageBase", Is::Num(0x7771_0000)),
            ("ImageSize", Is::Num(1_404_928)),
            ("ImageChecksum", Is::Num(1_450_643)),
            ("TimeDateStamp", Is::Num(1_343_270_522)),
        ],
    );
    // "Windows Kernel/Process/Defunct PID=988; ... DataLen=82; ProcessID=988; ParentID=664;
    // ImageFileName=LogonUI.exe; PageDirectoryBase=0x147f9000; ... ExitStatus=0;
    // UniqueProcessKey=0xfffffa8303096940"
    assert_event(
        &events,
        trace,
        "Process/Defunct",
        &[
            ("ProcessId", Is::Num(988)),
            ("ParentId", Is::Num(664)),
            ("ImageFileName", Is::Text("LogonUI.exe")),
            ("DirectoryTableBase", Is::Num(0x147f_9000)),
            ("UniqueProcessKey", Is::Num(0xffff_fa83_0309_6940)),
        ],
    );
    // "Windows Kernel/PerfInfo/CollectionEnd ... DataLen=24; SampleSource=0;
    // NewInterval=10,000; OldInterval=10,000"
    assert_event(
        &events,
        trace,
        "PerfInfo/CollectionEnd",
        &[
            ("NewInterval", Is::Num(10_000)),
            ("OldInterval", Is::Num(10_000)),
        ],
    );
}

/// The size of an event whose fields all have fixed sizes, for a logger whose pointers are
/// `pointer_size` bytes; `None` when a field's size depends on the data.
fn fixed_size(event: &kernel::KernelEvent, pointer_size: u8) -> Option<u64> {
    use etw_classic::payload::{InType, Length};
    event.fields.iter().try_fold(0u64, |total, field| {
        let size = match (field.in_type, field.length) {
            (InType::BINARY, Length::Fixed(bytes)) => u64::from(bytes),
            (InType::UNICODE_STRING, Length::Fixed(units)) => 2 * u64::from(units),
            (in_type, _) => u64::from(in_type.fixed_size(pointer_size)?),
        };
        let count = match field.count {
            etw_classic::payload::Count::One => 1,
            etw_classic::payload::Count::Fixed(count) => u64::from(count),
            _ => return None,
        };
        Some(total + size * count)
    })
}

/// The sizes of fixed-size events on 32- and 64-bit loggers agree with the length checks of
/// PerfView's `KernelTraceEventParser.cs`, `Debug.Assert(!(Version == v && EventDataLength !=
/// HostOffset(n, pointers)))`, where `HostOffset(n, pointers) = n + (PointerSize - 4) *
/// pointers`: an independent statement of where each event's pointers are, for pointer sizes
/// the traces hold no kernel event of (their kernel events are 64-bit but for two).
#[test]
fn fixed_sizes_agree_with_perfviews_length_checks() {
    use kernel::{FILE_IO, IMAGE_ID, PERF_INFO, PROCESS, SYSTEM_CONFIG, TCP_IP, THREAD, UDP_IP};
    // (class, event type, version, n, pointers, PerfView's class)
    let checks: [(Guid, u8, u16, u64, u64, &str); 21] = [
        (PROCESS, 32, 2, 60, 11, "ProcessCtrTraceData"),
        (THREAD, 1, 2, 40, 7, "ThreadTraceData"),
        (FILE_IO, 65, 2, 16, 4, "FileIOSimpleOpTraceData"),
        (FILE_IO, 65, 3, 16, 3, "FileIOSimpleOpTraceData"),
        (FILE_IO, 67, 2, 32, 4, "FileIOReadWriteTraceData"),
        (FILE_IO, 69, 2, 24, 5, "FileIOInfoTraceData"),
        (FILE_IO, 69, 3, 24, 4, "FileIOInfoTraceData"),
        (FILE_IO, 76, 2, 12, 2, "FileIOOpEndTraceData"),
        (TCP_IP, 10, 2, 36, 1, "TcpIpSendTraceData"),
        (TCP_IP, 12, 2, 44, 1, "TcpIpConnectTraceData"),
        (TCP_IP, 26, 2, 60, 1, "TcpIpV6SendTraceData"),
        (TCP_IP, 28, 2, 68, 1, "TcpIpV6ConnectTraceData"),
        (UDP_IP, 26, 2, 52, 1, "UpdIpV6TraceData"),
        (PERF_INFO, 46, 2, 12, 1, "SampledProfileTraceData"),
        (PERF_INFO, 51, 2, 4, 1, "SysCallEnterTraceData"),
        (PERF_INFO, 67, 2, 16, 1, "ISRTraceData"),
        (PERF_INFO, 68, 2, 12, 1, "DPCTraceData"),
        (SYSTEM_CONFIG, 10, 2, 804, 1, "SystemConfigCPUTraceData"),
        // SymbolTraceEventParser.cs: `Validate`'s `EventDataLength == HostOffset(16, 1)` and
        // `HostOffset(8, 1)`; the `None` events hold DbgDeterm's layout.
        (IMAGE_ID, 0x26, 2, 16, 1, "DbgPPDBTraceData"),
        (IMAGE_ID, 0x28, 2, 8, 1, "DbgDetermTraceData"),
        (IMAGE_ID, 0x20, 2, 8, 1, "DbgDetermTraceData"),
    ];
    // The events whose every field is one value of a fixed size: the tables size them too
    // (`KernelEvent::fixed_size`, the size the walk's shortcut checks before reading them).
    let mut sized_by_the_tables = 0;
    for (class, event_type, version, n, pointers, perfview) in checks {
        let event = kernel::lookup(class, event_type, version)
            .unwrap_or_else(|| panic!("{perfview}: no type {event_type} version {version}"));
        for (pointer_size, bitness) in [(4u8, Bitness::Bits32), (8, Bitness::Bits64)] {
            let expected = n + (u64::from(pointer_size) - 4) * pointers;
            assert_eq!(
                fixed_size(event, pointer_size),
                Some(expected),
                "{} ({}) with {pointer_size}-byte pointers: {perfview} says {expected}",
                event.event_name(),
                event.mof_class
            );
            let one_value_each = event.fields.iter().all(|field| {
                field.count == etw_classic::payload::Count::One
                    && field.in_type.fixed_size(pointer_size).is_some()
            });
            let sized = event.fixed_size(bitness).map(|size| size as u64);
            assert_eq!(
                sized,
                one_value_each.then_some(expected),
                "{} ({}): the tables' own size, with {pointer_size}-byte pointers",
                event.event_name(),
                event.mof_class
            );
            sized_by_the_tables += usize::from(sized.is_some());
        }
    }
    // All but the IPv6 events (their addresses are 16-byte binary fields) and the CPU
    // configuration (strings of a fixed length), on both pointer sizes.
    assert_eq!(sized_by_the_tables, 34);
}

/// Every event of the tables whose fields are each one value of a fixed size gives, through
/// `KernelEvent::for_each_fixed_field`, the fields and values `PayloadDecoder` gives, for
/// data of its size and longer, on both pointer sizes; data one byte short gets nothing from
/// it (the decoder walks it and says where it fails).
#[test]
fn fixed_field_shortcut_gives_what_the_decoder_gives() {
    let mut checked = 0;
    // Under Miri (the big-endian lane), every seventh event: what it checks there is that the
    // values are read in the data's byte order, which any event shows.
    let step = if cfg!(miri) { 7 } else { 1 };
    let events = kernel::CLASSES.iter().flat_map(|class| class.events);
    for event in events.step_by(step) {
        for bitness in [Bitness::Bits32, Bitness::Bits64] {
            let Some(size) = event.fixed_size(bitness) else {
                continue;
            };
            // Bytes that differ from field to field, so that a value read at the wrong
            // offset shows.
            let data: Vec<u8> = (0..size + 3).map(|at| (at * 37 + 11) as u8).collect();
            for len in [size, size + 3] {
                let data = &data[..len];
                let mut shortcut = Vec::new();
                assert!(event.for_each_fixed_field(data, bitness, |field, value| {
                    shortcut.push((field.name, value))
                }));
                let decoded: Vec<(&str, Value<'_>)> =
                    PayloadDecoder::new(event.fields, data, bitness)
                        .map(|item| {
                            let item = item.expect("the decoder reads every field");
                            match item.kind {
                                ItemKind::Value(value) => (item.field.name, value),
                                other => panic!("{}: {other:?}", item.field.name),
                            }
                        })
                        .collect();
                assert_eq!(shortcut, decoded, "{} {bitness:?}", event.event_name());
            }
            if let Some(short) = size.checked_sub(1) {
                assert!(
                    !event.for_each_fixed_field(&data[..short], bitness, |_, _| {
                        panic!("{}: a field handed on from short data", event.event_name())
                    })
                );
            }
            checked += 1;
        }
    }
    // PerfInfo, TcpIp, UdpIp, PageFault, DiskIo and others: hundreds of (event, pointer size).
    assert!(checked > 100 / step, "{checked}");
}

/// Test 4: KernelTraceControl's `ImageID` events of the two net traces. The counts are the
/// baselines' `COUNT KernelTraceControl/ImageID...` lines (7,885 events in x64: `ImageID:3590`,
/// `DbgID_ILRSDS:44`, `DbgID_RSDS:3534`, `FileVersion:705`, `None:12`; in x86 `ImageID:3728`,
/// `DbgID_ILRSDS:42`, `DbgID_RSDS:3680`, `FileVersion:680`, `None:6`), the values the sample
/// lines quoted below. Every event also decodes to its last byte (test 1).
#[test]
fn image_id_events_agree_with_perfviews_baselines() {
    let counts: [(&str, [(&str, usize); 5]); 2] = [
        (
            "net.4.5.2.x64.etl",
            [
                ("ImageID", 3590),
                ("ImageID/DbgID_ILRSDS", 44),
                ("ImageID/DbgID_RSDS", 3534),
                ("ImageID/FileVersion", 705),
                ("ImageID/None", 12),
            ],
        ),
        (
            "net.4.5.2.x86.etl",
            [
                ("ImageID", 3728),
                ("ImageID/DbgID_ILRSDS", 42),
                ("ImageID/DbgID_RSDS", 3680),
                ("ImageID/FileVersion", 680),
                ("ImageID/None", 6),
            ],
        ),
    ];
    for (name, expected) in counts {
        let Some(events) = kernel_events(name) else {
            continue;
        };
        let mut found: BTreeMap<String, usize> = BTreeMap::new();
        for event in events
            .iter()
            .filter(|event| event.class == kernel::IMAGE_ID)
        {
            let schema = kernel::lookup(event.class, event.event_type, event.version)
                .unwrap_or_else(|| {
                    panic!(
                        "{name}: ImageID type {} version {}",
                        event.event_type, event.version
                    )
                });
            assert_eq!(schema.provider_name, "KernelTraceControl");
            *found.entry(schema.event_name().to_string()).or_default() += 1;
            // Every event but `FileVersion` holds a `ProcessID`, which is the process the
            // header names.
            if event.event_type != 0x40 {
                let fields = schema.fields_for(event.data.len(), event.bitness);
                let pid = PayloadDecoder::new(&fields, &event.data, event.bitness)
                    .map(Result::unwrap)
                    .find(|item| item.field.name == "ProcessID")
                    .and_then(|item| match item.kind {
                        ItemKind::Value(Value::U32(pid)) => Some(pid),
                        _ => None,
                    });
                assert_eq!(pid, event.process_id, "{name}: {}", schema.event_name());
            }
        }
        let expected: BTreeMap<String, usize> = expected
            .iter()
            .map(|(event, count)| (event.to_string(), *count))
            .collect();
        assert_eq!(found, expected, "{name}");
    }

    if let Some(events) = kernel_events("net.4.5.2.x64.etl") {
        let trace = "net.4.5.2.x64";
        // "KernelTraceControl/ImageID/FileVersion PID=4; ... DataLen=322; ImageSize=1,404,928;
        // TimeDateStamp=1,343,270,522; ... OrigFileName=ntdll.dll; FileDescription=NT Layer DLL;
        // FileVersion=6.2.9200.16384 (win8...; BinFileVersion=6.2.9200.16384; VerLanguage=1033;
        // ProductName=Microsoft® Windows® ...; CompanyName=Microsoft Corporatio...;
        // ProductVersion=6.2.9200.16384; FileId=; ProgramId="
        assert_event(
            &events,
            trace,
            "ImageID/FileVersion",
            &[
                ("ImageSize", Is::Num(1_404_928)),
                ("TimeDateStamp", Is::Num(1_343_270_522)),
                ("OrigFileName", Is::Text("ntdll.dll")),
                ("FileDescription", Is::Text("NT Layer DLL")),
                ("FileVersion", Is::Starts("6.2.9200.16384 (win8")),
                ("BinFileVersion", Is::Text("6.2.9200.16384")),
                ("VerLanguage", Is::Text("1033")),
                ("ProductName", Is::Starts("Microsoft® Windows® ")),
                ("CompanyName", Is::Starts("Microsoft Corporatio")),
                ("ProductVersion", Is::Text("6.2.9200.16384")),
                ("FileId", Is::Text("")),
                ("ProgramId", Is::Text("")),
            ],
        );
        // "KernelTraceControl/ImageID PID=4; ... DataLen=44; ImageBase=0x77710000;
        // ImageSize=1,404,928; ProcessID=0; TimeDateStamp=1,343,270,522; ...
        // OriginalFileName=ntdll.dll". PerfView prints `ProcessID=0` whatever the data holds
        // (its `PayloadValue(2)` returns the constant 0, "seems to always be 0"); the data
        // holds the header's process, 4, checked above with every other event's.
        assert_event(
            &events,
            trace,
            "ImageID",
            &[
                ("ImageBase", Is::Num(0x7771_0000)),
                ("ImageSize", Is::Num(1_404_928)),
                ("ProcessID", Is::Num(4)),
                ("TimeDateStamp", Is::Num(1_343_270_522)),
                ("OriginalFileName", Is::Text("ntdll.dll")),
            ],
        );
        // "KernelTraceControl/ImageID PID=0; ... DataLen=50; ImageBase=0xfffff80021489000;
        // ImageSize=7,634,944; ProcessID=0; TimeDateStamp=1,343,269,963; ...
        // OriginalFileName=ntkrnlmp.exe"
        assert_event(
            &events,
            trace,
            "ImageID",
            &[
                ("ImageBase", Is::Num(0xffff_f800_2148_9000)),
                ("ImageSize", Is::Num(7_634_944)),
                ("TimeDateStamp", Is::Num(1_343_269_963)),
                ("OriginalFileName", Is::Text("ntkrnlmp.exe")),
            ],
        );
        // "KernelTraceControl/ImageID/DbgID_RSDS PID=4; ... DataLen=43; ImageBase=0x77710000;
        // GuidSig=ec83d8df-5559-46e0-b...; Age=2; PDBFileName=wntdll.pdb"
        assert_event(
            &events,
            trace,
            "ImageID/DbgID_RSDS",
            &[
                ("ImageBase", Is::Num(0x7771_0000)),
                ("GuidSig", Is::Starts("ec83d8df-5559-46e0-b")),
                ("Age", Is::Num(2)),
                ("PDBFileName", Is::Text("wntdll.pdb")),
            ],
        );
        // "KernelTraceControl/ImageID/DbgID_ILRSDS PID=3988; ... DataLen=45;
        // ImageBase=0x05fa0000; GuidSig=46c7f945-589d-4bf7-b...; Age=1; PDBFileName=mscorlib.pdb"
        assert_event(
            &events,
            trace,
            "ImageID/DbgID_ILRSDS",
            &[
                ("ImageBase", Is::Num(0x05fa_0000)),
                ("GuidSig", Is::Starts("46c7f945-589d-4bf7-b")),
                ("Age", Is::Num(1)),
                ("PDBFileName", Is::Text("mscorlib.pdb")),
            ],
        );
    }

    if let Some(events) = kernel_events("net.4.5.2.x86.etl") {
        let trace = "net.4.5.2.x86";
        // "KernelTraceControl/ImageID/FileVersion PID=0; TID=2784; ... DataLen=340;
        // ImageSize=7,634,944; TimeDateStamp=1,343,269,963; ... OrigFileName=ntkrnlmp.exe;
        // FileDescription=NT Kernel & System"
        assert_event(
            &events,
            trace,
            "ImageID/FileVersion",
            &[
                ("ImageSize", Is::Num(7_634_944)),
                ("TimeDateStamp", Is::Num(1_343_269_963)),
                ("OrigFileName", Is::Text("ntkrnlmp.exe")),
                ("FileDescription", Is::Text("NT Kernel & System")),
            ],
        );
        // "KernelTraceControl/ImageID PID=0; TID=2784; ... DataLen=40;
        // ImageBase=0xfffff8002141d000; ImageSize=442,368; ProcessID=0;
        // TimeDateStamp=1,343,269,864; ... OriginalFileName=hal.dll"
        assert_event(
            &events,
            trace,
            "ImageID",
            &[
                ("ImageBase", Is::Num(0xffff_f800_2141_d000)),
                ("ImageSize", Is::Num(442_368)),
                ("TimeDateStamp", Is::Num(1_343_269_864)),
                ("OriginalFileName", Is::Text("hal.dll")),
            ],
        );
        // "KernelTraceControl/ImageID/DbgID_RSDS PID=0; TID=2784; ... DataLen=39;
        // ImageBase=0xfffff80020aec000; GuidSig=07727067-7d41-4c82-8...; Age=1; PDBFileName=kd.pdb"
        assert_event(
            &events,
            trace,
            "ImageID/DbgID_RSDS",
            &[
                ("ImageBase", Is::Num(0xffff_f800_20ae_c000)),
                ("GuidSig", Is::Starts("07727067-7d41-4c82-8")),
                ("Age", Is::Num(1)),
                ("PDBFileName", Is::Text("kd.pdb")),
            ],
        );
        // "KernelTraceControl/ImageID/DbgID_ILRSDS PID=3988; ... DataLen=48;
        // ImageBase=0x065f0000; GuidSig=f0392b6a-92eb-48aa-b...; Age=1;
        // PDBFileName=System.Core.pdb"
        assert_event(
            &events,
            trace,
            "ImageID/DbgID_ILRSDS",
            &[
                ("ImageBase", Is::Num(0x065f_0000)),
                ("GuidSig", Is::Starts("f0392b6a-92eb-48aa-b")),
                ("Age", Is::Num(1)),
                ("PDBFileName", Is::Text("System.Core.pdb")),
            ],
        );
    }
}

/// Test 3 for the `ImageID` events that end in a string: where the string starts on 32- and
/// 64-bit loggers, against the offsets of PerfView's accessors (`SymbolTraceEventParser.cs`,
/// `HostOffset(n, pointers) = n + (PointerSize - 4) * pointers`): `OriginalFileName` of
/// `ImageIDTraceData` at `HostOffset(16, 2)`, `PdbFileName` of `DbgIDRSDSTraceData` and
/// `DbgIDILRSDSTraceData` at `HostOffset(28, 1)`, `OrigFileName` of `FileVersionTraceData` at
/// 8. The data is made up: zeros, then `a` and a NUL in the string's encoding.
#[test]
fn image_id_strings_start_where_perfviews_accessors_read_them() {
    /// Event type, version, field, `n`, pointers, the bytes of "a" and its NUL.
    type Check = (u8, u16, &'static str, usize, usize, &'static [u8]);
    let checks: [Check; 4] = [
        (0x00, 2, "OriginalFileName", 16, 2, &[b'a', 0, 0, 0]),
        (0x24, 2, "PDBFileName", 28, 1, &[b'a', 0]),
        (0x25, 2, "PDBFileName", 28, 1, &[b'a', 0]),
        (0x40, 0, "OrigFileName", 8, 0, &[b'a', 0, 0, 0]),
    ];
    for (event_type, version, field, n, pointers, text) in checks {
        let event = kernel::lookup(kernel::IMAGE_ID, event_type, version).unwrap();
        for (bitness, pointer_size) in [(Bitness::Bits32, 4), (Bitness::Bits64, 8)] {
            let start = n + (pointer_size - 4) * pointers;
            let mut data = vec![0u8; start];
            data.extend_from_slice(text);
            // FileVersion's nine strings after the first: empty.
            if event_type == 0x40 {
                data.extend_from_slice(&[0u8; 18]);
            }
            let fields = event.fields_for(data.len(), bitness);
            let mut decoder = PayloadDecoder::new(&fields, &data, bitness);
            let item = decoder
                .by_ref()
                .map(Result::unwrap)
                .find(|item| item.field.name == field)
                .unwrap();
            assert_eq!(
                item.offset,
                start,
                "{} with {pointer_size}-byte pointers",
                event.event_name()
            );
            let _ = decoder.by_ref().count();
            assert!(decoder.rest().is_empty(), "{}", event.event_name());
        }
    }
}
