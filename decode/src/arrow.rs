//! Decoded events as Apache Arrow columns (feature `arrow`): [`EventColumns`] takes
//! [`DecodedEvent`]s one by one and hands them out as a [`RecordBatch`], the `events` table
//! that `etwc etl --format parquet` writes and the Python module's `read_arrow` returns.
//!
//! It lives in this crate, beside the decoded event, because every output of a decoded event is
//! a sink of it here (the JSON lines, the Python dicts); the command-line tool and the Python
//! module both build their tables from it without depending on each other. It depends only on
//! the Arrow sub-crates it needs (`arrow-array`, `arrow-schema`, `arrow-buffer`), not on the
//! `arrow` facade with its compute kernels.
//!
//! [`record_batches`] reads a whole file into such batches, in file order on several threads:
//! the pipeline both of them use.
//!
//! One row per event; the columns carry the names of the JSON line's keys where the JSON line
//! has one key for every kind, and the names of `--format csv` where the JSON key differs by
//! header kind (`process_id` or a message's optional field, `id` or `Class.Type` ...):
//!
//! | column | type | value |
//! |---|---|---|
//! | `buffer` | `UInt64` | the index of the buffer that holds the event, in file order (JSON `buffer`) |
//! | `offset` | `UInt64` | the event's offset in its buffer (JSON `offset`) |
//! | `kind` | dictionary of `Utf8` | the header type without `TRACE_HEADER_TYPE_` (JSON `kind`) |
//! | `processor` | `UInt16` | the processor of its buffer (JSON `processor`) |
//! | `size` | `UInt16` | the event's `Size` (JSON `size`) |
//! | `timestamp` | `Int64` | the raw timestamp of its header (JSON `timestamp`, or `system_time` of the kernel headers); null when the kind has none |
//! | `filetime` | `Int64` | the raw timestamp through the file's clock, a FILETIME (JSON `filetime`) |
//! | `time` | `Timestamp(Nanosecond, "UTC")` | the same instant (JSON `time`): FILETIME counts 100 ns, so nanoseconds keep it exactly; null when the event has no time, or its time is outside the years 1677 to 2262 that 64-bit nanoseconds since 1970 reach |
//! | `provider` | dictionary of `Utf8` | the provider GUID, or `kernel:GROUP` for the kernel's version-first headers ([`Source`](crate::facts::Source), as `--stats` and CSV print it) |
//! | `provider_name`, `event_name`, `task_name`, `opcode_name` | dictionary of `Utf8` | the names of the JSON line, null where it has `null` |
//! | `level_name` | dictionary of `Utf8` | the JSON `level_name`; null where the line has none |
//! | `keyword_names` | `List(Utf8)` | the JSON `keyword_names`; null where the line has none |
//! | `pid`, `tid` | `UInt32` | the process and thread ids of the headers that have them ([`Facts`](crate::facts::Facts)) |
//! | `process_name` | dictionary of `Utf8` | the JSON `process_name` |
//! | `event_id`, `version`, `opcode`, `level`, `task`, `keyword` | `UInt16`, `UInt16`, `UInt8`, `UInt8`, `UInt16`, `UInt64` | the `EVENT_DESCRIPTOR`'s; `Class.Version`, `Class.Type` and `Class.Level` of classic events; the header's `Version` and the type of `HookId` of kernel events; null where the kind has no such member |
//! | `fields` | `LargeUtf8` | the JSON text of the line's `fields`, byte for byte; null where it is `null` |
//! | `fields_error`, `fields_left`, `undecoded` | `LargeUtf8`, `UInt64`, dictionary of `Utf8` | the JSON keys of the same names; null where the line has none |
//! | `data_length` | `UInt32` | the length of `data` |
//! | `data` | `LargeBinary` | what follows the header ([`Facts::payload`](crate::facts::Facts::payload)): the JSON `data`, or the whole event (JSON `bytes`) for a kind that is not decoded; null when an extended item is malformed |
//! | `error` | `LargeUtf8` | the JSON `error`: why a header could not be decoded |
//!
//! The other members of each kind's header (flags, `activity_id`, extended items, CPU times)
//! stay in the JSON lines. Names repeat from row to row, so they are dictionary-encoded; free
//! text and bytes take 64-bit offsets, so that a batch of any length cannot overflow them.

use std::fmt::{self, Write as _};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    Int64Builder, LargeBinaryBuilder, LargeStringBuilder, ListBuilder, StringBuilder,
    StringDictionaryBuilder, TimestampNanosecondBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::event::DecodedEvent;
use crate::registry::EventNameParts;
use crate::sink::{JsonWriter, Sink};

mod batches;
pub use batches::{record_batches, BATCH_ROWS, CHUNK_BUFFERS};

/// FILETIME of 1970-01-01T00:00:00Z: 100 ns intervals from 1601 to the Unix epoch
/// (369 years, 89 of them leap years: 134,774 days of 86,400 s).
const UNIX_EPOCH_FILETIME: i64 = 116_444_736_000_000_000;

/// The time zone of the `time` column.
const UTC: &str = "UTC";

/// Nanoseconds since 1970 of `filetime` (100 ns intervals since 1601), if 64 bits hold them.
pub fn filetime_to_unix_nanos(filetime: i64) -> Option<i64> {
    filetime.checked_sub(UNIX_EPOCH_FILETIME)?.checked_mul(100)
}

/// A dictionary-encoded string column.
fn dictionary() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// The `events` table's schema (see the [module](self) documentation).
fn build_schema() -> Schema {
    let name = |name: &str| Field::new(name, dictionary(), true);
    Schema::new(vec![
        Field::new("buffer", DataType::UInt64, false),
        Field::new("offset", DataType::UInt64, false),
        Field::new("kind", dictionary(), false),
        Field::new("processor", DataType::UInt16, false),
        Field::new("size", DataType::UInt16, false),
        Field::new("timestamp", DataType::Int64, true),
        Field::new("filetime", DataType::Int64, true),
        Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Nanosecond, Some(UTC.into())),
            true,
        ),
        name("provider"),
        name("provider_name"),
        name("event_name"),
        name("task_name"),
        name("opcode_name"),
        name("level_name"),
        Field::new(
            "keyword_names",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new("pid", DataType::UInt32, true),
        Field::new("tid", DataType::UInt32, true),
        name("process_name"),
        Field::new("event_id", DataType::UInt16, true),
        Field::new("version", DataType::UInt16, true),
        Field::new("opcode", DataType::UInt8, true),
        Field::new("level", DataType::UInt8, true),
        Field::new("task", DataType::UInt16, true),
        Field::new("keyword", DataType::UInt64, true),
        Field::new("fields", DataType::LargeUtf8, true),
        Field::new("fields_error", DataType::LargeUtf8, true),
        Field::new("fields_left", DataType::UInt64, true),
        name("undecoded"),
        Field::new("data_length", DataType::UInt32, true),
        Field::new("data", DataType::LargeBinary, true),
        Field::new("error", DataType::LargeUtf8, true),
    ])
}

/// A dictionary-encoded string column's builder.
type Names = StringDictionaryBuilder<Int32Type>;

/// Builds the `events` table from decoded events, a batch at a time: [`push`](Self::push)
/// each event, [`finish`](Self::finish) to take the rows so far as a [`RecordBatch`] and start
/// again empty (a writer of Parquet row groups calls it every few tens of thousands of rows, so
/// that memory stays bounded whatever the trace's length).
pub struct EventColumns {
    rows: usize,
    buffer: UInt64Builder,
    offset: UInt64Builder,
    kind: Names,
    processor: UInt16Builder,
    size: UInt16Builder,
    timestamp: Int64Builder,
    filetime: Int64Builder,
    time: TimestampNanosecondBuilder,
    provider: Names,
    provider_name: Names,
    event_name: Names,
    task_name: Names,
    opcode_name: Names,
    level_name: Names,
    keyword_names: ListBuilder<StringBuilder>,
    pid: UInt32Builder,
    tid: UInt32Builder,
    process_name: Names,
    event_id: UInt16Builder,
    version: UInt16Builder,
    opcode: UInt8Builder,
    level: UInt8Builder,
    task: UInt16Builder,
    keyword: UInt64Builder,
    fields: LargeStringBuilder,
    fields_error: LargeStringBuilder,
    fields_left: UInt64Builder,
    undecoded: Names,
    data_length: UInt32Builder,
    data: LargeBinaryBuilder,
    error: LargeStringBuilder,
    /// Scratch text: a two-part event name, a GUID, the fields' JSON.
    text: String,
    json: Vec<u8>,
}

impl fmt::Debug for EventColumns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventColumns")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl Default for EventColumns {
    fn default() -> Self {
        Self::new()
    }
}

/// Appends `value`, or a null.
fn opt_str(builder: &mut Names, value: Option<&str>) {
    match value {
        Some(value) => builder.append_value(value),
        None => builder.append_null(),
    }
}

impl EventColumns {
    /// An empty table.
    pub fn new() -> Self {
        Self {
            rows: 0,
            buffer: UInt64Builder::new(),
            offset: UInt64Builder::new(),
            kind: Names::new(),
            processor: UInt16Builder::new(),
            size: UInt16Builder::new(),
            timestamp: Int64Builder::new(),
            filetime: Int64Builder::new(),
            time: TimestampNanosecondBuilder::new().with_timezone(UTC),
            provider: Names::new(),
            provider_name: Names::new(),
            event_name: Names::new(),
            task_name: Names::new(),
            opcode_name: Names::new(),
            level_name: Names::new(),
            keyword_names: ListBuilder::new(StringBuilder::new()),
            pid: UInt32Builder::new(),
            tid: UInt32Builder::new(),
            process_name: Names::new(),
            event_id: UInt16Builder::new(),
            version: UInt16Builder::new(),
            opcode: UInt8Builder::new(),
            level: UInt8Builder::new(),
            task: UInt16Builder::new(),
            keyword: UInt64Builder::new(),
            fields: LargeStringBuilder::new(),
            fields_error: LargeStringBuilder::new(),
            fields_left: UInt64Builder::new(),
            undecoded: Names::new(),
            data_length: UInt32Builder::new(),
            data: LargeBinaryBuilder::new(),
            error: LargeStringBuilder::new(),
            text: String::new(),
            json: Vec::new(),
        }
    }

    /// The `events` table's schema, the same for every batch (see the [module](self)
    /// documentation).
    pub fn schema() -> SchemaRef {
        static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
        SCHEMA.get_or_init(|| Arc::new(build_schema())).clone()
    }

    /// Adds `event` as one row.
    pub fn push(&mut self, event: &DecodedEvent<'_, '_>) {
        let header = &event.event;
        let facts = event.facts();
        self.rows = self.rows.saturating_add(1);
        self.buffer
            .append_value(u64::try_from(event.buffer).unwrap_or(u64::MAX));
        self.offset
            .append_value(u64::try_from(header.offset).unwrap_or(u64::MAX));
        match header.header_type.name() {
            Some(name) => self.kind.append_value(name),
            None => {
                self.text.clear();
                let _ = write!(self.text, "0x{:02X}", header.header_type.0);
                self.kind.append_value(&self.text);
            }
        }
        self.processor.append_value(event.processor);
        self.size.append_value(header.size);
        self.timestamp.append_option(event.timestamp());
        self.filetime.append_option(event.filetime);
        self.time
            .append_option(event.filetime.and_then(filetime_to_unix_nanos));
        match facts.source {
            Some(source) => {
                self.text.clear();
                let _ = write!(self.text, "{source}");
                self.provider.append_value(&self.text);
            }
            None => self.provider.append_null(),
        }
        self.push_meaning(event);
        self.pid.append_option(facts.process_id);
        self.tid.append_option(facts.thread_id);
        opt_str(
            &mut self.process_name,
            event.process_name().map(|name| &**name),
        );
        self.event_id.append_option(facts.event_id);
        self.version.append_option(facts.version);
        self.opcode.append_option(facts.opcode);
        self.level.append_option(facts.level);
        self.task.append_option(facts.task);
        self.keyword.append_option(facts.keyword);
        match facts.payload {
            Some(data) => {
                self.data_length
                    .append_value(u32::try_from(data.len()).unwrap_or(u32::MAX));
                self.data.append_value(data);
            }
            None => {
                self.data_length.append_null();
                self.data.append_null();
            }
        }
        match header.kind() {
            etw_classic::EventKind::Malformed { error, .. } => {
                self.text.clear();
                let _ = write!(self.text, "{error}");
                self.error.append_value(&self.text);
            }
            _ => self.error.append_null(),
        }
    }

    /// The names, fields and why there are none, as
    /// [`describe_meaning`](DecodedEvent::describe_meaning) gives them to the JSON line.
    fn push_meaning(&mut self, event: &DecodedEvent<'_, '_>) {
        match event.meaning() {
            Ok(meaning) => {
                let identified = &meaning.identified;
                opt_str(&mut self.provider_name, identified.provider_name());
                match identified.event_name_parts() {
                    Some(EventNameParts {
                        first,
                        second: None,
                    }) => self.event_name.append_value(first),
                    Some(parts) => {
                        self.text.clear();
                        let _ = write!(self.text, "{parts}");
                        self.event_name.append_value(&self.text);
                    }
                    None => self.event_name.append_null(),
                }
                opt_str(&mut self.task_name, identified.task_name());
                opt_str(&mut self.opcode_name, identified.opcode_name());
                opt_str(&mut self.level_name, identified.level_name());
                let keywords = identified.keyword_names();
                if keywords.is_empty() {
                    self.keyword_names.append_null();
                } else {
                    for keyword in keywords {
                        self.keyword_names.values().append_value(&**keyword);
                    }
                    self.keyword_names.append(true);
                }
                self.json.clear();
                let end = JsonWriter::new(&mut self.json).map_object(&meaning.fields);
                match std::str::from_utf8(&self.json) {
                    Ok(json) => self.fields.append_value(json),
                    // The JSON writer writes text only; were it not, the row says so.
                    Err(_) => self.fields.append_null(),
                }
                self.fields_error.append_option(end.error);
                self.fields_left.append_option(
                    (end.rest > 0).then(|| u64::try_from(end.rest).unwrap_or(u64::MAX)),
                );
                self.undecoded.append_null();
            }
            Err(why) => {
                // A description (MetaData/EventInfo, ManifestData) has names but no fields.
                let [provider, name, task, opcode] = why.names().unwrap_or_default();
                opt_str(&mut self.provider_name, provider);
                opt_str(&mut self.event_name, name);
                opt_str(&mut self.task_name, task);
                opt_str(&mut self.opcode_name, opcode);
                self.level_name.append_null();
                self.keyword_names.append_null();
                self.fields.append_null();
                self.fields_error.append_null();
                self.fields_left.append_null();
                self.text.clear();
                let _ = write!(self.text, "{why}");
                self.undecoded.append_value(&self.text);
            }
        }
    }

    /// The rows pushed since the last [`finish`](Self::finish).
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row was pushed since the last [`finish`](Self::finish).
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows pushed so far as one batch of the [`schema`](Self::schema); the builder starts
    /// empty again (the dictionaries too: each batch carries its own).
    pub fn finish(&mut self) -> RecordBatch {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.buffer.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.processor.finish()),
            Arc::new(self.size.finish()),
            Arc::new(self.timestamp.finish()),
            Arc::new(self.filetime.finish()),
            Arc::new(self.time.finish()),
            Arc::new(self.provider.finish()),
            Arc::new(self.provider_name.finish()),
            Arc::new(self.event_name.finish()),
            Arc::new(self.task_name.finish()),
            Arc::new(self.opcode_name.finish()),
            Arc::new(self.level_name.finish()),
            Arc::new(self.keyword_names.finish()),
            Arc::new(self.pid.finish()),
            Arc::new(self.tid.finish()),
            Arc::new(self.process_name.finish()),
            Arc::new(self.event_id.finish()),
            Arc::new(self.version.finish()),
            Arc::new(self.opcode.finish()),
            Arc::new(self.level.finish()),
            Arc::new(self.task.finish()),
            Arc::new(self.keyword.finish()),
            Arc::new(self.fields.finish()),
            Arc::new(self.fields_error.finish()),
            Arc::new(self.fields_left.finish()),
            Arc::new(self.undecoded.finish()),
            Arc::new(self.data_length.finish()),
            Arc::new(self.data.finish()),
            Arc::new(self.error.finish()),
        ];
        let schema = Self::schema();
        // Every push appends one value to every column, and each builder's type is its
        // field's: the batch always matches the schema. Were it ever not to, an empty batch
        // is returned rather than a panic.
        RecordBatch::try_new(schema.clone(), columns)
            .unwrap_or_else(|_| RecordBatch::new_empty(schema))
    }
}
