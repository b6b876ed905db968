//! `--format csv`: a header row, then one row per event with the same columns for every kind
//! (RFC 4180 quoting, by the `csv` crate); a column the event's kind has no member for is empty.
//!
//! | column | value |
//! |---|---|
//! | `kind`, `buffer`, `offset`, `processor`, `filetime`, `time` | as in the JSON lines |
//! | `provider` | the provider GUID, or `kernel:GROUP` for kernel events ([`Facts::source`]) |
//! | `provider_name`, `event_name` | the names the event's schema gives (`Windows Kernel`, `Process/DCStart`), as in the JSON lines |
//! | `pid`, `process_name`, `tid` | the process id, the process's name as the trace's kernel `Process` events give it, the thread id |
//! | `event_id`, `version`, `opcode`, `level`, `task`, `keyword` | the `EVENT_DESCRIPTOR`'s; `Class.Version`, `Class.Type` and `Class.Level` of classic events; the header's `Version` and the type of `HookId` of kernel events |
//! | `size` | the event's `Size` |
//! | `fields` | the decoded fields as one JSON object (the JSON lines' `fields`), empty when no schema describes the event |
//! | `fields_error`, `fields_left`, `undecoded` | as in the JSON lines: why the fields stop early, how many bytes are left after the last field (empty when none), why no schema describes the event |
//! | `data` | what follows the header as lowercase hex ([`Facts::payload`]) |
//! | `error` | why a header could not be decoded |
//!
//! The names stand beside the numbers they name (`provider_name` and `event_name` after
//! `provider`, `process_name` after `pid`), so that a row reads from left to right as the
//! table's line does; the long columns (`fields`, `data`) come last. Read the columns by their
//! header's names: their positions are not promised.

use std::io::{self, Write};

use etw_classic::Event;

use super::{EventContext, Format};
use crate::etl::kind_name;
use crate::fields::hex;
use etw_classic_decode::facts::Facts;

/// The header row.
pub const COLUMNS: [&str; 25] = [
    "kind",
    "buffer",
    "offset",
    "processor",
    "filetime",
    "time",
    "provider",
    "provider_name",
    "event_name",
    "pid",
    "process_name",
    "tid",
    "event_id",
    "version",
    "opcode",
    "level",
    "task",
    "keyword",
    "size",
    "fields",
    "fields_error",
    "fields_left",
    "undecoded",
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
fn row(context: &EventContext<'_>, event: &Event<'_>) -> [String; COLUMNS.len()] {
    let facts = Facts::of(event);
    let error = match event.kind() {
        etw_classic::EventKind::Malformed { error, .. } => error.to_string(),
        _ => String::new(),
    };
    let registry = context.registry;
    let process_name = facts.process_id.and_then(|pid| registry.process_name(pid));
    let (decoded, fields, undecoded) = match registry.decode(&facts) {
        Ok(mut decoded) => {
            let fields = std::mem::take(&mut decoded.fields.fields);
            (Some(decoded), Some(serde_json::Value::Object(fields)), None)
        }
        Err(why) => (None, None, Some(why)),
    };
    let decoded = decoded.as_ref();
    // A description (MetaData/EventInfo, ManifestData) has names but no fields.
    let [described_provider, described_event, ..] = undecoded
        .as_ref()
        .and_then(|why| why.names())
        .unwrap_or_default();
    [
        kind_name(event.header_type),
        context.buffer.to_string(),
        event.offset.to_string(),
        context.processor.to_string(),
        field(context.filetime),
        field(context.time()),
        field(facts.source),
        field(
            decoded
                .and_then(|decoded| decoded.provider_name.as_deref())
                .or(described_provider),
        ),
        field(
            decoded
                .and_then(|decoded| decoded.event_name.as_deref())
                .or(described_event),
        ),
        field(facts.process_id),
        field(process_name),
        field(facts.thread_id),
        field(facts.event_id),
        field(facts.version),
        field(facts.opcode),
        field(facts.level),
        field(facts.task),
        field(facts.keyword.map(|keyword| format!("{keyword:#x}"))),
        event.size.to_string(),
        field(fields),
        field(decoded.and_then(|decoded| decoded.fields.error.as_ref())),
        field(
            decoded
                .map(|decoded| decoded.fields.rest)
                .filter(|rest| *rest > 0),
        ),
        field(undecoded),
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
