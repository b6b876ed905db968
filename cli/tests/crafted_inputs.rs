//! The crafted-input table (`tools/crafted-inputs/make.py`: PerfView traces with distinct
//! processor indices, a 16 MiB `BufferSize`, no clock, cut at every kind of boundary) read by
//! the built `etwc` under a memory limit: each run ends with status 0, or 1 and one line on
//! stderr that names the place (buffer and file offset), never a signal or an abort, and no
//! allocation is refused within the bound the documentation states for the run.
//!
//! The limit is on the address space (`ulimit -v` in `sh`, before `exec`), so that an
//! allocation past it fails: the reader reports it ("cannot allocate"), the allocator of the
//! standard library aborts. For `--order time` the limit is the bound of
//! `EtlReader::for_each_event_in_time_order` for the file (the decoded events of one buffer per
//! processor the logfile header counts, at most `TIME_ORDER_MEMORY`, one stored buffer and one
//! scratch of `BufferSize`, 32 bytes per buffer listed) plus [`PROGRAM`] for the program
//! itself; for `etwc assemble` (on the files of at most 1 MiB, the dump of torn buffer headers
//! among them) the bound of its documentation ([`assemble_limit`]); for the other runs it is
//! [`FILE_ORDER_LIMIT`].
//!
//! The traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; without them
//! the tests say so and pass, or fail with `ETW_REQUIRE_TRACES=1`.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

mod common;

/// What the program takes besides what it reads: its code, the C library, the threads' stacks
/// (`RAYON_NUM_THREADS=2`, `MALLOC_ARENA_MAX=2` keep them few).
const PROGRAM: u64 = 64 << 20;
/// The address space of a run in file order: two batches of 8 MiB and a 16 MiB buffer each,
/// stored and decoded, a 16 MiB scratch per thread, their output, and [`PROGRAM`].
const FILE_ORDER_LIMIT: u64 = 1 << 30;
/// `TIME_ORDER_MEMORY`: the most bytes of decoded events the time order holds by default.
const TIME_ORDER_MEMORY: u64 = 256 << 20;

/// The documented bound of `etwc assemble` on a dump of `len` bytes, and the address space of
/// the run: a window of the largest buffer (16 MiB) and a header, 1 MiB kept behind and a
/// 64 KiB read; 24 bytes per whole buffer of the first pass and 64 per whole buffer kept (a
/// whole buffer takes at least 80 bytes of the dump); 20 notes of 20 buffers of 200 bytes;
/// then [`PROGRAM`].
fn assemble_limit(len: u64) -> u64 {
    let window = (16 << 20) + 0x48 + (1 << 20) + (64 << 10);
    let bound = window + (24 + 64) * (len / 80) + 20 * 20 * 200;
    bound + PROGRAM
}

/// Where the logfile header's members are: after the first buffer's 0x48-byte header and the
/// 0x20-byte `SYSTEM_TRACE_HEADER`, `BufferSize` at 0x00 and `NumberOfProcessors` at 0x0C of
/// `TRACE_LOGFILE_HEADER` (the same in both layouts).
const LOGFILE_AT: usize = 0x48 + 0x20;

/// The crafted files, made by the script into a folder of their own; `None` without the traces.
struct Table {
    dir: PathBuf,
    files: Vec<(String, String)>,
}

impl Table {
    fn make(name: &str) -> Option<Self> {
        let trace = common::trace("net.4.5.2.x64.etl")?;
        let perfview = trace.parent().unwrap();
        let dir = std::env::temp_dir().join(format!("etwc-crafted-{name}-{}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/crafted-inputs/make.py");
        let made = std::process::Command::new("python3")
            .arg(&script)
            .arg("--perfview")
            .arg(perfview)
            .arg("--out")
            .arg(&dir)
            .output()
            .expect("python3 runs tools/crafted-inputs/make.py");
        assert!(
            made.status.success(),
            "make.py: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        let table: Value =
            serde_json::from_slice(&std::fs::read(dir.join("table.json")).unwrap()).unwrap();
        let files = table
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row["file"].as_str().unwrap().to_owned(),
                    row["why"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        Some(Self { dir, files })
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The `u32` at `at` of `bytes`, if it has one.
fn u32_at(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at + 4)?;
    Some(u64::from(u32::from_le_bytes(word.try_into().unwrap())))
}

/// The documented bound of the time order for the file `bytes`, and the address space of the
/// run: the events of one buffer per processor counted (at most `TIME_ORDER_MEMORY`), one stored
/// buffer and one scratch of `BufferSize`, 32 bytes per buffer the file can hold (one per 72
/// bytes); then [`PROGRAM`].
fn time_order_limit(bytes: &[u8]) -> (u64, u64) {
    let buffer_size = u32_at(bytes, LOGFILE_AT).unwrap_or(0).min(16 << 20);
    let processors = u32_at(bytes, LOGFILE_AT + 0x0C).unwrap_or(0);
    let bound = (processors * buffer_size).min(TIME_ORDER_MEMORY)
        + 2 * buffer_size
        + 32 * (bytes.len() as u64 / 0x48 + 1);
    (bound, bound + PROGRAM)
}

/// `etwc ARGS` with its address space limited to `limit` bytes.
fn limited(limit: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", limit / 1024))
        .arg(env!("CARGO_BIN_EXE_etwc"))
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .unwrap()
}

/// Whether `text` names a buffer and its file offset: "buffer N at file offset 0xHEX".
fn names_a_place(text: &str) -> bool {
    text.match_indices("buffer ").any(|(at, found)| {
        let rest = &text[at + found.len()..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let Some(rest) = rest[digits..].strip_prefix(" at file offset 0x") else {
            return false;
        };
        digits > 0 && rest.starts_with(|c: char| c.is_ascii_hexdigit())
    })
}

/// Checks one run of `etwc etl` on `file`: status 0 (nothing on stderr), or 1 and one line
/// "etwc: ..." naming a place; no signal; no allocation refused. The file without a clock may
/// say one line either way, naming what it likes.
fn check_etl_run(file: &str, args: &[&str], output: &Output) {
    let what = format!("etwc {}", args.join(" "));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{what}: ended by {:?}, stderr {stderr}",
        output.status
    );
    assert!(
        !stderr.contains("cannot allocate") && !stderr.contains("memory allocation"),
        "{what}: an allocation was refused within the documented bound: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    if file == "zero-clock.etl" {
        assert!(lines.len() <= 1, "{what}: {stderr}");
        assert!(
            code == Some(0) || lines.len() == 1,
            "{what}: status 1 says why"
        );
        return;
    }
    if code == Some(0) {
        assert!(lines.is_empty(), "{what}: status 0 with {stderr}");
        return;
    }
    assert_eq!(lines.len(), 1, "{what}: one line expected, found {stderr}");
    assert!(lines[0].starts_with("etwc: "), "{what}: {stderr}");
    assert!(
        names_a_place(lines[0]),
        "{what}: no buffer and file offset in {stderr}"
    );
}

/// Runs `etwc etl FILE ARGS` on every crafted file, with `limit(bytes)` as its address space.
fn run_table(name: &str, args: &[&str], limit: impl Fn(&[u8]) -> u64) {
    let Some(table) = Table::make(name) else {
        return;
    };
    assert_eq!(table.files.len(), 16, "the rows of make.py");
    for (file, why) in &table.files {
        let path = table.dir.join(file);
        let bytes = std::fs::read(&path).unwrap();
        let path = path.to_str().unwrap();
        let mut full = vec!["etl", path];
        full.extend_from_slice(args);
        let output = limited(limit(&bytes), &full);
        eprintln!(
            "{file} ({why}): etwc {}: {:?}",
            args.join(" "),
            output.status.code()
        );
        check_etl_run(file, &full, &output);
    }
}

#[test]
fn every_crafted_file_in_file_order() {
    run_table("file", &["--summary"], |_| FILE_ORDER_LIMIT);
}

#[test]
fn every_crafted_file_in_time_order_within_the_documented_bound() {
    run_table("time", &["--order", "time", "--summary"], |bytes| {
        time_order_limit(bytes).1
    });
}

#[test]
fn every_crafted_file_as_json_lines_in_time_order() {
    run_table(
        "json",
        &["--order", "time", "--json", "--limit", "1000"],
        |bytes| time_order_limit(bytes).1,
    );
}

/// The events of the buffers of the .etl file `bytes` before file offset `end`, as `etwc etl
/// --summary` counts them in file order in the file cut there.
fn events_before(bytes: &[u8], end: usize) -> String {
    let dir = std::env::temp_dir().join(format!("etwc-crafted-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cut.etl");
    std::fs::write(&path, &bytes[..end]).unwrap();
    let output = common::etwc()
        .args(["etl", path.to_str().unwrap(), "--summary"])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout.lines().next().unwrap();
    first.split_once(", ").unwrap().1.to_owned()
}

#[test]
fn the_file_of_359_processors_and_16_mib_buffers_in_time_order() {
    let Some(table) = Table::make("359") else {
        return;
    };
    let path = table.dir.join("distinct-processors-huge-buffer-size.etl");
    let bytes = std::fs::read(&path).unwrap();
    let (bound, limit) = time_order_limit(&bytes);
    // 8 processors of 16 MiB, a 16 MiB stored buffer and scratch, the listing: 160 MiB and a
    // little, where it took 5.9 GB.
    assert_eq!(bound, (8 + 2) * (16 << 20) + 32 * (4_879_401 / 0x48 + 1));
    let path = path.to_str().unwrap();
    let args = ["etl", path, "--order", "time", "--summary"];
    let output = limited(limit, &args);
    check_etl_run("distinct-processors-huge-buffer-size.etl", &args, &output);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "etwc: {path}: buffer 8 at file offset 0x1be8a: \
             WMI_BUFFER_HEADER.ClientContext.ProcessorIndex (u16 at 0x28; BufferFlag has \
             PROC_INDEX 0x20): expected below the logfile header's NumberOfProcessors, 8, found \
             8; buffer 9 at file offset 0x203de: "
        )),
        "{stderr}"
    );
    // Buffers 8 to 359 named: the first 20, then how many more.
    assert!(
        stderr.trim_end().ends_with("; and 332 more errors"),
        "{stderr}"
    );
    // Every buffer is read; the events of processors 0 to 7 (buffers 0 to 7) are counted.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let events_of_the_first_eight = events_before(&bytes, 0x1be8a);
    assert!(
        stdout.starts_with(&format!("360 buffers, {events_of_the_first_eight}\n")),
        "{stdout}"
    );
}

#[test]
fn every_crafted_file_given_to_assemble() {
    let Some(table) = Table::make("assemble") else {
        return;
    };
    for (file, _) in &table.files {
        let path = table.dir.join(file);
        let len = std::fs::metadata(&path).unwrap().len();
        // assemble looks for a buffer header at every byte: the 4.9 MB traces, whose data
        // buffers are compressed (which it does not take), take it seconds each in a debug
        // build for nothing more than the smaller files show.
        if len > 1 << 20 {
            continue;
        }
        let out = table.dir.join(format!("{file}.assembled.etl"));
        let args = [
            "assemble",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        let output = limited(assemble_limit(len), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "assemble {file}: ended by {:?}: {stderr}",
            output.status
        );
        assert!(
            !stderr.contains("memory allocation"),
            "assemble {file}: past the documented bound: {stderr}"
        );
        for line in stderr.lines() {
            assert!(
                line.starts_with("etwc assemble: ") || line.starts_with("etwc: "),
                "assemble {file}: {line}"
            );
        }
        if output.status.code() == Some(1) {
            assert!(
                stderr.lines().last().unwrap().starts_with("etwc: "),
                "{stderr}"
            );
        }
    }
}
