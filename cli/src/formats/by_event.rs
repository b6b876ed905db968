//! `--format parquet --by-event`: one Parquet table per (provider, event) in a folder, the way
//! WPA and PerfView show an event type as a table: the columns of the `events` table
//! (docs/PARQUET.md), then one typed column per field of the event's payload.
//!
//! A field's column takes its type from the first value the event type's first row group
//! gives it: `UInt64`, `Int64`, `Float64`, `Boolean`, `LargeUtf8` for text (GUIDs, times,
//! pointers as hex text, as in the JSON lines), `LargeBinary` for bytes, and `LargeUtf8` holding
//! the JSON text for an array, a structure or a mapped value (`{"value": n, "name": ...}`). A
//! later value of another kind, or a field the first row group did not have, is null in the
//! typed columns: the `fields` column holds every value of every event as the JSON lines do.
//! A field named like a common column takes a `_` after its name.
//!
//! The file of an event type is `PROVIDER__EVENT.parquet`, from the provider's name (else its
//! GUID or `kernel:GROUP`) and the event's name (else `id-N`, `opcode-N` or `unnamed`), every
//! character but ASCII letters, digits, `.`, `-` and `_` written `_` (and `-2`, `-3`... after a
//! name another event type already took).

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, LargeBinaryArray, LargeStringArray,
    RecordBatch, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use etw_classic_decode::sink::{Described, Sink, ValueBuilder};
use etw_classic_decode::{DecodedEvent, EventColumns};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::parquet::ROW_GROUP;

/// One top-level field's value.
#[derive(Debug, Clone, PartialEq)]
enum Scalar {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Text(String),
    Bytes(Vec<u8>),
    /// An array, a structure or a mapped value, as JSON text.
    Json(String),
}

impl Scalar {
    /// The Arrow type of a column of such values; `None` for null.
    fn data_type(&self) -> Option<DataType> {
        Some(match self {
            Self::Null => return None,
            Self::Bool(_) => DataType::Boolean,
            Self::U64(_) => DataType::UInt64,
            Self::I64(_) => DataType::Int64,
            Self::F64(_) => DataType::Float64,
            Self::Text(_) | Self::Json(_) => DataType::LargeUtf8,
            Self::Bytes(_) => DataType::LargeBinary,
        })
    }
}

/// A sink that keeps the top-level members of the fields object, each nested value as its JSON
/// text.
#[derive(Default)]
struct TopLevel {
    depth: usize,
    key: Option<String>,
    nested: Option<ValueBuilder>,
    row: Vec<(String, Scalar)>,
}

impl TopLevel {
    /// The member of the key given last; a key given twice keeps its first place and takes its
    /// last value, as a map shows it (and the JSON lines do).
    fn set(&mut self, value: Scalar) {
        let key = self.key.take().unwrap_or_default();
        match self.row.iter_mut().find(|(name, _)| *name == key) {
            Some((_, old)) => *old = value,
            None => self.row.push((key, value)),
        }
    }

    /// Opens a container: the fields object itself, or a nested value.
    fn open(&mut self, object: bool) {
        if self.depth >= 1 {
            let nested = self.nested.get_or_insert_with(ValueBuilder::new);
            if object {
                nested.begin_object();
            } else {
                nested.begin_array();
            }
        }
        self.depth += 1;
    }

    /// Closes a container; the nested value is kept once it is closed whole.
    fn close(&mut self, object: bool) {
        self.depth = self.depth.saturating_sub(1);
        if let Some(nested) = &mut self.nested {
            if object {
                nested.end_object();
            } else {
                nested.end_array();
            }
            if self.depth == 1 {
                if let Some(nested) = self.nested.take() {
                    self.set(Scalar::Json(nested.finish().to_string()));
                }
            }
        }
    }

    fn scalar(&mut self, value: Scalar, nested: impl FnOnce(&mut ValueBuilder)) {
        match &mut self.nested {
            Some(builder) => nested(builder),
            None => self.set(value),
        }
    }
}

impl Sink for TopLevel {
    fn begin_object(&mut self) {
        self.open(true);
    }
    fn end_object(&mut self) {
        self.close(true);
    }
    fn begin_array(&mut self) {
        self.open(false);
    }
    fn end_array(&mut self) {
        self.close(false);
    }
    fn key(&mut self, key: &str) {
        match &mut self.nested {
            Some(nested) => nested.key(key),
            None => self.key = Some(key.to_owned()),
        }
    }
    fn null(&mut self) {
        self.scalar(Scalar::Null, |b| b.null());
    }
    fn bool(&mut self, value: bool) {
        self.scalar(Scalar::Bool(value), |b| b.bool(value));
    }
    fn u64(&mut self, value: u64) {
        self.scalar(Scalar::U64(value), |b| b.u64(value));
    }
    fn i64(&mut self, value: i64) {
        self.scalar(Scalar::I64(value), |b| b.i64(value));
    }
    fn f64(&mut self, value: f64) {
        // Not finite: `null`, as the JSON lines write it.
        let scalar = if value.is_finite() {
            Scalar::F64(value)
        } else {
            Scalar::Null
        };
        self.scalar(scalar, |b| b.f64(value));
    }
    fn str(&mut self, value: &str) {
        self.scalar(Scalar::Text(value.to_owned()), |b| b.str(value));
    }
    fn bytes(&mut self, value: &[u8]) {
        self.scalar(Scalar::Bytes(value.to_owned()), |b| b.bytes(value));
    }
}

/// The top-level fields of `event`, empty when it has none.
fn fields_of(event: &DecodedEvent<'_, '_>) -> Vec<(String, Scalar)> {
    let Ok(meaning) = event.meaning() else {
        return Vec::new();
    };
    let mut sink = TopLevel::default();
    meaning.fields.describe(&mut sink);
    sink.row
}

/// `text` with every character but ASCII letters, digits, `.`, `-` and `_` written `_`.
fn safe(text: &str) -> String {
    let safe: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    // Never a hidden file, `.` or `..`.
    safe.trim_start_matches('.').to_owned()
}

/// What names an event type: (provider, event).
fn type_key(event: &DecodedEvent<'_, '_>) -> (String, String) {
    let facts = event.facts();
    let provider = event
        .provider_name()
        .map(str::to_owned)
        .or_else(|| facts.source.map(|source| source.to_string()))
        .unwrap_or_else(|| "unknown".to_owned());
    let name = match event.event_name() {
        Some(name) => name,
        None => match (facts.event_id, facts.opcode) {
            (Some(id), _) => format!("id-{id}"),
            (None, Some(opcode)) => format!("opcode-{opcode}"),
            (None, None) => "unnamed".to_owned(),
        },
    };
    (provider, name)
}

/// One event type's table.
struct Table {
    path: PathBuf,
    common: EventColumns,
    rows: Vec<Vec<(String, Scalar)>>,
    /// Decided at the first row group: the fields' column names (as in the payload) and types.
    columns: Option<Vec<(String, DataType)>>,
    schema: Option<SchemaRef>,
    writer: Option<ArrowWriter<BufWriter<File>>>,
}

impl Table {
    /// Writes the rows held as one row group.
    fn flush(&mut self) -> Result<(), String> {
        if self.common.is_empty() {
            return Ok(());
        }
        let error = |error: &dyn std::fmt::Display| {
            format!("cannot write {}: {error}", self.path.display())
        };
        let common = self.common.finish();
        let rows = std::mem::take(&mut self.rows);
        let columns = self.columns.get_or_insert_with(|| {
            let mut columns: Vec<(String, DataType)> = Vec::new();
            let mut nulls: Vec<String> = Vec::new();
            for row in &rows {
                for (name, value) in row {
                    if columns.iter().any(|(known, _)| known == name) {
                        continue;
                    }
                    match value.data_type() {
                        Some(data_type) => {
                            nulls.retain(|null| null != name);
                            columns.push((name.clone(), data_type));
                        }
                        None if !nulls.contains(name) => nulls.push(name.clone()),
                        None => {}
                    }
                }
            }
            // A field that is null in every row of the first row group: text.
            columns.extend(nulls.into_iter().map(|name| (name, DataType::LargeUtf8)));
            columns
        });
        let schema = self.schema.get_or_insert_with(|| {
            let base = EventColumns::schema();
            let mut fields: Vec<Field> = base.fields().iter().map(|f| f.as_ref().clone()).collect();
            for (name, data_type) in columns.iter() {
                let mut column = name.clone();
                while fields.iter().any(|field| *field.name() == column) {
                    column.push('_');
                }
                fields.push(Field::new(column, data_type.clone(), true));
            }
            Arc::new(Schema::new(fields))
        });
        let mut arrays: Vec<ArrayRef> = common.columns().to_vec();
        for (name, data_type) in columns.iter() {
            let values = rows.iter().map(|row| {
                row.iter()
                    .find(|(field, _)| field == name)
                    .map_or(&Scalar::Null, |(_, value)| value)
            });
            let array: ArrayRef = match data_type {
                DataType::Boolean => Arc::new(BooleanArray::from_iter(values.map(|v| match v {
                    Scalar::Bool(v) => Some(*v),
                    _ => None,
                }))),
                DataType::UInt64 => Arc::new(UInt64Array::from_iter(values.map(|v| match v {
                    Scalar::U64(v) => Some(*v),
                    _ => None,
                }))),
                DataType::Int64 => Arc::new(Int64Array::from_iter(values.map(|v| match v {
                    Scalar::I64(v) => Some(*v),
                    _ => None,
                }))),
                DataType::Float64 => Arc::new(Float64Array::from_iter(values.map(|v| match v {
                    Scalar::F64(v) => Some(*v),
                    _ => None,
                }))),
                DataType::LargeBinary => {
                    Arc::new(LargeBinaryArray::from_iter(values.map(|v| match v {
                        Scalar::Bytes(v) => Some(v.as_slice()),
                        _ => None,
                    })))
                }
                _ => Arc::new(LargeStringArray::from_iter(values.map(|v| match v {
                    Scalar::Text(v) | Scalar::Json(v) => Some(v.as_str()),
                    _ => None,
                }))),
            };
            arrays.push(array);
        }
        let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| error(&e))?;
        if self.writer.is_none() {
            let file = File::create(&self.path).map_err(|e| error(&e))?;
            let properties = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_max_row_group_row_count(Some(ROW_GROUP))
                .build();
            let writer =
                ArrowWriter::try_new(BufWriter::new(file), schema.clone(), Some(properties))
                    .map_err(|e| error(&e))?;
            self.writer = Some(writer);
        }
        if let Some(writer) = &mut self.writer {
            writer.write(&batch).map_err(|e| error(&e))?;
            // One row group per flush: the rows held are all written.
            writer.flush().map_err(|e| error(&e))?;
        }
        Ok(())
    }
}

/// The tables of one trace's event types, in the folder given.
pub struct ByEvent {
    folder: PathBuf,
    tables: Vec<Table>,
    index: HashMap<(String, String), usize>,
    names: HashMap<String, usize>,
}

impl ByEvent {
    /// Tables to be written into `folder` (created if need be).
    pub fn create(folder: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(folder)
            .map_err(|error| format!("cannot create the folder {}: {error}", folder.display()))?;
        Ok(Self {
            folder: folder.to_owned(),
            tables: Vec::new(),
            index: HashMap::new(),
            names: HashMap::new(),
        })
    }

    /// Adds `event` to its type's table, writing that table's row group when it is full.
    pub fn push(&mut self, event: &DecodedEvent<'_, '_>) -> Result<(), String> {
        let key = type_key(event);
        let index = match self.index.get(&key) {
            Some(&index) => index,
            None => {
                let base = format!("{}__{}", safe(&key.0), safe(&key.1));
                let count = self.names.entry(base.clone()).or_default();
                *count += 1;
                let name = if *count == 1 {
                    format!("{base}.parquet")
                } else {
                    format!("{base}-{count}.parquet")
                };
                self.tables.push(Table {
                    path: self.folder.join(name),
                    common: EventColumns::new(),
                    rows: Vec::new(),
                    columns: None,
                    schema: None,
                    writer: None,
                });
                let index = self.tables.len() - 1;
                self.index.insert(key, index);
                index
            }
        };
        let table = &mut self.tables[index];
        table.common.push(event);
        table.rows.push(fields_of(event));
        if table.common.len() >= ROW_GROUP {
            table.flush()?;
        }
        Ok(())
    }

    /// Writes every table's last rows and footer; the first error met, after trying them all.
    pub fn close(self) -> Result<(), String> {
        let mut first = None;
        for mut table in self.tables {
            let result = table.flush().and_then(|()| match table.writer.take() {
                Some(writer) => writer
                    .close()
                    .map(drop)
                    .map_err(|e| format!("cannot write {}: {e}", table.path.display())),
                None => Ok(()),
            });
            if let Err(error) = result {
                first.get_or_insert(error);
            }
        }
        first.map_or(Ok(()), Err)
    }
}
