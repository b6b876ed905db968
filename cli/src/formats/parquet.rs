//! `--format parquet`: the `events` table of the decoded events ([`EventColumns`], described in
//! docs/PARQUET.md) written as an Apache Parquet file, Snappy-compressed.
//!
//! The driver (`etl.rs`) builds one record batch per buffer on every core and hands them here
//! in file order; the writer gathers them into row groups of at most [`ROW_GROUP`] rows and
//! writes each as soon as it is full, so that memory holds one row group whatever the length
//! of the trace.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use etw_classic_decode::EventColumns;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

/// Rows of one row group: 64 Ki, a few MiB of columns for the events of the PerfView traces.
pub const ROW_GROUP: usize = 64 << 10;

/// The Parquet file of one trace's `events` table, being written.
pub struct EventsFile {
    path: PathBuf,
    writer: ArrowWriter<BufWriter<File>>,
    rows: u64,
}

impl EventsFile {
    /// Creates (or replaces) the file at `path`.
    pub fn create(path: &Path) -> Result<Self, String> {
        let file = File::create(path)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        // Dictionary pages for the names only (dictionary-encoded columns in Arrow too): the
        // numbers, the fields' text and the data are mostly distinct, and hashing them to find
        // out costs more than it saves. Statistics per column chunk, not per page.
        let mut properties = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Chunk);
        for field in EventColumns::schema().fields() {
            if matches!(field.data_type(), DataType::Dictionary(..)) {
                properties = properties
                    .set_column_dictionary_enabled(ColumnPath::from(field.name().as_str()), true);
            }
        }
        let properties = properties
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP))
            .set_created_by(concat!("etwc ", env!("CARGO_PKG_VERSION")).to_owned())
            .build();
        let writer = ArrowWriter::try_new(
            BufWriter::with_capacity(1 << 20, file),
            EventColumns::schema(),
            Some(properties),
        )
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        Ok(Self {
            path: path.to_owned(),
            writer,
            rows: 0,
        })
    }

    /// Appends the rows of `batch`.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), String> {
        self.rows += batch.num_rows() as u64;
        self.writer
            .write(batch)
            .map_err(|error| format!("cannot write {}: {error}", self.path.display()))
    }

    /// Writes the last row group and the footer; returns the rows written.
    pub fn close(self) -> Result<u64, String> {
        let path = self.path;
        self.writer
            .close()
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        Ok(self.rows)
    }
}
