//! The outputs of `etwc etl`: what is printed before the events, for each event, and after.
//!
//! Each output is a [`Format`] in two steps, so that the events of a batch of buffers can be
//! formatted on every core while what depends on the events before them (Chrome's open spans,
//! the statistics) is kept in file (or time) order:
//!
//! - [`Format::prepare`] formats what it can of one event on its own (any thread), appending
//!   bytes to its buffer's output and returning what the second step needs;
//! - [`Format::emit`] then writes it, one event after the other in output order.

pub mod by_event;
pub mod chrome;
pub mod csv;
pub mod json;
pub mod parquet;
pub mod stats;
pub mod table;

use std::io::{self, Write};

use etw_classic::HeaderType;
use etw_classic::{
    read::ClockError, read::TraceClock, Bitness, SystemTraceHeader, TraceLogfileHeader,
};
use etw_classic_decode::headers::kind_name;
use etw_classic_decode::report::Problems;
use etw_classic_decode::DecodedEvent;

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

    /// Whether the output shows what the trace's own descriptions and process events give
    /// (names, fields): the file is then read once more before, to learn them. An output that
    /// shows none (`--summary`) reads the file once, unless a filter asks for names.
    const SHOWS_MEANING: bool = true;

    /// Whether the output has something for each event (not only a report at the end): the
    /// progress bar then stays away from a terminal that shows the output.
    const PRINTS_EVENTS: bool = true;

    /// Whether [`emit`](Self::emit) writes the bytes [`prepare`](Self::prepare) appended as
    /// they are, and nothing else: the events of a buffer may then be written in one write,
    /// without `emit`.
    const WRITES_AS_PREPARED: bool = false;

    /// Writes what comes before the events.
    fn begin(&mut self, _file: &FileInfo<'_>, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    /// Formats what can be formatted of `event` on its own, appending to `bytes`.
    fn prepare(&self, event: &DecodedEvent<'_, '_>, bytes: &mut Vec<u8>) -> Self::Item;

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

    /// Counts one event output by its own bytes ([`Format::WRITES_AS_PREPARED`]).
    pub fn count(&mut self, header_type: u8) {
        self.tally.counts_by_type[usize::from(header_type)] += 1;
        self.printed += 1;
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
