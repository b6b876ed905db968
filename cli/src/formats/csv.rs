//! `--format csv`: a header row, then one row per event with the same columns for every kind
//! (RFC 4180 quoting, by the `csv` crate); a column the event's kind has no member for is empty.
//!
//! | column | value |
//! |---|---|
//! | `kind`, `buffer`, `offset`, `processor`, `filetime`, `time` | as in the JSON lines |
//! | `provider` | the provider GUID, or `kernel:GROUP` for kernel events ([`Facts::source`](etw_classic_decode::facts::Facts::source)) |
//! | `provider_name`, `event_name` | the names the event's schema gives (`Windows Kernel`, `Process/DCStart`), as in the JSON lines |
//! | `pid`, `process_name`, `tid` | the process id, the process's name as the trace's kernel `Process` events give it, the thread id |
//! | `event_id`, `version`, `opcode`, `level`, `task`, `keyword` | the `EVENT_DESCRIPTOR`'s; `Class.Version`, `Class.Type` and `Class.Level` of classic events; the header's `Version` and the type of `HookId` of kernel events |
//! | `size` | the event's `Size` |
//! | `fields` | the decoded fields as one JSON object (the JSON lines' `fields`), empty when no schema describes the event |
//! | `fields_error`, `fields_left`, `undecoded` | as in the JSON lines: why the fields stop early, how many bytes are left after the last field (empty when none), why no schema describes the event |
//! | `data` | what follows the header as lowercase hex ([`Facts::payload`](etw_classic_decode::facts::Facts::payload)) |
//! | `error` | why a header could not be decoded |
//!
//! The names stand beside the numbers they name (`provider_name` and `event_name` after
//! `provider`, `process_name` after `pid`), so that a row reads from left to right as the
//! table's line does; the long columns (`fields`, `data`) come last. Read the columns by their
//! header's names: their positions are not promised.

use std::io::{self, Write};

use etw_classic_decode::render::hex_bytes;
use etw_classic_decode::sink::{JsonWriter, Sink};
use etw_classic_decode::DecodedEvent;

use super::Format;

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
fn row(decoded: &DecodedEvent<'_, '_>) -> [String; COLUMNS.len()] {
    let event = &decoded.event;
    let facts = decoded.facts();
    let error = match event.kind() {
        etw_classic::EventKind::Malformed { error, .. } => error.to_string(),
        _ => String::new(),
    };
    let meaning = decoded.meaning();
    let (names, fields, fields_end, undecoded) = match &meaning {
        Ok(meaning) => {
            let mut json = Vec::new();
            let end = JsonWriter::new(&mut json).map_object(&meaning.fields);
            let names = (
                meaning.identified.provider_name(),
                meaning.identified.event_name(),
            );
            (names, String::from_utf8(json).ok(), Some(end), None)
        }
        // A description (MetaData/EventInfo, ManifestData) has names but no fields.
        Err(why) => {
            let [provider, event, ..] = why.names().unwrap_or_default();
            ((provider, event.map(str::to_owned)), None, None, Some(why))
        }
    };
    [
        decoded.kind_name(),
        decoded.buffer.to_string(),
        event.offset.to_string(),
        decoded.processor.to_string(),
        field(decoded.filetime),
        field(decoded.time()),
        field(facts.source),
        field(names.0),
        field(names.1),
        field(facts.process_id),
        field(decoded.process_name()),
        field(facts.thread_id),
        field(facts.event_id),
        field(facts.version),
        field(facts.opcode),
        field(facts.level),
        field(facts.task),
        field(facts.keyword.map(|keyword| format!("{keyword:#x}"))),
        event.size.to_string(),
        fields.unwrap_or_default(),
        field(fields_end.as_ref().and_then(|end| end.error.as_ref())),
        field(fields_end.map(|end| end.rest).filter(|rest| *rest > 0)),
        field(undecoded),
        field(facts.payload.map(hex_bytes)),
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
    const WRITES_AS_PREPARED: bool = true;

    fn begin(&mut self, _: &super::FileInfo<'_>, out: &mut dyn Write) -> io::Result<()> {
        write_row(out, COLUMNS)
    }

    fn prepare(&self, event: &DecodedEvent<'_, '_>, bytes: &mut Vec<u8>) {
        // Writing to a Vec<u8> cannot fail.
        let _ = write_row(bytes, row(event));
    }

    fn emit(&mut self, (): (), bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
        out.write_all(bytes)
    }
}
