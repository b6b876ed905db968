//! `etwc assemble`: an .etl file from the trace buffers a target dumped.
//!
//! The dump is any file that holds trace buffers: a RAM dump of the session's pool, a
//! semihosting or RTT stream of the buffers as they were handed over, a file of concatenated
//! buffers, an .etl file. Standard input, a pipe or a FIFO is copied into a temporary file as
//! it arrives, watched for [`STREAM_GAP_LIMIT`] bytes without a trace buffer
//! ([`Dump::from_stream`]), then read as a regular file is. It is read through a window: to
//! find the buffers (twice when their `BufferSize` is not given: once to choose it), then to
//! copy them, in `SequenceNumber` order, behind a logfile header written for them
//! ([`etw_classic::EtlWriter`]).
//!
//! Memory, whatever the dump's length: the window (the largest buffer, 16 MiB, and its header,
//! 1 MiB kept behind, a 64 KiB read); 24 bytes per whole buffer the first pass finds and about
//! 64 per whole buffer kept (its `SequenceNumber`, offset and `LoggerId`, to write them in
//! order; a whole buffer takes at least 80 bytes of the dump); the notes, at most [`MAX_NOTES`]
//! of at most [`MAX_LISTED`] buffers each, the others counted; the `SequenceNumber`s of at most
//! 65,536 torn buffers. A torn buffer is described when found and then forgotten. A stream adds
//! its watch: at most one buffer (16 MiB) and a 64 KiB read, and its copy on disk.
//!
//! See [`AFTER_HELP`] for what is recognised as a trace buffer, how the header's members are
//! chosen and the exit codes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use etw_classic::{
    read::{TraceClock, MAX_BUFFER_SIZE},
    wire::{BufferFlags, BufferType, UtcDateTime, VersionDetail},
    Bitness, ClockType, EtlHeader, EtlWriter, TraceBuffer, WmiBufferHeader,
};

/// `etwc assemble --help`, after the options.
pub const AFTER_HELP: &str = "\
What is recognised as a trace buffer: a WMI_BUFFER_HEADER at any byte offset of the dump whose
- BufferSize is the --buffer-size given, or else a multiple of 8 above 72 and at most 16 MiB
  (then the BufferSize most of the whole buffers have is the file's);
- BufferType is one of ntwmi.h's (0 to 7), BufferFlag has no bit but FLUSH_MARKER,
  EVENTS_LOST, BUFFER_LOST, RTBACKUP_CORRUPT, RTBACKUP and PROC_INDEX (a compressed buffer is
  not one), State is at most 3 (flush) and SequenceNumber is not negative.
Such a buffer is whole when all its BufferSize bytes are in the dump, its Offset lies between
its 72-byte header and BufferSize, no other such header of the same BufferSize starts inside
it, and its events walk cleanly up to Offset. Whole buffers are written in SequenceNumber
order (the first one found of a SequenceNumber; the later ones are reported); a buffer of
BufferType HEADER (an .etl file's logfile header buffer) is replaced by the one written.
Every other byte is reported on stderr as a range, with why it was not used: a torn buffer
(its header claims more bytes than the dump holds, an Offset out of range, another buffer's
header inside it, events that do not walk) or no buffer header at all.

The logfile header: BufferSize and BuffersWritten from the buffers; the pointer size from
the events' header types (64-bit if any is, else 32-bit) unless --pointer-size says;
LoggerId from the buffers; NumberOfProcessors one more than their highest processor number;
BuffersLost the SequenceNumbers missing between the lowest and highest of the whole buffers
plus the torn buffers' others; EventsLost 0 (the buffers only say that some were lost, with
EVENTS_LOST). The clock: with --clock system (the default) the raw timestamps are FILETIMEs,
StartTime is the earliest event's; with qpc or cpu-cycles, --frequency and --start-time are
needed (--start-time dates --start-timestamp, by default the earliest event's raw
timestamp). EndTime is the latest event or buffer timestamp, as a FILETIME, unless --end-time
says (events lost after the last buffer was sealed happened later).

The dump: a regular file is read in place. Standard input (-), a pipe, a FIFO or a device is
read as a stream as its bytes arrive (a semihosting or RTT stream), copied to a temporary
file (in $TMPDIR) and then read as a file of the same bytes would be, to the same .etl file.
Memory stays bounded (one buffer and a read are held while it arrives). A stream may go on
for at most 64 MiB (67108864 bytes) after the end of the last trace buffer found in it, or
from its start: then reading stops with an error naming the bytes, so that an endless input
(/dev/zero, yes) ends. Save a stream to a file to assemble longer gaps.

--describe FILE.mof: for each event type of the .mof (read as `etwc etl --mof` reads one),
a MetaData/EventInfo event (a TRACE_EVENT_INFO, DecodingSource WMI MOF) is written, as a
target writes it with etw_classic::describe::trace_event_infos, in trace buffers of the
file's BufferSize before the dump's: processor 0, stamped with the earliest event's
timestamp, numbered just below the dump's lowest SequenceNumber when there is room above 0,
else just above its highest. Readers then name the events' fields from the .etl file alone.

TIME is a FILETIME (100 ns intervals since 1601) or a UTC date and time,
2026-11-21T00:00:00Z or 2026-11-21T00:00:00.1234567Z.

Exit status: 0 when the .etl file was written (bytes not used are reported on stderr);
1 when the dump holds no whole trace buffer (or only ones too small for the logfile header's
buffer), a stream went on for 64 MiB without one, or a file cannot be read or written; 2 for
a bad command line.";

/// What the raw timestamps count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// FILETIMEs (ReservedFlags 2): the clock of the firmware traces
    System,
    /// A query performance counter of --frequency ticks per second (ReservedFlags 1)
    Qpc,
    /// A CPU cycle counter of --frequency Hz, a whole number of MHz (ReservedFlags 3)
    CpuCycles,
}

/// `etwc assemble`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The dump: raw bytes holding trace buffers (RAM dump, semihosting or RTT stream,
    /// concatenated buffers); `-` for standard input; a pipe or FIFO is read as it arrives
    dump: PathBuf,
    /// The .etl file to write
    #[arg(short, long, value_name = "OUT.etl")]
    output: PathBuf,
    /// The buffers' BufferSize (default: the one most whole buffers found have)
    #[arg(long, value_name = "BYTES", value_parser = parse_buffer_size)]
    buffer_size: Option<u32>,
    /// The logger's pointer size in bytes, 4 or 8 (default: from the events' header types)
    #[arg(long, value_name = "BYTES", value_parser = parse_pointer_size)]
    pointer_size: Option<Bitness>,
    /// What the raw timestamps count
    #[arg(long, value_enum, default_value_t = ClockArg::System)]
    clock: ClockArg,
    /// Ticks per second of a qpc or cpu-cycles clock
    #[arg(long, value_name = "HZ", required_if_eq_any = [("clock", "qpc"), ("clock", "cpu-cycles")])]
    frequency: Option<NonZeroU64>,
    /// StartTime (default with the system clock: the earliest event's timestamp)
    #[arg(long, value_name = "TIME", value_parser = parse_time,
          required_if_eq_any = [("clock", "qpc"), ("clock", "cpu-cycles")])]
    start_time: Option<i64>,
    /// The raw timestamp --start-time dates, for a qpc or cpu-cycles clock (default: the
    /// earliest event's)
    #[arg(long, value_name = "RAW")]
    start_timestamp: Option<i64>,
    /// EndTime (default: the latest event or buffer timestamp)
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    end_time: Option<i64>,
    /// BootTime (default 0, unknown)
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    boot_time: Option<i64>,
    /// CpuSpeedInMHz (default: --frequency in MHz for cpu-cycles, else 1; never 0, which
    /// dissect.etl divides by)
    #[arg(long, value_name = "MHZ", value_parser = clap::value_parser!(u32).range(1..))]
    cpu_mhz: Option<u32>,
    /// NumberOfProcessors (default: one more than the buffers' highest processor number)
    #[arg(long, value_name = "N")]
    processors: Option<u32>,
    /// EventsLost (default 0)
    #[arg(long, value_name = "N")]
    events_lost: Option<u32>,
    /// BuffersLost (default: the SequenceNumbers missing, see below)
    #[arg(long, value_name = "N")]
    buffers_lost: Option<u32>,
    /// The logger's name written after the logfile header (default: none)
    #[arg(long, value_name = "NAME", default_value = "")]
    logger_name: String,
    /// The log file's name written after it (default: OUT.etl as given)
    #[arg(long, value_name = "NAME")]
    log_file_name: Option<String>,
    /// A .mof describing the trace's classic events: one MetaData/EventInfo event per event
    /// type is written, in trace buffers before the dump's, so that readers name the events'
    /// fields from the .etl file alone
    #[arg(long, value_name = "FILE.mof")]
    pub describe: Option<PathBuf>,
}

impl Args {
    /// The arguments `etwc assemble DUMP -o OUTPUT` has with no option: every default.
    pub fn new(dump: PathBuf, output: PathBuf) -> Self {
        Self {
            dump,
            output,
            buffer_size: None,
            pointer_size: None,
            clock: ClockArg::System,
            frequency: None,
            start_time: None,
            start_timestamp: None,
            end_time: None,
            boot_time: None,
            cpu_mhz: None,
            processors: None,
            events_lost: None,
            buffers_lost: None,
            logger_name: String::new(),
            log_file_name: None,
            describe: None,
        }
    }

    /// What clap cannot check: the clock's options fit the clock. `None` when they do; else
    /// the message of a usage error.
    fn clock_problem(&self) -> Option<String> {
        match self.clock {
            ClockArg::System => {
                (self.frequency.is_some() || self.start_timestamp.is_some()).then(|| {
                    "--frequency and --start-timestamp are for a qpc or cpu-cycles clock; the \
                     system clock's raw timestamps are FILETIMEs"
                        .to_owned()
                })
            }
            ClockArg::Qpc => self
                .frequency
                .filter(|frequency| i64::try_from(frequency.get()).is_err())
                .map(|frequency| format!("--frequency {frequency} does not fit PerfFreq (an i64)")),
            ClockArg::CpuCycles => {
                let frequency = self.frequency?;
                match cycle_counter_megahertz(frequency) {
                    None => Some(format!(
                        "--frequency {frequency}: a cpu-cycles clock counts a whole number of \
                         MHz (CpuSpeedInMHz)"
                    )),
                    Some(megahertz) if self.cpu_mhz.is_some_and(|given| given != megahertz) => {
                        Some(format!(
                            "--cpu-mhz contradicts --frequency {frequency} of the cpu-cycles \
                             clock"
                        ))
                    }
                    Some(_) => None,
                }
            }
        }
    }
}

/// The `CpuSpeedInMHz` of a cycle counter of `frequency` Hz, when it is a whole number of MHz
/// that fits.
fn cycle_counter_megahertz(frequency: NonZeroU64) -> Option<u32> {
    let megahertz = u32::try_from(frequency.get() / 1_000_000).ok()?;
    (megahertz > 0 && u64::from(megahertz) * 1_000_000 == frequency.get()).then_some(megahertz)
}

/// A `--buffer-size`: a multiple of 8 above the 72-byte header, at most the reader's 16 MiB.
fn parse_buffer_size(text: &str) -> Result<u32, String> {
    let size: u32 = text
        .parse()
        .map_err(|error| format!("expected a number of bytes: {error}"))?;
    if !plausible_size(size) {
        return Err(format!(
            "expected a multiple of 8 above {} and at most {MAX_BUFFER_SIZE}, found {size}",
            WmiBufferHeader::LEN
        ));
    }
    Ok(size)
}

/// A `--pointer-size`: 4 or 8.
fn parse_pointer_size(text: &str) -> Result<Bitness, String> {
    match text {
        "4" => Ok(Bitness::Bits32),
        "8" => Ok(Bitness::Bits64),
        other => Err(format!("expected 4 or 8, found {other:?}")),
    }
}

/// A TIME: a FILETIME, or `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (at most seven fraction digits).
pub fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(filetime) = text.parse::<i64>() {
        return Ok(filetime);
    }
    let expected = || {
        format!(
            "expected a FILETIME or a UTC date and time such as 2026-11-21T00:00:00Z, found \
             {text:?}"
        )
    };
    let rest = text.strip_suffix('Z').ok_or_else(expected)?;
    let (date, time) = rest.split_once('T').ok_or_else(expected)?;
    let (time, fraction) = time.split_once('.').unwrap_or((time, ""));
    let three = |part: &str, separator: char| -> Option<[u32; 3]> {
        let fields: Vec<u32> = part
            .split(separator)
            .map(|field| field.parse().ok())
            .collect::<Option<_>>()?;
        fields.try_into().ok()
    };
    let [year, month, day] = three(date, '-').ok_or_else(expected)?;
    let [hour, minute, second] = three(time, ':').ok_or_else(expected)?;
    if fraction.len() > 7 || !fraction.chars().all(|digit| digit.is_ascii_digit()) {
        return Err(expected());
    }
    let intervals = format!("{fraction:0<7}").parse().map_err(|_| expected())?;
    let small = |value: u32| u8::try_from(value).map_err(|_| expected());
    UtcDateTime {
        year: i32::try_from(year).map_err(|_| expected())?,
        month: small(month)?,
        day: small(day)?,
        hour: small(hour)?,
        minute: small(minute)?,
        second: small(second)?,
        intervals,
    }
    .to_filetime()
    .ok_or_else(expected)
}

/// Bytes that can be read anywhere: a regular file, the copy of a stream, bytes in memory.
pub trait Source: Read + Seek {}
impl<T: Read + Seek> Source for T {}

/// The dump, read through a window that moves forward: at most a few MiB and one buffer in
/// memory.
pub struct Dump {
    source: Box<dyn Source>,
    len: u64,
    /// The dump offset of `window[0]`; the source is positioned at `base + window.len()`.
    base: u64,
    window: Vec<u8>,
}

/// Bytes read from the file at a time, at least.
const READ_CHUNK: usize = 64 << 10;
/// Bytes before the window's start that are dropped once there are this many.
const KEEP_BEHIND: usize = 1 << 20;
/// The longest unused range checked for being all one byte value.
const UNIFORM_LIMIT: u64 = 1 << 20;

/// The most bytes a stream (standard input, a pipe, a FIFO, a character device) may hold after
/// the last trace buffer found in it, or from its start when none was, before reading stops
/// with an error: 64 MiB, four times the largest buffer.
pub const STREAM_GAP_LIMIT: u64 = 64 << 20;

impl Dump {
    /// The dump `name`: standard input for `-`; a regular file read in place; anything else
    /// (a pipe, a FIFO, a character device) read as a stream into a temporary file
    /// ([`Dump::from_stream`], with [`STREAM_GAP_LIMIT`]).
    pub fn open(path: &Path) -> Result<Self, String> {
        let spool = || {
            tempfile::tempfile()
                .map_err(|error| format!("cannot create a temporary file for the stream: {error}"))
        };
        if path == Path::new("-") {
            return Self::from_stream(
                std::io::stdin().lock(),
                spool()?,
                "standard input",
                STREAM_GAP_LIMIT,
            );
        }
        let cannot = |error: std::io::Error| format!("cannot read {}: {error}", path.display());
        let file = File::open(path).map_err(cannot)?;
        let metadata = file.metadata().map_err(cannot)?;
        if metadata.is_file() {
            return Ok(Self::from_source(Box::new(file), metadata.len()));
        }
        Self::from_stream(
            file,
            spool()?,
            &path.display().to_string(),
            STREAM_GAP_LIMIT,
        )
    }

    /// A dump of `len` bytes read from `source`, which starts at its current position 0.
    pub fn from_source(source: Box<dyn Source>, len: u64) -> Self {
        Self {
            source,
            len,
            base: 0,
            window: Vec::new(),
        }
    }

    /// A dump held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        let len = bytes.len() as u64;
        Self::from_source(Box::new(std::io::Cursor::new(bytes)), len)
    }

    /// The bytes of `input` as they arrive (a semihosting or RTT stream: short reads, no
    /// length known, no seeking), copied into `spool` (a temporary file), which the dump then
    /// reads as it reads a regular file: the .etl written is the one the same bytes in a file
    /// give. The stream is watched as it arrives, in a window of at most one buffer and a read:
    /// once `gap_limit` bytes have come after the end of the last trace buffer found (or from
    /// the start), reading stops with an error naming the offsets, so that an endless input
    /// (`/dev/zero`, `yes`) ends. A trace buffer here is a header that passes the checks of
    /// [`AFTER_HELP`] with any plausible `BufferSize`, whose `BufferSize` bytes arrived and
    /// whose events walk.
    pub fn from_stream<S: Read + Write + Seek + 'static>(
        mut input: impl Read,
        mut spool: S,
        name: &str,
        gap_limit: u64,
    ) -> Result<Self, String> {
        let mut watch = Watch::new(gap_limit);
        let mut chunk = vec![0u8; READ_CHUNK];
        let mut len = 0u64;
        let spool_error =
            |error: std::io::Error| format!("cannot copy {name} to a temporary file: {error}");
        loop {
            let read = match input.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(format!("cannot read {name}: {error}")),
            };
            let bytes = &chunk[..read];
            spool.write_all(bytes).map_err(spool_error)?;
            len += read as u64;
            watch.feed(bytes, false).map_err(|gap| gap.message(name))?;
        }
        watch.feed(&[], true).map_err(|gap| gap.message(name))?;
        spool.flush().map_err(spool_error)?;
        spool.seek(SeekFrom::Start(0)).map_err(spool_error)?;
        Ok(Self::from_source(Box::new(spool), len))
    }

    /// The dump's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the dump holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Up to `len` bytes from `start`: fewer where the dump ends.
    fn bytes(&mut self, start: u64, len: usize) -> std::io::Result<&[u8]> {
        let end = start.saturating_add(len as u64).min(self.len);
        let window_end = self.base + self.window.len() as u64;
        if start < self.base || start > window_end {
            self.source.seek(SeekFrom::Start(start))?;
            self.window.clear();
            self.base = start;
        } else if start - self.base >= KEEP_BEHIND as u64 {
            self.window.drain(..(start - self.base) as usize);
            self.base = start;
        }
        let needed = (end.max(start) - self.base) as usize;
        if self.window.len() < needed {
            let more = (needed - self.window.len()).max(READ_CHUNK) as u64;
            (&mut self.source)
                .take(more)
                .read_to_end(&mut self.window)?;
        }
        let from = (start - self.base) as usize;
        let to = needed.min(self.window.len());
        Ok(&self.window[from.min(to)..to])
    }
}

/// A stream watched as it arrives, for [`Dump::from_stream`]: where the last trace buffer
/// found ends, and the bytes from the next offset to look at (at most one buffer and a read).
struct Watch {
    gap_limit: u64,
    /// The stream offset of `window[0]`, the next offset to look at.
    at: u64,
    window: Vec<u8>,
    /// Where the last trace buffer found ends; 0 before the first.
    found_end: u64,
    buffers: u64,
}

/// A stream that went on for the gap limit without a trace buffer.
struct Gap {
    from: u64,
    at: u64,
    buffers: u64,
    limit: u64,
}

impl Gap {
    fn message(&self, name: &str) -> String {
        let after = match self.buffers {
            0 => String::new(),
            1 => " after the one trace buffer found".to_owned(),
            many => format!(" after the last of the {many} trace buffers found"),
        };
        let limit = if self.limit.is_multiple_of(1 << 20) {
            format!("{} MiB", self.limit >> 20)
        } else {
            format!("{} bytes", self.limit)
        };
        format!(
            "{name}: no trace buffer in bytes {}..{} ({} bytes){after}: stopped reading there; \
             a stream may go on for at most {limit} without a trace buffer (to assemble it all, \
             save it to a file first)",
            self.from,
            self.at,
            self.at - self.from,
        )
    }
}

impl Watch {
    fn new(gap_limit: u64) -> Self {
        Self {
            gap_limit,
            at: 0,
            window: Vec::new(),
            found_end: 0,
            buffers: 0,
        }
    }

    /// Takes the next bytes of the stream (`end`: there are no more) and looks at every offset
    /// it can decide.
    fn feed(&mut self, bytes: &[u8], end: bool) -> Result<(), Gap> {
        self.window.extend_from_slice(bytes);
        let mut skip = 0usize;
        loop {
            if self.at + skip as u64 - self.found_end >= self.gap_limit {
                self.at += skip as u64;
                return Err(Gap {
                    from: self.found_end,
                    at: self.at,
                    buffers: self.buffers,
                    limit: self.gap_limit,
                });
            }
            let rest = &self.window[skip..];
            let Some(head) = rest.first_chunk::<0x48>() else {
                if end {
                    skip = self.window.len();
                }
                break;
            };
            let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            if !plausible_size(size) {
                skip += 1;
                continue;
            }
            let header = WmiBufferHeader::from_bytes(head);
            if !looks_like_buffer(&header, SizeRule::Plausible) || !offset_in_range(&header) {
                skip += 1;
                continue;
            }
            let Some(buffer) = rest.get(..size as usize) else {
                if end {
                    skip += 1;
                    continue;
                }
                break;
            };
            if walk_events(buffer).is_ok() {
                skip += size as usize;
                self.buffers += 1;
                self.found_end = self.at + skip as u64;
            } else {
                skip += 1;
            }
        }
        self.window.drain(..skip.min(self.window.len()));
        self.at += skip as u64;
        Ok(())
    }
}

/// Which `BufferSize`s a header may claim.
#[derive(Clone, Copy)]
enum SizeRule {
    Exact(u32),
    Plausible,
}

/// Whether `header` looks like a trace buffer's (see [`AFTER_HELP`]).
fn looks_like_buffer(header: &WmiBufferHeader, rule: SizeRule) -> bool {
    let size_ok = match rule {
        SizeRule::Exact(size) => header.buffer_size == size,
        SizeRule::Plausible => plausible_size(header.buffer_size),
    };
    let known_flags = BufferFlags::FLUSH_MARKER.0
        | BufferFlags::EVENTS_LOST.0
        | BufferFlags::BUFFER_LOST.0
        | BufferFlags::RTBACKUP_CORRUPT.0
        | BufferFlags::RTBACKUP.0
        | BufferFlags::PROC_INDEX.0;
    size_ok
        && header.buffer_type.0 < BufferType::MAXIMUM.0
        && header.buffer_flag.0 & !known_flags == 0
        && header.state <= 3
        && header.sequence_number >= 0
}

fn plausible_size(size: u32) -> bool {
    size.is_multiple_of(8)
        && size as usize > WmiBufferHeader::LEN
        && size as usize <= MAX_BUFFER_SIZE
}

/// Whether `Offset` lies between the header and `BufferSize`.
fn offset_in_range(header: &WmiBufferHeader) -> bool {
    header.offset as usize >= WmiBufferHeader::LEN && header.offset <= header.buffer_size
}

/// What the events of a whole buffer say.
#[derive(Clone, Copy, Debug, Default)]
struct EventSummary {
    events: u64,
    earliest: Option<i64>,
    latest: Option<i64>,
    bits32: bool,
    bits64: bool,
}

/// Why a buffer header's buffer cannot be used.
#[derive(Debug)]
enum Torn {
    /// The dump ends `available` bytes after its start.
    CutShort { available: u64 },
    /// `Offset` is outside the header..`BufferSize` range.
    OffsetOutOfRange,
    /// Another header of the same `BufferSize` starts `at` bytes into it.
    CutBy { at: u64 },
    /// Its events do not walk.
    Events { error: String },
}

#[derive(Debug)]
enum Verdict {
    Whole(EventSummary),
    Torn(Torn),
}

/// A buffer header found in the dump, and what came of it.
#[derive(Debug)]
struct Found {
    offset: u64,
    header: WmiBufferHeader,
    verdict: Verdict,
}

impl Found {
    fn is_whole_trace_buffer(&self) -> bool {
        matches!(self.verdict, Verdict::Whole(_)) && self.header.buffer_type != BufferType::HEADER
    }

    fn end(&self) -> u64 {
        self.offset + u64::from(self.header.buffer_size)
    }

    /// Where the bytes of this torn buffer that the dump holds end, as far as they are its
    /// own: up to the header that cuts it, or the end of the dump.
    fn torn_end(&self, torn: &Torn, dump_len: u64) -> u64 {
        match torn {
            Torn::CutBy { at } => self.offset + at,
            _ => self.end().min(dump_len),
        }
    }

    fn describe_torn(&self, torn: &Torn) -> String {
        let header = &self.header;
        let what = format!(
            "a torn buffer at {} (SequenceNumber {}, BufferSize {})",
            self.offset, header.sequence_number, header.buffer_size
        );
        match torn {
            Torn::CutShort { available } => format!(
                "{what}: the dump ends {available} bytes into its {} bytes",
                header.buffer_size
            ),
            Torn::OffsetOutOfRange => format!(
                "{what}: its Offset {} is outside {}..={}",
                header.offset,
                WmiBufferHeader::LEN,
                header.buffer_size
            ),
            Torn::CutBy { at } => format!(
                "{what}: another buffer header starts {at} bytes into it, at {}",
                self.offset + at
            ),
            Torn::Events { error } => format!("{what}: its events do not walk: {error}"),
        }
    }
}

/// Looks at the buffer whose header `header` is at `offset`.
fn classify(dump: &mut Dump, offset: u64, header: &WmiBufferHeader) -> std::io::Result<Verdict> {
    let size = header.buffer_size as usize;
    if !offset_in_range(header) {
        return Ok(Verdict::Torn(Torn::OffsetOutOfRange));
    }
    // The buffer and what a header starting in its last bytes needs.
    let bytes = dump.bytes(offset, size + WmiBufferHeader::LEN)?;
    if bytes.len() < size {
        return Ok(Verdict::Torn(Torn::CutShort {
            available: bytes.len() as u64,
        }));
    }
    let claimed = header.buffer_size.to_le_bytes();
    for at in 1..size {
        let Some(head) = bytes.get(at..).and_then(|rest| rest.first_chunk::<0x48>()) else {
            break;
        };
        if head[..4] != claimed {
            continue;
        }
        let inner = WmiBufferHeader::from_bytes(head);
        if looks_like_buffer(&inner, SizeRule::Exact(header.buffer_size)) && offset_in_range(&inner)
        {
            return Ok(Verdict::Torn(Torn::CutBy { at: at as u64 }));
        }
    }
    Ok(match walk_events(&bytes[..size]) {
        Ok(summary) => Verdict::Whole(summary),
        Err(error) => Verdict::Torn(Torn::Events { error }),
    })
}

/// Walks the events of the buffer `bytes`: what they say, or the first error.
fn walk_events(bytes: &[u8]) -> Result<EventSummary, String> {
    let buffer = TraceBuffer::parse(bytes).map_err(|error| error.to_string())?;
    let mut summary = EventSummary::default();
    for event in buffer.events() {
        let event = event.map_err(|error| error.to_string())?;
        summary.events += 1;
        match event.header_type.bitness() {
            Some(Bitness::Bits32) => summary.bits32 = true,
            Some(Bitness::Bits64) => summary.bits64 = true,
            None => {}
        }
        if let Some(timestamp) = event.timestamp() {
            summary.earliest = Some(summary.earliest.map_or(timestamp, |t| t.min(timestamp)));
            summary.latest = Some(summary.latest.map_or(timestamp, |t| t.max(timestamp)));
        }
    }
    Ok(summary)
}

/// A whole trace buffer the first pass found (with any plausible `BufferSize`): what the
/// choice of the file's `BufferSize` and the notes on the others need, 24 bytes.
struct Sized {
    offset: u64,
    sequence_number: i64,
    buffer_size: u32,
}

/// The `BufferSize` most whole trace buffers of `found` have (the first found of two as
/// common); `None` when there is no whole trace buffer.
fn most_common_size(found: &[Sized]) -> Option<u32> {
    let mut counts: BTreeMap<u32, (usize, Reverse<u64>)> = BTreeMap::new();
    for item in found {
        let entry = counts
            .entry(item.buffer_size)
            .or_insert((0, Reverse(item.offset)));
        entry.0 += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(_, count_and_first)| count_and_first)
        .map(|(size, _)| size)
}

/// Hands `take` every buffer header of the dump that passes [`looks_like_buffer`], and what
/// came of it, in the order of their offsets; nothing is kept here.
fn scan(
    dump: &mut Dump,
    rule: SizeRule,
    mut take: impl FnMut(&mut Dump, Found) -> Result<(), String>,
) -> Result<(), ScanError> {
    let mut offset = 0u64;
    while offset + WmiBufferHeader::LEN as u64 <= dump.len {
        let bytes = dump.bytes(offset, WmiBufferHeader::LEN)?;
        let Some(head) = bytes.first_chunk::<0x48>() else {
            break;
        };
        let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let size_ok = match rule {
            SizeRule::Exact(expected) => size == expected,
            SizeRule::Plausible => plausible_size(size),
        };
        let header = WmiBufferHeader::from_bytes(head);
        if !size_ok || !looks_like_buffer(&header, rule) {
            offset += 1;
            continue;
        }
        let verdict = classify(dump, offset, &header)?;
        let next = match verdict {
            Verdict::Whole(_) => offset + u64::from(size),
            Verdict::Torn(_) => offset + 1,
        };
        take(
            dump,
            Found {
                offset,
                header,
                verdict,
            },
        )
        .map_err(ScanError::Taken)?;
        offset = next;
    }
    Ok(())
}

/// Why a scan stopped.
enum ScanError {
    Io(std::io::Error),
    /// The message of what was given the buffers.
    Taken(String),
}

impl From<std::io::Error> for ScanError {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

/// The notes printed on stderr: the first [`MAX_NOTES`] kept, the others counted.
#[derive(Default)]
struct Notes {
    shown: Vec<String>,
    hidden: usize,
}

impl Notes {
    fn push(&mut self, note: String) {
        if self.shown.len() < MAX_NOTES {
            self.shown.push(note);
        } else {
            self.hidden += 1;
        }
    }
}

/// The buffers a gap of the dump holds, for its note: the first [`MAX_LISTED`] (by offset)
/// described, the others counted.
#[derive(Default)]
struct Inside {
    listed: Vec<(u64, String)>,
    more: usize,
}

impl Inside {
    fn push(&mut self, offset: u64, text: String) {
        if self.listed.len() < MAX_LISTED {
            self.listed.push((offset, text));
        } else {
            self.more += 1;
        }
    }
}

/// What the second pass builds, buffer by buffer in the order of their offsets, keeping per
/// buffer no more than a whole buffer's `SequenceNumber`, offset and `LoggerId`.
#[derive(Default)]
struct Assembly {
    /// The whole buffers written, by `SequenceNumber`: their offset and `LoggerId`.
    kept: BTreeMap<i64, (u64, u16)>,
    /// What the kept buffers say.
    summary: EventSummary,
    latest_buffer_timestamp: Option<i64>,
    processors: u32,
    logger_ids: BTreeSet<u16>,
    events_lost_flags: usize,
    /// The notes on byte ranges, in the order of their offsets.
    notes: Notes,
    /// Where the bytes not covered by a whole buffer start (the end of the last one).
    gap_start: u64,
    /// The torn buffers and the whole ones of other sizes found since.
    inside: Inside,
    /// Where the bytes of the last torn buffer noted end.
    torn_end: Option<u64>,
    any_torn: bool,
    /// The `SequenceNumber`s of the torn buffers (at most [`MAX_TORN_NUMBERS`]), and how many
    /// torn buffers came after that many.
    torn_numbers: BTreeSet<i64>,
    torn_numbers_uncounted: u64,
}

/// The buffers described in one note, at most.
const MAX_LISTED: usize = 20;
/// The `SequenceNumber`s of torn buffers remembered for `BuffersLost`, at most.
const MAX_TORN_NUMBERS: usize = 1 << 16;

impl Assembly {
    /// Takes the next buffer header found.
    fn take(
        &mut self,
        dump: &mut Dump,
        item: Found,
        other_sizes: &mut std::iter::Peekable<std::slice::Iter<'_, Sized>>,
        buffer_size: Option<u32>,
    ) -> std::io::Result<()> {
        match &item.verdict {
            Verdict::Whole(events) => {
                self.close_gap(dump, item.offset, other_sizes, buffer_size)?;
                self.gap_start = item.end();
                let what = format!(
                    "bytes {}..{}: a whole buffer (SequenceNumber {}",
                    item.offset,
                    item.end(),
                    item.header.sequence_number
                );
                if item.header.buffer_type == BufferType::HEADER {
                    self.notes.push(format!(
                        "{what}) of BufferType HEADER, an .etl file's logfile header buffer: \
                         replaced by the one written"
                    ));
                } else if let Some(&(first, _)) = self.kept.get(&item.header.sequence_number) {
                    let size = item.header.buffer_size as usize;
                    let same =
                        dump.bytes(first, size)?.to_vec() == dump.bytes(item.offset, size)?;
                    self.notes.push(format!(
                        "{what}) not used: the buffer at {first} has the same SequenceNumber{}",
                        if same { " and bytes" } else { ", other bytes" }
                    ));
                } else {
                    let header = &item.header;
                    self.kept.insert(
                        header.sequence_number,
                        (item.offset, header.client_context.logger_id()),
                    );
                    let summary = &mut self.summary;
                    summary.events += events.events;
                    summary.bits32 |= events.bits32;
                    summary.bits64 |= events.bits64;
                    summary.earliest = [summary.earliest, events.earliest]
                        .into_iter()
                        .flatten()
                        .min();
                    summary.latest = [summary.latest, events.latest].into_iter().flatten().max();
                    self.latest_buffer_timestamp = Some(
                        self.latest_buffer_timestamp
                            .map_or(header.timestamp, |t| t.max(header.timestamp)),
                    );
                    self.processors = self.processors.max(u32::from(header.processor()) + 1);
                    self.logger_ids.insert(header.client_context.logger_id());
                    if header.buffer_flag.contains(BufferFlags::EVENTS_LOST) {
                        self.events_lost_flags += 1;
                    }
                }
            }
            Verdict::Torn(why) => {
                // A header inside the bytes of a torn buffer already counted is its data.
                if self.torn_end.is_some_and(|end| item.offset < end) {
                    return Ok(());
                }
                self.torn_end = Some(item.torn_end(why, dump.len));
                self.any_torn = true;
                let number = item.header.sequence_number;
                if self.torn_numbers.len() < MAX_TORN_NUMBERS {
                    self.torn_numbers.insert(number);
                } else if !self.torn_numbers.contains(&number) {
                    self.torn_numbers_uncounted += 1;
                }
                self.inside.push(item.offset, item.describe_torn(why));
            }
        }
        Ok(())
    }

    /// Notes the bytes from `gap_start` to `end`, when there are some, with the buffers found
    /// in them: the torn ones taken since, and the whole ones of other sizes.
    fn close_gap(
        &mut self,
        dump: &mut Dump,
        end: u64,
        other_sizes: &mut std::iter::Peekable<std::slice::Iter<'_, Sized>>,
        buffer_size: Option<u32>,
    ) -> std::io::Result<()> {
        let start = self.gap_start;
        let mut inside = std::mem::take(&mut self.inside);
        while let Some(item) = other_sizes.next_if(|item| item.offset < end) {
            if item.offset < start {
                continue;
            }
            inside.push(
                item.offset,
                format!(
                    "a whole buffer at {} (SequenceNumber {}) of BufferSize {}, not the {} of \
                     the others",
                    item.offset,
                    item.sequence_number,
                    item.buffer_size,
                    buffer_size.unwrap_or_default()
                ),
            );
        }
        if end <= start {
            return Ok(());
        }
        let range = describe_range(dump, start, end)?;
        inside.listed.sort();
        let mut why: Vec<String> = inside.listed.into_iter().map(|(_, text)| text).collect();
        if inside.more > 0 {
            why.push(format!("and {} more buffers not used", inside.more));
        }
        let why = if why.is_empty() {
            "no trace buffer header in them".to_owned()
        } else {
            why.join("; ")
        };
        self.notes.push(format!("{range} not used: {why}"));
        Ok(())
    }
}

/// `bytes` of the dump described for a message: their length and, when they are all the same
/// byte, which.
fn describe_range(dump: &mut Dump, start: u64, end: u64) -> std::io::Result<String> {
    let len = end - start;
    let mut uniform = None;
    if len <= UNIFORM_LIMIT {
        let bytes = dump.bytes(start, len as usize)?;
        if let Some(&first) = bytes.first() {
            if bytes.iter().all(|&byte| byte == first) {
                uniform = Some(first);
            }
        }
    }
    Ok(match uniform {
        Some(byte) => format!("bytes {start}..{end} ({len} bytes, all 0x{byte:02X})"),
        None => format!("bytes {start}..{end} ({len} bytes)"),
    })
}

/// Sequence numbers as ranges: `4, 7..=8`.
fn ranges(numbers: &[i64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = numbers.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&(last + 1)) {
            last += 1;
            iter.next();
        }
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}..={last}")
        });
    }
    parts.join(", ")
}

/// The system-time clock's ticks per second: raw timestamps are FILETIMEs.
const FILETIMES_PER_SECOND: NonZeroU64 = match NonZeroU64::new(10_000_000) {
    Some(ticks) => ticks,
    None => NonZeroU64::MIN,
};

/// The notes printed on stderr, at most this many; the rest are counted.
const MAX_NOTES: usize = 20;

/// The name of the dump in messages: `standard input` for `-`, else the path as given.
pub fn dump_name(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Runs `etwc assemble`; the messages on stderr and the summary on stdout.
pub fn run(args: &Args) -> Result<(), String> {
    if let Some(problem) = args.clock_problem() {
        clap::Error::raw(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{problem}\n"),
        )
        .exit();
    }
    let dump_name = dump_name(&args.dump);
    let mut dump = Dump::open(&args.dump)?;
    let (out, summary) = assemble(
        args,
        &mut dump,
        &dump_name,
        || File::create(&args.output).map(BufWriter::new),
        &mut |note| eprintln!("etwc assemble: {note}"),
    )?;
    out.into_inner()
        .map_err(|error| format!("cannot write {}: {}", args.output.display(), error.error()))?;
    println!("{summary}");
    Ok(())
}

/// Assembles `dump` as `args` say: hands `note` each message on the bytes not used (in the
/// order `etwc assemble` prints them), writes the .etl file to what `create` gives (called
/// only when there is a file to write) and returns it with the one-line summary. An error is
/// the message `etwc assemble` prints, naming the dump by `dump_name`.
pub fn assemble<W: Write + Seek>(
    args: &Args,
    dump: &mut Dump,
    dump_name: &str,
    create: impl FnOnce() -> std::io::Result<W>,
    note: &mut dyn FnMut(&str),
) -> Result<(W, String), String> {
    if let Some(problem) = args.clock_problem() {
        return Err(problem);
    }
    // The descriptions' TRACE_EVENT_INFO, laid out by the library as on a target.
    let descriptions = match &args.describe {
        Some(path) => crate::mof::from_mof(path)?
            .iter()
            .map(crate::mof::Described::event_info)
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let io_error = |error: std::io::Error| format!("cannot read {dump_name}: {error}");
    if dump.len == 0 {
        return Err(format!("{dump_name}: the dump is empty: no trace buffer"));
    }
    // The file's BufferSize: the one given, or the one most whole trace buffers have (a first
    // pass, with any plausible size, finds them); the buffers are those of that size.
    let scan_error = |error: ScanError| match error {
        ScanError::Io(error) => io_error(error),
        ScanError::Taken(message) => message,
    };
    let mut sized: Vec<Sized> = Vec::new();
    let (rule, buffer_size) = match args.buffer_size {
        Some(size) => (SizeRule::Exact(size), Some(size)),
        None => {
            scan(dump, SizeRule::Plausible, |_, item| {
                if item.is_whole_trace_buffer() {
                    sized.try_reserve(1).map_err(|_| {
                        format!("{dump_name}: cannot hold the list of the whole buffers found")
                    })?;
                    sized.push(Sized {
                        offset: item.offset,
                        sequence_number: item.header.sequence_number,
                        buffer_size: item.header.buffer_size,
                    });
                }
                Ok(())
            })
            .map_err(scan_error)?;
            match most_common_size(&sized) {
                Some(size) => (SizeRule::Exact(size), Some(size)),
                None => (SizeRule::Plausible, None),
            }
        }
    };
    sized.retain(|item| Some(item.buffer_size) != buffer_size);
    let mut other_sizes = sized.iter().peekable();

    // The second pass: the buffers of that size, each taken as it is found.
    let mut assembly = Assembly::default();
    scan(dump, rule, |dump, item| {
        assembly
            .take(dump, item, &mut other_sizes, buffer_size)
            .map_err(io_error)
    })
    .map_err(scan_error)?;
    let dump_len = dump.len;
    assembly
        .close_gap(dump, dump_len, &mut other_sizes, buffer_size)
        .map_err(io_error)?;
    let Assembly {
        kept,
        summary,
        latest_buffer_timestamp,
        processors,
        logger_ids,
        events_lost_flags,
        mut notes,
        any_torn,
        torn_numbers,
        torn_numbers_uncounted,
        ..
    } = assembly;

    let Some(buffer_size) = buffer_size.filter(|_| !kept.is_empty()) else {
        emit_notes(&notes, note);
        let rule = match args.buffer_size {
            Some(size) => format!("of BufferSize {size}"),
            None => "of any BufferSize".to_owned(),
        };
        return Err(format!(
            "{dump_name}: no whole trace buffer {rule} in its {} bytes{}",
            dump.len,
            if any_torn {
                " (only torn ones, see above)"
            } else {
                ""
            }
        ));
    };

    let sequence_numbers: Vec<i64> = kept.keys().copied().collect();
    let (lowest, highest) = (
        sequence_numbers[0],
        sequence_numbers[sequence_numbers.len() - 1],
    );
    // The SequenceNumbers between the lowest and the highest that no whole buffer has (listed
    // up to a limit, all counted).
    let mut missing: Vec<i64> = Vec::new();
    let mut missing_count = 0u64;
    for pair in sequence_numbers.windows(2) {
        let (before, after) = (pair[0], pair[1]);
        missing_count += after.abs_diff(before) - 1;
        missing.extend((before + 1..after).take(1000usize.saturating_sub(missing.len())));
    }
    drop(sequence_numbers);
    let torn_elsewhere = torn_numbers
        .iter()
        .filter(|number| !(lowest..=highest).contains(number))
        .count() as u64
        + torn_numbers_uncounted;
    if missing_count > 0 {
        let more = if missing_count > missing.len() as u64 {
            ", ..."
        } else {
            ""
        };
        notes.push(format!(
            "SequenceNumbers missing between {lowest} and {highest}: {}{more} ({missing_count} \
             {})",
            ranges(&missing),
            if missing_count == 1 {
                "buffer"
            } else {
                "buffers"
            }
        ));
    }
    if events_lost_flags > 0 {
        notes.push(format!(
            "{events_lost_flags} of the buffers have ETW_BUFFER_FLAG_EVENTS_LOST: events were \
             lost before them; --events-lost N records how many"
        ));
    }
    let logger_id = kept.values().next().map_or(0, |&(_, logger_id)| logger_id);
    if logger_ids.len() > 1 {
        notes.push(format!(
            "the buffers name {} loggers ({}); LoggerId {logger_id}, the first buffer's, is \
             written",
            logger_ids.len(),
            logger_ids
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    // The header.
    let (bitness, bitness_source) = match (args.pointer_size, summary.bits64, summary.bits32) {
        (Some(bitness), _, _) => (bitness, "--pointer-size"),
        (None, true, _) => (Bitness::Bits64, "the events' header types"),
        (None, false, true) => (Bitness::Bits32, "the events' header types"),
        (None, false, false) => {
            notes.push(
                "no event says the logger's pointer size: 8 bytes written (--pointer-size)"
                    .to_owned(),
            );
            (Bitness::Bits64, "no event said")
        }
    };
    let log_file_name = args
        .log_file_name
        .clone()
        .unwrap_or_else(|| args.output.display().to_string());
    let mut header = EtlHeader::new(bitness, buffer_size);
    header.logger_id = logger_id;
    header.logger_name = &args.logger_name;
    header.log_file_name = &log_file_name;
    header.number_of_processors = args.processors.unwrap_or(processors.max(1));
    header.events_lost = args.events_lost.unwrap_or(0);
    let buffers_lost = missing_count.saturating_add(torn_elsewhere);
    header.buffers_lost = args
        .buffers_lost
        .unwrap_or(u32::try_from(buffers_lost).unwrap_or(u32::MAX));
    header.boot_time = args.boot_time.unwrap_or(0);
    header.version = VersionDetail {
        major_version: 10,
        minor_version: 0,
        sub_version: 0,
        sub_minor_version: 0,
    };
    let earliest_raw = summary.earliest.or(latest_buffer_timestamp).unwrap_or(0);
    let latest_raw = [summary.latest, latest_buffer_timestamp]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
    // `Args::clock_problem` has checked the clock's options.
    let (clock_type, ticks_per_second) = match (args.clock, args.frequency, args.start_time) {
        (ClockArg::System, _, start_time) => {
            header.cpu_speed_in_mhz = args.cpu_mhz.unwrap_or(1);
            header.start_time = start_time.unwrap_or(earliest_raw);
            (ClockType::SYSTEM_TIME, FILETIMES_PER_SECOND)
        }
        (clock, Some(frequency), Some(start_time)) => {
            header.start_time = start_time;
            header.reference_timestamp = Some(args.start_timestamp.unwrap_or(earliest_raw));
            if clock == ClockArg::Qpc {
                header.perf_freq = i64::try_from(frequency.get()).unwrap_or(i64::MAX);
                header.cpu_speed_in_mhz = args.cpu_mhz.unwrap_or(1);
                (ClockType::QUERY_PERFORMANCE_COUNTER, frequency)
            } else {
                header.cpu_speed_in_mhz = cycle_counter_megahertz(frequency).unwrap_or(1);
                (ClockType::CPU_CYCLE_COUNTER, frequency)
            }
        }
        _ => return Err("a qpc or cpu-cycles clock needs --frequency and --start-time".into()),
    };
    header.clock_type = clock_type;
    let clock = TraceClock::from_parts(
        clock_type,
        ticks_per_second,
        header.start_time,
        header.reference_timestamp.unwrap_or(header.start_time),
    );
    header.end_time = args
        .end_time
        .unwrap_or_else(|| clock.to_filetime(latest_raw).unwrap_or(0));

    // The file.
    emit_notes(&notes, note);
    // The first buffer holds the logfile header event; an .etl file's buffers are all of one
    // BufferSize (ntwmi.h's WMI_BUFFER_HEADER, read by every reader at BufferSize steps), so
    // buffers too small for it cannot make a file.
    if let Err(error) = header.write_first_buffer(&mut vec![0; buffer_size as usize]) {
        let names = if header.logger_name.is_empty() && header.log_file_name.is_empty() {
            ""
        } else {
            " (shorter --logger-name and --log-file-name need fewer)"
        };
        let first = kept.values().map(|&(offset, _)| offset).min().unwrap_or(0);
        let found = match kept.len() {
            1 => format!("the whole trace buffer found (at byte {first}) has"),
            many => format!(
                "the {many} whole trace buffers found (SequenceNumber {lowest} to {highest}, the \
                 first at byte {first}) have"
            ),
        };
        return Err(format!(
            "{dump_name}: {found} BufferSize {buffer_size}, too small for the logfile header's \
             buffer that starts an .etl file, whose buffers all have one BufferSize: \
             {error}{names}"
        ));
    }
    let described = description_buffers(
        &descriptions,
        buffer_size,
        bitness,
        earliest_raw,
        logger_id,
        (lowest, highest),
    )
    .map_err(|error| {
        format!(
            "{}: {error}",
            args.describe.as_deref().unwrap_or(Path::new("")).display()
        )
    })?;
    let output_name = args.output.display().to_string();
    let cannot_write = |error: String| format!("cannot write {output_name}: {error}");
    let out = create().map_err(|error| cannot_write(error.to_string()))?;
    let mut writer =
        EtlWriter::new(out, header).map_err(|error| cannot_write(error.to_string()))?;
    for buffer in &described {
        writer
            .write_buffer(buffer)
            .map_err(|error| cannot_write(error.to_string()))?;
    }
    for &(offset, _) in kept.values() {
        let bytes = dump.bytes(offset, buffer_size as usize).map_err(io_error)?;
        writer
            .write_buffer(bytes)
            .map_err(|error| cannot_write(error.to_string()))?;
    }
    let written = writer.trace_buffers();
    let out = writer
        .finish()
        .map_err(|error| cannot_write(error.to_string()))?;

    let clock_name = match clock_type {
        ClockType::SYSTEM_TIME => "system time".to_owned(),
        ClockType::QUERY_PERFORMANCE_COUNTER => format!("QPC at {} Hz", header.perf_freq),
        _ => format!("CPU cycles at {} MHz", header.cpu_speed_in_mhz),
    };
    let descriptions_note = if described.is_empty() {
        String::new()
    } else {
        format!(
            " ({} of them the descriptions of {} event types)",
            described.len(),
            descriptions.len()
        )
    };
    let summary = format!(
        "{output_name}: {} buffers of {buffer_size} bytes: the logfile header's and {written} \
         trace buffers{descriptions_note} (SequenceNumber {lowest} to {highest}) holding {} events; pointer size \
         {} ({bitness_source}); clock {clock_name}; start {}, end {}; {} events lost, {} \
         buffers lost",
        written + 1,
        summary.events + descriptions.len() as u64,
        bitness.pointer_len(),
        UtcDateTime::from_filetime(header.start_time),
        UtcDateTime::from_filetime(header.end_time),
        header.events_lost,
        header.buffers_lost,
    );
    Ok((out, summary))
}

/// The trace buffers that hold one `MetaData/EventInfo` event per description in `infos`
/// (`etwc assemble --describe`), as a session writes them: a `FULL_HEADER32`/`FULL_HEADER64`
/// header by `bitness`, `Guid` `MetaData` (`bbccf6c1-…`), `Class` type 32, level 0, version
/// 0 (what Windows writes into merged traces, and what TraceEvent and samply look the event up
/// by), `TimeStamp` `timestamp` (the dump's earliest, so that readers in time order have them
/// first), thread and process 0, the bytes as data, each event at an 8-byte boundary; as many
/// in a buffer as fit, the rest of it 0xFF. The buffers are processor 0's, of `logger_id`,
/// stamped `timestamp`; their `SequenceNumber`s come just before the dump's lowest when
/// there is room above 0, else just after its highest (`lowest_highest`).
fn description_buffers(
    infos: &[Vec<u8>],
    buffer_size: u32,
    bitness: Bitness,
    timestamp: i64,
    logger_id: u16,
    (lowest, highest): (i64, i64),
) -> Result<Vec<Vec<u8>>, String> {
    use etw_classic::payload::{EVENT_INFO_TYPE, METADATA_GUID};
    use etw_classic::wire::{BufferContext, GuidOrPtr, MarkerFlags, TimesOrFlags};
    use etw_classic::{Class, EventTraceHeader, EventType, HeaderType, Level};

    const ALIGNMENT: usize = 8;
    let size = buffer_size as usize;
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut used = size; // no buffer yet
                         // Where the events of each buffer end.
    let mut ends: Vec<usize> = Vec::new();
    for (index, info) in infos.iter().enumerate() {
        let event_len = EventTraceHeader::LEN + info.len();
        let room = size - WmiBufferHeader::LEN;
        let Ok(event_size) = u16::try_from(event_len).map_err(|_| ()).and_then(|len| {
            if event_len <= room {
                Ok(len)
            } else {
                Err(())
            }
        }) else {
            return Err(format!(
                "the description of event type {} takes {event_len} bytes as an event, more \
                 than the {room} a buffer of BufferSize {buffer_size} holds after its header",
                index + 1
            ));
        };
        if used + event_len > size {
            buffers.push(vec![0xFF; size]);
            used = WmiBufferHeader::LEN;
            ends.push(used);
        }
        let Some(buffer) = buffers.last_mut() else {
            break;
        };
        let header = EventTraceHeader {
            size: event_size,
            header_type: HeaderType::full_header(bitness),
            marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
            class: Class::new(EventType(EVENT_INFO_TYPE), Level::NONE, 0),
            thread_id: 0,
            process_id: 0,
            timestamp,
            guid: GuidOrPtr::from_guid(METADATA_GUID),
            times: TimesOrFlags::from_times(0, 0),
        };
        let rest = header
            .emit(&mut buffer[used..])
            .map_err(|error| error.to_string())?;
        rest[..info.len()].copy_from_slice(info);
        let end = (used + event_len).next_multiple_of(ALIGNMENT).min(size);
        buffer[used + event_len..end].fill(0);
        used = end;
        if let Some(last) = ends.last_mut() {
            *last = used;
        }
    }
    // The headers, once the buffers are counted: their offsets are where their events end.
    let count = buffers.len() as i64;
    let first = if lowest >= count {
        lowest - count
    } else {
        highest + 1
    };
    for ((buffer, end), sequence_number) in buffers.iter_mut().zip(ends).zip(first..) {
        let end = u32::try_from(end).unwrap_or(buffer_size);
        let buffer_header = WmiBufferHeader {
            buffer_size,
            saved_offset: end,
            current_offset: end,
            reference_count: 0,
            timestamp,
            sequence_number,
            clock_or_link: 0,
            client_context: BufferContext::new(0, ALIGNMENT as u8, logger_id),
            state: 3,
            offset: end,
            buffer_flag: BufferFlags::NORMAL,
            buffer_type: BufferType::GENERIC,
            reference_time: [0; 16],
        };
        buffer_header
            .emit(buffer)
            .map_err(|error| error.to_string())?;
    }
    Ok(buffers)
}

fn emit_notes(notes: &Notes, note: &mut dyn FnMut(&str)) {
    for shown in &notes.shown {
        note(shown);
    }
    if notes.hidden > 0 {
        note(&format!("{} more notes not shown", notes.hidden));
    }
}
