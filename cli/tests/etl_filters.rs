//! `etwc etl`'s filters, `--limit` and `--stats` on the PerfView traces: each filtered output
//! checked against the events of the unfiltered `--json` output that the test selects itself,
//! and against counts known from the traces.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{etwc, trace, utf8};
use serde_json::{Map, Value};

/// The event objects `etwc etl FILE --json ARGS` prints (the logfile header line left out).
fn events(file: &Path, args: &[&str]) -> Vec<Map<String, Value>> {
    let output = etwc()
        .arg("etl")
        .arg(file)
        .arg("--json")
        .args(args)
        .assert()
        .success()
        .stderr("")
        .get_output()
        .stdout
        .clone();
    let text = utf8(&output);
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a logfile header line")).unwrap();
    assert_eq!(header["kind"], "LOGFILE_HEADER");
    lines
        .map(|line| match serde_json::from_str(line).unwrap() {
            Value::Object(object) => object,
            other => panic!("an object expected, found {other}"),
        })
        .collect()
}

/// The provider GUID an event's JSON names: `provider_id` (EVENT_HEADER), `guid` (classic),
/// `message_guid` (messages).
fn provider(event: &Map<String, Value>) -> Option<&str> {
    ["provider_id", "guid", "message_guid"]
        .iter()
        .find_map(|key| event.get(*key).and_then(Value::as_str))
}

fn number(event: &Map<String, Value>, key: &str) -> Option<u64> {
    event.get(key).and_then(Value::as_u64)
}

/// The position of each event: buffer and offset.
fn positions(events: &[Map<String, Value>]) -> Vec<(u64, u64)> {
    events
        .iter()
        .map(|event| {
            (
                number(event, "buffer").unwrap(),
                number(event, "offset").unwrap(),
            )
        })
        .collect()
}

/// The events of `all` that `keep` selects, by position.
fn selected(
    all: &[Map<String, Value>],
    keep: impl Fn(&Map<String, Value>) -> bool,
) -> Vec<(u64, u64)> {
    let kept: Vec<Map<String, Value>> = all.iter().filter(|event| keep(event)).cloned().collect();
    positions(&kept)
}

const GC_PROVIDER: &str = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4";

#[test]
fn provider_kind_pid_tid_filters_on_gcevents() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let all = events(&file, &[]);
    assert_eq!(all.len(), 71);

    // --provider: with or without braces, either case.
    let by_provider = selected(&all, |event| provider(event) == Some(GC_PROVIDER));
    assert_eq!(by_provider.len(), 69);
    for spelling in [
        GC_PROVIDER.to_owned(),
        format!("{{{}}}", GC_PROVIDER.to_uppercase()),
    ] {
        assert_eq!(
            positions(&events(&file, &["--provider", &spelling])),
            by_provider
        );
    }
    // Kernel events name no GUID; a GUID no event has selects nothing.
    assert!(events(
        &file,
        &["--provider", "00000000-0000-0000-0000-000000000000"]
    )
    .is_empty());

    // --kind: one, a comma-separated list, repeated, either case.
    let system = selected(&all, |event| event["kind"] == "SYSTEM64");
    assert_eq!(system.len(), 2);
    assert_eq!(positions(&events(&file, &["--kind", "system64"])), system);
    assert_eq!(
        positions(&events(&file, &["--kind", "SYSTEM64,EVENT_HEADER64"])),
        positions(&all)
    );
    assert_eq!(
        positions(&events(
            &file,
            &["--kind", "EVENT_HEADER64", "--kind", "SYSTEM64"]
        )),
        positions(&all)
    );
    assert!(events(&file, &["--kind", "PERFINFO64"]).is_empty());

    // --pid and --tid.
    for (pid, count) in [(179_596, 69), (179_356, 2)] {
        let expected = selected(&all, |event| number(event, "process_id") == Some(pid));
        assert_eq!(expected.len(), count);
        assert_eq!(
            positions(&events(&file, &["--pid", &pid.to_string()])),
            expected
        );
    }
    let mut threads: BTreeMap<u64, usize> = BTreeMap::new();
    for event in &all {
        *threads
            .entry(number(event, "thread_id").unwrap())
            .or_default() += 1;
    }
    assert!(threads.len() > 1, "{threads:?}");
    for tid in threads.keys() {
        let expected = selected(&all, |event| number(event, "thread_id") == Some(*tid));
        assert_eq!(
            positions(&events(&file, &["--tid", &tid.to_string()])),
            expected,
            "--tid {tid}"
        );
    }

    // Filters combine with AND.
    let (&tid, _) = threads.iter().max_by_key(|(_, count)| **count).unwrap();
    let expected = selected(&all, |event| {
        provider(event) == Some(GC_PROVIDER)
            && number(event, "process_id") == Some(179_596)
            && number(event, "thread_id") == Some(tid)
    });
    assert!(!expected.is_empty());
    assert_eq!(
        positions(&events(
            &file,
            &[
                "--provider",
                GC_PROVIDER,
                "--pid",
                "179596",
                "--tid",
                &tid.to_string()
            ]
        )),
        expected
    );
    assert!(events(&file, &["--provider", GC_PROVIDER, "--pid", "179356"]).is_empty());
}

#[test]
fn time_window_and_limit_on_gcevents() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let all = events(&file, &[]);
    let mut times: Vec<(i64, String)> = all
        .iter()
        .map(|event| {
            (
                event["filetime"].as_i64().unwrap(),
                event["time"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    times.sort();
    let (from, from_text) = times[10].clone();
    let (to, to_text) = times[40].clone();
    assert!(from < to);
    let expected = selected(&all, |event| {
        let filetime = event["filetime"].as_i64().unwrap();
        from <= filetime && filetime <= to
    });
    // Both bounds are inclusive: at least the 31 events from the 11th to the 41st in time.
    assert!(expected.len() >= 31, "{}", expected.len());
    assert_eq!(
        positions(&events(&file, &["--from", &from_text, "--to", &to_text])),
        expected
    );
    // Only one bound; the table output filtered the same.
    let after = selected(&all, |event| event["filetime"].as_i64().unwrap() >= from);
    assert_eq!(positions(&events(&file, &["--from", &from_text])), after);
    let table = common::run(&["etl", file.to_str().unwrap(), "--from", &from_text]);
    assert_eq!(table.lines().count(), 1 + after.len());
    // A date alone is its midnight; the trace is from 2023-03-14.
    assert_eq!(events(&file, &["--from", "2023-03-14"]).len(), 71);
    assert!(events(&file, &["--from", "2023-03-15"]).is_empty());
    assert!(events(&file, &["--to", "2023-03-14T00:00:00Z"]).is_empty());

    // --limit: the first events of the output, in file and in time order.
    assert_eq!(
        positions(&events(&file, &["--limit", "5"])),
        positions(&all)[..5]
    );
    assert!(events(&file, &["--limit", "0"]).is_empty());
    assert_eq!(events(&file, &["--limit", "1000"]).len(), 71);
    let in_time = events(&file, &["--order", "time"]);
    assert_eq!(
        positions(&events(&file, &["--order", "time", "--limit", "7"])),
        positions(&in_time)[..7]
    );
    let filtered = events(&file, &["--provider", GC_PROVIDER]);
    assert_eq!(
        positions(&events(&file, &["--provider", GC_PROVIDER, "--limit", "3"])),
        positions(&filtered)[..3]
    );
    // --summary counts the events output.
    let summary = common::run(&[
        "etl",
        file.to_str().unwrap(),
        "--summary",
        "--json",
        "--kind",
        "SYSTEM64",
    ]);
    let summary: Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(summary["events"], 2);
    assert_eq!(summary["kinds"], serde_json::json!({"SYSTEM64": 2}));
}

#[test]
fn limit_reads_no_further_than_it_needs() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    // The file cut in the middle of its 11th buffer: the whole file is an error...
    let bytes = std::fs::read(&file).unwrap();
    let cut = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-x64-cut.etl");
    std::fs::write(&cut, &bytes[..11 * 65_536 + 1000]).unwrap();
    etwc()
        .arg("etl")
        .arg(&cut)
        .arg("--summary")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("net-x64-cut.etl"));
    // ...but the first 100 events are in its first buffers, and nothing after them is read.
    let limited = events(&cut, &["--limit", "100"]);
    assert_eq!(limited.len(), 100);
    assert!(limited
        .iter()
        .all(|event| number(event, "buffer") < Some(10)));
}

/// `etwc etl FILE ARGS` fails with a usage error (status 2) whose message has every `words`.
fn usage_error(file: &Path, args: &[&str], words: &[&str]) {
    let output = etwc()
        .arg("etl")
        .arg(file)
        .args(args)
        .assert()
        .code(2)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    let stderr = utf8(&output);
    for word in words {
        assert!(stderr.contains(word), "{args:?}: {word:?} not in {stderr}");
    }
}

#[test]
fn bad_filter_values_are_usage_errors_naming_the_problem() {
    // The file is not read: the arguments are checked first.
    let file = Path::new("no-such-file.etl");
    usage_error(
        file,
        &["--provider", "{e13c0d23-ccbc-4e12-931b-d9cc2eee27eX}"],
        &["--provider", "position 36", "'X'"],
    );
    usage_error(
        file,
        &["--provider", "e13c0d23-ccbc-4e12-931b"],
        &["position 23", "end"],
    );
    usage_error(
        file,
        &["--kind", "SYSTEM64,BOGUS"],
        &[
            "--kind",
            "\"BOGUS\"",
            "EVENT_HEADER64",
            "PERFINFO32",
            "FULL_HEADER64",
        ],
    );
    usage_error(file, &["--pid", "12x"], &["--pid", "12x"]);
    usage_error(file, &["--tid=-1"], &["--tid", "-1"]);
    usage_error(
        file,
        &["--from", "2023-03-14 00:46"],
        &["--from", "position 16", "':'", "the end"],
    );
    usage_error(
        file,
        &["--to", "2023-03-14T00:46:36.69465491Z"],
        &["--to", "seven fractional digits"],
    );
    usage_error(
        file,
        &["--to", "2023-02-29"],
        &["not a time of the calendar"],
    );
    usage_error(
        file,
        &["--from", "2023-03-15", "--to", "2023-03-14"],
        &["--from is after --to"],
    );
    usage_error(file, &["--limit", "many"], &["--limit"]);
    usage_error(file, &["--format", "xml"], &["--format", "chrome", "csv"]);
    usage_error(
        file,
        &["--json", "--chrome-args", "line"],
        &["--chrome-args", "--format chrome"],
    );
    usage_error(
        file,
        &["--json", "--format", "csv"],
        &["--json", "--format"],
    );
    usage_error(
        file,
        &["--stats", "--format", "csv"],
        &["--stats", "--format csv"],
    );
    usage_error(file, &["--summary", "--stats"], &["--summary", "--stats"]);
}

/// Counts of `key(event)` over `events`, `None` under the key "(none)".
fn counts(
    events: &[Map<String, Value>],
    key: impl Fn(&Map<String, Value>) -> Option<String>,
) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for event in events {
        *counts
            .entry(key(event).unwrap_or_else(|| "(none)".to_owned()))
            .or_default() += 1;
    }
    counts
}

/// `--stats --format json` with `args`, checked against the `--json` output with `args`.
fn check_stats(file: &Path, args: &[&str]) -> Value {
    let all = events(file, args);
    let stats = etwc()
        .arg("etl")
        .arg(file)
        .args(["--stats", "--format", "json"])
        .args(args)
        .assert()
        .success()
        .stderr("")
        .get_output()
        .stdout
        .clone();
    let stats: Value = serde_json::from_str(&utf8(&stats)).unwrap();
    assert_eq!(stats["events"], all.len());
    let as_map = |value: &Value| -> BTreeMap<String, u64> {
        value
            .as_object()
            .unwrap()
            .iter()
            .map(|(key, count)| (key.clone(), count.as_u64().unwrap()))
            .collect()
    };
    assert_eq!(
        as_map(&stats["kinds"]),
        counts(&all, |event| event["kind"].as_str().map(str::to_owned))
    );
    let mut processes = counts(&all, |event| {
        number(event, "process_id").map(|pid| pid.to_string())
    });
    assert_eq!(
        stats["events_without_process"],
        processes.remove("(none)").unwrap_or(0)
    );
    assert_eq!(as_map(&stats["processes"]), processes);
    // Providers: the GUIDs, and the kernel events by the group of their HookId.
    let mut providers = counts(&all, |event| provider(event).map(str::to_owned));
    let kernel = providers.remove("(none)").unwrap_or(0);
    let by_group = counts(
        &all.iter()
            .filter(|event| provider(event).is_none())
            .cloned()
            .collect::<Vec<_>>(),
        |event| number(event, "group").map(|group| group.to_string()),
    );
    let stated = as_map(&stats["providers"]);
    let (stated_kernel, stated_guids): (BTreeMap<_, _>, BTreeMap<_, _>) = stated
        .into_iter()
        .partition(|(key, _)| key.starts_with("kernel:"));
    assert_eq!(stated_guids, providers);
    assert_eq!(stats["events_without_provider"], 0);
    assert_eq!(stated_kernel.values().sum::<u64>(), kernel);
    let mut stated_counts: Vec<u64> = stated_kernel.values().copied().collect();
    let mut group_counts: Vec<u64> = by_group.values().copied().collect();
    stated_counts.sort_unstable();
    group_counts.sort_unstable();
    assert_eq!(stated_counts, group_counts);
    if let Some(header_events) = by_group.get("0") {
        assert_eq!(stats["providers"]["kernel:HEADER"], *header_events);
    }
    // The time span: the earliest and the latest time.
    let filetimes: Vec<i64> = all
        .iter()
        .filter_map(|event| event["filetime"].as_i64())
        .collect();
    let (first, last) = (
        *filetimes.iter().min().unwrap(),
        *filetimes.iter().max().unwrap(),
    );
    assert_eq!(stats["first_filetime"], first);
    assert_eq!(stats["last_filetime"], last);
    assert_eq!(stats["duration_100ns"], last - first);
    let first_event = all.iter().find(|event| event["filetime"] == first).unwrap();
    assert_eq!(stats["first_time"], first_event["time"]);
    assert_eq!(stats["events_without_time"], all.len() - filetimes.len());
    stats
}

#[test]
fn stats_are_the_counts_of_the_json_output() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let stats = check_stats(&file, &[]);
    assert_eq!(stats["buffers"], 5);
    assert_eq!(stats["providers"][GC_PROVIDER], 69);
    assert_eq!(stats["providers"]["kernel:HEADER"], 2);
    assert_eq!(stats["processes"]["179596"], 69);
    assert_eq!(stats["first_time"], "2023-03-14T00:46:36.6946549Z");
    assert_eq!(stats["last_time"], "2023-03-14T00:46:48.3035503Z");
    assert_eq!(stats["duration_seconds"], 11.6088954);
    check_stats(&file, &["--pid", "179596", "--limit", "30"]);
    // The text form says the same.
    let text = common::run(&["etl", file.to_str().unwrap(), "--stats"]);
    for line in [
        "5 buffers, 71 events",
        "time: first 2023-03-14T00:46:36.6946549Z, last 2023-03-14T00:46:48.3035503Z, \
         duration 11.6088954 s",
        "      69 e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
        "       2 kernel:HEADER",
        "      69 179596",
    ] {
        assert!(
            text.lines().any(|found| found == line),
            "{line:?} not in {text}"
        );
    }
    if let Some(file) = trace("SelfDescribingSingleEvent.etl") {
        check_stats(&file, &[]);
    }
}

#[test]
fn filters_and_stats_on_a_large_kernel_trace() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    // The trace's first 0.4 s: the rundown of every process and provider, and kernel samples.
    const UNTIL: &str = "2020-07-29T00:07:01Z";
    let all = events(&file, &["--to", UNTIL]);
    assert_eq!(all.len(), 9731);
    assert!(all
        .iter()
        .all(|event| event["time"].as_str() <= Some("2020-07-29T00:07:01.0000000Z")));
    let check = |args: &[&str], keep: &dyn Fn(&Map<String, Value>) -> bool| {
        let expected = selected(&all, keep);
        let mut args = args.to_vec();
        args.extend(["--to", UNTIL]);
        assert_eq!(positions(&events(&file, &args)), expected, "{args:?}");
        expected.len()
    };
    assert_eq!(
        check(&["--kind", "PERFINFO64"], &|event| event["kind"]
            == "PERFINFO64"),
        4573
    );
    assert_eq!(
        check(&["--kind", "FULL_HEADER32,SYSTEM64"], &|event| {
            event["kind"] == "FULL_HEADER32" || event["kind"] == "SYSTEM64"
        }),
        820
    );
    // The process that ran the test, and its rundown events' thread id (0xFFFFFFFF).
    assert_eq!(
        check(&["--pid", "3988"], &|event| number(event, "process_id")
            == Some(3988)),
        625
    );
    assert_eq!(
        check(&["--tid", "4294967295", "--pid", "3988"], &|event| {
            number(event, "process_id") == Some(3988)
                && number(event, "thread_id") == Some(0xFFFF_FFFF)
        }),
        340
    );
    // The kernel's image rundown (classic) and a manifest provider (EVENT_HEADER).
    assert_eq!(
        check(
            &["--provider", "{B3E675D7-2554-4F18-830B-2762732560DE}"],
            &|event| { provider(event) == Some("b3e675d7-2554-4f18-830b-2762732560de") }
        ),
        4215
    );
    assert_eq!(
        check(
            &["--provider", "a8a71ac1-040f-54a2-07ca-00a89b5ab761"],
            &|event| { provider(event) == Some("a8a71ac1-040f-54a2-07ca-00a89b5ab761") }
        ),
        82
    );
    // A window inside, PERFINFO events (no process id) included.
    let window = check(&["--from", "2020-07-29T00:07:00.8Z"], &|event| {
        event["time"].as_str() >= Some("2020-07-29T00:07:00.8000000Z")
    });
    assert!(window > 1000, "{window}");
    let stats = check_stats(&file, &["--to", UNTIL]);
    assert_eq!(stats["events_without_process"], 4573);
    assert_eq!(
        stats["providers"]["b3e675d7-2554-4f18-830b-2762732560de"],
        4215
    );
}

/// The providers `--stats --format json` counts with `args`, by the key it prints.
fn stated_providers(file: &Path, args: &[&str]) -> BTreeMap<String, u64> {
    let stats = etwc()
        .arg("etl")
        .arg(file)
        .args(["--stats", "--format", "json"])
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let stats: Value = serde_json::from_str(&utf8(&stats)).unwrap();
    stats["providers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, count)| (key.clone(), count.as_u64().unwrap()))
        .collect()
}

/// Whether a kernel event's JSON (no provider GUID) has `HookId` group `group`.
fn of_group(event: &Map<String, Value>, group: u64) -> bool {
    provider(event).is_none() && number(event, "group") == Some(group)
}

#[test]
fn provider_accepts_what_stats_and_csv_print() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let all = events(&file, &[]);
    // Every provider the CSV's `provider` column and --stats print selects its events.
    let csv = common::run(&["etl", file.to_str().unwrap(), "--format", "csv"]);
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let column = header.iter().position(|name| *name == "provider").unwrap();
    let mut from_csv: BTreeMap<String, u64> = BTreeMap::new();
    for row in rows {
        *from_csv
            .entry(row.split(',').nth(column).unwrap().to_owned())
            .or_default() += 1;
    }
    let stated = stated_providers(&file, &[]);
    assert_eq!(from_csv, stated);
    assert_eq!(
        stated.keys().collect::<Vec<_>>(),
        ["e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "kernel:HEADER"]
    );
    for (key, count) in &stated {
        let selected = events(&file, &["--provider", key]);
        assert_eq!(selected.len() as u64, *count, "--provider {key}");
    }
    // kernel:HEADER: EVENT_TRACE_GROUP_HEADER, 0x0000 in ntwmi.h.
    assert_eq!(
        positions(&events(&file, &["--provider", "kernel:HEADER"])),
        selected(&all, |event| of_group(event, 0))
    );

    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    const UNTIL: &str = "2020-07-29T00:07:01Z";
    let all = events(&file, &["--to", UNTIL]);
    let stated = stated_providers(&file, &["--to", UNTIL]);
    // The groups of ntwmi.h: EVENT_TRACE_GROUP_PROCESS 0x0300, _PERFINFO 0x0F00,
    // _STACKWALK 0x1800, _IMAGE 0x1400.
    for (spellings, group) in [
        (
            &[
                "kernel:PROCESS",
                "kernel:process",
                "KERNEL:0x03",
                "kernel:3",
            ][..],
            3,
        ),
        (&["kernel:PERFINFO"][..], 0x0F),
        (&["kernel:STACKWALK"][..], 0x18),
        (&["kernel:IMAGE"][..], 0x14),
    ] {
        let expected = selected(&all, |event| of_group(event, group));
        assert!(!expected.is_empty(), "group {group:#x}");
        assert_eq!(stated[spellings[0]], expected.len() as u64);
        for spelling in spellings {
            assert_eq!(
                positions(&events(&file, &["--provider", spelling, "--to", UNTIL])),
                expected,
                "--provider {spelling}"
            );
        }
    }
    // Several at once, with a GUID and a name, hold when one does.
    let expected = selected(&all, |event| {
        of_group(event, 3)
            || of_group(event, 0x14)
            || provider(event) == Some("a8a71ac1-040f-54a2-07ca-00a89b5ab761")
    });
    assert_eq!(
        positions(&events(
            &file,
            &[
                "--provider",
                "kernel:PROCESS,kernel:IMAGE,a8a71ac1-040f-54a2-07ca-00a89b5ab761",
                "--to",
                UNTIL
            ]
        )),
        expected
    );
    // A group no header names is a usage error listing the names.
    usage_error(
        &file,
        &["--provider", "kernel:PROCES"],
        &[
            "--provider",
            "\"PROCES\"",
            "PROCESS",
            "STACKWALK",
            "0x00 to 0xFF",
        ],
    );
}

#[test]
fn limit_zero_reads_no_buffer() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    // The file cut inside its second buffer: reading the buffers is an error, so a run that
    // reads them fails.
    let bytes = std::fs::read(&file).unwrap();
    let cut = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-x64-cut-in-buffer-1.etl");
    std::fs::write(&cut, &bytes[..2000]).unwrap();
    etwc()
        .arg("etl")
        .arg(&cut)
        .arg("--summary")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("buffer 1 at file offset 0x200"));
    for order in ["file", "time"] {
        let summary = etwc()
            .arg("etl")
            .arg(&cut)
            .args(["--summary", "--json", "--limit", "0", "--order", order])
            .assert()
            .success()
            .stderr("")
            .get_output()
            .stdout
            .clone();
        let summary: Value = serde_json::from_str(&utf8(&summary)).unwrap();
        assert_eq!(
            summary,
            serde_json::json!({"buffers": 0, "events": 0, "kinds": {}}),
            "--order {order}"
        );
        // The table: the logfile header's line, and no event.
        let table = etwc()
            .arg("etl")
            .arg(&cut)
            .args(["--limit", "0", "--order", order])
            .assert()
            .success()
            .stderr("")
            .get_output()
            .stdout
            .clone();
        let table = utf8(&table);
        assert_eq!(table.lines().count(), 1, "{table}");
        assert!(table.starts_with("logfile header: "), "{table}");
    }
    let text = common::run(&["etl", file.to_str().unwrap(), "--stats", "--limit", "0"]);
    assert!(text.starts_with("0 buffers, 0 events\n"), "{text}");
}
