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
//! Each event selected becomes a [`DecodedEvent`] (the `decode` crate's model of an event), which
//! the format writes from; the JSON line is [`DecodedEvent::describe`]'s.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use etw_classic::{
    read::{ClockError, StoredBuffer, TraceClock},
    EtlReader, EtlReaderError, WmiBufferHeader,
};
use etw_classic_decode::arrow::record_batches;
use etw_classic_decode::event::filetime_of;
use etw_classic_decode::report::{describe, Problems};
use etw_classic_decode::{DecodedEvent, Registry};
use rayon::prelude::*;

use crate::etl_args::{EtlArgs, Order, Output, Selection};
use crate::formats::by_event::ByEvent;
use crate::formats::chrome::Chrome;
use crate::formats::csv::Csv;
use crate::formats::json::JsonLines;
use crate::formats::parquet::EventsFile;
use crate::formats::stats::{Stats, Summary};
use crate::formats::table::Table;
use crate::formats::{Emitter, FileInfo, Format};
use crate::progress::{Counted, Progress};

/// Buffers read together, then decoded and formatted on every core: at most this many...
const BATCH_BUFFERS: usize = 64;
/// ...and no more once their bytes reach this, each counted as stored and as decoded (the
/// length its `Offset` says, at most the file's `BufferSize`), since its output grows with its
/// events, not with what it takes in the file: a compressed buffer of a few dozen bytes may
/// decode to 16 MiB. Two batches are in memory at once (one read while the other is decoded),
/// each of at most this plus one buffer, whatever the size of the file.
const BATCH_BYTES: usize = 8 << 20;

/// The bytes of output gathered before they are written: a buffer's events written at once
/// (JSON lines, table, CSV: hundreds of KiB) are larger and go straight to the output, while
/// the formats that write event by event are written in 64 KiB pieces.
const OUTPUT_BUFFER: usize = 64 << 10;

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

/// The output buffers of the buffers printed, kept for the next batches: an output buffer
/// grows to hundreds of KiB, which the allocator would otherwise map and clear anew for each.
#[derive(Default)]
struct Spare(std::sync::Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// An empty output buffer, one kept if there is one.
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut spare| spare.pop())
            .unwrap_or_default()
    }

    /// Keeps `bytes` for a later buffer.
    fn keep(&self, mut bytes: Vec<u8>) {
        bytes.clear();
        if let Ok(mut spare) = self.0.lock() {
            if spare.len() < BATCH_BUFFERS {
                spare.push(bytes);
            }
        }
    }
}

/// Decodes one stored buffer into `scratch` (grown to what it needs, at most `buffer_size`),
/// walks its events and prepares those selected (no more than the limit: the output stops
/// there anyway), into an output buffer from `spare`.
fn buffer_output<F: Format>(
    stored: &StoredBuffer,
    scratch: &mut Vec<u8>,
    spare: &Spare,
    buffer_size: usize,
    format: &F,
    selection: &Selection,
    clock: Option<TraceClock>,
) -> BufferOutput<F::Item> {
    let mut done = BufferOutput {
        bytes: spare.take(),
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
    let registry: &Registry = &selection.registry;
    for event in buffer.events() {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                done.problem = Some(error.to_string());
                break;
            }
        };
        let header_type = event.header_type.0;
        // The event as the outputs see it, if it has a time (for a format that needs one) and
        // passes the filters. Built here, in place: what it finds on first use (facts, schema)
        // makes it a few hundred bytes, which a move for each event would copy.
        let filetime = filetime_of(&event, clock);
        if F::NEEDS_TIME && filetime.is_none() {
            continue;
        }
        let decoded = DecodedEvent::new(index, buffer.processor, event, filetime, registry);
        if !selection.filter.matches(&decoded) {
            continue;
        }
        let item = format.prepare(&decoded, &mut done.bytes);
        done.events.push(Prepared {
            header_type,
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
    let spare = Spare::default();
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
                        buffer_output(
                            stored,
                            scratch,
                            &spare,
                            buffer_size,
                            format,
                            selection,
                            clock,
                        )
                    })
                    .collect()
            },
        );
        for done in outputs {
            emitter.tally.buffers += 1;
            let mut start = 0;
            for prepared in done.events {
                if emitter.full() {
                    break;
                }
                if F::WRITES_AS_PREPARED {
                    emitter.count(prepared.header_type);
                } else {
                    let bytes = &done.bytes[start..prepared.end];
                    emitter
                        .emit(prepared.header_type, prepared.item, bytes, out)
                        .map_err(write_error)?;
                }
                start = prepared.end;
            }
            if F::WRITES_AS_PREPARED {
                // The events' bytes follow each other: those output, in one write.
                out.write_all(&done.bytes[..start]).map_err(write_error)?;
            }
            if emitter.full() {
                return Ok(());
            }
            emitter.tally.problems.extend(done.problem);
            spare.keep(done.bytes);
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

/// The file's clock, or `None` when it cannot be read: then an error if `needs` names what
/// needs each event's time, otherwise a note on standard error when the output shows times
/// (`note`).
fn usable_clock(
    path: &str,
    clock: &Result<TraceClock, ClockError>,
    needs: Option<&str>,
    note: bool,
) -> Result<Option<TraceClock>, String> {
    let error = match clock {
        Ok(clock) => return Ok(Some(*clock)),
        Err(error) => error,
    };
    if let Some(needs) = needs {
        return Err(format!(
            "{path}: {needs} each event's time, but the file's clock cannot be read: {error}"
        ));
    }
    if note {
        // Nothing is left to tell about a note that cannot be written.
        let _ = writeln!(
            std::io::stderr(),
            "note: {path}: no event has a time, as the file's clock cannot be read: {error}"
        );
    }
    Ok(None)
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
        Output::Table => run_as(args, &mut Table),
        Output::Json => run_as(args, &mut JsonLines),
        Output::Csv => run_as(args, &mut Csv),
        Output::Chrome => run_as(args, &mut Chrome::new(args.chrome_args.unwrap_or_default())),
        Output::Parquet => run_parquet(args),
    }
}

fn run_as<F: Format>(args: &EtlArgs, format: &mut F) -> Result<(), String> {
    let Some(path) = args.files.first() else {
        return Err("no file given".to_owned());
    };
    let path = path.as_str();
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
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, stdout.lock());
    let write_error = crate::output_error;
    let mut selection = args.selection();
    // Nothing to learn for `--limit 0`, which reads no buffer, nor for an output that shows
    // no names unless a filter asks for them.
    let first_pass = !read_once
        && selection.limit != Some(0)
        && (F::SHOWS_MEANING || selection.filter.uses_names());
    // The bar counts every pass over the file: the first pass, the time order's listing, the
    // output's.
    let passes = u64::from(first_pass) + if order == Order::Time { 2 } else { 1 };
    let length = length.map(|length| length.saturating_mul(passes));
    let mut progress = Progress::new(length, Arc::clone(&read), F::PRINTS_EVENTS);

    let file = FileInfo::from_reader(path, &reader);
    let mut registry = Registry::for_trace(&args.manifest, &args.mof, None)?;
    if first_pass {
        // What cannot be read here, the output's pass reports.
        if let Ok(learning) = File::open(path).map(|inner| Counted { inner, read }) {
            if let Ok(learning) = EtlReader::new(BufReader::new(learning)) {
                registry.learn_reader(learning, path);
            }
        }
    }
    selection.registry = Arc::new(registry);
    let needs = needs_time::<F>(&selection);
    let clock = usable_clock(path, &file.clock, needs, F::SHOWS_TIME)?
        // An output that shows no time (`--summary`) converts none, unless a filter needs it.
        .filter(|_| F::SHOWS_TIME || needs.is_some());
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

/// `--format parquet`: one input to the file `-o`; several to `<stem>.parquet` each in the
/// folder `-o`, written in parallel. A file that cannot be read or written is reported by name
/// on standard error as soon as it fails, and the others are still written; the run then fails.
fn run_parquet(args: &EtlArgs) -> Result<(), String> {
    let Some(out) = args.out.as_deref() else {
        return Err("--format parquet writes files: give -o PATH".to_owned());
    };
    let write = |path: &str, target: &std::path::Path| {
        if args.by_event {
            by_event_file(args, path, target)
        } else {
            parquet_file(args, path, target)
        }
    };
    if let [path] = args.files.as_slice() {
        return write(path, out);
    }
    std::fs::create_dir_all(out)
        .map_err(|error| format!("cannot create the folder {}: {error}", out.display()))?;
    // `<stem>.parquet`; a stem met before gets `-2`, `-3`... so that no input overwrites another.
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let targets: Vec<std::path::PathBuf> = args
        .files
        .iter()
        .map(|path| {
            let stem = std::path::Path::new(path).file_stem().map_or_else(
                || "trace".to_owned(),
                |stem| stem.to_string_lossy().into_owned(),
            );
            let count = seen.entry(stem.clone()).or_default();
            *count += 1;
            let name = if *count == 1 {
                stem
            } else {
                format!("{stem}-{count}")
            };
            // `--by-event`: a folder of tables per input.
            if args.by_event {
                out.join(name)
            } else {
                out.join(format!("{name}.parquet"))
            }
        })
        .collect();
    let failed = args
        .files
        .par_iter()
        .zip(targets.par_iter())
        .filter(|(path, target)| match write(path, target) {
            Ok(()) => false,
            Err(message) => {
                // Nothing is left to tell about a line that cannot be written.
                let _ = writeln!(std::io::stderr(), "etwc: {message}");
                true
            }
        })
        .count();
    if failed == 0 {
        Ok(())
    } else {
        Err(format!(
            "{failed} of {} files could not be read or written in full (see above); the others \
             are in {}",
            args.files.len(),
            out.display()
        ))
    }
}

/// A trace opened for `--format parquet`: its reader, the selection, its clock.
type Opened = (EtlReader<BufReader<File>>, Selection, Option<TraceClock>);

/// The trace `path` opened for `--format parquet`: its reader after the logfile header, the
/// selection with the schemas and process names of a first pass, and its clock.
fn open_for_parquet(args: &EtlArgs, path: &str) -> Result<Opened, String> {
    let file = File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
    if let Some(what) = crate::read_once(&file) {
        return Err(format!(
            "--format parquet reads the file twice, which {path} cannot be ({what}, whose bytes \
             can be read once): save it to a file first"
        ));
    }
    let reader = EtlReader::new(BufReader::new(file)).map_err(|e| describe(path, &e))?;
    let mut registry = Registry::for_trace(&args.manifest, &args.mof, None)?;
    // What cannot be read here, the output's pass reports.
    if let Ok(learning) = File::open(path) {
        if let Ok(learning) = EtlReader::new(BufReader::new(learning)) {
            registry.learn_reader(learning, path);
        }
    }
    let mut selection = args.selection();
    selection.registry = Arc::new(registry);
    let clock = usable_clock(
        path,
        &reader.clock(),
        needs_time::<JsonLines>(&selection),
        true,
    )?;
    Ok((reader, selection, clock))
}

/// `--by-event`: the events of the trace `path` that pass the filters, one table per event type
/// in `folder` ([`ByEvent`]), read buffer after buffer.
fn by_event_file(args: &EtlArgs, path: &str, folder: &std::path::Path) -> Result<(), String> {
    let (mut reader, selection, clock) = open_for_parquet(args, path)?;
    let mut tables = ByEvent::create(folder)?;
    let mut problems = Problems::default();
    let mut left = selection.limit;
    let registry: &Registry = &selection.registry;
    let mut written = Ok(());
    'buffers: while left != Some(0) {
        let Some(buffer) = reader.next_buffer() else {
            break;
        };
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(error) => {
                problems.push(error.to_string());
                break;
            }
        };
        for event in buffer.events() {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    problems.push(error.to_string());
                    break;
                }
            };
            let filetime = filetime_of(&event, clock);
            let decoded = DecodedEvent::new(
                buffer.position.index,
                buffer.processor,
                event,
                filetime,
                registry,
            );
            if !selection.filter.matches(&decoded) {
                continue;
            }
            if let Err(error) = tables.push(&decoded) {
                written = Err(error);
                break 'buffers;
            }
            if let Some(left) = &mut left {
                *left -= 1;
                if *left == 0 {
                    break 'buffers;
                }
            }
        }
    }
    finish_writing(path, written, tables.close(), &problems)
}

/// Writes the `events` table of the trace `path` to the Parquet file `target`, with the same
/// first pass, filters and limit as the other formats, in file order.
fn parquet_file(args: &EtlArgs, path: &str, target: &std::path::Path) -> Result<(), String> {
    let (mut reader, selection, clock) = open_for_parquet(args, path)?;
    let mut out = EventsFile::create(target)?;
    let mut problems = Problems::default();
    let mut written = Ok(());
    // Each batch is written while the next ones are decoded, on the other cores.
    record_batches(
        &mut reader,
        &selection.registry,
        &selection.filter,
        clock,
        selection.limit,
        rayon::current_num_threads(),
        |batch| match out.write(&batch) {
            Ok(()) => true,
            Err(error) => {
                written = Err(error);
                false
            }
        },
        |problem| problems.push(problem),
    );
    // The rows read are kept, whatever stopped the reading.
    finish_writing(path, written, out.close().map(drop), &problems)
}

/// How writing the Parquet of `path` ended, once its files are closed (`closed`): the first
/// error writing them (`written`, then `closed`), else the errors met reading the trace.
fn finish_writing(
    path: &str,
    written: Result<(), String>,
    closed: Result<(), String>,
    problems: &Problems,
) -> Result<(), String> {
    written?;
    closed?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{path}: {}", problems.line()))
    }
}
