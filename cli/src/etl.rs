//! `etwc etl`: every buffer and event of an .etl file, as text lines or JSON lines.
//!
//! Event offsets count from the end of the buffer's 0x48-byte header, in the decompressed
//! events of a compressed buffer (the offset dissect.etl's `Buffer.read_record` takes).
//!
//! Each JSON line carries every member of the event's header under its SDK name in snake_case,
//! and what follows the header as hex under `data`: the event data of classic, system, compact
//! and perfinfo events (after any `pebs_index` and `pmc_counters`), the user data of
//! `EVENT_HEADER` events (after their items under `extended_data`), the arguments of a message
//! (after its optional fields). Events of a kind with no public layout (`TIMED`, `ERROR`,
//! `WNODE_HEADER`), and those whose header announces more than their `Size` holds (with the
//! reason under `error`), carry `size`, `header_type`, `marker_flags` and the whole event as hex
//! under `bytes`.
//!
//! Every JSON line also names the `processor` whose buffer holds the event, and dates it:
//! `filetime` (100 ns intervals since 1601-01-01 UTC) and `time` (ISO 8601 UTC with seven
//! fractional digits), both from the event's raw timestamp through the file's clock
//! ([`TraceClock`]); `null` when the event has no timestamp or the logfile header names no
//! usable clock. The text lines carry the same time after the size (`-` when there is none).
//!
//! `--order time` prints the events of all buffers merged by timestamp instead of in file order
//! (see [`crate::time_ordered`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use etw_classic::{
    read::{StoredBuffer, TraceClock},
    wire::{ExtraWords, UtcDateTime},
    EtlReader, EtlReaderError, Event, EventKind, HeaderType,
};
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use crate::fields;

/// The header type's name without its `TRACE_HEADER_TYPE_` prefix, or `0xNN`.
pub fn kind_name(header_type: HeaderType) -> String {
    header_type
        .name()
        .map_or_else(|| format!("0x{:02X}", header_type.0), str::to_owned)
}

/// What one event's line carries, decoded as far as its header type allows: `buffer` (the
/// index of the buffer that holds it), `offset`, `kind`, then the keys of its header type. The
/// JSON line of `etwc etl --json` adds `processor`, `filetime` and `time` after these.
pub fn event_json(buffer: usize, event: &Event<'_>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("buffer".into(), json!(buffer));
    map.insert("offset".into(), json!(event.offset));
    map.insert("kind".into(), json!(kind_name(event.header_type)));
    let decoded = match event.kind() {
        EventKind::Full { header, data } => with_data(fields::trace_header_json(&header), data),
        EventKind::Instance { header, data } => {
            with_data(fields::instance_guid_header_json(&header), data)
        }
        EventKind::EventHeader { header, body } => fields::event_header_json(&header, &body),
        EventKind::System {
            header,
            extra,
            data,
        } => kernel_json(fields::system_header_json(&header), &extra, data),
        EventKind::Compact {
            header,
            extra,
            data,
        } => kernel_json(fields::compact_header_json(&header), &extra, data),
        EventKind::PerfInfo {
            header,
            extra,
            data,
        } => kernel_json(fields::perfinfo_header_json(&header), &extra, data),
        EventKind::Message {
            header,
            fields,
            args,
        } => with_data(fields::message_json(&header, &fields), args),
        EventKind::Malformed { error, .. } => {
            let mut map = undecoded_json(event);
            map.insert("error".into(), json!(error.to_string()));
            map
        }
        EventKind::Opaque { .. } => undecoded_json(event),
        _ => marker_json(event),
    };
    map.extend(decoded);
    map
}

/// A system, compact or perfinfo header's keys, then its extra words, then its data.
fn kernel_json(
    mut map: Map<String, Value>,
    extra: &ExtraWords<'_>,
    data: &[u8],
) -> Map<String, Value> {
    map.extend(fields::extra_words_json(extra));
    with_data(map, data)
}

/// The members of an event's marker: `size`, `header_type`, `marker_flags`.
fn marker_json(event: &Event<'_>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("size".into(), json!(event.size));
    map.insert("header_type".into(), json!(event.header_type.0));
    map.insert("marker_flags".into(), json!(event.marker_flags.0));
    map
}

/// An event whose header is not decoded: its marker's members and the whole event as hex.
fn undecoded_json(event: &Event<'_>) -> Map<String, Value> {
    let mut map = marker_json(event);
    map.insert("bytes".into(), json!(fields::hex(event.bytes)));
    map
}

/// `map` with the event data as lowercase hex under `data`.
fn with_data(mut map: Map<String, Value>, data: &[u8]) -> Map<String, Value> {
    map.insert("data".into(), json!(fields::hex(data)));
    map
}

/// One text line for an event: position, kind, size, time and the fields that say what it is.
fn event_line(buffer: usize, event: &Event<'_>, time: &str) -> String {
    let position = format!(
        "buffer {buffer:>4} offset {:#07x} {:<15} size {:>5} {time:<TIME_WIDTH$}",
        event.offset,
        kind_name(event.header_type),
        event.size
    );
    let header = match event.kind() {
        EventKind::Full { header, .. } => header,
        EventKind::Instance { header, .. } => {
            let trace = header.header;
            return format!(
                "{position}  {} type {} level {} version {} tid {} pid {} time {} cpu {}/{} \
                 instance {} parent {} {}",
                trace.guid.guid(),
                trace.class.event_type.0,
                trace.class.level.0,
                trace.class.version,
                trace.thread_id,
                trace.process_id,
                trace.timestamp,
                trace.times.kernel_time(),
                trace.times.user_time(),
                header.instance_id,
                header.parent_instance_id,
                header.parent_guid
            );
        }
        EventKind::EventHeader { header, body } => {
            let descriptor = header.event_descriptor;
            let items = match body.split() {
                Ok((items, _)) => items.len().to_string(),
                Err(error) => format!("error ({error})"),
            };
            return format!(
                "{position}  {} id {} version {} level {} opcode {} task {} keyword {:#x} tid {} \
                 pid {} time {} cpu {}/{} items {items}",
                header.provider_id,
                descriptor.id,
                descriptor.version,
                descriptor.level.0,
                descriptor.opcode,
                descriptor.task,
                descriptor.keyword,
                header.thread_id,
                header.process_id,
                header.timestamp,
                header.times.kernel_time(),
                header.times.user_time()
            );
        }
        _ => return position,
    };
    format!(
        "{position}  {} type {} level {} version {} tid {} pid {} time {} cpu {}/{}",
        header.guid.guid(),
        header.class.event_type.0,
        header.class.level.0,
        header.class.version,
        header.thread_id,
        header.process_id,
        header.timestamp,
        header.times.kernel_time(),
        header.times.user_time()
    )
}

/// Buffers read together, then decoded and formatted on every core: at most this many...
const BATCH_BUFFERS: usize = 64;
/// ...and no more once their stored bytes reach this. Two batches are in memory at once (one
/// read while the other is decoded), whatever the size of the file.
const BATCH_BYTES: usize = 8 << 20;

/// The order `run` prints the events in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Buffer after buffer as stored, each buffer's events in their order.
    File,
    /// The events of all buffers by raw timestamp, as a real-time consumer receives them.
    Time,
}

/// What `run` prints for each event.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Nothing: the events are only counted.
    Summary,
    /// One text line ([`event_line`]).
    Text,
    /// One JSON line ([`event_json`] and the buffer's processor).
    Json,
}

/// Buffers read from the file as stored, in file order, and the error the reading ended with
/// after them, if any. The buffers' memory is reused from batch to batch.
#[derive(Default)]
struct Batch {
    buffers: Vec<StoredBuffer>,
    len: usize,
    end: Option<EtlReaderError>,
}

impl Batch {
    /// Reads the next buffers of `reader` in place of the ones held.
    fn fill<R: Read>(&mut self, reader: &mut EtlReader<R>) {
        self.len = 0;
        self.end = None;
        let mut bytes = 0;
        while self.len < BATCH_BUFFERS && bytes < BATCH_BYTES {
            if self.len == self.buffers.len() {
                self.buffers.push(StoredBuffer::new());
            }
            let buffer = &mut self.buffers[self.len];
            match reader.read_stored_buffer(buffer) {
                None => break,
                Some(Ok(())) => {
                    bytes += buffer.bytes().len();
                    self.len += 1;
                }
                Some(Err(error)) => {
                    self.end = Some(error);
                    break;
                }
            }
        }
    }

    fn stored(&self) -> &[StoredBuffer] {
        &self.buffers[..self.len]
    }
}

/// How `run` prints each event: the output, and the file's clock that dates the events
/// (`None` when the logfile header names no usable clock).
#[derive(Clone, Copy)]
pub struct Printer {
    pub output: Output,
    pub clock: Option<TraceClock>,
}

/// Width of an ISO 8601 time with seven fractional digits, `2021-04-18T10:20:35.2722435Z`.
const TIME_WIDTH: usize = 28;

impl Printer {
    /// Appends the event's line to `lines` (nothing for a summary). `buffer` and `processor`
    /// name the buffer that holds the event.
    pub fn print(&self, lines: &mut Vec<u8>, buffer: usize, processor: u16, event: &Event<'_>) {
        if self.output == Output::Summary {
            return;
        }
        let filetime = event
            .timestamp()
            .zip(self.clock)
            .and_then(|(raw, clock)| clock.to_filetime(raw));
        let time = filetime.map(|filetime| UtcDateTime::from_filetime(filetime).to_string());
        // Writing to a Vec<u8> cannot fail.
        let _ = if self.output == Output::Json {
            let mut map = event_json(buffer, event);
            map.insert("processor".into(), json!(processor));
            map.insert("filetime".into(), json!(filetime));
            map.insert("time".into(), json!(time));
            writeln!(lines, "{}", Value::Object(map))
        } else {
            let line = event_line(buffer, event, time.as_deref().unwrap_or("-"));
            writeln!(lines, "{}", line.trim_end())
        };
    }
}

/// What reading the events gave besides the output: buffers read, events counted by header
/// type, and the errors met (each naming its buffer).
pub struct Tally {
    pub buffers: u64,
    pub counts_by_type: [u64; 256],
    pub problems: Vec<String>,
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            buffers: 0,
            counts_by_type: [0; 256],
            problems: Vec::new(),
        }
    }
}

/// One buffer's share of the output: its lines, its events counted by header type, and the
/// error its events ended with.
struct BufferOutput {
    lines: Vec<u8>,
    counts_by_type: [u64; 256],
    problem: Option<String>,
}

/// Decodes one stored buffer into `scratch`, walks its events and formats them.
fn buffer_output(stored: &StoredBuffer, scratch: &mut [u8], printer: Printer) -> BufferOutput {
    let mut done = BufferOutput {
        lines: Vec::new(),
        counts_by_type: [0; 256],
        problem: None,
    };
    let buffer = match stored.decode(scratch) {
        Ok(buffer) => buffer,
        Err(error) => {
            done.problem = Some(error.to_string());
            return done;
        }
    };
    let index = buffer.position.index;
    for event in buffer.events() {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                done.problem = Some(error.to_string());
                break;
            }
        };
        done.counts_by_type[usize::from(event.header_type.0)] += 1;
        printer.print(&mut done.lines, index, buffer.processor, &event);
    }
    done
}

/// Prints the events of `reader` in file order (see [`run`]) and says what it read.
fn print_in_file_order<R: Read + Send>(
    reader: &mut EtlReader<R>,
    printer: Printer,
    out: &mut impl Write,
) -> Result<Tally, String> {
    let write_error = crate::output_error;
    let buffer_size = reader.buffer_size();
    // Counted by header type, and named once at the end: a name per event would cost more than
    // reading the event.
    let mut counts_by_type = [0u64; 256];
    let mut buffers = 0u64;
    let mut problems = Vec::new();
    let (mut current, mut next) = (Batch::default(), Batch::default());
    current.fill(reader);
    while current.len > 0 || current.end.is_some() {
        let reading_ended = current.end.is_some();
        let ((), outputs) = rayon::join(
            || {
                if reading_ended {
                    next.len = 0;
                } else {
                    next.fill(reader);
                }
            },
            || -> Vec<BufferOutput> {
                current
                    .stored()
                    .par_iter()
                    .map_init(
                        || vec![0u8; buffer_size],
                        |scratch, stored| buffer_output(stored, scratch, printer),
                    )
                    .collect()
            },
        );
        for done in outputs {
            buffers += 1;
            out.write_all(&done.lines).map_err(write_error)?;
            for (total, count) in counts_by_type.iter_mut().zip(done.counts_by_type) {
                *total += count;
            }
            problems.extend(done.problem);
        }
        if let Some(error) = current.end.take() {
            problems.push(error.to_string());
            break;
        }
        std::mem::swap(&mut current, &mut next);
    }
    Ok(Tally {
        buffers,
        counts_by_type,
        problems,
    })
}

/// The path that names standard input.
const STDIN: &str = "-";

/// What `etwc etl` reads: a file, or standard input, which cannot seek.
enum Source {
    File(BufReader<File>),
    Stdin(BufReader<std::io::Stdin>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Self::File(file) => file.read(buf),
            Self::Stdin(stdin) => stdin.read(buf),
        }
    }
}

impl Seek for Source {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        match self {
            Self::File(file) => file.seek(to),
            Self::Stdin(_) => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "standard input cannot seek",
            )),
        }
    }
}

/// The message for an error of the reader: "cannot read PATH: ..." for an I/O error before any
/// buffer, otherwise "PATH: " and the error, which names the buffer and its file offset.
pub fn describe(path: &str, error: &EtlReaderError) -> String {
    match error {
        EtlReaderError::Io {
            buffer: None,
            error,
        } => format!("cannot read {path}: {error}"),
        other => format!("{path}: {other}"),
    }
}

/// Prints the file; returns an error message if any part of it could not be read (after
/// printing everything that could).
///
/// The file is read as a stream, a batch of buffers at a time: while one batch is read, the
/// one before is decompressed, walked and formatted on every core (a string per buffer), then
/// printed in file order. The output is the same as a reading one event after the other.
/// With [`Order::Time`], [`crate::time_ordered::print`] merges the buffers instead.
///
/// `path` `-` reads standard input, in file order only (`--order time` reads the file twice).
pub fn run(path: &str, json_output: bool, summary: bool, order: Order) -> Result<(), String> {
    let source = if path == STDIN {
        if order == Order::Time {
            return Err(format!(
                "--order time reads the file twice, which standard input ({STDIN}) cannot be: \
                 save it to a file first"
            ));
        }
        Source::Stdin(BufReader::new(std::io::stdin()))
    } else {
        let file = File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
        Source::File(BufReader::new(file))
    };
    let path = if path == STDIN {
        "standard input"
    } else {
        path
    };
    let mut reader = EtlReader::new(source).map_err(|e| describe(path, &e))?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let write_error = crate::output_error;

    if !summary {
        let header = reader.logfile_header();
        let names = reader.names();
        if json_output {
            let line = json!({
                "kind": "LOGFILE_HEADER",
                "system_header": fields::system_header_json(&reader.system_header()),
                "logfile_header": fields::logfile_header_json(&header),
                "logger_name": names.logger_name.to_string(),
                "log_file_name": names.log_file_name.to_string(),
            });
            writeln!(out, "{line}").map_err(write_error)?;
        } else {
            writeln!(
                out,
                "logfile header: logger {:?}, file {:?}, {} logger, buffer size {}, {} buffers \
                 written, {} events lost, {} buffers lost, clock {:?}, timer resolution {} \
                 (100 ns), start {}, end {}, perf freq {}",
                names.logger_name.to_string(),
                names.log_file_name.to_string(),
                reader.bitness(),
                header.buffer_size(),
                header.buffers_written(),
                header.events_lost(),
                header.buffers_lost(),
                header.reserved_flags(),
                header.timer_resolution(),
                header.start_time(),
                header.end_time(),
                header.perf_freq()
            )
            .map_err(write_error)?;
        }
    }

    let output = match (summary, json_output) {
        (true, _) => Output::Summary,
        (false, false) => Output::Text,
        (false, true) => Output::Json,
    };
    let clock = reader.clock().ok();
    let printer = Printer { output, clock };
    let Tally {
        buffers,
        counts_by_type,
        problems,
    } = match order {
        Order::File => print_in_file_order(&mut reader, printer, &mut out)?,
        Order::Time => crate::time_ordered::print(&mut reader, printer, &mut out)?,
    };
    let events: u64 = counts_by_type.iter().sum();

    if summary {
        let kinds: BTreeMap<String, u64> = (0..=u8::MAX)
            .zip(counts_by_type)
            .filter(|&(_, count)| count != 0)
            .map(|(header_type, count)| (kind_name(HeaderType(header_type)), count))
            .collect();
        let unflushed = reader.buffers_written_was_zero();
        if json_output {
            let mut line = json!({ "buffers": buffers, "events": events, "kinds": kinds });
            if unflushed {
                line["buffers_written_was_zero"] = json!(true);
            }
            writeln!(out, "{line}").map_err(write_error)?;
        } else {
            writeln!(out, "{buffers} buffers, {events} events").map_err(write_error)?;
            if unflushed {
                writeln!(
                    out,
                    "the logfile header's BuffersWritten is 0 (a session still running or not \
                     stopped cleanly): read to the end of the file"
                )
                .map_err(write_error)?;
            }
            for (kind, count) in &kinds {
                writeln!(out, "{kind:>15} {count:>8}").map_err(write_error)?;
            }
        }
    }
    out.flush().map_err(write_error)?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{path}: {}", problems.join("; ")))
    }
}
