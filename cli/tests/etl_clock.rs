//! `etwc etl` on a file whose clock cannot be read: a PerfView trace with the logfile header's
//! `PerfFreq` and `ReservedFlags` set to 0. What needs the events' time (`--format chrome`,
//! `--from`, `--to`) is refused with status 1 and one line naming the reason; the outputs that
//! show a time print every event without one, and say so in one line on stderr; the rest (the
//! summary, the time order of the raw timestamps) is as for the unchanged file.

mod common;

use std::path::{Path, PathBuf};

use common::{etwc, trace, utf8};
use serde_json::Value;

/// Where the `TRACE_LOGFILE_HEADER` starts in an .etl file: after the first buffer's 0x48-byte
/// `WMI_BUFFER_HEADER` and the logfile header event's 0x20-byte `SYSTEM_TRACE_HEADER`
/// (LAYOUTS.md).
const LOGFILE_HEADER_AT: usize = 0x48 + 0x20;
/// `PerfFreq` (i64) and `ReservedFlags` (u32, the clock type) in the 64-bit
/// `TRACE_LOGFILE_HEADER` (LAYOUTS.md; `SYSTEM64` logfile header events, as in every PerfView
/// trace).
const PERF_FREQ_AT: usize = LOGFILE_HEADER_AT + 0x100;
const RESERVED_FLAGS_AT: usize = LOGFILE_HEADER_AT + 0x110;

/// What `ReservedFlags` 0 makes of the clock.
const NO_CLOCK_TYPE: &str = "TRACE_LOGFILE_HEADER.ReservedFlags: expected a clock type of 1 \
                             (query performance counter), 2 (system time) or 3 (CPU cycle \
                             counter), found 0";

/// A copy of the PerfView trace `name` in a directory of the test `test`'s own, with `PerfFreq`
/// set to 0, and `ReservedFlags` too when `clock_type_too`; `None` when the trace is missing.
fn without_clock(test: &str, name: &str, clock_type_too: bool) -> Option<(PathBuf, PathBuf)> {
    let source = trace(name)?;
    let mut bytes = std::fs::read(&source).unwrap();
    // SYSTEM64 (2) in the logfile header event's HeaderType: the 64-bit layout.
    assert_eq!(bytes[0x48 + 2], 2, "{name}: a 64-bit logfile header");
    assert_eq!(
        i64::from_le_bytes(bytes[PERF_FREQ_AT..PERF_FREQ_AT + 8].try_into().unwrap()),
        10_000_000
    );
    assert_eq!(
        u32::from_le_bytes(
            bytes[RESERVED_FLAGS_AT..RESERVED_FLAGS_AT + 4]
                .try_into()
                .unwrap()
        ),
        1
    );
    bytes[PERF_FREQ_AT..PERF_FREQ_AT + 8].fill(0);
    if clock_type_too {
        bytes[RESERVED_FLAGS_AT..RESERVED_FLAGS_AT + 4].fill(0);
    }
    let dir = std::env::temp_dir().join(format!("etwc-clock-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Some((dir, path))
}

/// `etwc etl PATH ARGS`: (status, stdout, stderr).
fn etl(path: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = etwc().arg("etl").arg(path).args(args).output().unwrap();
    (
        output.status.code(),
        utf8(&output.stdout),
        utf8(&output.stderr),
    )
}

#[test]
fn what_needs_the_time_is_refused_with_the_reason() {
    let Some((dir, path)) = without_clock("needs", "gcevents.etl", true) else {
        return;
    };
    let shown = path.display();
    for (args, needs) in [
        (&["--format", "chrome"][..], "--format chrome places"),
        (
            &["--format", "chrome", "--order", "time"],
            "--format chrome places",
        ),
        (&["--from", "2020-01-01", "--summary"], "--from compares"),
        (&["--to", "2030-01-01", "--json"], "--to compares"),
        (
            &["--from", "2020-01-01", "--to", "2030-01-01", "--stats"],
            "--from and --to compare",
        ),
    ] {
        let (status, out, err) = etl(&path, args);
        assert_eq!(status, Some(1), "{args:?}");
        assert_eq!(out, "", "{args:?}");
        assert_eq!(
            err,
            format!(
                "etwc: {shown}: {needs} each event's time, but the file's clock cannot be \
                 read: {NO_CLOCK_TYPE}\n"
            ),
            "{args:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_zero_perf_freq_alone_is_named() {
    let Some((dir, path)) = without_clock("perf-freq", "gcevents.etl", false) else {
        return;
    };
    let (status, out, err) = etl(&path, &["--format", "chrome"]);
    assert_eq!((status, out.as_str()), (Some(1), ""));
    assert_eq!(
        err,
        format!(
            "etwc: {}: --format chrome places each event's time, but the file's clock cannot be \
             read: TRACE_LOGFILE_HEADER.PerfFreq: expected a positive frequency for clock type \
             1, found 0\n",
            path.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_outputs_that_show_the_time_say_in_one_line_that_no_event_has_one() {
    let Some((dir, path)) = without_clock("shown", "gcevents.etl", true) else {
        return;
    };
    let Some(original) = trace("gcevents.etl") else {
        return;
    };
    let note = format!(
        "note: {}: no event has a time, as the file's clock cannot be read: {NO_CLOCK_TYPE}\n",
        path.display()
    );
    for order in ["file", "time"] {
        let (status, out, err) = etl(&path, &["--json", "--order", order]);
        assert_eq!(status, Some(0), "{err}");
        assert_eq!(err, note);
        let events: Vec<Value> = out
            .lines()
            .skip(1)
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        // Every event of the file (gcevents.etl has 71), each without a time.
        assert_eq!(events.len(), 71);
        for event in &events {
            assert_eq!(event["filetime"], Value::Null, "{event}");
            assert_eq!(event["time"], Value::Null, "{event}");
        }
        // The same events as in the unchanged file, in the same order, but for the times and
        // the changed bytes of the logfile header event's data (and the fields decoded from
        // them).
        let (_, unchanged, _) = etl(&original, &["--json", "--order", order]);
        let mut unchanged: Vec<Value> = unchanged
            .lines()
            .skip(1)
            .map(|line| {
                let mut event: Value = serde_json::from_str(line).unwrap();
                assert!(event["time"].is_string(), "{event}");
                event["filetime"] = Value::Null;
                event["time"] = Value::Null;
                event
            })
            .collect();
        let mut events = events;
        for list in [&mut events, &mut unchanged] {
            let logfile_header = list
                .iter_mut()
                .find(|event| event["buffer"] == 0 && event["offset"] == 0)
                .unwrap();
            logfile_header["data"] = Value::Null;
            logfile_header["fields"] = Value::Null;
        }
        assert!(events == unchanged, "--order {order}: other events");
    }
    for args in [
        &["--format", "table"][..],
        &["--format", "csv"],
        &["--stats"],
    ] {
        let (status, out, err) = etl(&path, args);
        assert_eq!(status, Some(0), "{args:?}: {err}");
        assert_eq!(err, note, "{args:?}");
        assert!(!out.is_empty(), "{args:?}");
    }
    let (_, stats, _) = etl(&path, &["--stats"]);
    assert!(stats.contains("time: no event has a time\n      71 events without a time\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_summary_and_the_time_order_need_no_clock() {
    let Some((dir, path)) = without_clock("summary", "gcevents.etl", true) else {
        return;
    };
    let Some(original) = trace("gcevents.etl") else {
        return;
    };
    for order in ["file", "time"] {
        let args = ["--summary", "--json", "--order", order];
        let (status, out, err) = etl(&path, &args);
        assert_eq!((status, err.as_str()), (Some(0), ""), "--order {order}");
        assert_eq!(out, etl(&original, &args).1, "--order {order}");
        assert!(out.starts_with("{\"buffers\":5,\"events\":71,"), "{out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
