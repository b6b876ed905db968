//! `etwc etl` reads the file as a stream: a file that is not a trace (zeros, /dev/zero) ends
//! with one error naming its first bytes; a truncated trace prints every event before the
//! damage, then fails with the buffer and file offset; a `BuffersWritten` of 0 is read to the
//! end and said in the summary; each JSON event line names its buffer's processor.

mod common;

use std::path::{Path, PathBuf};

use common::{etwc, run, trace, utf8};
use serde_json::{json, Value};

/// A folder of this test process's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("etwc-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Writes `bytes` to the file `name` in the folder; returns its path.
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The JSON lines `etwc etl PATH --json` prints (it may fail), and its stderr.
fn json_lines(path: &Path) -> (Vec<Value>, String, Option<i32>) {
    let output = etwc().arg("etl").arg(path).arg("--json").output().unwrap();
    let lines = utf8(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (lines, utf8(&output.stderr), output.status.code())
}

/// The `(buffer, offset)` of the events of `etl PATH --json`.
fn event_keys(lines: &[Value]) -> Vec<(u64, u64)> {
    lines[1..]
        .iter()
        .map(|line| {
            (
                line["buffer"].as_u64().unwrap(),
                line["offset"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_file_of_zeros_is_not_an_etl_file() {
    let dir = TempDir::new("zeros");
    let path = dir.file("zeros.etl", &vec![0u8; 1 << 20]);
    for extra in [&[][..], &["--summary"], &["--json"]] {
        etwc()
            .arg("etl")
            .arg(&path)
            .args(extra)
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "etwc: {}: not an .etl file: its first 8 bytes are 00 00 00 00 00 00 00 00; \
                 expected a WMI_BUFFER_HEADER whose BufferSize (u32 at 0) is 0x48 to 0x1000000, \
                 then the logfile header event (a SYSTEM32 or SYSTEM64 header with HookId 0 and \
                 a TRACE_LOGFILE_HEADER): buffer 0 at file offset 0x0: \
                 WMI_BUFFER_HEADER.BufferSize: expected between 0x48 and 0x1000000 \
                 (MAX_BUFFER_SIZE), found 0x0\n",
                path.display()
            ));
    }
}

#[cfg(unix)]
#[test]
fn dev_zero_ends_at_once_with_one_error() {
    etwc()
        .args(["etl", "/dev/zero", "--summary"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::starts_with(
            "etwc: /dev/zero: not an .etl file: its first 8 bytes are 00 00 00 00 00 00 00 00; ",
        ));
}

#[test]
fn a_truncated_trace_prints_every_event_before_the_cut_then_fails() {
    let Some(path) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let (whole, stderr, code) = json_lines(&path);
    assert_eq!((stderr.as_str(), code), ("", Some(0)));
    // Buffer 5's file offset: where the walk of the whole file finds it.
    let starts: Vec<usize> = {
        let mut starts = vec![0];
        let mut at = 0;
        while at < bytes.len() {
            at += u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            starts.push(at);
        }
        starts
    };
    let fifth = starts[5];
    let buffer_size = u32::from_le_bytes(bytes[fifth..fifth + 4].try_into().unwrap());
    let dir = TempDir::new("truncated");
    let cases = [
        (
            "inside.etl",
            fifth + 0x100,
            format!(
                "buffer 5 at file offset {fifth:#x}: WMI_BUFFER_HEADER.BufferSize: expected \
                 between 0x48 and the 0x100 bytes left in the file, found {buffer_size:#x}"
            ),
        ),
        (
            "header.etl",
            fifth + 0x20,
            format!(
                "buffer 5 at file offset {fifth:#x}: expected a 72-byte buffer header, found 32 \
                 bytes left in the file"
            ),
        ),
        (
            "boundary.etl",
            fifth,
            format!(
                "buffer 5 at file offset {fifth:#x}: expected the 360 buffers the logfile \
                 header's BuffersWritten counts, found the end of the file after 5"
            ),
        ),
    ];
    let before: Vec<(u64, u64)> = event_keys(&whole)
        .into_iter()
        .filter(|(buffer, _)| *buffer < 5)
        .collect();
    for (name, len, message) in cases {
        let cut = dir.file(name, &bytes[..len]);
        let (lines, stderr, code) = json_lines(&cut);
        assert_eq!(code, Some(1), "{name}");
        assert_eq!(stderr, format!("etwc: {}: {message}\n", cut.display()));
        assert_eq!(event_keys(&lines), before, "{name}");
        // The same lines, but for the process names: a first pass over the file learns them
        // from the kernel's Process events, and the cut file lacks those after the cut (the
        // rundown naming PerfView's process, for one), so it names no more than the whole.
        for (cut_line, whole_line) in lines.iter().zip(&whole) {
            let (mut cut_line, mut whole_line) = (cut_line.clone(), whole_line.clone());
            if let (Some(cut_name), Some(whole_name)) = (
                cut_line
                    .as_object_mut()
                    .and_then(|line| line.remove("process_name")),
                whole_line
                    .as_object_mut()
                    .and_then(|line| line.remove("process_name")),
            ) {
                assert!(cut_name.is_null() || cut_name == whole_name, "{name}");
            }
            assert_eq!(cut_line, whole_line, "{name}");
        }

        let summary = etwc()
            .arg("etl")
            .arg(&cut)
            .args(["--summary", "--json"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let summary: Value = serde_json::from_str(&utf8(&summary)).unwrap();
        assert_eq!(summary["buffers"], json!(5), "{name}");
        assert_eq!(summary["events"], json!(before.len()), "{name}");
    }
}

#[test]
fn buffers_written_zero_is_read_to_the_end_and_said() {
    let Some(path) = trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let mut bytes = std::fs::read(&path).unwrap();
    // BuffersWritten: 0x24 into the TRACE_LOGFILE_HEADER, after the 0x48-byte buffer header and
    // the 0x20-byte SYSTEM_TRACE_HEADER.
    let at = 0x48 + 0x20 + 0x24;
    assert_eq!(bytes[at..at + 4], 3u32.to_le_bytes());
    bytes[at..at + 4].fill(0);
    let dir = TempDir::new("unflushed");
    let unflushed = dir.file("unflushed.etl", &bytes);
    let unflushed = unflushed.to_str().unwrap();
    assert_eq!(
        run(&["etl", unflushed, "--summary", "--json"]),
        "{\"buffers\":3,\"events\":23,\"kinds\":{\"EVENT_HEADER64\":1,\"FULL_HEADER64\":18,\
         \"SYSTEM64\":4},\"buffers_written_was_zero\":true}\n"
    );
    assert_eq!(
        run(&["etl", unflushed, "--summary"]),
        "3 buffers, 23 events\nthe logfile header's BuffersWritten is 0 (a session still \
         running or not stopped cleanly): read to the end of the file\n EVENT_HEADER64        1\n  \
         FULL_HEADER64       18\n       SYSTEM64        4\n"
    );
}

#[test]
fn each_json_event_names_its_buffers_processor() {
    let Some(path) = trace("gcevents.etl") else {
        return;
    };
    // dissect.etl 3.14's `BufferHeader.ProcessorIndex` of each buffer of the file.
    let processors = [0, 7, 6, 2, 4];
    let (lines, stderr, code) = json_lines(&path);
    assert_eq!((stderr.as_str(), code), ("", Some(0)));
    assert_eq!(lines.len(), 1 + 71);
    for line in &lines[1..] {
        let buffer = line["buffer"].as_u64().unwrap() as usize;
        assert_eq!(line["processor"], json!(processors[buffer]), "{line}");
    }
    assert!(lines[0].get("processor").is_none());
}

#[test]
fn a_dash_reads_standard_input_in_file_order() {
    let Some(path) = trace("gcevents.etl") else {
        return;
    };
    let from_file = etwc().arg("etl").arg(&path).arg("--json").output().unwrap();
    assert!(from_file.status.success());
    let from_stdin = etwc()
        .args(["etl", "-", "--json"])
        .pipe_stdin(&path)
        .unwrap()
        .output()
        .unwrap();
    assert!(from_stdin.status.success(), "{}", utf8(&from_stdin.stderr));
    assert_eq!(from_stdin.stdout, from_file.stdout);

    // Time order reads the file twice: not possible on standard input.
    let time = etwc()
        .args(["etl", "-", "--order", "time"])
        .pipe_stdin(&path)
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(time.status.code(), Some(1));
    assert!(time.stdout.is_empty());
    assert_eq!(
        utf8(&time.stderr),
        "etwc: --order time reads the file twice, which standard input (-) cannot be: save it \
         to a file first\n"
    );

    // What is not a trace is named as standard input.
    let zeros = etwc()
        .args(["etl", "-", "--summary"])
        .write_stdin(Vec::new())
        .output()
        .unwrap();
    assert_eq!(zeros.status.code(), Some(1));
    assert!(utf8(&zeros.stderr).starts_with("etwc: standard input: not an .etl file: it is empty"));
}

/// Runs `script` in bash with the etwc binary as `$0` and `args` as `$1`...; killed after a
/// minute.
#[cfg(unix)]
fn etwc_in_bash(script: &str, args: &[&Path]) -> std::process::Output {
    std::process::Command::new("timeout")
        .args(["60", "bash", "-c", script])
        .arg(env!("CARGO_BIN_EXE_etwc"))
        .args(args)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_pipe_named_by_its_path_is_read_once_as_standard_input_is() {
    let Some(path) = trace("gcevents.etl") else {
        return;
    };
    let from_stdin = etwc()
        .args(["etl", "-", "--json"])
        .pipe_stdin(&path)
        .unwrap()
        .output()
        .unwrap();
    assert!(from_stdin.status.success());
    // A pipe named by a path (/dev/stdin, a process substitution, a FIFO) gives its bytes
    // once: it is read as standard input is, every buffer of it (5 in gcevents.etl)...
    let dir = TempDir::new("pipe-by-path");
    let fifo = dir.0.join("trace.fifo");
    for script in [
        r#"cat "$1" | "$0" etl /dev/stdin --json"#,
        r#""$0" etl <(cat "$1") --json"#,
        r#"mkfifo "$2" && { cat "$1" > "$2" & "$0" etl "$2" --json; }"#,
    ] {
        let run = etwc_in_bash(script, &[&path, &fifo]);
        let _ = std::fs::remove_file(&fifo);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{script}: {}",
            utf8(&run.stderr)
        );
        assert_eq!(utf8(&run.stderr), "", "{script}");
        assert!(
            run.stdout == from_stdin.stdout,
            "{script}: {} lines, expected {}",
            utf8(&run.stdout).lines().count(),
            utf8(&from_stdin.stdout).lines().count()
        );
    }
    // ...and what needs to read it twice says why before printing anything.
    for (script, name) in [
        (
            r#"cat "$1" | "$0" etl /dev/stdin --order time"#,
            "/dev/stdin",
        ),
        (r#""$0" etl <(cat "$1") --order time --json"#, "/dev/fd/"),
        (
            r#"mkfifo "$2" && { cat "$1" > "$2" & "$0" etl "$2" --order time; }"#,
            "trace.fifo",
        ),
    ] {
        let run = etwc_in_bash(script, &[&path, &fifo]);
        let _ = std::fs::remove_file(&fifo);
        assert_eq!(run.status.code(), Some(1), "{script}");
        assert!(run.stdout.is_empty(), "{script}: {}", utf8(&run.stdout));
        let stderr = utf8(&run.stderr);
        assert!(
            stderr.starts_with("etwc: --order time reads the file twice, which ")
                && stderr.contains(name)
                && stderr.ends_with(
                    " cannot be (a pipe or FIFO, whose bytes can be read once): save it to a \
                     file first\n"
                ),
            "{script}: {stderr}"
        );
    }
    let run = etwc_in_bash(r#"cat "$1" | "$0" schemas /dev/stdin"#, &[&path]);
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout.is_empty());
    assert_eq!(
        utf8(&run.stderr),
        "etwc: etwc schemas reads the file twice (once to learn its schemas, once to count \
         what they decode), which /dev/stdin cannot be (a pipe or FIFO, whose bytes can be read \
         once): save it to a file first\n"
    );
}

#[test]
fn a_closed_output_ends_quietly_with_status_0() {
    let Some(path) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    for args in [&["--json"][..], &[][..], &["--order", "time"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
            .arg("etl")
            .arg(&path)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read one line, then close the pipe, as `head -1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 64];
        std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(utf8(&output.stderr), "", "{args:?}");
    }
}

#[test]
fn a_full_disk_is_one_line_and_status_1() {
    let Some(path) = trace("gcevents.etl") else {
        return;
    };
    if !Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full on this system");
        return;
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_etwc"))
        .arg("etl")
        .arg(&path)
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        utf8(&output.stderr),
        "etwc: cannot write the output: No space left on device (os error 28)\n"
    );
}
