//! The outputs of `etwc etl`: what is printed before the events, for each event, and after.
//!
//! Each output is a [`Format`] in two steps, so that the events of a batch of buffers can be
//! formatted on every core while what depends on the events before them (Chrome's open spans,
//! the statistics) is kept in file (or time) order:
//!
//! - [`Format::prepare`] formats what it can of one event on its own (any thread), appending
//!   bytes to its buffer's output and returning what the second step needs;
//! - [`Format::emit`] then writes it, one event after the other in output order.

pub mod chrome;
pub mod csv;
pub mod stats;

use std::io::{self, Write};

use etw_classic::{
    read::{ClockError, TraceClock},
    wire::UtcDateTime,
    Bitness, Event, HeaderType, SystemTraceHeader, TraceLogfileHeader,
};
use serde_json::{json, Map, Value};

use crate::etl::{dated_event_json, event_line, kind_name, meaning_text};
use etw_classic_decode::Registry;

/// Where an event stands, when it happened, and the schemas that give it meaning.
#[derive(Clone, Copy, Debug)]
pub struct EventContext<'r> {
    /// The index of the buffer that holds it, in file order.
    pub buffer: usize,
    /// The processor of that buffer.
    pub processor: u16,
    /// The event's FILETIME (its raw timestamp through the file's clock), if it has one.
    pub filetime: Option<i64>,
    /// The schemas and process names of the trace.
    pub registry: &'r Registry,
}

impl EventContext<'_> {
    /// The time as ISO 8601 UTC, seven fractional digits.
    pub fn time(&self) -> Option<String> {
        self.filetime
            .map(|filetime| UtcDateTime::from_filetime(filetime).to_string())
    }
}

/// What the file says of itself before its events, for the formats that print it.
pub struct FileInfo<'a> {
    /// The path as given, or "standard input".
    pub path: &'a str,
    pub header: TraceLogfileHeader,
    /// The `SYSTEM_TRACE_HEADER` before the logfile header.
    pub system_header: SystemTraceHeader,
    pub logger_name: String,
    pub log_file_name: String,
    pub bitness: Bitness,
    /// The file's clock, or why it cannot be read (every event is then without a time).
    pub clock: Result<TraceClock, ClockError>,
    /// Whether `BuffersWritten` was 0, so that the file was read to its end.
    pub unflushed: bool,
}

impl<'a> FileInfo<'a> {
    /// What `reader` has read of the file's start; `unflushed` is known only at the end.
    pub fn from_reader<R: std::io::Read>(
        path: &'a str,
        reader: &etw_classic::EtlReader<R>,
    ) -> Self {
        let names = reader.names();
        Self {
            path,
            header: reader.logfile_header(),
            system_header: reader.system_header(),
            logger_name: names.logger_name.to_string(),
            log_file_name: names.log_file_name.to_string(),
            bitness: reader.bitness(),
            clock: reader.clock(),
            unflushed: false,
        }
    }
}

/// What was read besides the output: buffers read, the events output counted by header type,
/// and the errors met (each naming its buffer).
pub struct Tally {
    pub buffers: u64,
    pub counts_by_type: [u64; 256],
    pub problems: Problems,
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            buffers: 0,
            counts_by_type: [0; 256],
            problems: Problems::default(),
        }
    }
}

/// The errors met while reading, each naming its buffer: the first [`Problems::KEPT`] as
/// they were said, the others counted, so that a file of a million bad buffers takes the
/// memory of a few messages, not of a million.
#[derive(Clone, Debug, Default)]
pub struct Problems {
    kept: Vec<String>,
    more: u64,
}

impl Problems {
    /// The messages kept.
    pub const KEPT: usize = 20;

    /// Notes one more error.
    pub fn push(&mut self, problem: String) {
        if self.kept.len() < Self::KEPT {
            self.kept.push(problem);
        } else {
            self.more += 1;
        }
    }

    /// Whether no error was met.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// One line: the messages kept, joined by "; ", then how many more errors there were.
    pub fn line(&self) -> String {
        let mut line = self.kept.join("; ");
        if self.more > 0 {
            line.push_str(&format!(
                "; and {} more {}",
                self.more,
                if self.more == 1 { "error" } else { "errors" }
            ));
        }
        line
    }
}

impl Extend<String> for Problems {
    fn extend<T: IntoIterator<Item = String>>(&mut self, problems: T) {
        for problem in problems {
            self.push(problem);
        }
    }
}

impl Tally {
    /// Every event output.
    pub fn events(&self) -> u64 {
        self.counts_by_type.iter().sum()
    }

    /// The events output by the name of their kind, for the kinds met.
    pub fn kinds(&self) -> Vec<(String, u64)> {
        let mut kinds: Vec<(String, u64)> = (0..=u8::MAX)
            .zip(self.counts_by_type)
            .filter(|&(_, count)| count != 0)
            .map(|(header_type, count)| (kind_name(HeaderType(header_type)), count))
            .collect();
        kinds.sort();
        kinds
    }
}

/// One output of `etwc etl`.
pub trait Format: Sync {
    /// What [`prepare`](Self::prepare) hands over to [`emit`](Self::emit) besides its bytes.
    type Item: Send;

    /// Whether an event without a time is left out (the Chrome format places every event in
    /// time): such a format refuses a file whose clock cannot be read, where every event would
    /// be left out.
    const NEEDS_TIME: bool = false;

    /// Whether the output shows the events' time (`null`, `-` or an empty field where there is
    /// none): for a file whose clock cannot be read, one line on standard error says that no
    /// event has a time, and why.
    const SHOWS_TIME: bool = true;

    /// Whether the output has something for each event (not only a report at the end): the
    /// progress bar then stays away from a terminal that shows the output.
    const PRINTS_EVENTS: bool = true;

    /// Writes what comes before the events.
    fn begin(&mut self, _file: &FileInfo<'_>, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    /// Formats what can be formatted of `event` on its own, appending to `bytes`.
    fn prepare(
        &self,
        context: &EventContext<'_>,
        event: &Event<'_>,
        bytes: &mut Vec<u8>,
    ) -> Self::Item;

    /// Writes the event prepared as `item` and `bytes`, after every event before it.
    fn emit(&mut self, item: Self::Item, bytes: &[u8], out: &mut dyn Write) -> io::Result<()>;

    /// Writes what comes after the events.
    fn end(
        &mut self,
        _tally: &Tally,
        _file: &FileInfo<'_>,
        _out: &mut dyn Write,
    ) -> io::Result<()> {
        Ok(())
    }
}

/// The formats that print one line per event, made in [`Format::prepare`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// The text lines of `--format table`.
    Table,
    /// The JSON lines of `--format json`.
    Json,
}

impl Format for Lines {
    type Item = ();

    fn begin(&mut self, file: &FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Self::Json => writeln!(out, "{}", Value::Object(file_json(file))),
            Self::Table => writeln!(out, "{}", file_line(file)),
        }
    }

    fn prepare(&self, context: &EventContext<'_>, event: &Event<'_>, bytes: &mut Vec<u8>) {
        // Writing to a Vec<u8> cannot fail.
        let _ = match self {
            Self::Json => writeln!(bytes, "{}", Value::Object(dated_event_json(context, event))),
            Self::Table => {
                let time = context.time();
                let mut line = event_line(context.buffer, event, time.as_deref().unwrap_or("-"));
                meaning_text(context.registry, event, &mut line);
                writeln!(bytes, "{}", line.trim_end())
            }
        };
    }

    fn emit(&mut self, (): (), bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
        out.write_all(bytes)
    }
}

/// The first JSON line: the logfile header.
pub fn file_json(file: &FileInfo<'_>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("kind".into(), json!("LOGFILE_HEADER"));
    map.insert(
        "system_header".into(),
        Value::Object(crate::fields::system_header_json(&file.system_header)),
    );
    map.insert(
        "logfile_header".into(),
        Value::Object(crate::fields::logfile_header_json(&file.header)),
    );
    map.insert("logger_name".into(), json!(file.logger_name));
    map.insert("log_file_name".into(), json!(file.log_file_name));
    map
}

/// The first text line: the logfile header.
fn file_line(file: &FileInfo<'_>) -> String {
    let header = &file.header;
    format!(
        "logfile header: logger {:?}, file {:?}, {} logger, buffer size {}, {} buffers \
         written, {} events lost, {} buffers lost, clock {:?}, timer resolution {} \
         (100 ns), start {}, end {}, perf freq {}",
        file.logger_name,
        file.log_file_name,
        file.bitness,
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
}
