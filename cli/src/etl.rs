//! `etwc etl`: every buffer and event of an .etl file, as text lines, JSON lines, CSV rows or a
//! Chrome trace ([`crate::formats`]), filtered ([`crate::filter`]), or counted.
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
//! When the file's clock cannot be read, what needs the events' time (`--format chrome`,
//! `--from`, `--to`) is refused with the reason, and the outputs that show it say on standard
//! error, in one line, that no event has a time and why: nothing is left out silently.
//!
//! `--order time` prints the events of all buffers merged by timestamp instead of in file order
//! (see [`crate::time_ordered`]).
//!
//! [`event_json`] and [`dated_event_json`] build one event's JSON object on their own, for any
//! user of the mapping.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use etw_classic::{
    read::{StoredBuffer, TraceClock},
    wire::ExtraWords,
    EtlReader, EtlReaderError, Event, EventKind, HeaderType, WmiBufferHeader,
};
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use crate::etl_args::{EtlArgs, Output};
use crate::fields;
use crate::filter::Filter;
use crate::formats::chrome::Chrome;
use crate::formats::csv::Csv;
use crate::formats::stats::{Stats, Summary};
use crate::formats::{EventContext, FileInfo, Format, Lines, Tally};
use crate::progress::{Counted, Progress};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::Registry;

/// The header type's name without its `TRACE_HEADER_TYPE_` prefix, or `0xNN`.
pub fn kind_name(header_type: HeaderType) -> String {
    header_type
        .name()
        .map_or_else(|| format!("0x{:02X}", header_type.0), str::to_owned)
}

/// What one event's JSON line carries, decoded as far as its header type allows: `buffer` (the
/// index of the buffer that holds it), `offset`, `kind`, then the keys of its header type;
/// without the members that need the buffer's processor and the file's clock (see
/// [`dated_event_json`]).
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

/// One event's whole JSON line: [`event_json`], then `processor`, `filetime` and `time`, then
/// its meaning ([`meaning_json`]).
pub fn dated_event_json(context: &EventContext<'_>, event: &Event<'_>) -> Map<String, Value> {
    let mut map = event_json(context.buffer, event);
    map.insert("processor".into(), json!(context.processor));
    map.insert("filetime".into(), json!(context.filetime));
    map.insert("time".into(), json!(context.time()));
    meaning_json(context.registry, event, &mut map);
    map
}

/// The keys that give an event its meaning, from its schema in `registry`:
///
/// | key | value |
/// |---|---|
/// | `provider_name`, `event_name`, `task_name`, `opcode_name` | names, `null` when unknown |
/// | `level_name`, `keyword_names` | only when the schema names them |
/// | `process_name` | the name of the event's process, `null` when the trace does not name it |
/// | `fields` | the fields in schema order (arrays as lists, structures as objects, a mapped value as `{"value": n, "name": ...}`); `null` when no schema describes the event |
/// | `fields_error` | only when decoding stopped before the last field: which field, where, what was expected |
/// | `fields_left` | only when bytes are left after the last field: how many |
/// | `undecoded` | only when no schema describes the event, or the event is itself a description (`MetaData/EventInfo`, `ManifestData`, which keep their names): why |
pub fn meaning_json(registry: &Registry, event: &Event<'_>, map: &mut Map<String, Value>) {
    let facts = Facts::of(event);
    let process = facts
        .process_id
        .and_then(|pid| registry.process_name(pid))
        .map(|name| name.to_string());
    match registry.decode(&facts) {
        Ok(decoded) => {
            map.insert("provider_name".into(), json!(decoded.provider_name));
            map.insert("event_name".into(), json!(decoded.event_name));
            map.insert("task_name".into(), json!(decoded.task_name));
            map.insert("opcode_name".into(), json!(decoded.opcode_name));
            if let Some(level) = decoded.level_name {
                map.insert("level_name".into(), json!(level));
            }
            if !decoded.keyword_names.is_empty() {
                map.insert("keyword_names".into(), json!(decoded.keyword_names));
            }
            map.insert("process_name".into(), json!(process));
            map.insert("fields".into(), Value::Object(decoded.fields.fields));
            if let Some(error) = decoded.fields.error {
                map.insert("fields_error".into(), json!(error));
            }
            if decoded.fields.rest > 0 {
                map.insert("fields_left".into(), json!(decoded.fields.rest));
            }
        }
        Err(why) => {
            // A description (MetaData/EventInfo, ManifestData) has names but no fields.
            let names = why.names().unwrap_or_default();
            for (key, name) in ["provider_name", "event_name", "task_name", "opcode_name"]
                .into_iter()
                .zip(names)
            {
                map.insert(key.into(), json!(name));
            }
            map.insert("process_name".into(), json!(process));
            map.insert("fields".into(), Value::Null);
            map.insert("undecoded".into(), json!(why.to_string()));
        }
    }
}

/// Appends an event's meaning to its text line: `provider/event key=value ...`, as PerfView
/// prints an event, with any decoding error after the fields.
pub fn meaning_text(registry: &Registry, event: &Event<'_>, line: &mut String) {
    use std::fmt::Write as _;
    let facts = Facts::of(event);
    let decoded = match registry.decode(&facts) {
        Ok(decoded) => decoded,
        Err(why) => {
            // A description (MetaData/EventInfo, ManifestData): its names, no fields.
            if let Some([provider, name, ..]) = why.names() {
                let _ = write!(
                    line,
                    "  {}/{}",
                    provider.unwrap_or("?"),
                    name.unwrap_or("?")
                );
            }
            return;
        }
    };
    let _ = write!(
        line,
        "  {}/{}",
        decoded.provider_name.as_deref().unwrap_or("?"),
        decoded.event_name.as_deref().unwrap_or("?")
    );
    if let Some(process) = facts.process_id.and_then(|pid| registry.process_name(pid)) {
        let _ = write!(line, " process={process}");
    }
    for (key, value) in &decoded.fields.fields {
        match value {
            Value::String(text) => {
                let _ = write!(line, " {key}={text}");
            }
            Value::Object(object) if object.contains_key("name") && object.len() == 2 => {
                let name = object
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let _ = write!(line, " {key}={name}");
            }
            other => {
                let _ = write!(line, " {key}={other}");
            }
        }
    }
    if let Some(error) = decoded.fields.error {
        let _ = write!(line, " (fields stop: {error})");
    }
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

/// Width of an ISO 8601 time with seven fractional digits, `2021-04-18T10:20:35.2722435Z`.
const TIME_WIDTH: usize = 28;

/// One text line for an event: position, kind, size, time and the fields that say what it is.
pub fn event_line(buffer: usize, event: &Event<'_>, time: &str) -> String {
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
/// ...and no more once their bytes reach this, each counted as stored and as decoded (the
/// length its `Offset` says, at most the file's `BufferSize`), since its output grows with its
/// events, not with what it takes in the file: a compressed buffer of a few dozen bytes may
/// decode to 16 MiB. Two batches are in memory at once (one read while the other is decoded),
/// each of at most this plus one buffer, whatever the size of the file.
const BATCH_BYTES: usize = 8 << 20;

/// What a stored buffer weighs in a batch: its bytes as stored, and as decoded.
fn batch_weight(stored: &StoredBuffer, buffer_size: usize) -> usize {
    let decoded = if stored.header().is_compressed() {
        (stored.header().offset as usize)
            .saturating_sub(WmiBufferHeader::LEN)
            .min(buffer_size)
    } else {
        0
    };
    stored.bytes().len() + decoded
}

/// The order `run` prints the events in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Buffer after buffer as stored, each buffer's events in their order.
    File,
    /// The events of all buffers by raw timestamp, as a real-time consumer receives them.
    Time,
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
    /// Reads the next buffers of `reader`, at most `max_buffers`, in place of the ones held.
    fn fill<R: Read>(&mut self, reader: &mut EtlReader<R>, max_buffers: usize) {
        self.len = 0;
        self.end = None;
        let buffer_size = reader.buffer_size();
        let mut bytes = 0;
        while self.len < max_buffers && bytes < BATCH_BYTES {
            if self.len == self.buffers.len() {
                self.buffers.push(StoredBuffer::new());
            }
            let buffer = &mut self.buffers[self.len];
            match reader.read_stored_buffer(buffer) {
                None => break,
                Some(Ok(())) => {
                    bytes += batch_weight(buffer, buffer_size);
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

/// What decides which events are output and how many: the filters, and `--limit`; and the
/// schemas that name the events and decode their fields.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub filter: Filter,
    pub limit: Option<u64>,
    pub registry: Arc<Registry>,
}

/// One event that passed the filters, prepared by a [`Format`]: its header type, where its
/// bytes end in its buffer's output, and the format's item.
struct Prepared<I> {
    header_type: u8,
    end: usize,
    item: I,
}

/// One buffer's share of the output: its events' bytes and items, and the error its events
/// ended with.
struct BufferOutput<I> {
    bytes: Vec<u8>,
    events: Vec<Prepared<I>>,
    problem: Option<String>,
}

/// The FILETIME of `event` through `clock`, if it has a timestamp and there is a clock.
pub fn filetime_of(event: &Event<'_>, clock: Option<TraceClock>) -> Option<i64> {
    event
        .timestamp()
        .zip(clock)
        .and_then(|(raw, clock)| clock.to_filetime(raw))
}

/// The event's context when it passes the filters (and has a time, for a format that needs
/// one).
fn select<'s, F: Format>(
    selection: &'s Selection,
    clock: Option<TraceClock>,
    buffer: usize,
    processor: u16,
    event: &Event<'_>,
) -> Option<EventContext<'s>> {
    let filetime = filetime_of(event, clock);
    let registry = &selection.registry;
    if (F::NEEDS_TIME && filetime.is_none()) || !selection.filter.matches(event, filetime, registry)
    {
        return None;
    }
    Some(EventContext {
        buffer,
        processor,
        filetime,
        registry,
    })
}

/// Decodes one stored buffer into `scratch` (grown to what it needs, at most `buffer_size`),
/// walks its events and prepares those selected (no more than the limit: the output stops
/// there anyway).
fn buffer_output<F: Format>(
    stored: &StoredBuffer,
    scratch: &mut Vec<u8>,
    buffer_size: usize,
    format: &F,
    selection: &Selection,
    clock: Option<TraceClock>,
) -> BufferOutput<F::Item> {
    let mut done = BufferOutput {
        bytes: Vec::new(),
        events: Vec::new(),
        problem: None,
    };
    let buffer = match stored.decode_growing(scratch, buffer_size) {
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
        let Some(context) = select::<F>(selection, clock, index, buffer.processor, &event) else {
            continue;
        };
        let item = format.prepare(&context, &event, &mut done.bytes);
        done.events.push(Prepared {
            header_type: event.header_type.0,
            end: done.bytes.len(),
            item,
        });
        if selection
            .limit
            .is_some_and(|limit| done.events.len() as u64 >= limit)
        {
            break;
        }
    }
    done
}

/// Counts the events output and stops at the limit.
pub struct Emitter<'a, F> {
    pub format: &'a mut F,
    pub tally: Tally,
    pub limit: Option<u64>,
    printed: u64,
}

impl<'a, F: Format> Emitter<'a, F> {
    pub fn new(format: &'a mut F, limit: Option<u64>) -> Self {
        Self {
            format,
            tally: Tally::default(),
            limit,
            printed: 0,
        }
    }

    /// Whether the limit is reached: nothing more is to be output.
    pub fn full(&self) -> bool {
        self.limit.is_some_and(|limit| self.printed >= limit)
    }

    /// Outputs one prepared event.
    pub fn emit(
        &mut self,
        header_type: u8,
        item: F::Item,
        bytes: &[u8],
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        self.tally.counts_by_type[usize::from(header_type)] += 1;
        self.printed += 1;
        self.format.emit(item, bytes, out)
    }
}

/// Prints the events of `reader` in file order (see [`run`]) and says what it read.
fn print_in_file_order<R: Read + Send, F: Format>(
    reader: &mut EtlReader<R>,
    emitter: &mut Emitter<'_, F>,
    selection: &Selection,
    clock: Option<TraceClock>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let write_error = crate::output_error;
    let buffer_size = reader.buffer_size();
    // With a limit, the batches grow from one buffer, and the next is read only once the one
    // before has not reached it: no more of the file is read than the output needs.
    let limited = selection.limit.is_some();
    let mut max_buffers = if limited { 1 } else { BATCH_BUFFERS };
    // `--limit 0`: no event is to be output, so no buffer is read.
    if emitter.full() {
        return Ok(());
    }
    let (mut current, mut next) = (Batch::default(), Batch::default());
    current.fill(reader, max_buffers);
    while current.len > 0 || current.end.is_some() {
        let reading_ended = current.end.is_some();
        let format = &*emitter.format;
        let ((), outputs) = rayon::join(
            || {
                if reading_ended || limited {
                    next.len = 0;
                } else {
                    next.fill(reader, max_buffers);
                }
            },
            || -> Vec<BufferOutput<F::Item>> {
                current
                    .stored()
                    .par_iter()
                    .map_init(Vec::new, |scratch, stored| {
                        buffer_output(stored, scratch, buffer_size, format, selection, clock)
                    })
                    .collect()
            },
        );
        for done in outputs {
            emitter.tally.buffers += 1;
            let mut start = 0;
            for prepared in done.events {
                if emitter.full() {
                    return Ok(());
                }
                let bytes = &done.bytes[start..prepared.end];
                start = prepared.end;
                emitter
                    .emit(prepared.header_type, prepared.item, bytes, out)
                    .map_err(write_error)?;
            }
            if emitter.full() {
                return Ok(());
            }
            emitter.tally.problems.extend(done.problem);
        }
        if let Some(error) = current.end.take() {
            emitter.tally.problems.push(error.to_string());
            break;
        }
        if limited {
            max_buffers = (max_buffers * 2).min(BATCH_BUFFERS);
            next.fill(reader, max_buffers);
        }
        std::mem::swap(&mut current, &mut next);
    }
    Ok(())
}

/// What needs each event's time, if anything does: the format (`--format chrome` places every
/// event in time) or the time filters (`--from`, `--to`). Without a clock every event would be
/// left out, so such a run is refused rather than printing nothing. The time order does not
/// need the clock: it merges the raw timestamps, which count the same clock whatever it is.
fn needs_time<F: Format>(selection: &Selection) -> Option<&'static str> {
    if F::NEEDS_TIME {
        // The Chrome format is the one that needs it.
        Some("--format chrome places")
    } else {
        match (selection.filter.from, selection.filter.to) {
            (Some(_), Some(_)) => Some("--from and --to compare"),
            (Some(_), None) => Some("--from compares"),
            (None, Some(_)) => Some("--to compares"),
            (None, None) => None,
        }
    }
}

/// The path that names standard input.
const STDIN: &str = "-";

/// What `etwc etl` reads: a file, or standard input, which cannot seek.
enum Source {
    File(BufReader<Counted<File>>),
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

/// Prints the file as `args` ask; returns an error message if any part of it could not be read
/// (after printing everything that could).
///
/// The file is read as a stream, a batch of buffers at a time: while one batch is read, the
/// one before is decompressed, walked, filtered and formatted on every core, then printed in
/// file order. The output is the same as a reading one event after the other. With
/// [`Order::Time`], [`crate::time_ordered::print`] merges the buffers instead.
///
/// `path` `-` reads standard input, in file order only (`--order time` reads the file twice);
/// so is a path that names what can be read once only (a pipe, a FIFO, a device), and neither
/// has the first pass that learns the trace's schemas and process names.
pub fn run(args: &EtlArgs) -> Result<(), String> {
    match args.output() {
        Output::Summary { json } => run_as(args, &mut Summary { json }),
        Output::Stats { json } => run_as(args, &mut Stats::new(json)),
        Output::Table => run_as(args, &mut Lines::Table),
        Output::Json => run_as(args, &mut Lines::Json),
        Output::Csv => run_as(args, &mut Csv),
        Output::Chrome => run_as(args, &mut Chrome::default()),
    }
}

fn run_as<F: Format>(args: &EtlArgs, format: &mut F) -> Result<(), String> {
    let path = args.file.as_str();
    let order = args.order;
    let read = Arc::new(AtomicU64::new(0));
    let mut length = None;
    let mut read_once = path == STDIN;
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
        match crate::read_once(&file) {
            None => length = file.metadata().ok().map(|metadata| metadata.len()),
            Some(what) if order == Order::Time => {
                return Err(format!(
                    "--order time reads the file twice, which {path} cannot be ({what}, whose \
                     bytes can be read once): save it to a file first"
                ));
            }
            // Read once, as standard input is: no first pass, no length for the progress bar.
            Some(_) => read_once = true,
        }
        Source::File(BufReader::new(Counted {
            inner: file,
            read: Arc::clone(&read),
        }))
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
    let mut selection = args.selection();
    // Nothing to learn for `--limit 0`, which reads no buffer.
    let first_pass = !read_once && selection.limit != Some(0);
    // The bar counts every pass over the file: the first pass, the time order's listing, the
    // output's.
    let passes = u64::from(first_pass) + if order == Order::Time { 2 } else { 1 };
    let length = length.map(|length| length.saturating_mul(passes));
    let mut progress = Progress::new(length, Arc::clone(&read), F::PRINTS_EVENTS);

    let file = FileInfo::from_reader(path, &reader);
    let mut registry = crate::meaning::registry(&args.manifest, &args.mof, None)?;
    if first_pass {
        // What cannot be read here, the output's pass reports.
        if let Ok(learning) = File::open(path).map(|inner| Counted { inner, read }) {
            if let Ok(learning) = EtlReader::new(BufReader::new(learning)) {
                crate::meaning::learn(&mut registry, learning, path);
            }
        }
    }
    selection.registry = Arc::new(registry);
    let clock = match &file.clock {
        Ok(clock) => Some(*clock),
        Err(error) => {
            if let Some(needs) = needs_time::<F>(&selection) {
                return Err(format!(
                    "{path}: {needs} each event's time, but the file's clock cannot be read: \
                     {error}"
                ));
            }
            if F::SHOWS_TIME {
                // Nothing is left to tell about a note that cannot be written.
                let _ = writeln!(
                    std::io::stderr(),
                    "note: {path}: no event has a time, as the file's clock cannot be read: \
                     {error}"
                );
            }
            None
        }
    };
    format.begin(&file, &mut out).map_err(write_error)?;
    let mut emitter = Emitter::new(format, selection.limit);
    match order {
        Order::File => print_in_file_order(&mut reader, &mut emitter, &selection, clock, &mut out)?,
        Order::Time => {
            crate::time_ordered::print(&mut reader, &mut emitter, &selection, clock, &mut out)?
        }
    }
    progress.finish();
    let file = FileInfo {
        unflushed: reader.buffers_written_was_zero(),
        ..file
    };
    let Emitter { format, tally, .. } = emitter;
    format.end(&tally, &file, &mut out).map_err(write_error)?;
    out.flush().map_err(write_error)?;
    if tally.problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{path}: {}", tally.problems.line()))
    }
}
