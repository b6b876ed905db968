//! `etwc etl` on the PerfView test traces (see `shared/data/perfview/PROVENANCE.md`), through the
//! built binary.
//!
//! The event counts of each header type are the ones dissect.etl, an independent parser, finds
//! in the same files (the library's `tests/data/perfview-full-headers.json`); the numbers of
//! buffers equal each logfile header's `BuffersWritten`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{run, trace};
use serde_json::{json, Value};

/// Each trace with the one line `etl --summary --json` prints for it.
const SUMMARIES: [(&str, &str); 5] = [
    (
        "SelfDescribingSingleEvent.etl",
        r#"{"buffers":3,"events":23,"kinds":{"EVENT_HEADER64":1,"FULL_HEADER64":18,"SYSTEM64":4}}"#,
    ),
    (
        "gcevents.etl",
        r#"{"buffers":5,"events":71,"kinds":{"EVENT_HEADER64":69,"SYSTEM64":2}}"#,
    ),
    (
        "net.4.5.2.x64.etl",
        r#"{"buffers":360,"events":179474,"kinds":{"EVENT_HEADER32":33378,"EVENT_HEADER64":34765,"FULL_HEADER32":27,"FULL_HEADER64":7956,"PERFINFO64":100157,"SYSTEM32":2,"SYSTEM64":3189}}"#,
    ),
    (
        "net.4.5.2.x86.etl",
        r#"{"buffers":276,"events":168298,"kinds":{"EVENT_HEADER32":39425,"EVENT_HEADER64":1073,"FULL_HEADER32":73,"FULL_HEADER64":8162,"PERFINFO64":115091,"SYSTEM32":2,"SYSTEM64":4472}}"#,
    ),
    (
        "primitive-types.etl",
        r#"{"buffers":2,"events":7,"kinds":{"EVENT_HEADER64":5,"SYSTEM64":2}}"#,
    ),
];

#[test]
fn summary_json_of_every_trace() {
    for (name, expected) in SUMMARIES {
        let Some(path) = trace(name) else { continue };
        let output = run(&["etl", path.to_str().unwrap(), "--summary", "--json"]);
        assert_eq!(output, format!("{expected}\n"), "{name}");
        // The line is JSON whose counts add up.
        let summary: Value = serde_json::from_str(&output).unwrap();
        let kinds = summary["kinds"].as_object().unwrap();
        let total: u64 = kinds.values().map(|count| count.as_u64().unwrap()).sum();
        assert_eq!(summary["events"], json!(total), "{name}");
    }
}

#[test]
fn summary_text() {
    let Some(path) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    assert_eq!(
        run(&["etl", path.to_str().unwrap(), "--summary"]),
        "3 buffers, 23 events\n EVENT_HEADER64        1\n  FULL_HEADER64       18\n       \
         SYSTEM64        4\n"
    );
    let Some(path) = trace("net.4.5.2.x86.etl") else {
        return;
    };
    assert_eq!(
        run(&["etl", path.to_str().unwrap(), "--summary"]),
        "276 buffers, 168298 events\n EVENT_HEADER32    39425\n EVENT_HEADER64     1073\n  \
         FULL_HEADER32       73\n  FULL_HEADER64     8162\n     PERFINFO64   115091\n       \
         SYSTEM32        2\n       SYSTEM64     4472\n"
    );
}

/// The first line of `etl PATH --json`, the logfile header: the run is stopped once it is read
/// (the rest of a large trace's output is for the cross-check script).
fn first_line(path: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_etwc"))
        .arg("etl")
        .arg(path)
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // The process may already have ended; stopping it is only to save time.
    let _ = child.kill();
    child.wait().unwrap();
    line
}

#[test]
fn the_logfile_header_line_names_the_logger_and_counts_the_buffers() {
    let expected = [
        ("SelfDescribingSingleEvent.etl", "Relogger", 3),
        ("gcevents.etl", "PerfViewSession", 5),
        ("net.4.5.2.x64.etl", "Relogger", 360),
        ("net.4.5.2.x86.etl", "Relogger", 276),
        ("primitive-types.etl", "solar_system", 2),
    ];
    for (name, logger, buffers) in expected {
        let Some(path) = trace(name) else { continue };
        let first: Value = serde_json::from_str(&first_line(&path)).unwrap();
        assert_eq!(first["kind"], json!("LOGFILE_HEADER"), "{name}");
        assert_eq!(first["logger_name"], json!(logger), "{name}");
        let header = &first["logfile_header"];
        assert_eq!(header["buffers_written"], json!(buffers), "{name}");
        assert_eq!(header["pointer_size"], json!(8), "{name}");
        assert_eq!(first["system_header"]["header_type"], json!(2), "{name}");
    }
}

#[test]
fn every_event_of_a_small_trace_as_json() {
    let Some(path) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let output = run(&["etl", path.to_str().unwrap(), "--json"]);
    let lines: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + 23);

    let first = &lines[0];
    assert_eq!(first["kind"], json!("LOGFILE_HEADER"));
    assert_eq!(first["logger_name"], json!("Relogger"));
    assert_eq!(first["log_file_name"], json!("[multiple files]"));
    let header = &first["logfile_header"];
    assert_eq!(header["buffer_size"], json!(65536));
    assert_eq!(header["buffers_written"], json!(3));
    assert_eq!(header["perf_freq"], json!(10_000_000));
    assert_eq!(header["timer_resolution"], json!(156_250));
    assert_eq!(header["reserved_flags"], json!(1));
    assert_eq!(header["cpu_speed_in_mhz"], json!(3192));

    // The classic events dissect.etl decoded in this trace: buffer 1, by offset.
    let guid_a = "9b79ee91-b5fd-41c0-a243-4248e266e9d0";
    let guid_b = "ed54dff8-c409-4cf6-bf83-05e1e61a09c4";
    let expected = [
        (80, 112, 33, 6_459_791_009_101i64, guid_a),
        (192, 98, 34, 6_459_791_009_101, guid_a),
        (400, 60, 35, 6_459_791_009_101, guid_a),
        (1496, 460, 33, 6_459_824_663_701, guid_b),
        (1960, 681, 35, 6_459_824_663_701, guid_b),
        (2648, 4194, 37, 6_459_824_663_701, guid_b),
    ];
    for (offset, size, class_type, timestamp, guid) in expected {
        let event = lines[1..]
            .iter()
            .find(|event| event["buffer"] == json!(1) && event["offset"] == json!(offset))
            .unwrap_or_else(|| panic!("no event at buffer 1 offset {offset}"));
        assert_eq!(event["kind"], json!("FULL_HEADER64"), "offset {offset}");
        assert_eq!(event["size"], json!(size), "offset {offset}");
        assert_eq!(event["header_type"], json!(20), "offset {offset}");
        assert_eq!(event["marker_flags"], json!(192), "offset {offset}");
        assert_eq!(event["class_type"], json!(class_type), "offset {offset}");
        assert_eq!(event["class_level"], json!(0), "offset {offset}");
        assert_eq!(event["class_version"], json!(0), "offset {offset}");
        assert_eq!(event["timestamp"], json!(timestamp), "offset {offset}");
        assert_eq!(event["guid"], json!(guid), "offset {offset}");
        // The data follows the 0x30-byte header: Size - 0x30 bytes as hex.
        let data = event["data"].as_str().unwrap();
        assert_eq!(data.len(), (size - 0x30) * 2, "offset {offset}");
    }
    let kinds: Vec<&str> = lines[1..]
        .iter()
        .map(|event| event["kind"].as_str().unwrap())
        .collect();
    let count = |kind: &str| kinds.iter().filter(|each| **each == kind).count();
    assert_eq!(count("FULL_HEADER64"), 18);
    assert_eq!(count("SYSTEM64"), 4);
    assert_eq!(count("EVENT_HEADER64"), 1);
}

#[test]
fn every_event_of_a_small_trace_as_text() {
    let Some(path) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let output = run(&["etl", path.to_str().unwrap()]);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 1 + 23);
    assert_eq!(
        lines[0],
        "logfile header: logger \"Relogger\", file \"[multiple files]\", 64-bit logger, buffer \
         size 65536, 3 buffers written, 0 events lost, 0 buffers lost, clock \
         QUERY_PERFORMANCE_COUNTER, timer resolution 156250 (100 ns), start \
         2022-04-20T21:27:15.2722435Z, end 2022-04-20T21:27:18.6242009Z, perf freq 10000000"
    );
    // Each line: the header's members, then the event's name and fields (checked here only
    // as far as the name and the first field's name, TraceEvent's for these kernel events).
    let starts = |line: &str, header: &str, meaning: &str| {
        let rest = line
            .strip_prefix(header)
            .unwrap_or_else(|| panic!("{line:?} does not start with {header:?}"));
        assert!(rest.starts_with(meaning), "{rest:?} after {header:?}");
    };
    starts(
        lines[1],
        // The logfile header event: StartTime 132949636352722435 itself.
        "buffer    0 offset 0x00000 SYSTEM64        size   364 2022-04-20T21:27:15.2722435Z",
        "  Windows Kernel/EventTrace BufferSize=65536 ",
    );
    starts(
        lines[4],
        "buffer    1 offset 0x00050 FULL_HEADER64   size   112 2022-04-20T21:27:15.2722435Z  \
         9b79ee91-b5fd-41c0-a243-4248e266e9d0 type 33 level win:LogAlways version 0 tid 0 pid 0 raw_timestamp \
         6459791009101 kernel_time 0 user_time 0",
        "  Windows Kernel/SysConfig/SystemPaths SystemDirectory=",
    );
}

/// The JSON lines of `etl PATH --json` up to the first event of buffer `last + 1`; the run is
/// stopped there (the whole of a large trace takes long in a debug build).
fn json_lines_through_buffer(path: &Path, last: u64) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_etwc"))
        .arg("etl")
        .arg(path)
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if value["buffer"].as_u64().is_some_and(|buffer| buffer > last) {
            break;
        }
        lines.push(value);
    }
    // The process may already have ended; stopping it is only to save time.
    let _ = child.kill();
    child.wait().unwrap();
    lines
}

/// Kernel events of `net.4.5.2.x64.etl` as JSON, every header member, against the values
/// dissect.etl decodes (`tools/kernel-header-vectors/print_kernel_events.py --at
/// net.4.5.2.x64.etl:5:0x58`): the worked example of EVENT-HEADERS.md §3 (buffer 5, offset
/// 0x58) and the first events of buffer 1.
#[test]
fn kernel_events_as_json() {
    let Some(path) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    let lines = json_lines_through_buffer(&path, 5);
    let at = |buffer: u64, offset: u64| {
        lines[1..]
            .iter()
            .find(|event| event["buffer"] == json!(buffer) && event["offset"] == json!(offset))
            .unwrap_or_else(|| panic!("no event at buffer {buffer} offset {offset:#x}"))
    };

    // PERFINFO64, version 2, size 170, hook_id 0x1403 (group 0x14, type 3), system_time
    // 1942912437, 154 bytes of data starting 0000f169f7070000.
    let worked = at(5, 0x58);
    let expected = json!({
        "buffer": 5, "offset": 0x58, "kind": "PERFINFO64",
        "marker": 0xC011_0002u32, "version": 2, "header_type": 0x11, "flags": 0xC0,
        "header": 0x1403_00AAu32, "size": 170, "hook_id": 0x1403, "type": 3, "group": 0x14,
        "system_time": 1_942_912_437i64, "pebs_index": null, "pmc_counters": [],
        // The buffer's processor; dissect.etl's ETL.get_filetime_for_event of system_time.
        "processor": 3, "filetime": 132_404_548_206_539_729i64,
        "time": "2020-07-29T00:07:00.6539729Z",
    });
    for (key, value) in expected.as_object().unwrap() {
        assert_eq!(&worked[key], value, "{key}");
    }
    let data = worked["data"].as_str().unwrap();
    assert_eq!(data.len(), 154 * 2);
    assert!(data.starts_with("0000f169f7070000"));
    // The event's meaning: hook group 0x14 (EVENT_TRACE_GROUP_IMAGE) type 3, TraceEvent's
    // Image/DCStart.
    let meaning = json!({
        "provider_name": "Windows Kernel", "event_name": "Image/DCStart", "task_name": "Image",
        "opcode_name": "DCStart", "process_name": null,
    });
    for (key, value) in meaning.as_object().unwrap() {
        assert_eq!(&worked[key], value, "{key}");
    }
    assert!(worked["fields"].is_object());
    // Every key is one of those above, `data` or `fields`: nothing else is printed for a
    // perfinfo event.
    assert_eq!(
        worked.as_object().unwrap().len(),
        expected.as_object().unwrap().len() + meaning.as_object().unwrap().len() + 2
    );

    // Buffer 1: PERFINFO64 at 0 (hook 0x0005, size 52, system_time 1942893712, 36 bytes of
    // data starting 0f27010002000000), PERFINFO64 at 0x38 (version 4, size 91, hook 0x0303,
    // system_time 1942893807, 75 bytes starting 00927d2100f8ffff), SYSTEM64 at 0x98 (version 3,
    // size 104, hook 0x0503, thread_id 0, process_id 0, system_time 1942893827, kernel_time
    // 12125, user_time 0, 72 bytes of zeros first).
    for (offset, version, size, hook_id, time, data_len, data_start) in [
        (
            0x00,
            2,
            52,
            0x0005,
            1_942_893_712i64,
            36,
            "0f27010002000000",
        ),
        (0x38, 4, 91, 0x0303, 1_942_893_807, 75, "00927d2100f8ffff"),
    ] {
        let event = at(1, offset);
        assert_eq!(event["kind"], json!("PERFINFO64"), "{offset:#x}");
        assert_eq!(
            [
                &event["version"],
                &event["size"],
                &event["hook_id"],
                &event["system_time"]
            ],
            [&json!(version), &json!(size), &json!(hook_id), &json!(time)],
            "{offset:#x}"
        );
        let data = event["data"].as_str().unwrap();
        assert_eq!(data.len(), data_len * 2, "{offset:#x}");
        assert!(data.starts_with(data_start), "{offset:#x}");
    }
    let system = at(1, 0x98);
    let expected = json!({
        "kind": "SYSTEM64", "version": 3, "flags": 0xC0, "size": 104, "hook_id": 0x0503,
        "type": 3, "group": 5, "thread_id": 0, "process_id": 0, "system_time": 1_942_893_827i64,
        "kernel_time": 12125, "user_time": 0, "pebs_index": null, "pmc_counters": [],
    });
    for (key, value) in expected.as_object().unwrap() {
        assert_eq!(&system[key], value, "{key}");
    }
    assert_eq!(system["data"].as_str().unwrap().len(), 72 * 2);
    assert!(system["data"]
        .as_str()
        .unwrap()
        .starts_with("0000000000000000"));

    // Every kernel event through buffer 5 has every member of its header, and data of Size
    // minus the header (no sample event has extra words).
    for event in &lines[1..] {
        let header_len = match event["kind"].as_str().unwrap() {
            "SYSTEM32" | "SYSTEM64" => 0x20,
            "PERFINFO64" => 0x10,
            _ => continue,
        };
        for key in [
            "marker",
            "version",
            "header_type",
            "flags",
            "header",
            "hook_id",
            "type",
        ] {
            assert!(event.get(key).is_some(), "{key} missing in {event}");
        }
        assert_eq!(
            event["hook_id"].as_u64().unwrap(),
            event["group"].as_u64().unwrap() << 8 | event["type"].as_u64().unwrap()
        );
        let size = event["size"].as_u64().unwrap();
        let data = event["data"].as_str().unwrap().len() as u64 / 2;
        assert_eq!(data, size - header_len, "{event}");
    }
}
