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
use std::hash::Hash;
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    LargeBinaryBuilder, LargeStringBuilder, ListBuilder, PrimitiveBuilder, StringBuilder,
};
use arrow_array::types::{
    Int32Type, Int64Type, TimestampNanosecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use rustc_hash::FxHashMap;

use crate::event::DecodedEvent;
use crate::facts::Source;
use crate::registry::{EventNameParts, Undecoded};
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

/// A map of a [`NameColumn`] (a few dozen values a batch, looked up once a row): hashed by
/// `FxHasher`, which is fast and need not be hard to collide here.
type QuickMap<K> = FxHashMap<K, i32>;

/// Slots of a [`NameColumn`]'s table of the names met last, by address.
const RECENT: usize = 64;

/// The slot of a name at `address` of `len` bytes in a [`NameColumn`]'s table of recent names.
fn recent_slot(address: usize, len: usize) -> usize {
    (address ^ (address >> 6) ^ (address >> 12) ^ len) % RECENT
}

/// A dictionary-encoded string column (`Dictionary(Int32, Utf8)`): a key per row, and the
/// distinct values of the batch in the order first met, the order arrow's
/// `StringDictionaryBuilder` gives them.
///
/// Names take the same few values row after row, mostly borrowed from the registry, so a name
/// is looked up first by its address and length in a small table of the names met last (and
/// then checked against the value of the key found: an address proves nothing alone, the
/// text at it may have changed), and only when that misses by its text. Values shown from
/// something else (a provider's [`Source`], a two-part event name, why an event has no
/// fields) are looked up by that thing (`K`), so that it is formatted once a batch, not once a
/// row.
#[derive(Debug)]
struct NameColumn<K = ()> {
    keys: PrimitiveBuilder<Int32Type>,
    /// The dictionary's values, by key.
    values: Vec<Box<str>>,
    /// The key of each value.
    by_text: QuickMap<Box<str>>,
    /// The names met last: address, length and key, in the slot of [`recent_slot`].
    recent: Vec<(usize, usize, i32)>,
    /// The key of each value shown from something else.
    by_source: QuickMap<K>,
    /// The thing shown last and the key of its value: a provider repeats row after row.
    last_source: Option<(K, i32)>,
    /// Whether a value could not be given a key (more than `i32::MAX` distinct values).
    full: bool,
}

impl<K> NameColumn<K> {
    /// An empty column with room for `rows` keys.
    fn with_capacity(rows: usize) -> Self {
        Self {
            keys: PrimitiveBuilder::with_capacity(rows),
            values: Vec::new(),
            by_text: QuickMap::default(),
            recent: vec![(0, 0, -1); RECENT],
            by_source: QuickMap::default(),
            last_source: None,
            full: false,
        }
    }

    /// The value of `key`.
    fn value(&self, key: i32) -> Option<&str> {
        self.values
            .get(usize::try_from(key).ok()?)
            .map(|value| &**value)
    }

    /// The key of `name`, a new one if the batch has not met it; `None` if there is none left.
    fn intern(&mut self, name: &str) -> Option<i32> {
        let address = name.as_ptr().addr();
        let slot = recent_slot(address, name.len());
        if let Some(&(at, len, key)) = self.recent.get(slot) {
            if at == address && len == name.len() && self.value(key) == Some(name) {
                return Some(key);
            }
        }
        let key = match self.by_text.get(name) {
            Some(&key) => key,
            None => {
                let key = i32::try_from(self.values.len()).ok()?;
                self.values.push(name.into());
                self.by_text.insert(name.into(), key);
                key
            }
        };
        if let Some(recent) = self.recent.get_mut(slot) {
            *recent = (address, name.len(), key);
        }
        Some(key)
    }

    /// Appends the row of `key`, or a null (and notes it) if there was none.
    fn append_key(&mut self, key: Option<i32>) {
        match key {
            Some(key) => self.keys.append_value(key),
            None => {
                self.full = true;
                self.keys.append_null();
            }
        }
    }

    /// Appends `name`.
    fn append(&mut self, name: &str) {
        let key = self.intern(name);
        self.append_key(key);
    }

    /// Appends `name`, or a null.
    fn append_option(&mut self, name: Option<&str>) {
        match name {
            Some(name) => self.append(name),
            None => self.keys.append_null(),
        }
    }

    /// Appends a null.
    fn append_null(&mut self) {
        self.keys.append_null();
    }

    /// The rows so far as a dictionary array; the column starts empty again.
    fn finish(&mut self) -> Result<DictionaryArray<Int32Type>, ArrowError> {
        let keys = self.keys.finish();
        let values = StringArray::from_iter_values(self.values.drain(..));
        self.by_text.clear();
        self.recent.fill((0, 0, -1));
        self.by_source.clear();
        self.last_source = None;
        if std::mem::take(&mut self.full) {
            return Err(ArrowError::DictionaryKeyOverflowError);
        }
        DictionaryArray::try_new(keys, Arc::new(values))
    }
}

impl<K: Hash + Eq + Clone> NameColumn<K> {
    /// Appends the text `source` shows, written by `show` into `text` the first time the batch
    /// meets `source`; a key found again by `source` is used only while `still_shows` holds for
    /// its value (a `source` made of addresses proves nothing alone: the text at them may have
    /// changed).
    fn append_shown(
        &mut self,
        source: K,
        text: &mut String,
        still_shows: impl Fn(&str) -> bool,
        show: impl FnOnce(&K, &mut String),
    ) {
        let known = match &self.last_source {
            Some((last, key)) if *last == source => Some(*key),
            _ => self.by_source.get(&source).copied(),
        };
        if let Some(key) = known.filter(|&key| self.value(key).is_some_and(&still_shows)) {
            self.last_source = Some((source, key));
            self.keys.append_value(key);
            return;
        }
        text.clear();
        show(&source, text);
        let key = self.intern(text);
        if let Some(key) = key {
            self.by_source.insert(source.clone(), key);
            self.last_source = Some((source, key));
        }
        self.append_key(key);
    }
}

/// Builds the `events` table from decoded events, a batch at a time: [`push`](Self::push)
/// each event, [`finish`](Self::finish) to take the rows so far as a [`RecordBatch`] and start
/// again empty (a writer of Parquet row groups calls it every few tens of thousands of rows, so
/// that memory stays bounded whatever the trace's length).
pub struct EventColumns {
    rows: usize,
    buffer: PrimitiveBuilder<UInt64Type>,
    offset: PrimitiveBuilder<UInt64Type>,
    kind: NameColumn,
    processor: PrimitiveBuilder<UInt16Type>,
    size: PrimitiveBuilder<UInt16Type>,
    timestamp: PrimitiveBuilder<Int64Type>,
    filetime: PrimitiveBuilder<Int64Type>,
    time: PrimitiveBuilder<TimestampNanosecondType>,
    provider: NameColumn<Source>,
    provider_name: NameColumn,
    /// Two-part names by the address and length of their parts (checked against the value).
    event_name: NameColumn<[usize; 4]>,
    task_name: NameColumn,
    opcode_name: NameColumn,
    level_name: NameColumn,
    keyword_names: ListBuilder<StringBuilder>,
    pid: PrimitiveBuilder<UInt32Type>,
    tid: PrimitiveBuilder<UInt32Type>,
    process_name: NameColumn,
    event_id: PrimitiveBuilder<UInt16Type>,
    version: PrimitiveBuilder<UInt16Type>,
    opcode: PrimitiveBuilder<UInt8Type>,
    level: PrimitiveBuilder<UInt8Type>,
    task: PrimitiveBuilder<UInt16Type>,
    keyword: PrimitiveBuilder<UInt64Type>,
    fields: LargeStringBuilder,
    fields_error: LargeStringBuilder,
    fields_left: PrimitiveBuilder<UInt64Type>,
    undecoded: NameColumn<Undecoded>,
    data_length: PrimitiveBuilder<UInt32Type>,
    data: LargeBinaryBuilder,
    error: LargeStringBuilder,
    /// Scratch text: a two-part event name, a GUID, the fields' JSON.
    text: String,
    json: Vec<u8>,
    /// What the last batch held, to size the builders by at the next batch's first row (not
    /// before, so that a thread waiting for its next events holds no empty room).
    last_batch: Option<Sizes>,
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

/// Whether `value` is `parts` shown (`first`, or `first/second`).
fn shows_parts(value: &str, parts: &EventNameParts<'_>) -> bool {
    let Some(rest) = value.strip_prefix(parts.first) else {
        return false;
    };
    match parts.second {
        None => rest.is_empty(),
        Some(second) => rest.strip_prefix('/') == Some(second),
    }
}

/// What a batch held, to size the next one's builders: rows, and bytes of `fields` and `data`.
#[derive(Clone, Copy, Debug, Default)]
struct Sizes {
    rows: usize,
    fields: usize,
    data: usize,
}

impl EventColumns {
    /// An empty table.
    pub fn new() -> Self {
        Self::with_capacity(Sizes::default())
    }

    /// An empty table whose builders have room for `sizes`: a batch like the last one fills
    /// them without growing them.
    fn with_capacity(sizes: Sizes) -> Self {
        let Sizes { rows, fields, data } = sizes;
        Self {
            rows: 0,
            buffer: PrimitiveBuilder::with_capacity(rows),
            offset: PrimitiveBuilder::with_capacity(rows),
            kind: NameColumn::with_capacity(rows),
            processor: PrimitiveBuilder::with_capacity(rows),
            size: PrimitiveBuilder::with_capacity(rows),
            timestamp: PrimitiveBuilder::with_capacity(rows),
            filetime: PrimitiveBuilder::with_capacity(rows),
            time: PrimitiveBuilder::with_capacity(rows),
            provider: NameColumn::with_capacity(rows),
            provider_name: NameColumn::with_capacity(rows),
            event_name: NameColumn::with_capacity(rows),
            task_name: NameColumn::with_capacity(rows),
            opcode_name: NameColumn::with_capacity(rows),
            level_name: NameColumn::with_capacity(rows),
            keyword_names: ListBuilder::with_capacity(StringBuilder::new(), rows),
            pid: PrimitiveBuilder::with_capacity(rows),
            tid: PrimitiveBuilder::with_capacity(rows),
            process_name: NameColumn::with_capacity(rows),
            event_id: PrimitiveBuilder::with_capacity(rows),
            version: PrimitiveBuilder::with_capacity(rows),
            opcode: PrimitiveBuilder::with_capacity(rows),
            level: PrimitiveBuilder::with_capacity(rows),
            task: PrimitiveBuilder::with_capacity(rows),
            keyword: PrimitiveBuilder::with_capacity(rows),
            fields: LargeStringBuilder::with_capacity(rows, fields),
            fields_error: LargeStringBuilder::new(),
            fields_left: PrimitiveBuilder::with_capacity(rows),
            undecoded: NameColumn::with_capacity(rows),
            data_length: PrimitiveBuilder::with_capacity(rows),
            data: LargeBinaryBuilder::with_capacity(rows, data),
            error: LargeStringBuilder::new(),
            text: String::new(),
            json: Vec::new(),
            last_batch: None,
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
        if let Some(sizes) = self.last_batch.take() {
            self.start_over(sizes);
        }
        let header = &event.event;
        let facts = event.facts();
        self.rows = self.rows.saturating_add(1);
        self.buffer
            .append_value(u64::try_from(event.buffer).unwrap_or(u64::MAX));
        self.offset
            .append_value(u64::try_from(header.offset).unwrap_or(u64::MAX));
        match header.header_type.name() {
            Some(name) => self.kind.append(name),
            None => {
                self.text.clear();
                let _ = write!(self.text, "0x{:02X}", header.header_type.0);
                self.kind.append(&self.text);
            }
        }
        self.processor.append_value(event.processor);
        self.size.append_value(header.size);
        self.timestamp.append_option(event.timestamp());
        self.filetime.append_option(event.filetime);
        self.time
            .append_option(event.filetime.and_then(filetime_to_unix_nanos));
        match facts.source {
            Some(source) => self.provider.append_shown(
                source,
                &mut self.text,
                |_| true,
                |source, text| {
                    let _ = write!(text, "{source}");
                },
            ),
            None => self.provider.append_null(),
        }
        self.push_meaning(event);
        self.pid.append_option(facts.process_id);
        self.tid.append_option(facts.thread_id);
        self.process_name
            .append_option(event.process_name().map(|name| &**name));
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

    /// Appends an event name given in parts: `first`, or `first/second` (shown once a batch,
    /// found again by the parts' addresses and checked against the value).
    fn push_event_name(&mut self, parts: EventNameParts<'_>) {
        let Some(second) = parts.second else {
            self.event_name.append(parts.first);
            return;
        };
        let by = [
            parts.first.as_ptr().addr(),
            parts.first.len(),
            second.as_ptr().addr(),
            second.len(),
        ];
        self.event_name.append_shown(
            by,
            &mut self.text,
            |value| shows_parts(value, &parts),
            |_, text| {
                let _ = write!(text, "{parts}");
            },
        );
    }

    /// The names, fields and why there are none, as
    /// [`describe_meaning`](DecodedEvent::describe_meaning) gives them to the JSON line.
    fn push_meaning(&mut self, event: &DecodedEvent<'_, '_>) {
        match event.meaning() {
            Ok(meaning) => {
                let identified = &meaning.identified;
                self.provider_name.append_option(identified.provider_name());
                match identified.event_name_parts() {
                    Some(parts) => self.push_event_name(parts),
                    None => self.event_name.append_null(),
                }
                self.task_name.append_option(identified.task_name());
                self.opcode_name.append_option(identified.opcode_name());
                self.level_name.append_option(identified.level_name());
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
                self.provider_name.append_option(provider);
                self.event_name.append_option(name);
                self.task_name.append_option(task);
                self.opcode_name.append_option(opcode);
                self.level_name.append_null();
                self.keyword_names.append_null();
                self.fields.append_null();
                self.fields_error.append_null();
                self.fields_left.append_null();
                self.undecoded.append_shown(
                    why,
                    &mut self.text,
                    |_| true,
                    |why, text| {
                        let _ = write!(text, "{why}");
                    },
                );
            }
        }
    }

    /// Empties the table into builders with room for `sizes`, keeping the scratch text's room;
    /// returns the table as it was.
    fn start_over(&mut self, sizes: Sizes) -> Self {
        let mut done = std::mem::replace(self, Self::with_capacity(sizes));
        self.text = std::mem::take(&mut done.text);
        self.json = std::mem::take(&mut done.json);
        done
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
    /// empty again (the dictionaries too: each batch carries its own), and at the next push
    /// takes room for a batch like this one.
    ///
    /// Every push appends one value to every column, and each builder's type is its field's:
    /// the batch matches the schema. The one error is a name column given more distinct values
    /// in one batch than its 32-bit keys count.
    pub fn try_finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let sizes = Sizes {
            rows: self.rows,
            fields: self.fields.values_slice().len(),
            data: self.data.values_slice().len(),
        };
        let mut done = self.start_over(Sizes::default());
        self.last_batch = Some(sizes);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(done.buffer.finish()),
            Arc::new(done.offset.finish()),
            Arc::new(done.kind.finish()?),
            Arc::new(done.processor.finish()),
            Arc::new(done.size.finish()),
            Arc::new(done.timestamp.finish()),
            Arc::new(done.filetime.finish()),
            Arc::new(done.time.finish().with_timezone(UTC)),
            Arc::new(done.provider.finish()?),
            Arc::new(done.provider_name.finish()?),
            Arc::new(done.event_name.finish()?),
            Arc::new(done.task_name.finish()?),
            Arc::new(done.opcode_name.finish()?),
            Arc::new(done.level_name.finish()?),
            Arc::new(done.keyword_names.finish()),
            Arc::new(done.pid.finish()),
            Arc::new(done.tid.finish()),
            Arc::new(done.process_name.finish()?),
            Arc::new(done.event_id.finish()),
            Arc::new(done.version.finish()),
            Arc::new(done.opcode.finish()),
            Arc::new(done.level.finish()),
            Arc::new(done.task.finish()),
            Arc::new(done.keyword.finish()),
            Arc::new(done.fields.finish()),
            Arc::new(done.fields_error.finish()),
            Arc::new(done.fields_left.finish()),
            Arc::new(done.undecoded.finish()?),
            Arc::new(done.data_length.finish()),
            Arc::new(done.data.finish()),
            Arc::new(done.error.finish()),
        ];
        RecordBatch::try_new(Self::schema(), columns)
    }

    /// [`try_finish`](Self::try_finish), an empty batch in place of its error.
    pub fn finish(&mut self) -> RecordBatch {
        self.try_finish()
            .unwrap_or_else(|_| RecordBatch::new_empty(Self::schema()))
    }
}
