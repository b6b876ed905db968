//! `etwc etl --format csv` and `--format chrome`: the CSV parsed back and compared, row by row,
//! with the `--json` output; the Chrome trace parsed and every event checked for the members
//! the Trace Event Format requires, with begin and end events balanced on every thread.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use common::{boot_trace_file, etwc, trace, utf8};
use etw_classic_firmware::Mode;
use serde_json::{Map, Value};

/// The stdout of `etwc etl FILE ARGS`, which must succeed quietly.
fn etl(file: &Path, args: &[&str]) -> String {
    let output = etwc()
        .arg("etl")
        .arg(file)
        .args(args)
        .assert()
        .success()
        .stderr("")
        .get_output()
        .stdout
        .clone();
    utf8(&output)
}

/// The event objects of the `--json` output with `args`.
fn json_events(file: &Path, args: &[&str]) -> Vec<Map<String, Value>> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    etl(file, &all)
        .lines()
        .skip(1)
        .map(|line| match serde_json::from_str(line).unwrap() {
            Value::Object(object) => object,
            other => panic!("an object expected, found {other}"),
        })
        .collect()
}

/// A JSON value as the CSV writes it: empty for null, strings unquoted.
fn as_field(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

fn check_csv(file: &Path, args: &[&str]) -> usize {
    let events = json_events(file, args);
    let mut csv_args = vec!["--format", "csv"];
    csv_args.extend_from_slice(args);
    let text = etl(file, &csv_args);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        headers,
        [
            "kind",
            "buffer",
            "offset",
            "processor",
            "filetime",
            "time",
            "provider",
            "provider_name",
            "event_name",
            "pid",
            "process_name",
            "tid",
            "event_id",
            "version",
            "opcode",
            "level",
            "task",
            "keyword",
            "size",
            "fields",
            "fields_error",
            "fields_left",
            "undecoded",
            "data",
            "error"
        ]
    );
    let rows: Vec<HashMap<String, String>> = reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            assert_eq!(record.len(), headers.len());
            headers
                .iter()
                .cloned()
                .zip(record.iter().map(str::to_owned))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), events.len());
    for (row, event) in rows.iter().zip(&events) {
        for key in [
            "kind",
            "buffer",
            "offset",
            "processor",
            "filetime",
            "time",
            "size",
        ] {
            assert_eq!(row[key], as_field(event.get(key)), "{key} of {event:?}");
        }
        // The names and fields: the JSON line's keys, the fields as one JSON text.
        for key in [
            "provider_name",
            "event_name",
            "process_name",
            "fields_error",
            "fields_left",
            "undecoded",
        ] {
            assert_eq!(row[key], as_field(event.get(key)), "{key} of {event:?}");
        }
        if row["fields"].is_empty() {
            assert_eq!(event["fields"], Value::Null);
        } else {
            let fields: Value = serde_json::from_str(&row["fields"]).unwrap();
            assert_eq!(fields, event["fields"]);
        }
        assert_eq!(row["pid"], as_field(event.get("process_id")));
        assert_eq!(row["tid"], as_field(event.get("thread_id")));
        let data = event.get("data").or_else(|| event.get("bytes"));
        assert_eq!(row["data"], as_field(data));
        let kind = event["kind"].as_str().unwrap();
        if kind.starts_with("EVENT_HEADER") {
            let descriptor = &event["event_descriptor"];
            assert_eq!(row["provider"], as_field(event.get("provider_id")));
            for (column, key) in [
                ("event_id", "id"),
                ("version", "version"),
                ("opcode", "opcode"),
                ("level", "level"),
                ("task", "task"),
            ] {
                assert_eq!(row[column], as_field(descriptor.get(key)));
            }
            let keyword = descriptor["keyword"].as_u64().unwrap();
            assert_eq!(row["keyword"], format!("{keyword:#x}"));
        } else if kind.starts_with("FULL_HEADER") || kind.starts_with("INSTANCE") {
            assert_eq!(row["provider"], as_field(event.get("guid")));
            assert_eq!(row["opcode"], as_field(event.get("class_type")));
            assert_eq!(row["level"], as_field(event.get("class_level")));
            assert_eq!(row["version"], as_field(event.get("class_version")));
            assert_eq!(row["event_id"], "");
        } else if kind.starts_with("SYSTEM") || kind.starts_with("PERFINFO") {
            assert!(row["provider"].starts_with("kernel:"), "{row:?}");
            assert_eq!(row["opcode"], as_field(event.get("type")));
            assert_eq!(row["version"], as_field(event.get("version")));
        }
    }
    rows.len()
}

#[test]
fn csv_rows_are_the_json_events() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    assert_eq!(check_csv(&file, &[]), 71);
    assert_eq!(check_csv(&file, &["--kind", "SYSTEM64"]), 2);
    assert_eq!(check_csv(&file, &["--limit", "4", "--order", "time"]), 4);
    if let Some(file) = trace("SelfDescribingSingleEvent.etl") {
        assert_eq!(check_csv(&file, &[]), 23);
    }
    if let Some(file) = trace("primitive-types.etl") {
        assert_eq!(check_csv(&file, &[]), 7);
    }
}

/// The file the firmware's boot trace writes (nested START/END instance events).
fn boot_file() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("etl-formats-boot.etl");
    std::fs::write(&path, boot_trace_file(Mode::Streaming)).unwrap();
    path
}

/// What a Chrome trace holds, checked: the trace events other than metadata, and the spans
/// (begin and end pairs) met.
struct Chrome {
    events: Vec<Map<String, Value>>,
    spans: usize,
}

/// Parses and checks `etwc etl FILE --format chrome ARGS`: the object's members, each event's
/// required members, metadata naming, begin and end events balanced and nested per thread.
fn check_chrome(file: &Path, args: &[&str]) -> Chrome {
    let mut chrome_args = vec!["--format", "chrome"];
    chrome_args.extend_from_slice(args);
    let text = etl(file, &chrome_args);
    let trace: Value = serde_json::from_str(&text).expect("the output is one JSON value");
    assert_eq!(trace["displayTimeUnit"], "ns");
    assert!(trace["otherData"].is_object());
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let mut stacks: BTreeMap<(u64, u64), Vec<String>> = BTreeMap::new();
    let mut named_processes = Vec::new();
    let mut out = Vec::new();
    let mut spans = 0;
    for event in events {
        let event = event.as_object().unwrap();
        let phase = event["ph"].as_str().expect("ph");
        assert!(event["name"].is_string(), "name in {event:?}");
        assert!(event["ts"].is_number(), "ts in {event:?}");
        assert!(event["cat"].is_string(), "cat in {event:?}");
        let pid = event["pid"].as_u64().expect("pid");
        let tid = event["tid"].as_u64().expect("tid");
        match phase {
            "M" => {
                let name = event["name"].as_str().unwrap();
                assert!(name == "process_name" || name == "thread_name", "{event:?}");
                assert!(event["args"]["name"].is_string(), "{event:?}");
                if name == "process_name" {
                    named_processes.push(pid);
                }
                continue;
            }
            "i" => assert_eq!(event["s"], "t", "{event:?}"),
            "B" => stacks
                .entry((pid, tid))
                .or_default()
                .push(event["name"].as_str().unwrap().to_owned()),
            "E" => {
                let open = stacks.entry((pid, tid)).or_default().pop();
                assert_eq!(
                    open.as_deref(),
                    event["name"].as_str(),
                    "an end without its begin: {event:?}"
                );
                spans += 1;
            }
            other => panic!("unexpected ph {other:?}"),
        }
        let args = event["args"].as_object().expect("args");
        if !args.contains_key("closed_at_end_of_trace") {
            // The args hold at least the event's kind (see chrome_args); ts is its time from
            // the start.
            assert!(args.contains_key("kind") && args.contains_key("offset"));
            assert!(event["ts"].as_f64().unwrap() >= 0.0);
            out.push(event.clone());
        }
    }
    for ((pid, tid), stack) in &stacks {
        assert!(
            stack.is_empty(),
            "spans left open on {pid}/{tid}: {stack:?}"
        );
    }
    if out.iter().any(|event| event["pid"] == u64::from(u32::MAX)) {
        assert!(named_processes.contains(&u64::from(u32::MAX)));
    }
    Chrome { events: out, spans }
}

/// `event`'s JSON line without the members that hold the event's bytes as hex: `data` and
/// `bytes` of the event, `data` and `padding` of its extended items and of their provider
/// traits (`data` and `padding` that are `null` or numbers are not bytes and stay).
fn without_bytes(event: &Map<String, Value>) -> Map<String, Value> {
    fn strip(object: &mut Map<String, Value>, keys: &[&str]) {
        object.retain(|key, value| !(keys.contains(&key.as_str()) && value.is_string()));
    }
    let mut event = event.clone();
    strip(&mut event, &["data", "bytes"]);
    if let Some(Value::Array(items)) = event.get_mut("extended_data") {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            strip(item, &["data", "padding"]);
            if let Some(Value::Array(traits)) = item.get_mut("traits") {
                for provider_trait in traits.iter_mut().filter_map(Value::as_object_mut) {
                    strip(provider_trait, &["data"]);
                }
            }
        }
    }
    event
}

/// What `args` a Chrome trace's event has with `--chrome-args` `mode`, from the event's JSON
/// line: by default its position, kind and what its payload says; `line`: the line without
/// the bytes; `hex`: the whole line.
fn chrome_args(mode: &str, event: Map<String, Value>) -> Map<String, Value> {
    match mode {
        "hex" => event,
        "line" => without_bytes(&event),
        _ => {
            let keys = [
                "buffer",
                "offset",
                "kind",
                "fields",
                "fields_error",
                "fields_left",
                "undecoded",
            ];
            event
                .into_iter()
                .filter(|(key, _)| keys.contains(&key.as_str()))
                .collect()
        }
    }
}

/// The events of a Chrome trace are those of the `--json` output with the same arguments, in
/// the same order, with `ts` the microseconds since the logfile header's `StartTime`; their
/// `args` are what [`chrome_args`] takes of the JSON lines.
fn same_events(chrome: &Chrome, file: &Path, args: &[&str]) {
    let mode = args
        .iter()
        .position(|arg| *arg == "--chrome-args")
        .map_or("fields", |at| args[at + 1]);
    let args: Vec<&str> = match args.iter().position(|arg| *arg == "--chrome-args") {
        Some(at) => [&args[..at], &args[at + 2..]].concat(),
        None => args.to_vec(),
    };
    let args = &args[..];
    let events = json_events(file, args);
    assert_eq!(chrome.events.len(), events.len());
    let header = etl(file, &["--json", "--limit", "0"]);
    let header: Value = serde_json::from_str(&header).unwrap();
    let start = header["logfile_header"]["start_time"].as_i64();
    for (traced, event) in chrome.events.iter().zip(&events) {
        let args = traced["args"].as_object().unwrap();
        assert_eq!(args, &chrome_args(mode, event.clone()));
        let filetime = event["filetime"].as_i64().unwrap();
        let micros = traced["ts"].as_f64().unwrap();
        let expected = (filetime - start.unwrap()) as f64 / 10.0;
        assert!((micros - expected).abs() < 0.05, "{micros} vs {expected}");
        if let Some(pid) = event.get("process_id").and_then(Value::as_u64) {
            assert_eq!(traced["pid"], pid);
            assert_eq!(traced["tid"], event["thread_id"]);
        } else {
            assert_eq!(traced["pid"], u64::from(u32::MAX));
            assert_eq!(traced["tid"], event["processor"]);
        }
    }
}

#[test]
fn chrome_traces_of_the_perfview_files() {
    for (name, count) in [
        ("SelfDescribingSingleEvent.etl", 23),
        ("gcevents.etl", 71),
        ("primitive-types.etl", 7),
    ] {
        let Some(file) = trace(name) else {
            continue;
        };
        let chrome = check_chrome(&file, &[]);
        assert_eq!(chrome.events.len(), count, "{name}");
        same_events(&chrome, &file, &[]);
        let chrome = check_chrome(&file, &["--order", "time"]);
        same_events(&chrome, &file, &["--order", "time"]);
        for mode in ["fields", "line", "hex"] {
            let chrome = check_chrome(&file, &["--chrome-args", mode]);
            same_events(&chrome, &file, &["--chrome-args", mode]);
        }
    }
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    // Kernel events without a process id: on the pseudo-process, a thread per processor.
    let args = [
        "--order",
        "time",
        "--kind",
        "PERFINFO64,EVENT_HEADER64",
        "--limit",
        "3000",
    ];
    let chrome = check_chrome(&file, &args);
    assert_eq!(chrome.events.len(), 3000);
    same_events(&chrome, &file, &args);
    // In time order, ts never goes back.
    let ts: Vec<f64> = chrome
        .events
        .iter()
        .map(|event| event["ts"].as_f64().unwrap())
        .collect();
    assert!(ts.windows(2).all(|pair| pair[0] <= pair[1]));
}

#[test]
fn chrome_spans_of_start_and_end_events() {
    let file = boot_file();
    let events = json_events(&file, &[]);
    let typed = |class_type: u64| {
        events
            .iter()
            .filter(|event| event.get("class_type").and_then(Value::as_u64) == Some(class_type))
            .count()
    };
    let (starts, ends) = (typed(1), typed(2));
    assert!(starts > 3 && starts == ends, "{starts} starts, {ends} ends");
    for order in ["file", "time"] {
        let chrome = check_chrome(&file, &["--order", order]);
        // Every START opens a span that its END closes.
        assert_eq!(chrome.spans, starts, "--order {order}");
        let phases = |phase: &str| {
            chrome
                .events
                .iter()
                .filter(|event| event["ph"] == phase)
                .count()
        };
        assert_eq!((phases("B"), phases("E")), (starts, ends));
        assert_eq!(phases("i"), events.len() - starts - ends);
    }
}
