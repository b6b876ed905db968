//! `etwc assemble` (the command-line tool's `assemble` module) on arbitrary dump bytes, read
//! in place and as a stream.
//!
//! The input is a control byte, then the dump. The control byte chooses how the stream arrives
//! (reads of 1 to 16 x 97 bytes, two ways) and the stream's gap limit (64 bytes to 128 KiB, so
//! that short inputs reach it).
//!
//! Laws:
//! - nothing panics, and the memory stays within libFuzzer's limits (run-all.sh's malloc limit);
//! - an error names the bytes: `the dump is empty` for no byte, the dump's length (`no whole
//!   trace buffer ... in its N bytes`), or the offset of the first buffer found when they are
//!   too small for the logfile header's buffer; the notes name byte ranges inside the dump;
//! - a file written parses as an .etl file (`EtlFile`) whose `BufferSize` is every buffer's, with
//!   `BuffersWritten` the logfile header's buffer and the trace buffers; every trace buffer is
//!   bytes of the dump, walks its events without error, and the `SequenceNumber`s increase;
//! - read as a stream, the dump gives the same (file, summary and notes, or error), unless the
//!   stream stopped at the gap limit: then the error names bytes `a..b` with `b - a` the limit,
//!   `b` inside the dump, and two ways of reading the stream stop at the same place.
#![no_main]

use std::io::{Cursor, Read};
use std::path::PathBuf;

use etw_classic::{EtlFile, TraceBuffer};
use etw_classic_cli::assemble::{assemble, Args, Dump};
use libfuzzer_sys::fuzz_target;

/// A stream that hands over its bytes `step` at a time, as a pipe does.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// What one assembly gave: the file and summary, or the error; and the notes.
type Outcome = (Result<(Vec<u8>, String), String>, Vec<String>);

fn run(dump: &mut Dump) -> Outcome {
    let args = Args::new(PathBuf::from("dump.bin"), PathBuf::from("out.etl"));
    let mut notes = Vec::new();
    let result = assemble(
        &args,
        dump,
        "dump.bin",
        || Ok(Cursor::new(Vec::new())),
        &mut |note| notes.push(note.to_owned()),
    )
    .map(|(out, summary)| (out.into_inner(), summary));
    (result, notes)
}

/// The `a..b` ranges after "bytes " in `text`.
fn ranges(text: &str) -> Vec<(u64, u64)> {
    text.split("bytes ")
        .skip(1)
        .filter_map(|rest| {
            let range = rest.split([' ', ':', ')', ',']).next()?;
            let (a, b) = range.split_once("..")?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect()
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, bytes)) = input.split_first() else {
        return;
    };
    let len = bytes.len() as u64;
    let mut in_place = Dump::from_bytes(bytes.to_vec());
    let (result, notes) = run(&mut in_place);

    for note in &notes {
        for (a, b) in ranges(note) {
            assert!(a < b && b <= len, "{note}");
        }
    }
    match &result {
        Err(message) if bytes.is_empty() => {
            assert_eq!(message, "dump.bin: the dump is empty: no trace buffer");
        }
        // Buffers too small for the logfile header's buffer: named by their first offset.
        Err(message) if message.contains("too small for the logfile header's buffer") => {
            let at = message
                .split("at byte ")
                .nth(1)
                .and_then(|rest| rest.split(')').next())
                .and_then(|number| number.parse::<u64>().ok());
            assert!(at.is_some_and(|at| at < len), "{message}");
        }
        Err(message) => assert!(
            message.starts_with("dump.bin: no whole trace buffer of any BufferSize in its ")
                && message.contains(&format!(" in its {len} bytes")),
            "{message}"
        ),
        Ok((file, summary)) => {
            assert!(summary.starts_with("out.etl: "), "{summary}");
            let etl = EtlFile::parse(file).unwrap();
            let size = etl.logfile_header.buffer_size() as usize;
            assert_eq!(file.len() % size, 0);
            let count = file.len() / size;
            assert!(count >= 2, "at least one trace buffer");
            assert_eq!(etl.logfile_header.buffers_written() as usize, count);
            let mut last = None;
            for buffer in etl.buffers().skip(1) {
                let buffer = buffer.unwrap();
                assert!(
                    bytes.windows(size).any(|window| window == buffer.bytes),
                    "a trace buffer that is not bytes of the dump"
                );
                for event in TraceBuffer::parse(buffer.bytes).unwrap().events() {
                    event.unwrap();
                }
                let sequence = buffer.header.sequence_number;
                assert!(last < Some(sequence));
                last = Some(sequence);
            }
            assert_eq!(etl.buffers().count(), count);
        }
    }

    // As a stream: the same, or stopped at the gap limit.
    let limit = 64u64 << (control % 12);
    let steps = [
        1 + usize::from(control >> 4) * 97,
        1 + usize::from(control.rotate_left(2) & 15) * 13,
    ];
    let mut stopped = Vec::new();
    for step in steps {
        let stream = Trickle { bytes, step };
        match Dump::from_stream(stream, Cursor::new(Vec::new()), "dump.bin", limit) {
            Ok(mut dump) => {
                assert_eq!(dump.len(), len);
                assert_eq!(run(&mut dump), (result.clone(), notes.clone()));
                stopped.push(None);
            }
            Err(message) => {
                let range = ranges(&message);
                assert!(
                    message.starts_with("dump.bin: no trace buffer in bytes ") && range.len() == 1,
                    "{message}"
                );
                let (a, b) = range[0];
                assert_eq!(b - a, limit, "{message}");
                assert!(b <= len, "{message}");
                stopped.push(Some(message));
            }
        }
    }
    assert_eq!(
        stopped[0], stopped[1],
        "the stream stops where it stops, however it arrives"
    );
});
