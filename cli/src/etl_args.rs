//! The command line of `etwc etl`.

use std::path::PathBuf;
use std::sync::Arc;

use clap::error::ErrorKind;
use etw_classic::HeaderType;
use etw_classic_decode::Registry;

use crate::filter::{self, Filter, ProviderFilter};

/// The order `run` prints the events in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Buffer after buffer as stored, each buffer's events in their order.
    File,
    /// The events of all buffers by raw timestamp, as a real-time consumer receives them.
    Time,
}

/// What decides which events are output and how many: the filters, and `--limit`; and the
/// schemas that name the events and decode their fields.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub filter: Filter,
    pub limit: Option<u64>,
    pub registry: Arc<Registry>,
}

/// What `etwc etl --help` prints after the options.
const AFTER_HELP: &str = "\
Filters (all given must hold; a filter given several values, repeated or comma-separated, holds \
when one does): --provider with a GUID matches the provider GUID of EVENT_HEADER events, the Guid \
of classic FULL_HEADER and INSTANCE events and the message GUID of MESSAGE events; kernel events \
(SYSTEM, COMPACT, PERFINFO) name no GUID and never match a GUID. --provider kernel:GROUP matches \
the kernel events of that group of their HookId, as --stats and the CSV print them \
(kernel:PROCESS, kernel:STACKWALK, kernel:0x1f; either case). --provider with a name matches \
the provider name the event's schema gives (\"Windows Kernel\" for the kernel's events), either \
case. --event matches the event name (GarbageCollection/GCAllocationTick, Process/Start, PrimitiveTypesTest) or \
provider/event, either case. --process matches the name of the event's process (the image file \
name without folder or extension, as the trace's kernel Process events give it). --pid and --tid match the ids of EVENT_HEADER, \
FULL_HEADER, INSTANCE, SYSTEM and COMPACT events and of MESSAGE events that carry them; PERFINFO \
events carry none. --from and --to (both inclusive) compare the event's time; an event without \
one does not match them. --limit stops after that many events are output, reading no further.

Meaning: each event is named and its fields decoded from what the trace carries (TraceLogging \
metadata, EventSource manifests written into the stream, MetaData/EventInfo events) and from the \
kernel's classes built in; --manifest and --mof add instrumentation manifests and classic MOF \
text for other providers (what you give takes precedence). Process names and the schemas the \
trace carries are read in a first pass over the file, which standard input and other inputs \
that can be read once only (a pipe, a FIFO) cannot have; --order time needs a file too.

Time: an event's time is its raw timestamp through the file's clock (the logfile header's \
ReservedFlags, PerfFreq or CpuSpeedInMHz, and StartTime). When that clock cannot be read, no \
event has a time: --from, --to and --format chrome, which need one, are refused (status 1, one \
line on stderr saying why); the table, JSON, CSV and --stats print the events without a time, \
and one line on stderr says why. --order time merges the raw timestamps and needs no clock.

Formats: table (text lines), json (one JSON object per line; --json is the same), csv (a header \
row, then one row per event; the names beside the numbers they name, the fields as one JSON \
column), chrome (the Trace Event Format JSON object that Perfetto UI and chrome://tracing open: \
ts in microseconds since the logfile header's StartTime; events named provider/event, processes \
and threads by the names the trace gives them). etwc schemas FILE lists the schemas and what \
each decoded.

Examples:
  etwc etl trace.etl --provider 763fd754-7086-4dfe-95eb-c01a46faf4ca --pid 3988 --limit 20
  etwc etl trace.etl --kind SYSTEM64,PERFINFO64 --from 2020-07-29T00:07:01Z --format csv > kernel.csv
  etwc etl trace.etl --order time --format chrome > trace.json
  etwc etl trace.etl --stats --format json";

/// `etwc etl`'s options.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct EtlArgs {
    /// The .etl file, or - for standard input; several files with --format parquet only
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<String>,

    /// With --format parquet: the file to write for one input; the folder to write
    /// <stem>.parquet into for several inputs, or the tables of --by-event into
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// With --format parquet: one table per (provider, event) in the folder -o, its fields as
    /// typed columns beside the common ones
    #[arg(long)]
    pub by_event: bool,

    /// The output: table (text lines, the default), json (one JSON object per event, the keys of
    /// `decode --json` plus buffer, offset, kind, processor, filetime and time), csv, or chrome
    /// (Trace Event Format for Perfetto UI and chrome://tracing)
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,

    /// The same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// With --format chrome, what each event's args hold: `fields` (the default: buffer, offset,
    /// kind and the decoded fields), `line` (the whole JSON line but the event's bytes), `hex`
    /// (the whole JSON line, the bytes as hex)
    #[arg(long, value_enum, value_name = "ARGS")]
    pub chrome_args: Option<ChromeArgs>,

    /// Print only the number of buffers, events and events of each kind (of the events the
    /// filters let through)
    #[arg(long)]
    pub summary: bool,

    /// Print only statistics of the events the filters let through: counts per kind, per
    /// provider (kernel events by group), per provider name and per provider/event name (an
    /// event no schema names under its provider GUID or kernel group) and per process, the
    /// first and last time and the duration; as one JSON object with --format json
    #[arg(long, conflicts_with = "summary")]
    pub stats: bool,

    /// The order of the events: `file` (buffer after buffer as stored, read on every core)
    /// or `time` (all buffers merged by timestamp, as a real-time consumer receives them;
    /// reads the file twice and holds one decoded buffer per processor)
    #[arg(long, value_enum, default_value = "file")]
    pub order: Order,

    /// An instrumentation manifest (.man or .xml) describing providers' events, or a folder of
    /// them; repeatable
    #[arg(long, value_name = "PATH")]
    pub manifest: Vec<PathBuf>,

    /// Classic MOF text (.mof) describing event classes, or a folder of them; repeatable
    #[arg(long, value_name = "PATH")]
    pub mof: Vec<PathBuf>,

    /// Only events of this provider: a GUID (braces and case as you like), kernel:GROUP (the
    /// kernel events of a HookId group, as --stats prints them: kernel:PROCESS) or a provider
    /// name
    #[arg(
        long,
        value_name = "GUID|kernel:GROUP|NAME",
        value_delimiter = ',',
        value_parser = filter::parse_provider,
        help_heading = "Filters"
    )]
    pub provider: Vec<ProviderFilter>,

    /// Only events of this name: the event name (GarbageCollection/GCAllocationTick) or provider/event
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        help_heading = "Filters"
    )]
    pub event: Vec<String>,

    /// Only events of the process of this name (notepad, svchost)
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        help_heading = "Filters"
    )]
    pub process: Vec<String>,

    /// Only events of this kind, as the output names it (EVENT_HEADER64, FULL_HEADER32,
    /// SYSTEM64, PERFINFO64, ...; either case) or a header type number
    #[arg(
        long,
        value_name = "KIND",
        value_delimiter = ',',
        value_parser = filter::parse_kind,
        help_heading = "Filters"
    )]
    pub kind: Vec<HeaderType>,

    /// Only events of this process id
    #[arg(
        long,
        value_name = "PID",
        value_delimiter = ',',
        help_heading = "Filters"
    )]
    pub pid: Vec<u32>,

    /// Only events of this thread id
    #[arg(
        long,
        value_name = "TID",
        value_delimiter = ',',
        help_heading = "Filters"
    )]
    pub tid: Vec<u32>,

    /// Only events at or after this time: ISO 8601 UTC, as 2020-07-29T00:07:00.6236167Z (the
    /// fraction optional, up to 7 digits; a date alone is its midnight)
    #[arg(long, value_name = "TIME", value_parser = filter::parse_time, help_heading = "Filters")]
    pub from: Option<i64>,

    /// Only events at or before this time (as --from)
    #[arg(long, value_name = "TIME", value_parser = filter::parse_time, help_heading = "Filters")]
    pub to: Option<i64>,

    /// Stop after this many events are output (after the filters), reading no further
    #[arg(long, value_name = "N", help_heading = "Filters")]
    pub limit: Option<u64>,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Text lines
    Table,
    /// One JSON object per line
    Json,
    /// A header row and one row per event
    Csv,
    /// The Trace Event Format (Perfetto UI, chrome://tracing)
    Chrome,
    /// Apache Parquet files of the events table (-o PATH), for DuckDB, polars, Spark
    Parquet,
}

/// `--chrome-args`: what the `args` of a Chrome trace's event hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ChromeArgs {
    /// `buffer`, `offset`, `kind` and what the payload says (`fields`, and `fields_error`,
    /// `fields_left` or `undecoded`); the names are the event's `name` and `cat`
    #[default]
    Fields,
    /// The event's JSON line (`--format json`) without its bytes as hex
    Line,
    /// The event's whole JSON line
    Hex,
}

/// What `etwc etl` prints, from `--format`, `--json`, `--summary` and `--stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `--summary`, as JSON or text.
    Summary {
        json: bool,
    },
    /// `--stats`, as JSON or text.
    Stats {
        json: bool,
    },
    Table,
    Json,
    Csv,
    Chrome,
    Parquet,
}

impl EtlArgs {
    /// The format asked for, `--json` being `--format json`.
    fn format(&self) -> FormatArg {
        match (self.json, self.format) {
            (true, _) => FormatArg::Json,
            (false, Some(format)) => format,
            (false, None) => FormatArg::Table,
        }
    }

    /// What to print.
    pub fn output(&self) -> Output {
        let json = self.format() == FormatArg::Json;
        if self.summary {
            Output::Summary { json }
        } else if self.stats {
            Output::Stats { json }
        } else {
            match self.format() {
                FormatArg::Table => Output::Table,
                FormatArg::Json => Output::Json,
                FormatArg::Csv => Output::Csv,
                FormatArg::Chrome => Output::Chrome,
                FormatArg::Parquet => Output::Parquet,
            }
        }
    }

    /// The filters and the limit.
    pub fn selection(&self) -> Selection {
        Selection {
            filter: Filter {
                providers: self.provider.clone(),
                events: self.event.clone(),
                processes: self.process.clone(),
                kinds: self.kind.clone(),
                process_ids: self.pid.clone(),
                thread_ids: self.tid.clone(),
                from: self.from,
                to: self.to,
            },
            limit: self.limit,
            registry: std::sync::Arc::default(),
        }
    }

    /// The usage errors clap's rules do not catch: a report in a format that has none, a time
    /// window that ends before it starts.
    ///
    /// # Errors
    /// A usage error (for exit status 2): its kind, and what does not go together.
    pub fn check(&self) -> Result<(), (ErrorKind, String)> {
        let report = if self.summary {
            Some("--summary")
        } else if self.stats {
            Some("--stats")
        } else {
            None
        };
        if let Some(report) = report {
            if matches!(
                self.format(),
                FormatArg::Csv | FormatArg::Chrome | FormatArg::Parquet
            ) {
                return Err((
                    ErrorKind::ArgumentConflict,
                    format!(
                        "{report} prints text or JSON: use --format table or --format json, \
                         not --format {}",
                        match self.format() {
                            FormatArg::Csv => "csv",
                            FormatArg::Parquet => "parquet",
                            _ => "chrome",
                        }
                    ),
                ));
            }
        }
        if self.chrome_args.is_some() && !matches!(self.format(), FormatArg::Chrome) {
            return Err((
                ErrorKind::ArgumentConflict,
                "--chrome-args says what a Chrome trace's events hold: it needs --format chrome"
                    .to_owned(),
            ));
        }
        let parquet = self.format() == FormatArg::Parquet && report.is_none();
        if parquet {
            if self.out.is_none() {
                return Err((
                    ErrorKind::MissingRequiredArgument,
                    "--format parquet writes files: give the file (or, for several inputs or \
                     --by-event, the folder) with -o PATH"
                        .to_owned(),
                ));
            }
            if self.order == Order::Time {
                return Err((
                    ErrorKind::ArgumentConflict,
                    "--format parquet writes the events in file order: leave out --order time \
                     (sort by the time column when reading)"
                        .to_owned(),
                ));
            }
            if self.files.iter().any(|file| file == "-") {
                return Err((
                    ErrorKind::ValueValidation,
                    "--format parquet reads files (twice: the first pass learns the schemas and \
                     process names), not standard input"
                        .to_owned(),
                ));
            }
        } else {
            if self.files.len() > 1 {
                return Err((
                    ErrorKind::TooManyValues,
                    "several files are read with --format parquet only; give one file".to_owned(),
                ));
            }
            if self.out.is_some() || self.by_event {
                return Err((
                    ErrorKind::ArgumentConflict,
                    format!(
                        "{} is for --format parquet only",
                        if self.by_event {
                            "--by-event"
                        } else {
                            "-o/--output"
                        }
                    ),
                ));
            }
        }
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if from > to {
                return Err((
                    ErrorKind::ValueValidation,
                    "--from is after --to: no event could match".to_owned(),
                ));
            }
        }
        Ok(())
    }
}
