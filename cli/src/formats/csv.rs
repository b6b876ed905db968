//! `--format csv`: a header row, then one row per event with the same columns for every kind
//! (RFC 4180 quoting, by the `csv` crate); a column the event's kind has no member for is empty.
//!
//! | column | value |
//! |---|---|
//! | `kind`, `buffer`, `offset`, `processor`, `filetime`, `time` | as in the JSON lines |
//! | `provider` | the provider GUID, or `kernel:GROUP` for kernel events ([`crate::facts`]) |
//! | `pid`, `tid` | the process and thread ids |
//! | `event_id`, `version`, `opcode`, `level`, `task`, `keyword` | the `EVENT_DESCRIPTOR`'s; `Class.Version`, `Class.Type` and `Class.Level` of classic events; the header's `Version` and the type of `HookId` of kernel events |
//! | `size` | the event's `Size` |
//! | `data` | what follows the header as lowercase hex ([`Facts::payload`]) |

use std::io::{self, Write};

use etw_classic::Event;

use super::{EventContext, Format};
use crate::etl::kind_name;
use crate::fields::hex;
use etw_classic_decode::facts::Facts;

/// The header row.
pub const COLUMNS: [&str; 18] = [
    "kind",
    "buffer",
    "offset",
    "processor",
    "filetime",
    "time",
    "provider",
    "pid",
    "tid",
    "event_id",
    "version",
    "opcode",
    "level",
    "task",
    "keyword",
    "size",
    "data",
    "error",
];

/// `--format csv`.
pub struct Csv;

/// A value, or an empty field.
fn field<T: ToString>(value: Option<T>) -> String {
    value.map(|value| value.to_string()).unwrap_or_default()
}

/// One event's row.
fn row(context: &EventContext<'_>, event: &Event<'_>) -> [String; 18] {
    let facts = Facts::of(event);
    let error = match event.kind() {
        etw_classic::EventKind::Malformed { error, .. } => error.to_string(),
        _ => String::new(),
    };
    [
        kind_name(event.header_type),
        context.buffer.to_string(),
        event.offset.to_string(),
        context.processor.to_string(),
        field(context.filetime),
        field(context.time()),
        field(facts.source),
        field(facts.process_id),
        field(facts.thread_id),
        field(facts.event_id),
        field(facts.version),
        field(facts.opcode),
        field(facts.level),
        field(facts.task),
        field(facts.keyword.map(|keyword| format!("{keyword:#x}"))),
        event.size.to_string(),
        field(facts.payload.map(hex)),
        error,
    ]
}

/// Writes `record` as one CSV row.
fn write_row<I, T>(out: &mut dyn Write, record: I) -> io::Result<()>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    writer.write_record(record).map_err(io::Error::other)?;
    writer.flush()
}

impl Format for Csv {
    type Item = ();

    fn begin(&mut self, _: &super::FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        write_row(out, COLUMNS)
    }

    fn prepare(&self, context: &EventContext<'_>, event: &Event<'_>, bytes: &mut Vec<u8>) {
        // Writing to a Vec<u8> cannot fail.
        let _ = write_row(bytes, row(context, event));
    }

    fn emit(&mut self, (): (), bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
        out.write_all(bytes)
    }
}
