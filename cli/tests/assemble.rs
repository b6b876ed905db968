//! `etwc assemble` on dumps made from the boot trace's buffers (`firmware/`, the trace the QEMU
//! firmware writes): concatenated, out of order, torn, inside junk, junk alone, empty. Each
//! case checks the exit status, the messages and the file written.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{boot_trace_file, etwc, utf8};
use etw_classic::{ClockType, EtlFile, TraceBuffer};
use etw_classic_firmware::{Mode, BOOT_TIME, BUFFER_SIZE, LOGGER_ID};
use predicates::prelude::*;
use serde_json::{json, Value};

/// The .etl file the firmware writes in `mode`, and its trace buffers.
fn boot_file(mode: Mode) -> (Vec<u8>, Vec<Vec<u8>>) {
    let file = boot_trace_file(mode);
    let buffers = file[BUFFER_SIZE..]
        .chunks(BUFFER_SIZE)
        .map(<[u8]>::to_vec)
        .collect();
    (file, buffers)
}

/// A folder of its own for a test, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("assemble")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one `etwc assemble` run did.
struct Assembled {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    output: PathBuf,
}

/// Writes `dump` to a file and runs `etwc assemble` on it with `options`.
fn assemble(dir: &Path, dump: &[u8], options: &[&str]) -> Assembled {
    let dump_path = dir.join("dump.bin");
    std::fs::write(&dump_path, dump).unwrap();
    let output = dir.join("out.etl");
    let run = etwc()
        .arg("assemble")
        .arg(&dump_path)
        .arg("-o")
        .arg(&output)
        .args(options)
        .output()
        .unwrap();
    Assembled {
        status: run.status.code(),
        stdout: utf8(&run.stdout),
        stderr: utf8(&run.stderr),
        output,
    }
}

/// The options that describe the firmware's session as its own header does.
fn firmware_options(file_name: &'static str) -> Vec<String> {
    let boot = BOOT_TIME.to_string();
    [
        "--start-time",
        &boot,
        "--boot-time",
        &boot,
        "--cpu-mhz",
        "25",
        "--logger-name",
        "boot",
        "--log-file-name",
        file_name,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `etwc etl FILE --summary --json`.
fn summary(path: &Path) -> Value {
    let output = etwc()
        .args(["etl", path.to_str().unwrap(), "--summary", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_str(&utf8(&output)).unwrap()
}

/// Classic events of a file as (event type, data), in file order.
fn events(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let file = EtlFile::parse(bytes).unwrap();
    let mut found = Vec::new();
    for buffer in file.buffers().skip(1) {
        let buffer = TraceBuffer::parse(buffer.unwrap().bytes).unwrap();
        for event in buffer.classic_events(file.bitness()) {
            let event = event.unwrap();
            found.push((
                event.event_trace.header().class.event_type.0,
                event.data.to_vec(),
            ));
        }
    }
    found
}

#[test]
fn concatenated_buffers_assemble_into_the_file_the_firmware_wrote() {
    let dir = scratch("concatenated");
    let (etl, buffers) = boot_file(Mode::Streaming);
    assert_eq!(buffers.len(), 9);
    let dump = buffers.concat();

    // Told what the buffers cannot say, the header is the firmware's, byte for byte.
    let options = firmware_options("streaming.etl");
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let run = assemble(&dir, &dump, &options);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    assert!(
        run.stdout.contains(
            "10 buffers of 512 bytes: the logfile header's and 9 trace buffers (SequenceNumber 1 \
             to 9) holding 40 events; pointer size 4 (the events' header types); clock system \
             time; start 2026-11-21T00:00:00.0000000Z, end 2026-11-21T00:00:00.0400000Z; 0 \
             events lost, 0 buffers lost"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read(&run.output).unwrap(), etl);

    // Untold, the rest comes from the buffers and the defaults.
    let run = assemble(&dir, &dump, &[]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let bytes = std::fs::read(&run.output).unwrap();
    assert_eq!(bytes.len(), etl.len());
    assert_eq!(
        bytes[BUFFER_SIZE..],
        etl[BUFFER_SIZE..],
        "the trace buffers"
    );
    let file = EtlFile::parse(&bytes).unwrap();
    let header = file.logfile_header;
    assert_eq!(file.bitness().pointer_len(), 4);
    assert_eq!(header.buffer_size(), 512);
    assert_eq!(header.buffers_written(), 10);
    assert_eq!(header.events_lost(), 0);
    assert_eq!(header.buffers_lost(), 0);
    assert_eq!(header.reserved_flags(), ClockType::SYSTEM_TIME);
    assert_eq!(header.perf_freq(), 10_000_000);
    assert_eq!(header.cpu_speed_in_mhz(), 1);
    assert_eq!(header.number_of_processors(), 1);
    // The first event's time, and the last buffer's (the firmware's clock steps 1 ms per
    // reading, 40 readings).
    assert_eq!(header.start_time(), BOOT_TIME);
    assert_eq!(header.end_time(), BOOT_TIME + 40 * 10_000);
    assert_eq!(header.boot_time(), 0);
    assert_eq!(file.first_buffer.client_context.logger_id(), LOGGER_ID);
    assert_eq!(file.names.logger_name, "");
    assert_eq!(
        file.names.log_file_name,
        run.output.display().to_string().as_str()
    );
    assert_eq!(
        summary(&run.output),
        json!({"buffers": 10, "events": 41,
               "kinds": {"FULL_HEADER32": 4, "INSTANCE32": 36, "SYSTEM32": 1}})
    );
    assert_eq!(events(&bytes), events(&etl));
}

#[test]
fn buffers_out_of_order_are_written_in_sequence_number_order() {
    let dir = scratch("out-of-order");
    let (etl, buffers) = boot_file(Mode::Streaming);
    let order = [4, 8, 0, 6, 2, 7, 1, 5, 3];
    let dump: Vec<u8> = order
        .iter()
        .flat_map(|&index| buffers[index].clone())
        .collect();
    let options = firmware_options("streaming.etl");
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let run = assemble(&dir, &dump, &options);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    assert_eq!(std::fs::read(&run.output).unwrap(), etl);
}

#[test]
fn a_torn_last_buffer_is_reported_and_the_whole_ones_written() {
    let dir = scratch("torn-last");
    let (etl, buffers) = boot_file(Mode::Streaming);
    let mut dump = buffers[..8].concat();
    dump.extend_from_slice(&buffers[8][..300]);
    let run = assemble(&dir, &dump, &[]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "etwc assemble: bytes 4096..4396 (300 bytes) not used: a torn buffer at 4096 \
         (SequenceNumber 9, BufferSize 512): the dump ends 300 bytes into its 512 bytes\n"
    );
    assert!(run.stdout.contains(
        "9 buffers of 512 bytes: the logfile header's and 8 trace buffers (SequenceNumber 1 to \
         8) holding 36 events"
    ));
    let bytes = std::fs::read(&run.output).unwrap();
    let header = EtlFile::parse(&bytes).unwrap().logfile_header;
    assert_eq!(header.buffers_written(), 9);
    // The torn buffer was sealed but is not in the file.
    assert_eq!(header.buffers_lost(), 1);
    assert_eq!(bytes[BUFFER_SIZE..], etl[BUFFER_SIZE..9 * BUFFER_SIZE]);
    assert_eq!(events(&bytes).len(), 36);
}

#[test]
fn torn_buffers_say_why() {
    let dir = scratch("torn-why");
    let (_, buffers) = boot_file(Mode::Streaming);
    let with_last = |last: Vec<u8>| {
        let mut dump = buffers[..8].concat();
        dump.extend(last);
        dump
    };
    let torn = "etwc assemble: bytes 4096..4608 (512 bytes) not used: a torn buffer at 4096 \
                (SequenceNumber 9, BufferSize 512): ";

    let mut offset_past_the_end = buffers[8].clone();
    offset_past_the_end[0x30..0x34].copy_from_slice(&600u32.to_le_bytes());
    let run = assemble(&dir, &with_last(offset_past_the_end), &[]);
    assert_eq!(run.status, Some(0));
    assert_eq!(
        run.stderr,
        format!("{torn}its Offset 600 is outside 72..=512\n")
    );

    let mut bad_event = buffers[8].clone();
    bad_event[0x48 + 2] = 0x77;
    let run = assemble(&dir, &with_last(bad_event), &[]);
    assert_eq!(run.status, Some(0));
    assert_eq!(
        run.stderr,
        format!(
            "{torn}its events do not walk: event at offset 0x0: expected a header type with a \
             known layout, found HeaderType(0x77)\n"
        )
    );
}

/// The boot trace's buffers inside junk: buffers at odd offsets, zeros and 0xFF between them,
/// a buffer cut by the next one, a buffer seen twice, and the dump ending inside the last one.
fn dump_in_junk(buffers: &[Vec<u8>]) -> Vec<u8> {
    let mut dump: Vec<u8> = (0..=255u8).cycle().take(768).collect();
    dump.extend(&buffers[0]);
    dump.extend([0; 37]);
    dump.extend(&buffers[2]);
    dump.extend(&buffers[1][..200]);
    dump.extend(&buffers[3]);
    dump.extend([0xFF; 100]);
    for buffer in &buffers[4..8] {
        dump.extend(buffer);
    }
    dump.extend(&buffers[0]);
    dump.extend(&buffers[8][..100]);
    dump
}

#[test]
fn buffers_inside_junk_are_found_and_the_junk_reported() {
    let dir = scratch("ram");
    let (_, buffers) = boot_file(Mode::Streaming);
    let dump = dump_in_junk(&buffers);
    let run = assemble(&dir, &dump, &[]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let expected = [
        "bytes 0..768 (768 bytes) not used: no trace buffer header in them",
        "bytes 1280..1317 (37 bytes, all 0x00) not used: no trace buffer header in them",
        "bytes 1829..2029 (200 bytes) not used: a torn buffer at 1829 (SequenceNumber 2, \
         BufferSize 512): another buffer header starts 200 bytes into it, at 2029",
        "bytes 2541..2641 (100 bytes, all 0xFF) not used: no trace buffer header in them",
        "bytes 4689..5201: a whole buffer (SequenceNumber 1) not used: the buffer at 768 has the \
         same SequenceNumber and bytes",
        "bytes 5201..5301 (100 bytes) not used: a torn buffer at 5201 (SequenceNumber 9, \
         BufferSize 512): the dump ends 100 bytes into its 512 bytes",
        "SequenceNumbers missing between 1 and 8: 2 (1 buffer)",
    ];
    let lines: Vec<&str> = run.stderr.lines().collect();
    let expected: Vec<String> = expected
        .iter()
        .map(|line| format!("etwc assemble: {line}"))
        .collect();
    assert_eq!(lines, expected);
    let bytes = std::fs::read(&run.output).unwrap();
    let file = EtlFile::parse(&bytes).unwrap();
    // Buffer 2 was torn, buffer 9 cut short: both lost.
    assert_eq!(file.logfile_header.buffers_written(), 8);
    assert_eq!(file.logfile_header.buffers_lost(), 2);
    let sequence: Vec<i64> = file
        .buffers()
        .map(|buffer| buffer.unwrap().header.sequence_number)
        .collect();
    assert_eq!(sequence, [0, 1, 3, 4, 5, 6, 7, 8]);
}

/// The one sealed buffer of a 1024-byte session holding one event.
fn buffer_of_1024_bytes() -> Vec<u8> {
    one_buffer::<1024>()
}

/// The one sealed buffer of an `N`-byte session holding one event.
fn one_buffer<const N: usize>() -> Vec<u8> {
    use etw_classic::{
        Bitness, EventData, EventTraceHeader, Level, Provider, Session, SteppingContext,
        TimesOrFlags, WnodeFlags,
    };
    let mut session = Session::<N, 1>::new(LOGGER_ID, Level::VERBOSE);
    let provider = Provider::<1>::new(Bitness::Bits32);
    let mut clock = SteppingContext {
        now: BOOT_TIME,
        step: 1,
        ..Default::default()
    };
    let header = EventTraceHeader {
        size: 0x30 + 4,
        times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    provider
        .trace_event(
            &mut session,
            &header,
            EventData::Inline(b"1024"),
            &mut clock,
        )
        .unwrap();
    session.flush(clock.now);
    let mut sealed = Vec::new();
    session
        .drain(|buffer| {
            sealed.extend_from_slice(buffer);
            Ok::<(), ()>(())
        })
        .unwrap();
    sealed
}

#[test]
fn the_buffer_size_most_buffers_have_wins() {
    let dir = scratch("sizes");
    let (etl, buffers) = boot_file(Mode::Streaming);
    let mut dump = buffers[..4].concat();
    dump.extend(buffer_of_1024_bytes());
    dump.extend(buffers[4..].concat());
    let run = assemble(&dir, &dump, &[]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "etwc assemble: bytes 2048..3072 (1024 bytes) not used: a whole buffer at 2048 \
         (SequenceNumber 1) of BufferSize 1024, not the 512 of the others\n"
    );
    let bytes = std::fs::read(&run.output).unwrap();
    assert_eq!(bytes[BUFFER_SIZE..], etl[BUFFER_SIZE..]);

    // Told the other size, the 1024-byte buffer is the trace and the rest is junk to it.
    let run = assemble(&dir, &dump, &["--buffer-size", "1024"]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "etwc assemble: bytes 0..2048 (2048 bytes) not used: no trace buffer header in them\n\
         etwc assemble: bytes 3072..5632 (2560 bytes) not used: no trace buffer header in them\n"
    );
    assert_eq!(
        summary(&run.output),
        json!({"buffers": 2, "events": 2, "kinds": {"FULL_HEADER32": 1, "SYSTEM32": 1}})
    );
}

#[test]
fn buffers_too_small_for_the_logfile_header_are_an_error_and_no_file() {
    // A 256-byte buffer is whole, but every buffer of an .etl file has one BufferSize and the
    // first holds the logfile header event after its 72-byte buffer header (184 bytes left):
    // a 0x20-byte SYSTEM_TRACE_HEADER, the 0x110-byte 32-bit TRACE_LOGFILE_HEADER and two
    // empty UTF-16 names of 2 bytes each, 308 bytes (LAYOUTS.md). (Found by the `assemble`
    // fuzz target.)
    let dir = scratch("too-small");
    let mut dump = vec![0xAA; 40];
    dump.extend(one_buffer::<256>());
    let run = assemble(&dir, &dump, &["--log-file-name", ""]);
    assert_eq!(run.status, Some(1), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "etwc assemble: bytes 0..40 (40 bytes, all 0xAA) not used: no trace buffer header in \
             them\n\
             etwc: {}: the whole trace buffer found (at byte 40) has BufferSize 256, too small for \
             the logfile header's buffer that starts an .etl file, whose buffers all have one \
             BufferSize: TRACE_LOGFILE_HEADER (32-bit): encoding needs 308 bytes of output, found \
             room for 184\n",
            dir.join("dump.bin").display()
        )
    );
    assert!(!run.output.exists(), "no file written");
}

#[test]
fn junk_alone_is_an_error_naming_the_bytes() {
    let dir = scratch("junk");
    // A fixed pseudo-random sequence (a linear congruential generator).
    let mut state = 0x2545_f491_u32;
    let junk: Vec<u8> = (0..5000)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        })
        .collect();
    let run = assemble(&dir, &junk, &[]);
    assert_eq!(run.status, Some(1));
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "etwc assemble: bytes 0..5000 (5000 bytes) not used: no trace buffer header in them\n\
             etwc: {}: no whole trace buffer of any BufferSize in its 5000 bytes\n",
            dir.join("dump.bin").display()
        )
    );
    assert!(!run.output.exists(), "no file written");
}

#[test]
fn an_empty_dump_is_an_error() {
    let dir = scratch("empty");
    let run = assemble(&dir, &[], &[]);
    assert_eq!(run.status, Some(1));
    assert_eq!(
        run.stderr,
        format!(
            "etwc: {}: the dump is empty: no trace buffer\n",
            dir.join("dump.bin").display()
        )
    );
    assert!(!run.output.exists());
}

#[test]
fn a_torn_buffer_alone_is_an_error_that_says_why() {
    let dir = scratch("torn-alone");
    let (_, buffers) = boot_file(Mode::Streaming);
    let run = assemble(&dir, &buffers[3][..400], &[]);
    assert_eq!(run.status, Some(1));
    assert_eq!(
        run.stderr,
        format!(
            "etwc assemble: bytes 0..400 (400 bytes) not used: a torn buffer at 0 \
             (SequenceNumber 4, BufferSize 512): the dump ends 400 bytes into its 512 bytes\n\
             etwc: {}: no whole trace buffer of any BufferSize in its 400 bytes (only torn ones, \
             see above)\n",
            dir.join("dump.bin").display()
        )
    );
}

#[test]
fn a_buffer_size_none_has_finds_nothing() {
    let dir = scratch("buffer-size");
    let (_, buffers) = boot_file(Mode::Streaming);
    let run = assemble(&dir, &buffers.concat(), &["--buffer-size", "1024"]);
    assert_eq!(run.status, Some(1));
    assert!(run
        .stderr
        .ends_with("no whole trace buffer of BufferSize 1024 in its 4608 bytes\n"));
    let run = assemble(&dir, &buffers.concat(), &["--buffer-size", "512"]);
    assert_eq!(run.status, Some(0));
}

#[test]
fn the_lost_events_and_an_etl_file_as_the_dump() {
    let dir = scratch("single-shot");
    // The single-shot trace lost 26 events, which its buffers cannot count: --events-lost says.
    // The end time is given too (--end-time): the 14th clock reading, that of the last event
    // written, since the lost events read no clock.
    let (etl, _) = boot_file(Mode::SingleShot);
    let end_time = EtlFile::parse(&etl).unwrap().logfile_header.end_time();
    assert_eq!(end_time, BOOT_TIME + 14 * 10_000);
    let end_time = end_time.to_string();
    let options = firmware_options("single-shot.etl");
    let mut options: Vec<&str> = options.iter().map(String::as_str).collect();
    options.extend(["--events-lost", "26", "--end-time", &end_time]);
    // The dump is the .etl file itself: its logfile header buffer is replaced.
    let run = assemble(&dir, &etl, &options);
    assert_eq!(run.status, Some(0));
    assert_eq!(
        run.stderr,
        "etwc assemble: bytes 0..512: a whole buffer (SequenceNumber 0) of BufferType HEADER, \
         an .etl file's logfile header buffer: replaced by the one written\n"
    );
    assert_eq!(std::fs::read(&run.output).unwrap(), etl);
}

#[test]
fn a_cycle_counter_clock_dates_the_events_from_the_start_time() {
    let dir = scratch("cycles");
    let (_, buffers) = boot_file(Mode::Streaming);
    // The firmware's raw timestamps read as 25 MHz cycles from the first event's, which
    // --start-time dates: the last buffer was sealed 40 readings of 10,000 cycles later.
    let run = assemble(
        &dir,
        &buffers.concat(),
        &[
            "--clock",
            "cpu-cycles",
            "--frequency",
            "25000000",
            "--start-time",
            "2026-11-21T00:00:00.5Z",
        ],
    );
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let bytes = std::fs::read(&run.output).unwrap();
    let file = EtlFile::parse(&bytes).unwrap();
    let header = file.logfile_header;
    assert_eq!(header.reserved_flags(), ClockType::CPU_CYCLE_COUNTER);
    assert_eq!(header.cpu_speed_in_mhz(), 25);
    assert_eq!(header.start_time(), BOOT_TIME + 5_000_000);
    assert_eq!(file.system_header.system_time, BOOT_TIME);
    assert_eq!(
        header.end_time(),
        BOOT_TIME + 5_000_000 + 400_000 * 10_000_000 / 25_000_000
    );
}

#[test]
fn command_line_mistakes_exit_with_status_2() {
    let dir = scratch("usage");
    let (_, buffers) = boot_file(Mode::Streaming);
    let dump = buffers.concat();
    for (options, message) in [
        (
            &["--clock", "qpc"][..],
            "the following required arguments were not provided",
        ),
        (
            &["--frequency", "10000000"][..],
            "--frequency and --start-timestamp are for a qpc or cpu-cycles clock",
        ),
        (
            &[
                "--clock",
                "cpu-cycles",
                "--frequency",
                "1500000",
                "--start-time",
                "0",
            ][..],
            "a cpu-cycles clock counts a whole number of MHz",
        ),
        (&["--pointer-size", "5"][..], "expected 4 or 8"),
        (&["--buffer-size", "500"][..], "expected a multiple of 8"),
        (&["--start-time", "yesterday"][..], "expected a FILETIME"),
        (&["--cpu-mhz", "0"][..], "--cpu-mhz"),
    ] {
        let run = assemble(&dir, &dump, options);
        assert_eq!(run.status, Some(2), "{options:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{options:?}: {}", run.stderr);
        assert!(!run.output.exists());
    }
}

#[test]
fn help_says_what_is_recognised_and_the_exit_codes() {
    etwc()
        .args(["assemble", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("What is recognised as a trace buffer")
                .and(predicate::str::contains(
                    "Exit status: 0 when the .etl file",
                ))
                .and(predicate::str::contains("--buffer-size")),
        );
    etwc()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("assemble"));
}

/// How a stream test hands the dump over.
#[derive(Clone, Copy, Debug)]
enum Stream {
    /// `etwc assemble -` with the dump on standard input.
    StandardInput,
    /// `etwc assemble <(cat dump.bin)`: a pipe named by a /dev/fd path.
    Pipe,
    /// A FIFO made with `mkfifo`, written by another thread.
    Fifo,
}

/// Runs `etwc assemble` on `dump` handed over as `how` says, writing `out-stream.etl`.
fn assemble_stream(dir: &Path, how: Stream, dump: &[u8], options: &[&str]) -> Assembled {
    let output = dir.join("out-stream.etl");
    let _ = std::fs::remove_file(&output);
    let run = match how {
        Stream::StandardInput => etwc()
            .arg("assemble")
            .arg("-")
            .arg("-o")
            .arg(&output)
            .args(options)
            .write_stdin(dump.to_vec())
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap(),
        Stream::Pipe => {
            let dump_path = dir.join("dump-for-pipe.bin");
            std::fs::write(&dump_path, dump).unwrap();
            std::process::Command::new("bash")
                .arg("-c")
                .arg(r#"exec "$0" assemble <(cat "$1") -o "$2" "${@:3}""#)
                .arg(env!("CARGO_BIN_EXE_etwc"))
                .arg(&dump_path)
                .arg(&output)
                .args(options)
                .output()
                .unwrap()
        }
        Stream::Fifo => {
            let fifo = dir.join("dump.fifo");
            let _ = std::fs::remove_file(&fifo);
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap();
            assert!(made.success());
            let writer = {
                let (fifo, dump) = (fifo.clone(), dump.to_vec());
                std::thread::spawn(move || {
                    use std::io::Write;
                    // Opening blocks until etwc opens the FIFO to read it.
                    let mut file = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                    // Written in pieces, as a stream arrives.
                    for piece in dump.chunks(333) {
                        file.write_all(piece).unwrap();
                    }
                })
            };
            let run = etwc()
                .arg("assemble")
                .arg(&fifo)
                .arg("-o")
                .arg(&output)
                .args(options)
                .timeout(Duration::from_secs(60))
                .output()
                .unwrap();
            writer.join().unwrap();
            run
        }
    };
    Assembled {
        status: run.status.code(),
        stdout: utf8(&run.stdout),
        stderr: utf8(&run.stderr),
        output,
    }
}

/// The dumps of the tests above: concatenated, out of order, inside junk, an .etl file.
fn stream_dumps() -> Vec<(&'static str, Vec<u8>)> {
    let (_, buffers) = boot_file(Mode::Streaming);
    let (single_shot, _) = boot_file(Mode::SingleShot);
    let out_of_order: Vec<u8> = [4, 8, 0, 6, 2, 7, 1, 5, 3]
        .iter()
        .flat_map(|&index| buffers[index].clone())
        .collect();
    vec![
        ("concatenated", buffers.concat()),
        ("out of order", out_of_order),
        ("in junk", dump_in_junk(&buffers)),
        ("an .etl file", single_shot),
    ]
}

/// A stream gives what the same bytes in a regular file give: the status, the summary (but
/// for the output's name), the notes and the .etl file, byte for byte.
fn check_stream_as_file(name: &str, how: Stream) {
    let dir = scratch(name);
    let options = ["--log-file-name", "stream.etl"];
    for (what, dump) in stream_dumps() {
        let file = assemble(&dir, &dump, &options);
        assert_eq!(file.status, Some(0), "{what}: {}", file.stderr);
        let stream = assemble_stream(&dir, how, &dump, &options);
        assert_eq!(stream.status, Some(0), "{what} {how:?}: {}", stream.stderr);
        assert_eq!(stream.stderr, file.stderr, "{what} {how:?}");
        assert_eq!(
            stream
                .stdout
                .replace(&stream.output.display().to_string(), "OUT"),
            file.stdout
                .replace(&file.output.display().to_string(), "OUT"),
            "{what} {how:?}"
        );
        assert_eq!(
            std::fs::read(&stream.output).unwrap(),
            std::fs::read(&file.output).unwrap(),
            "{what} {how:?}: the .etl file"
        );
    }
    // The firmware's file, byte for byte, from its buffers streamed.
    let (etl, buffers) = boot_file(Mode::Streaming);
    let options = firmware_options("streaming.etl");
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let stream = assemble_stream(&dir, how, &buffers.concat(), &options);
    assert_eq!(stream.status, Some(0), "{how:?}: {}", stream.stderr);
    assert_eq!(std::fs::read(&stream.output).unwrap(), etl);
}

#[test]
fn standard_input_assembles_as_the_file_does() {
    check_stream_as_file("stdin", Stream::StandardInput);
}

#[test]
fn a_pipe_assembles_as_the_file_does() {
    check_stream_as_file("pipe", Stream::Pipe);
}

#[test]
fn a_fifo_assembles_as_the_file_does() {
    check_stream_as_file("fifo", Stream::Fifo);
}

#[test]
fn a_stream_errors_say_what_a_file_says() {
    let dir = scratch("stream-errors");
    // Empty, and junk alone: the file's messages, naming standard input.
    let run = assemble_stream(&dir, Stream::StandardInput, &[], &[]);
    assert_eq!(run.status, Some(1));
    assert_eq!(
        run.stderr,
        "etwc: standard input: the dump is empty: no trace buffer\n"
    );
    let (_, buffers) = boot_file(Mode::Streaming);
    let run = assemble_stream(&dir, Stream::StandardInput, &buffers[3][..400], &[]);
    assert_eq!(run.status, Some(1));
    assert!(
        run.stderr.ends_with(
            "etwc: standard input: no whole trace buffer of any BufferSize in its 400 bytes \
             (only torn ones, see above)\n"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.output.exists());
}

/// 64 MiB: the most a stream may hold after the last trace buffer (or from its start).
const GAP_LIMIT: u64 = 64 << 20;

#[test]
fn an_endless_stream_stops_with_an_error_once_no_buffer_came_in_64_mib() {
    let dir = scratch("endless");
    let output = dir.join("out.etl");
    // /dev/zero, which never ends: the bytes read are named.
    let run = etwc()
        .args(["assemble", "/dev/zero", "-o"])
        .arg(&output)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", utf8(&run.stderr));
    assert_eq!(
        utf8(&run.stderr),
        format!(
            "etwc: /dev/zero: no trace buffer in bytes 0..{GAP_LIMIT} ({GAP_LIMIT} bytes): \
             stopped reading there; a stream may go on for at most 64 MiB without a trace buffer \
             (to assemble it all, save it to a file first)\n"
        )
    );
    assert!(!output.exists());

    // Buffers, then zeros for ever (`cat dump.bin /dev/zero`): the gap is counted from the end
    // of the last buffer.
    let (_, buffers) = boot_file(Mode::Streaming);
    let dump_path = dir.join("dump.bin");
    std::fs::write(&dump_path, buffers.concat()).unwrap();
    let run = etwc_in_bash(
        r#"cat "$1" /dev/zero | "$0" assemble - -o "$2""#,
        &[&dump_path, &output],
    );
    let end = 9 * 512;
    assert_eq!(run.status.code(), Some(1), "{}", utf8(&run.stderr));
    assert_eq!(
        utf8(&run.stderr),
        format!(
            "etwc: standard input: no trace buffer in bytes {end}..{} ({GAP_LIMIT} bytes) after \
             the last of the 9 trace buffers found: stopped reading there; a stream may go on \
             for at most 64 MiB without a trace buffer (to assemble it all, save it to a file \
             first)\n",
            end + GAP_LIMIT
        )
    );

    // `yes`, text for ever.
    let run = etwc_in_bash(r#"yes | "$0" assemble - -o "$1""#, &[&output]);
    assert_eq!(run.status.code(), Some(1), "{}", utf8(&run.stderr));
    assert!(utf8(&run.stderr).starts_with(&format!(
        "etwc: standard input: no trace buffer in bytes 0..{GAP_LIMIT} "
    )));
    assert!(!output.exists());
}

/// Runs `script` in bash with the etwc binary as `$0` and `args` as `$1`...; killed after a
/// minute.
fn etwc_in_bash(script: &str, args: &[&Path]) -> std::process::Output {
    std::process::Command::new("timeout")
        .args(["60", "bash", "-c", script])
        .arg(env!("CARGO_BIN_EXE_etwc"))
        .args(args)
        .output()
        .unwrap()
}
