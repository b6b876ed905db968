//! The progress bar of `etwc etl`, drawn on a terminal (`script` gives the run one): it never
//! starts at its end, and its rate is the bytes read over the time the reading took, which is
//! at least the second the bar waits before it appears.

mod common;

use std::path::{Path, PathBuf};

use common::{trace, utf8};

/// A folder of this test process's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("etwc-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bytes as indicatif's `HumanBytes` writes them: `320.00 KiB`, `0 B`.
fn bytes(number: &str, unit: &str) -> f64 {
    let power = ["B", "KiB", "MiB", "GiB", "TiB"]
        .iter()
        .position(|known| *known == unit)
        .unwrap_or_else(|| panic!("unit {unit:?}"));
    number.parse::<f64>().unwrap() * 1024f64.powi(i32::try_from(power).unwrap())
}

/// One drawing of the bar: the bytes read, the bytes in all, the rate in bytes a second.
#[derive(Debug)]
struct Frame {
    read: f64,
    total: f64,
    rate: f64,
}

/// The frames of the bar in what a terminal received: `██░░ 1.39 MiB/4.65 MiB 22.24 GiB/s ...`.
fn frames(terminal: &str) -> Vec<Frame> {
    let mut frames = Vec::new();
    for piece in terminal.split(['\r', '\n']) {
        let text: String = piece
            .split('\x1b')
            .enumerate()
            .map(|(index, part)| {
                // An escape sequence: `[`, parameters, then a letter.
                if index == 0 {
                    part
                } else {
                    part.trim_start_matches(|c: char| !c.is_ascii_alphabetic())
                        .get(1..)
                        .unwrap_or("")
                }
            })
            .collect();
        let text = text.trim_start_matches(['█', '░', ' ']);
        let words: Vec<&str> = text.split_whitespace().collect();
        // [read, "UNIT/total", UNIT, rate, "UNIT/s", ...]
        let [read, unit_total, total_unit, rate, rate_unit, ..] = words[..] else {
            continue;
        };
        let (Some((read_unit, total)), Some(rate_unit)) =
            (unit_total.split_once('/'), rate_unit.strip_suffix("/s"))
        else {
            continue;
        };
        frames.push(Frame {
            read: bytes(read, read_unit),
            total: bytes(total, total_unit),
            rate: bytes(rate, rate_unit),
        });
    }
    frames
}

/// What a terminal shows while `etwc etl ARGS` runs with its output to /dev/null, through
/// `script`; `None` (with a message) where there is no `script`.
fn on_a_terminal(args: &[&Path]) -> Option<String> {
    let mut command = String::from("\"$ETWC\" etl");
    for index in 0..args.len() {
        command.push_str(&format!(" \"$ARG{index}\""));
    }
    command.push_str(" > /dev/null");
    let mut script = std::process::Command::new("script");
    script
        .args(["-qfec", &command, "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env("ETWC", env!("CARGO_BIN_EXE_etwc"))
        .stdin(std::process::Stdio::null());
    for (index, arg) in args.iter().enumerate() {
        script.env(format!("ARG{index}"), arg);
    }
    let Ok(output) = script.output() else {
        eprintln!("SKIPPED: no `script` (util-linux) to give etwc a terminal");
        return None;
    };
    assert!(output.status.success(), "{}", utf8(&output.stderr));
    Some(utf8(&output.stdout))
}

#[cfg(unix)]
#[test]
fn the_bar_starts_before_its_end_at_a_rate_over_the_time_spent() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let Some(manifest) = file
        .parent()
        .and_then(Path::parent)
        .map(|data| data.join("schemas/ClrEtwAll.man"))
        .filter(|path| path.is_file())
    else {
        assert!(
            std::env::var_os("ETW_REQUIRE_TRACES").is_none_or(|value| value != "1"),
            "no schemas/ClrEtwAll.man beside the PerfView traces (ETW_REQUIRE_TRACES=1 requires it)"
        );
        eprintln!("SKIPPED: no schemas/ClrEtwAll.man beside the PerfView traces");
        return;
    };
    // Loading the same manifest 40 times (a folder of links to it) takes seconds before the
    // file is read; gcevents.etl (320 KiB, 5 buffers) is then read in a moment.
    let dir = TempDir::new("progress-manifests");
    for copy in 0..40 {
        std::os::unix::fs::symlink(&manifest, dir.0.join(format!("copy{copy:02}.man"))).unwrap();
    }
    let length = std::fs::metadata(&file).unwrap().len() as f64;
    // `--summary` shows no names: no first pass to learn them (see the last assertion).
    for (order, passes) in [("file", 1.0), ("time", 2.0)] {
        let args = [
            file.as_path(),
            Path::new("--summary"),
            Path::new("--order"),
            Path::new(order),
            Path::new("--manifest"),
            dir.0.as_path(),
        ];
        let Some(terminal) = on_a_terminal(&args) else {
            return;
        };
        let frames = frames(&terminal);
        assert!(
            !frames.is_empty(),
            "--order {order}: no bar in {terminal:?}"
        );
        assert!(
            frames[0].read < frames[0].total,
            "--order {order}: the bar starts at its end: {frames:?}"
        );
        for frame in &frames {
            // Shown after a second of reading at least: no faster than all bytes in a second.
            assert!(
                frame.rate <= 1.01 * frame.total,
                "--order {order}: {frame:?} in {terminal:?}"
            );
            // Every pass over the file counts: the first pass (schemas and process names, for
            // an output that shows them), the time order's listing, the output's.
            assert!(
                (frame.total - passes * length).abs() <= 0.01 * frame.total,
                "--order {order}: {frame:?}, the file is {length} bytes"
            );
        }
    }
}
