//! Events named and their fields decoded, through the built `etwc`: `etwc schemas` on the five
//! PerfView traces, `--manifest` with the .NET runtime's manifest, `--mof` with MOF text
//! written here for the classes of a trace the library's own writer made, the filters by name,
//! and the names in the CSV, Chrome and `--stats` outputs.
//!
//! The expected values are facts from outside this project: the COUNT lines and sample
//! events of PerfView's baselines for these traces (`net.4.5.2.x64.baseline.txt`,
//! `net.4.5.2.x86.baseline.txt`, `gcevents.baseline.txt`, `primitive-types.baseline.txt` in
//! microsoft/perfview's TraceEvent tests, MIT), its `Issue1618` test of
//! SelfDescribingSingleEvent.etl, and the events the firmware's boot trace was given to write.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{boot_trace_file, etwc, trace, utf8};
use etw_classic_firmware::Mode;
use serde_json::{json, Value};

/// The stdout of `etwc ARGS`, which must succeed quietly.
fn run(args: &[&std::ffi::OsStr]) -> String {
    let output = etwc()
        .args(args)
        .assert()
        .success()
        .stderr("")
        .get_output()
        .stdout
        .clone();
    utf8(&output)
}

/// `etwc SUBCOMMAND FILE ARGS`.
fn etwc_on(subcommand: &str, file: &Path, args: &[&str]) -> String {
    let mut all: Vec<&std::ffi::OsStr> = vec![subcommand.as_ref(), file.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    run(&all)
}

/// `etwc schemas FILE --json ARGS`: the report.
fn schemas(file: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&etwc_on("schemas", file, &all)).expect("one JSON object")
}

/// The event objects of `etwc etl FILE --json ARGS` (the logfile header's line left out).
fn events(file: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    etwc_on("etl", file, &all)
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// How many events `etwc etl FILE ARGS --summary --json` counts.
fn count(file: &Path, args: &[&str]) -> u64 {
    let mut all = args.to_vec();
    all.extend(["--summary", "--json"]);
    let summary: Value = serde_json::from_str(&etwc_on("etl", file, &all)).unwrap();
    summary["events"].as_u64().unwrap()
}

/// The schema rows of a report, by `source provider/event` (an event of several versions has
/// a row for each).
fn rows(report: &Value) -> BTreeMap<String, Vec<&Value>> {
    let mut rows: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for row in report["schemas"].as_array().unwrap() {
        let key = format!(
            "{} {}/{}",
            row["source"].as_str().unwrap(),
            row["provider"].as_str().unwrap(),
            row["event"].as_str().unwrap_or("?")
        );
        rows.entry(key).or_default().push(row);
    }
    rows
}

/// The rows of `source` for `name` (`provider/event`), which must be listed.
fn versions<'r>(
    rows: &BTreeMap<String, Vec<&'r Value>>,
    source: &str,
    name: &str,
) -> Vec<&'r Value> {
    let key = format!("{source} {name}");
    rows.get(&key)
        .cloned()
        .unwrap_or_else(|| panic!("{key} not listed among {:?}", rows.keys()))
}

/// The one row of `source` for `name` (`provider/event`), which must be listed once.
fn row<'r>(rows: &BTreeMap<String, Vec<&'r Value>>, source: &str, name: &str) -> &'r Value {
    match versions(rows, source, name)[..] {
        [row] => row,
        ref several => panic!("{source} {name} listed {} times", several.len()),
    }
}

/// Checks that for every `provider/event:count` line of `counts`, the rows of `source` of that
/// name (one per version) decoded that many events, none stopping early.
fn check_counts(rows: &BTreeMap<String, Vec<&Value>>, source: &str, counts: &str) {
    for line in counts
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
    {
        let (name, expected) = line.rsplit_once(':').unwrap();
        let versions = versions(rows, source, name);
        let events: u64 = versions
            .iter()
            .map(|row| row["events"].as_u64().unwrap())
            .sum();
        assert_eq!(events, expected.parse::<u64>().unwrap(), "{name}");
        for row in versions {
            assert_eq!(row["events_with_errors"], 0, "{name}: {row}");
        }
    }
}

#[test]
fn schemas_of_the_tracelogging_traces() {
    if let Some(file) = trace("primitive-types.etl") {
        let report = schemas(&file, &[]);
        let rows = rows(&report);
        // COUNT solar_system/PrimitiveTypesTest:5, COUNT Windows Kernel/EventTrace:1; the
        // baseline's events have 12 fields, string_type ... system_time_type.
        let test = row(&rows, "tracelogging", "solar_system/PrimitiveTypesTest");
        assert_eq!(
            (
                &test["fields"],
                &test["events"],
                &test["events_with_bytes_left"]
            ),
            (&json!(12), &json!(5), &json!(0))
        );
        assert_eq!(
            test["key"]["provider"],
            "d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615"
        );
        assert_eq!(
            row(&rows, "kernel", "Windows Kernel/EventTrace")["events"],
            1
        );
        assert_eq!(report["events"], 7);
        assert_eq!(report["undecoded"], json!([]));
        // The table says the same.
        let table = etwc_on("schemas", &file, &[]);
        assert!(
            table.lines().any(|line| line.starts_with("tracelogging")
                && line.contains(" 5 ")
                && line.contains(" 12  solar_system/PrimitiveTypesTest")),
            "{table}"
        );
    }
    if let Some(file) = trace("SelfDescribingSingleEvent.etl") {
        // PerfView's Issue1618 test: MySource/TestEvent, whose first field is a structure
        // { b: "Hello", c: "World!" }.
        let rows_report = schemas(&file, &[]);
        let rows = rows(&rows_report);
        let test = row(&rows, "tracelogging", "MySource/TestEvent");
        assert_eq!((&test["events"], &test["fields"]), (&json!(1), &json!(3)));
        let decoded = events(&file, &["--event", "MySource/TestEvent"]);
        assert_eq!(decoded.len(), 1);
        let fields = decoded[0]["fields"].as_object().unwrap();
        assert_eq!(
            fields.values().next(),
            Some(&json!({"b": "Hello", "c": "World!"}))
        );
    }
}

#[test]
fn schemas_of_gcevents_with_and_without_the_runtime_manifest() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    // The trace carries no description of the runtime's events: they are counted undecoded,
    // by provider and reason.
    let report = schemas(&file, &[]);
    assert_eq!(report["events"], 71);
    assert_eq!(report["decoded_events"], 2);
    let undecoded = report["undecoded"].as_array().unwrap();
    assert!(undecoded
        .iter()
        .all(|row| row["provider"] == "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"));
    let total: u64 = undecoded
        .iter()
        .map(|row| row["events"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 69);
    // CreateSegment is event 5 version 1 (ClrEtwAll.man): PerfView counts 7.
    assert!(undecoded.iter().any(|row| row["events"] == 7
        && row["reason"]
            == "no schema for provider e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 event id 5 version 1"));

    // With the runtime's manifest, its events are counted as PerfView's baseline counts them,
    // named by the manifest's `name` attributes of their tasks and opcodes (as the
    // EventInfo Windows writes names them), where PerfView prints their messages: `GC` is
    // `<task name="GarbageCollection"`, `CreateSegment` `<opcode name="GCCreateSegment"`,
    // `FinalizersStart`/`Stop` `GCFinalizersBegin`/`End`, `RestartEEStart`/`Stop`
    // `GCRestartEEBegin`/`End`, `SuspendEEStart`/`Stop` `GCSuspendEEBegin`/`End`, `Runtime`
    // `<task name="CLRRuntimeInformation"`. (The trace's AllocationTick version 4,
    // MarkWithType and the other events the manifest does not describe at their version stay
    // undecoded.)
    let Some(man) = manifest(&file) else {
        return;
    };
    let report = schemas(&file, &["--manifest", man.to_str().unwrap()]);
    let rows = rows(&report);
    check_counts(
        &rows,
        "manifest",
        "Microsoft-Windows-DotNETRuntime/GarbageCollection/GCCreateSegment:7
         Microsoft-Windows-DotNETRuntime/GarbageCollection/FinalizeObject:6
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCFinalizersBegin:3
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCFinalizersEnd:3
         Microsoft-Windows-DotNETRuntime/GarbageCollection/PinObjectAtGCTime:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCRestartEEBegin:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCRestartEEEnd:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/Start:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/Stop:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCSuspendEEBegin:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/GCSuspendEEEnd:2
         Microsoft-Windows-DotNETRuntime/GarbageCollection/Triggered:2
         Microsoft-Windows-DotNETRuntime/CLRRuntimeInformation/Start:1",
    );
    // Every event the manifest describes (each `<event` element) is listed, whether it
    // decoded events or not.
    let described = std::fs::read_to_string(&man)
        .unwrap()
        .matches("<event ")
        .count();
    let listed = report["schemas"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["source"] == "manifest")
        .count();
    assert_eq!(listed, described);
    // CreateSegment versions 0 and 1, each where the manifest says it, version 1 decoding the
    // 7 events.
    let segments = versions(
        &rows,
        "manifest",
        "Microsoft-Windows-DotNETRuntime/GarbageCollection/GCCreateSegment",
    );
    let keys: Vec<(&Value, &Value)> = segments
        .iter()
        .map(|row| (&row["key"]["version"], &row["events"]))
        .collect();
    assert_eq!(keys, [(&json!(0), &json!(0)), (&json!(1), &json!(7))]);
    for row in segments {
        let place = row["place"].as_str().unwrap();
        assert!(place.contains("ClrEtwAll.man"), "{place}");
    }
    assert_eq!(
        report["undecoded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["provider_name"].clone())
            .collect::<Vec<_>>()
            .first(),
        Some(&json!("Microsoft-Windows-DotNETRuntime"))
    );
}

/// The .NET runtime's manifest, `schemas/ClrEtwAll.man` beside the folder of the PerfView
/// traces (`../shared/data/schemas`); `None` when it is not there, which fails the test with
/// `ETW_REQUIRE_TRACES=1`.
fn manifest(beside: &Path) -> Option<PathBuf> {
    let path = beside
        .parent()
        .and_then(Path::parent)
        .map(|data| data.join("schemas/ClrEtwAll.man"))
        .filter(|path| path.is_file());
    if path.is_none() {
        let problem = format!(
            "cannot find schemas/ClrEtwAll.man beside the folder of {}",
            beside.display()
        );
        if std::env::var_os("ETW_REQUIRE_TRACES").is_some_and(|value| value == "1") {
            panic!("{problem} (ETW_REQUIRE_TRACES=1 requires it)");
        }
        eprintln!("SKIPPED: {problem}");
    }
    path
}

/// `etwc etl gcevents.etl --manifest ClrEtwAll.man`: the GC/CreateSegment events (named
/// `GarbageCollection/GCCreateSegment` by the manifest's `name` attributes), with the
/// values PerfView's gcevents baseline prints for the first five of them (`Address`, `Size`,
/// `Type`, `ClrInstanceID`; `Type` 3, which the baseline names PinnedObjectHeap, is a value
/// this manifest's `GCSegmentTypeMap` does not name).
#[test]
fn a_manifest_given_decodes_gc_create_segment() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let Some(man) = manifest(&file) else {
        return;
    };
    let decoded = events(
        &file,
        &[
            "--manifest",
            man.to_str().unwrap(),
            "--event",
            "GarbageCollection/GCCreateSegment",
        ],
    );
    assert_eq!(decoded.len(), 7);
    let expected: [(u64, u64, Value); 5] = [
        (0x1b0f1000028, 0x01ffffd8, json!(3)),
        (
            0x1b0f3000028,
            0x003fffd8,
            json!({"value": 0, "name": "SmallObjectHeap"}),
        ),
        (
            0x1b0f3400028,
            0x003fffd8,
            json!({"value": 0, "name": "SmallObjectHeap"}),
        ),
        (
            0x1b0f3800028,
            0x003fffd8,
            json!({"value": 0, "name": "SmallObjectHeap"}),
        ),
        (
            0x1b0f3c00028,
            0x01ffffd8,
            json!({"value": 1, "name": "LargeObjectHeap"}),
        ),
    ];
    for (event, (address, size, kind)) in decoded.iter().zip(expected) {
        assert_eq!(event["provider_name"], "Microsoft-Windows-DotNETRuntime");
        assert_eq!(event["event_name"], "GarbageCollection/GCCreateSegment");
        assert_eq!(
            event["fields"],
            json!({"Address": address, "Size": size, "Type": kind, "ClrInstanceID": 8})
        );
        assert_eq!(event["process_id"], 179596);
    }
    // The table prints the same: provider/event key=value.
    let table = etwc_on(
        "etl",
        &file,
        &[
            "--manifest",
            man.to_str().unwrap(),
            "--event",
            "GarbageCollection/GCCreateSegment",
            "--limit",
            "2",
        ],
    );
    assert!(
        table.lines().nth(2).unwrap().ends_with(
            "Microsoft-Windows-DotNETRuntime/GarbageCollection/GCCreateSegment \
             Address=1859502735400 \
             Size=4194264 Type=SmallObjectHeap ClrInstanceID=8"
        ),
        "{table}"
    );
}

/// The counts PerfView's net.4.5.2.x64 baseline gives (COUNT lines) for events the trace
/// describes itself: its EventSource manifests and its MetaData/EventInfo events.
const X64_EVENTSOURCE: &str = "
    PerfView/ClrEnableParameters:2
    PerfView/CommandLineParameters:3
    PerfView/KernelEnableParameters:1
    PerfView/PerfViewLog:53
    PerfView/ProviderEnableParameters:37
    PerfView/Rundown/Start:1
    PerfView/Rundown/Stop:1
    PerfView/SessionParameters:2
    PerfView/StartAndStopTimes:2
    PerfView/StopReason:1
    PerfView/Tracing/Start:1
    PerfView/Tracing/Stop:1
    PerfView/WaitForIdle:1
    System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolDequeueWork:2
    System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolEnqueueWork:3
    System.Threading.Tasks.TplEventSource/TaskExecute/Start:3
    System.Threading.Tasks.TplEventSource/TaskExecute/Stop:1
    System.Threading.Tasks.TplEventSource/TaskScheduled/Send:3";
const X64_EVENTINFO: &str = "
    Microsoft-Windows-DNS-Client/DnsServerForInterface:4
    Microsoft-Windows-DotNETRuntime/AppDomainResourceManagement/ThreadCreated:4
    Microsoft-Windows-DotNETRuntime/Exception/Start:1
    Microsoft-Windows-DotNETRuntime/GarbageCollection/IncreaseMemoryPressure:2
    Microsoft-Windows-DotNETRuntime/ThreadPoolWorkerThread/Start:2
    Microsoft-Windows-DotNETRuntime/Type/BulkType:54
    Microsoft-Windows-Immersive-Shell/ImmersiveShellAppManagerSetActiveProcess/Start:2
    Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE:15
    Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER:31
    Microsoft-Windows-Kernel-File/Create:562
    Microsoft-Windows-Kernel-Process/ProcessStart/Start:1
    Microsoft-Windows-Kernel-Process/ProcessStop/Stop:1";
/// And for kernel events, decoded by the built-in classes, KernelTraceControl's among them.
/// (PerfInfo/Sample is left out: the baseline's 6320 is not the number of sample events the
/// file holds.)
const X64_KERNEL: &str = "
    KernelTraceControl/ImageID:3590
    KernelTraceControl/ImageID/DbgID_ILRSDS:44
    KernelTraceControl/ImageID/DbgID_RSDS:3534
    KernelTraceControl/ImageID/FileVersion:705
    KernelTraceControl/ImageID/None:12
    Windows Kernel/DiskIO/Read:1208
    Windows Kernel/DiskIO/WriteInit:21
    Windows Kernel/EventTrace:1
    Windows Kernel/EventTrace/Extension:3
    Windows Kernel/Image/DCStart:1763
    Windows Kernel/Image/Load:35
    Windows Kernel/Memory/HardFault:153
    Windows Kernel/Process/DCStart:32
    Windows Kernel/Process/PerfCtrRundown:32
    Windows Kernel/SysConfig/VolumeMapping:9
    Windows Kernel/SystemConfig/PnP:78
    Windows Kernel/SystemConfig/Services:157
    Windows Kernel/TcpIp/SendIPV6:240
    Windows Kernel/Thread/Stop:15
    Windows Kernel/UdpIp/Recv:19";

/// The same of the net.4.5.2.x86 baseline.
const X86_EVENTSOURCE: &str = "
    PerfView/PerfViewLog:53
    PerfView/ProviderEnableParameters:37
    PerfView/SessionParameters:2
    System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolDequeueWork:3
    System.Threading.Tasks.TplEventSource/TaskScheduled/Send:3";
const X86_EVENTINFO: &str = "
    Microsoft-Windows-DotNETRuntime/AppDomainResourceManagement/ThreadCreated:6
    Microsoft-Windows-DotNETRuntime/Contention/Start:16
    Microsoft-Windows-DotNETRuntime/Contention/Stop:16
    Microsoft-Windows-DotNETRuntime/Type/BulkType:5
    Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER:38
    Microsoft-Windows-Kernel-File/Create:968";
const X86_KERNEL: &str = "
    KernelTraceControl/ImageID:3728
    KernelTraceControl/ImageID/DbgID_ILRSDS:42
    KernelTraceControl/ImageID/DbgID_RSDS:3680
    KernelTraceControl/ImageID/FileVersion:680
    KernelTraceControl/ImageID/None:6
    Windows Kernel/DiskIO/Read:2339
    Windows Kernel/Image/DCStop:1820
    Windows Kernel/Memory/HardFault:394
    Windows Kernel/Process/DCStart:35
    Windows Kernel/TcpIp/Accept:1
    Windows Kernel/Thread/Stop:29
    Windows Kernel/UdpIp/Send:16";

#[test]
fn schemas_of_the_merged_traces() {
    for (name, eventsource, eventinfo, kernel) in [
        (
            "net.4.5.2.x64.etl",
            X64_EVENTSOURCE,
            X64_EVENTINFO,
            X64_KERNEL,
        ),
        (
            "net.4.5.2.x86.etl",
            X86_EVENTSOURCE,
            X86_EVENTINFO,
            X86_KERNEL,
        ),
    ] {
        let Some(file) = trace(name) else {
            continue;
        };
        let report = schemas(&file, &[]);
        let rows = rows(&report);
        check_counts(&rows, "eventsource-manifest", eventsource);
        check_counts(&rows, "eventinfo", eventinfo);
        check_counts(&rows, "kernel", kernel);
        // Where each came from: the trace's own events.
        let log = row(&rows, "eventsource-manifest", "PerfView/PerfViewLog");
        assert!(log["place"].as_str().unwrap().contains(name), "{log}");
        let created = row(&rows, "eventinfo", "Microsoft-Windows-Kernel-File/Create");
        assert!(
            created["place"].as_str().unwrap().contains(name),
            "{created}"
        );
        // Events not described are counted undecoded, by provider: KernelTraceControl's
        // ImageID events (class b3e675d7-2554-4f18-830b-2762732560de) are not among them.
        let undecoded = report["undecoded"].as_array().unwrap();
        assert!(
            undecoded.iter().all(|row| !row["reason"]
                .as_str()
                .unwrap()
                .contains("b3e675d7-2554-4f18-830b-2762732560de")),
            "{undecoded:?}"
        );
        // The MetaData descriptions are counted undecoded, named, and say why (COUNT
        // KernelTraceControl/MetaData/EventInfo:61 in both baselines).
        let event_info = undecoded
            .iter()
            .find(|row| {
                row["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("a description (TRACE_EVENT_INFO)")
            })
            .unwrap();
        assert_eq!(event_info["events"], 61, "{event_info}");
        assert_eq!(event_info["provider_name"], "KernelTraceControl");
        assert!(event_info["reason"]
            .as_str()
            .unwrap()
            .contains("read as a schema"));
        let decoded = report["decoded_events"].as_u64().unwrap();
        let total: u64 = undecoded
            .iter()
            .map(|row| row["events"].as_u64().unwrap())
            .sum();
        assert_eq!(decoded + total, report["events"].as_u64().unwrap());
        assert!(
            report["problems"].as_array().unwrap().is_empty(),
            "{report}"
        );
    }
}

/// `--provider` by name, `--event` and `--process` on net.4.5.2.x64, counted against numbers
/// found without names.
#[test]
fn filters_by_name_on_a_merged_trace() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    // COUNT Windows Kernel/Process/DCStart:32; either case, with or without the provider.
    assert_eq!(count(&file, &["--event", "Process/DCStart"]), 32);
    assert_eq!(
        count(
            &file,
            &["--event", "windows kernel/process/dcstart,Image/Load"]
        ),
        32 + 35
    );
    // The kernel's events: every version-first (SYSTEM, PERFINFO) header, and KernelTraceControl's
    // SysConfig events, classic events of class 9b79ee91-b5fd-41c0-a243-4248e266e9d0, of the
    // types the built-in classes describe (COUNT Windows Kernel/SysConfig/BuildInfo:1,
    // SystemPaths:1, UnknownVolume:1, VolumeMapping:9; not SysConfig/Opcode(37):1).
    let kernel_headers = count(
        &file,
        &[
            "--kind",
            "SYSTEM32,SYSTEM64,PERFINFO32,PERFINFO64,COMPACT32,COMPACT64",
        ],
    );
    let sys_config = count(
        &file,
        &["--provider", "9b79ee91-b5fd-41c0-a243-4248e266e9d0"],
    );
    assert_eq!(sys_config, 1 + 1 + 1 + 9 + 1);
    assert_eq!(
        count(&file, &["--provider", "Windows Kernel"]),
        kernel_headers + sys_config - 1
    );
    // The baseline names process 3988 PerfView (PName=PerfView); no other process is.
    let by_pid = count(&file, &["--pid", "3988"]);
    assert!(by_pid > 30_000, "{by_pid}");
    assert_eq!(count(&file, &["--process", "PerfView"]), by_pid);
    assert_eq!(
        count(&file, &["--process", "perfview,NoSuchProcess"]),
        by_pid
    );
    // PerfView's own provider, by its name: its events the trace's manifest names and the 2
    // ManifestData events that carry the manifest (COUNT PerfView/... sum to 108).
    assert_eq!(count(&file, &["--provider", "PerfView"]), 108);
    assert_eq!(count(&file, &["--event", "PerfView/ManifestData"]), 2);
    assert_eq!(
        count(&file, &["--provider", "PerfView", "--event", "PerfViewLog"]),
        53
    );
}

#[test]
fn stats_count_by_provider_and_event_name() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    let stats: Value =
        serde_json::from_str(&etwc_on("etl", &file, &["--stats", "--format", "json"])).unwrap();
    let events = &stats["event_names"];
    for line in X64_EVENTSOURCE.lines().chain(X64_KERNEL.lines()) {
        let Some((name, expected)) = line.trim().rsplit_once(':') else {
            continue;
        };
        assert_eq!(events[name], expected.parse::<u64>().unwrap(), "{name}");
    }
    assert_eq!(stats["provider_names"]["PerfView"], 108);
    assert_eq!(
        stats["provider_names"]["Microsoft-Windows-Kernel-File"],
        562
    );
    // KernelTraceControl's events by their provider name: ImageID (COUNT
    // KernelTraceControl/ImageID...: 3590 + 44 + 3534 + 705 + 12) and the MetaData
    // descriptions, named though not shown as fields (COUNT
    // KernelTraceControl/MetaData/EventInfo:61, EventMapInfo:24).
    assert_eq!(
        stats["provider_names"]["KernelTraceControl"],
        3590 + 44 + 3534 + 705 + 12 + 61 + 24
    );
    assert_eq!(
        stats["event_names"]["KernelTraceControl/MetaData/EventInfo"],
        61
    );
    assert_eq!(
        stats["event_names"]["KernelTraceControl/MetaData/EventMapInfo"],
        24
    );
    // The EventSource manifests' chunks, by their providers' names (COUNT
    // PerfView/ManifestData:2, ...FrameworkEventSource/ManifestData:1).
    assert_eq!(stats["event_names"]["PerfView/ManifestData"], 2);
    assert_eq!(
        stats["event_names"]["System.Diagnostics.Eventing.FrameworkEventSource/ManifestData"],
        1
    );
    // Unnamed events are counted under their provider GUID, in both: the SysConfig event of
    // type 37 (COUNT Windows Kernel/SysConfig/Opcode(37):1).
    let sys_config = "9b79ee91-b5fd-41c0-a243-4248e266e9d0";
    assert_eq!(stats["provider_names"][sys_config], 1);
    assert_eq!(stats["event_names"][sys_config], 1);
    let sum = |object: &Value| -> u64 {
        object
            .as_object()
            .unwrap()
            .values()
            .map(|count| count.as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        sum(&stats["provider_names"]),
        stats["events"].as_u64().unwrap()
    );
    assert_eq!(
        sum(&stats["event_names"]),
        stats["events"].as_u64().unwrap()
    );
    // The text report lists them too.
    let text = etwc_on("etl", &file, &["--stats", "--kind", "PERFINFO64"]);
    assert!(text.contains("event names (provider/event):"), "{text}");
    assert!(
        text.lines()
            .any(|line| line == "      32 Windows Kernel/Process/DCStart"),
        "{text}"
    );
}

#[test]
fn csv_has_the_names_and_the_fields() {
    let Some(file) = trace("primitive-types.etl") else {
        return;
    };
    let text = etwc_on("etl", &file, &["--format", "csv"]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|header| header == name)
            .unwrap_or_else(|| panic!("no column {name} in {headers:?}"))
    };
    assert_eq!(column("provider_name"), column("provider") + 1);
    assert_eq!(column("event_name"), column("provider") + 2);
    assert_eq!(column("process_name"), column("pid") + 1);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    // The first PrimitiveTypesTest event of the baseline: PName=Process(33984), a process the
    // trace does not name; string_type=Mercury; boolean_type=False; int16_type=-51;
    // int32_type=-102; uint16_type=51; uint32_type=102; uint64_type=204; guid_type=0ad614c4-...
    let first = &rows[2];
    assert_eq!(&first[column("provider_name")], "solar_system");
    assert_eq!(&first[column("event_name")], "PrimitiveTypesTest");
    assert_eq!(&first[column("pid")], "33984");
    assert_eq!(&first[column("process_name")], "");
    assert_eq!(&first[column("undecoded")], "");
    assert_eq!(&first[column("fields_error")], "");
    let fields: Value = serde_json::from_str(&first[column("fields")]).unwrap();
    let fields = fields.as_object().unwrap();
    assert_eq!(fields.len(), 12);
    assert_eq!(
        fields.keys().next().map(String::as_str),
        Some("string_type")
    );
    for (key, value) in [
        ("string_type", json!("Mercury")),
        ("boolean_type", json!(false)),
        ("int16_type", json!(-51)),
        ("int32_type", json!(-102)),
        ("uint16_type", json!(51)),
        ("uint32_type", json!(102)),
        ("uint64_type", json!(204)),
    ] {
        assert_eq!(fields[key], value, "{key}");
    }
    assert!(fields["guid_type"]
        .as_str()
        .unwrap()
        .starts_with("0ad614c4-0ef4-4225-8"));
    // The kernel's header event: named by the built-in class.
    assert_eq!(&rows[0][column("event_name")], "EventTrace");
    assert_eq!(&rows[0][column("provider_name")], "Windows Kernel");
}

#[test]
fn chrome_names_events_processes_and_spans() {
    if let Some(file) = trace("net.4.5.2.x64.etl") {
        let text = etwc_on(
            "etl",
            &file,
            &[
                "--format",
                "chrome",
                "--kind",
                "PERFINFO64,SYSTEM64,FULL_HEADER64",
                "--limit",
                "3000",
            ],
        );
        let trace: Value = serde_json::from_str(&text).unwrap();
        let events = trace["traceEvents"].as_array().unwrap();
        // The processes the trace's kernel Process events name, as the baseline names them
        // (PID=3988 PName=PerfView, PID=4 PName=System, PID=0 PName=Idle).
        let process_name = |pid: u64| {
            events
                .iter()
                .find(|event| {
                    event["ph"] == "M" && event["name"] == "process_name" && event["pid"] == pid
                })
                .map(|event| event["args"]["name"].clone())
        };
        assert_eq!(process_name(3988), Some(json!("PerfView")));
        assert_eq!(process_name(4), Some(json!("System")));
        // Each named once, before its first event.
        let named: Vec<usize> = (0..events.len())
            .filter(|&at| events[at]["ph"] == "M" && events[at]["pid"] == 3988)
            .collect();
        let first = events
            .iter()
            .position(|event| event["ph"] != "M" && event["pid"] == 3988)
            .unwrap();
        assert!(named.len() == 1 && named[0] < first, "{named:?} {first}");
        // Events named provider/event, categorised by provider name.
        let names: Vec<String> = instants(&trace).into_iter().map(|(name, _)| name).collect();
        assert!(
            names
                .iter()
                .any(|name| name == "Windows Kernel/Image/DCStart"),
            "{names:?}"
        );
        assert!(events.iter().any(|event| event["ph"] == "i"
            && event["name"] == "Windows Kernel/Thread/DCStart"
            && event["cat"] == "Windows Kernel"));
        assert!(
            names
                .iter()
                .any(|name| name == "KernelTraceControl/ImageID"),
            "{names:?}"
        );
        // An event no schema names keeps its header's name: the SysConfig event of type 37
        // (COUNT Windows Kernel/SysConfig/Opcode(37):1), among its class's 13 events.
        let text = etwc_on(
            "etl",
            &file,
            &[
                "--format",
                "chrome",
                "--provider",
                "9b79ee91-b5fd-41c0-a243-4248e266e9d0",
            ],
        );
        let names: Vec<String> = instants(&serde_json::from_str(&text).unwrap())
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names.len(), 13, "{names:?}");
        assert!(
            names
                .iter()
                .any(|name| name == "9b79ee91-b5fd-41c0-a243-4248e266e9d0 type 37"),
            "{names:?}"
        );
        // An event its MetaData/EventInfo describes.
        let text = etwc_on(
            "etl",
            &file,
            &[
                "--format",
                "chrome",
                "--provider",
                "Microsoft-Windows-Kernel-File",
                "--limit",
                "3",
            ],
        );
        let create = (
            "Microsoft-Windows-Kernel-File/Create".to_owned(),
            "Microsoft-Windows-Kernel-File".to_owned(),
        );
        assert_eq!(
            instants(&serde_json::from_str(&text).unwrap()),
            [create.clone(), create.clone(), create]
        );
    }
    // Spans of a classic provider described by a MOF: named provider/task.
    let (boot, mof) = boot_trace_with_mof();
    let text = etwc_on(
        "etl",
        &boot,
        &["--format", "chrome", "--mof", mof.to_str().unwrap()],
    );
    let trace: Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let phases = |name: &str, phase: &str| {
        events
            .iter()
            .filter(|event| event["name"] == name && event["ph"] == phase)
            .count()
    };
    assert_eq!(phases("BootLoader/Stage", "B"), STAGES.len());
    assert_eq!(phases("BootLoader/Stage", "E"), STAGES.len());
    assert_eq!(phases("BootLoader/Watchdog/Kick", "i"), STAGES.len());
    assert_eq!(phases("BootLoader/Stage/Note", "i"), WARNINGS.len());
}

/// The stages the firmware's boot trace was given (`STAGES` in firmware/src/lib.rs): each
/// has a START and an END event carrying its name, and its steps' events.
const STAGES: [&str; 4] = ["clocks", "dram-training", "flash", "kernel-load"];
/// The warnings two of the stages log (INFO events of the stage class).
const WARNINGS: [&str; 2] = ["rank 1 eye narrow, retrained", "signature checked"];

/// MOF text for two of the boot trace's classes: the stage class (events START, END and
/// INFO, whose data is the text, not NUL-terminated) and the watchdog class (the 15 bytes
/// `watchdog kicks=`, then the count as a `UINT32`).
const BOOT_MOF: &str = r#"#pragma namespace("\\\\.\\root\\wmi")

// The firmware's provider and two of its event classes.
[Dynamic, Guid("{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104200}"), DisplayName("BootLoader")]
class BootLoader : EventTrace
{
};

[Dynamic, Guid("{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104202}"), EventVersion(1), DisplayName("Stage")]
class BootStage : BootLoader
{
};

[Dynamic, EventType{1, 2, 0}, EventTypeName{"Begin", "Finish", "Note"}]
class BootStage_Text : BootStage
{
    [WmiDataId(1), StringTermination("NotCounted"), read] string Text;
};

[Dynamic, Guid("{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104204}"), EventVersion(1), DisplayName("Watchdog")]
class Watchdog : BootLoader
{
};

[Dynamic, EventType(0), EventTypeName("Kick")]
class Watchdog_Kick : Watchdog
{
    [WmiDataId(1), Format("s"), read] uint8 Label[15];
    [WmiDataId(2), read] uint32 Kicks;
};
"#;

/// The boot trace (written by the library's writer, streaming: nothing lost) and the MOF
/// file describing two of its classes, in the test's temporary folder.
fn boot_trace_with_mof() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let boot = dir.join("meaning-boot.etl");
    let mof = dir.join("meaning-boot.mof");
    std::fs::write(&boot, boot_trace_file(Mode::Streaming)).unwrap();
    std::fs::write(&mof, BOOT_MOF).unwrap();
    (boot, mof)
}

#[test]
fn a_mof_given_names_a_classic_providers_events() {
    let (boot, mof) = boot_trace_with_mof();
    let mof = mof.to_str().unwrap();
    let begins = events(&boot, &["--mof", mof, "--event", "Stage/Begin"]);
    let texts: Vec<Value> = begins
        .iter()
        .map(|event| event["fields"]["Text"].clone())
        .collect();
    assert_eq!(texts, STAGES.map(|stage| json!(stage)));
    for event in &begins {
        assert_eq!(event["provider_name"], "BootLoader");
        assert_eq!(event["task_name"], "Stage");
        assert_eq!(event["opcode_name"], "Begin");
        assert_eq!(event["kind"], "INSTANCE32");
        assert_eq!(event.get("fields_left"), None);
    }
    let finishes = events(&boot, &["--mof", mof, "--event", "BootLoader/Stage/Finish"]);
    assert_eq!(finishes.len(), STAGES.len());
    let notes = events(&boot, &["--mof", mof, "--event", "Stage/Note"]);
    let notes: Vec<Value> = notes
        .iter()
        .map(|event| event["fields"]["Text"].clone())
        .collect();
    assert_eq!(notes, WARNINGS.map(|text| json!(text)));
    // The watchdog is kicked once a stage, the count going up from 1.
    let kicks = events(
        &boot,
        &[
            "--mof",
            mof,
            "--provider",
            "BootLoader",
            "--event",
            "Watchdog/Kick",
        ],
    );
    let kicks: Vec<Value> = kicks.iter().map(|event| event["fields"].clone()).collect();
    let expected: Vec<Value> = (1..=STAGES.len())
        .map(|kick| json!({"Label": "watchdog kicks=", "Kicks": kick}))
        .collect();
    assert_eq!(kicks, expected);
    // Without the MOF, the same events are undecoded, saying why.
    let bare = events(&boot, &["--event", "Stage/Begin"]);
    assert!(bare.is_empty());
    let all = events(
        &boot,
        &["--provider", "6b0f0a10-2c4e-4b8d-9a31-0e5c7f104204"],
    );
    assert_eq!(all.len(), STAGES.len());
    assert_eq!(
        all[0]["undecoded"],
        "no schema for event class 6b0f0a10-2c4e-4b8d-9a31-0e5c7f104204 type 0 version 1"
    );
    // `etwc schemas` lists the MOF's event types with the events each decoded, and the
    // classes it does not describe as undecoded.
    let report = schemas(&boot, &["--mof", mof]);
    let rows = rows(&report);
    for (name, events, fields) in [
        ("BootLoader/Stage/Begin", STAGES.len(), 1),
        ("BootLoader/Stage/Finish", STAGES.len(), 1),
        ("BootLoader/Stage/Note", WARNINGS.len(), 1),
        ("BootLoader/Watchdog/Kick", STAGES.len(), 2),
    ] {
        let row = row(&rows, "mof", name);
        assert_eq!(
            (&row["events"], &row["fields"]),
            (&json!(events), &json!(fields)),
            "{name}"
        );
        assert_eq!(row["events_with_bytes_left"], 0);
        assert!(
            row["place"].as_str().unwrap().contains("meaning-boot.mof"),
            "{row}"
        );
    }
    let undecoded: Vec<&str> = report["undecoded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["provider"].as_str().unwrap())
        .collect();
    assert!(
        undecoded.contains(&"6b0f0a10-2c4e-4b8d-9a31-0e5c7f104203"),
        "{undecoded:?}"
    );
}

#[test]
fn schemas_usage_and_errors() {
    // Standard input cannot be read twice.
    etwc()
        .args(["schemas", "-"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("standard input"));
    etwc()
        .args(["schemas", "/nonexistent/trace.etl"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "cannot read /nonexistent/trace.etl",
        ));
    // A MOF that contradicts itself is an error naming the file and line.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let bad = dir.join("meaning-bad.mof");
    std::fs::write(
        &bad,
        "[Dynamic, Guid(\"{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104200}\")]\nclass P : EventTrace {};\n\
         [Dynamic, Guid(\"{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104202}\")]\nclass C : P {};\n\
         [Dynamic, EventType(1)]\nclass C_T : C\n{\n    [WmiDataId(2), read] uint32 Gap;\n};\n",
    )
    .unwrap();
    let (boot, _) = boot_trace_with_mof();
    etwc()
        .arg("schemas")
        .arg(&boot)
        .arg("--mof")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("meaning-bad.mof"));
}

/// The name and category of every instant event (`"ph": "i"`) of a Chrome trace, in order.
fn instants(trace: &Value) -> Vec<(String, String)> {
    trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["ph"] == "i")
        .map(|event| {
            let text = |key: &str| event[key].as_str().unwrap().to_owned();
            (text("name"), text("cat"))
        })
        .collect()
}
