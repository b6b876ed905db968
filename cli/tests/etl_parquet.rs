//! `etwc etl --format parquet`: the files written are read back with the `parquet` crate's
//! Arrow reader and compared, row by row, with the `--json` lines of the same run's filters;
//! several inputs go to one file each in a folder, a bad input is reported by name and the
//! others are still written.

mod common;

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayAccessor, RecordBatch, StringArray};
use common::{etwc, trace, utf8};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

/// The event lines of `etwc etl FILE --json ARGS` (the logfile header's line left out).
fn json_events(file: &Path, args: &[&str]) -> Vec<Value> {
    let output = etwc()
        .arg("etl")
        .arg(file)
        .arg("--json")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    utf8(&output)
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// The batches of the Parquet file `path`, and how many row groups it has.
fn read_parquet(path: &Path) -> (Vec<RecordBatch>, usize) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("written"))
        .expect("a Parquet file");
    let row_groups = builder.metadata().num_row_groups();
    let batches = builder
        .build()
        .expect("a reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("every batch reads");
    (batches, row_groups)
}

/// A dictionary or plain string column's value at `row`.
fn string(batch: &RecordBatch, column: &str, row: usize) -> Option<String> {
    let array = batch.column_by_name(column).expect(column);
    if !array.is_valid(row) {
        return None;
    }
    Some(match array.data_type() {
        arrow_schema::DataType::Dictionary(..) => {
            let dictionary = array.as_dictionary::<Int32Type>();
            let strings = dictionary.downcast_dict::<StringArray>().expect("Utf8");
            strings.value(row).to_owned()
        }
        arrow_schema::DataType::LargeUtf8 => array.as_string::<i64>().value(row).to_owned(),
        other => panic!("{column}: {other}"),
    })
}

/// Checks the rows of `batches` against `lines`, in order.
fn check_rows(batches: &[RecordBatch], lines: &[Value], what: &str) {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, lines.len(), "{what}: rows");
    let mut lines = lines.iter();
    for batch in batches {
        for row in 0..batch.num_rows() {
            let line = lines.next().expect("a line per row");
            let at = format!(
                "{what}: buffer {} offset {}",
                line["buffer"], line["offset"]
            );
            let u64_at = |column: &str| {
                let array = batch.column_by_name(column).expect(column);
                let array = array.as_primitive::<UInt64Type>();
                array.is_valid(row).then(|| array.value(row))
            };
            assert_eq!(u64_at("buffer"), line["buffer"].as_u64(), "{at}");
            assert_eq!(u64_at("offset"), line["offset"].as_u64(), "{at}");
            for key in [
                "kind",
                "provider_name",
                "event_name",
                "task_name",
                "opcode_name",
                "process_name",
                "undecoded",
            ] {
                assert_eq!(
                    string(batch, key, row).as_deref(),
                    line.get(key).and_then(Value::as_str),
                    "{at}: {key}"
                );
            }
            let fields = match &line["fields"] {
                Value::Null => None,
                fields => Some(fields.to_string()),
            };
            assert_eq!(string(batch, "fields", row), fields, "{at}: fields");
            let filetime = batch.column_by_name("filetime").expect("filetime");
            let filetime = filetime.as_primitive::<Int64Type>();
            assert_eq!(
                filetime.is_valid(row).then(|| filetime.value(row)),
                line["filetime"].as_i64(),
                "{at}: filetime"
            );
            let pid = batch.column_by_name("pid").expect("pid");
            let pid = pid.as_primitive::<UInt32Type>();
            assert_eq!(
                pid.is_valid(row).then(|| u64::from(pid.value(row))),
                line.get("process_id").and_then(Value::as_u64),
                "{at}: pid"
            );
        }
    }
}

/// Writes `trace` with `args` to a Parquet file and checks it against the JSON lines.
fn check_trace(name: &str, args: &[&str]) -> Option<usize> {
    let file = trace(name)?;
    let folder = tempfile::tempdir().expect("a temporary folder");
    let out = folder.path().join("events.parquet");
    etwc()
        .arg("etl")
        .arg(&file)
        .args(["--format", "parquet", "-o"])
        .arg(&out)
        .args(args)
        .assert()
        .success()
        .stdout("");
    let (batches, _) = read_parquet(&out);
    let lines = json_events(&file, args);
    check_rows(&batches, &lines, name);
    Some(lines.len())
}

#[test]
fn the_parquet_file_holds_the_json_lines() {
    for (name, events) in [
        ("SelfDescribingSingleEvent.etl", 23),
        ("gcevents.etl", 71),
        ("primitive-types.etl", 7),
        ("net.4.5.2.x64.etl", 179_474),
    ] {
        if let Some(rows) = check_trace(name, &[]) {
            assert_eq!(rows, events, "{name}");
        }
    }
}

#[test]
fn filters_and_the_limit_hold_as_for_every_format() {
    // How many events each selection keeps, as `--stats` counts them: the selections are not
    // empty, and the limit cuts where it says.
    for (args, at_least) in [
        (&["--provider", "kernel:PROCESS"][..], 136),
        (
            &["--event", "CLRStack/CLRStackWalk", "--limit", "1000"],
            1000,
        ),
        (&["--process", "PerfView"], 634),
        (&["--limit", "0"], 0),
        (
            &[
                "--from",
                "2020-07-29T00:07:05Z",
                "--to",
                "2020-07-29T00:07:06Z",
            ],
            1,
        ),
    ] {
        if let Some(rows) = check_trace("net.4.5.2.x64.etl", args) {
            assert!(rows >= at_least, "{args:?}: {rows} rows");
            if args.contains(&"--limit") {
                assert_eq!(rows, at_least, "{args:?}");
            }
        }
    }
}

#[test]
fn several_files_go_to_a_folder_and_a_bad_one_is_reported_by_name() {
    let (Some(gc), Some(primitive)) = (trace("gcevents.etl"), trace("primitive-types.etl")) else {
        return;
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bad = folder.path().join("bad.etl");
    std::fs::write(&bad, b"not a trace at all").expect("written");
    let out = folder.path().join("out");
    let output = etwc()
        .arg("etl")
        .arg(&gc)
        .arg(&bad)
        .arg(&primitive)
        .args(["--format", "parquet", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = utf8(&output.stderr);
    assert!(
        stderr.contains(&format!("etwc: {}: not an .etl file", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("1 of 3 files"), "{stderr}");
    assert!(!out.join("bad.parquet").exists());
    for (file, name, rows) in [(&gc, "gcevents", 71), (&primitive, "primitive-types", 7)] {
        let (batches, row_groups) = read_parquet(&out.join(format!("{name}.parquet")));
        assert_eq!(row_groups, 1, "{name}");
        check_rows(&batches, &json_events(file, &[]), name);
        assert_eq!(
            batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
            rows
        );
    }
}

#[test]
fn row_groups_are_bounded() {
    let Some(file) = trace("net.4.5.2.x64.etl") else {
        return;
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let out = folder.path().join("net.parquet");
    etwc()
        .arg("etl")
        .arg(&file)
        .args(["--format", "parquet", "-o"])
        .arg(&out)
        .assert()
        .success();
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(File::open(&out).expect("written")).expect("read");
    let groups: Vec<i64> = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|group| group.num_rows())
        .collect();
    // 179,474 events in row groups of at most 64 Ki rows.
    assert_eq!(groups, [65_536, 65_536, 48_402]);
}

#[test]
fn parquet_needs_an_output_path_and_file_order() {
    let Some(file) = trace("gcevents.etl") else {
        return;
    };
    let output = etwc()
        .arg("etl")
        .arg(&file)
        .args(["--format", "parquet"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(utf8(&output.stderr).contains("-o PATH"));
    let output = etwc()
        .arg("etl")
        .arg(&file)
        .arg(&file)
        .arg("--json")
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(utf8(&output.stderr).contains("--format parquet only"));
}

/// A typed field column's value at `row` as the JSON lines would write it.
fn typed_value(batch: &RecordBatch, column: usize, row: usize) -> Value {
    use arrow_schema::DataType;
    let array = batch.column(column);
    if !array.is_valid(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::Float64 => Value::from(
            array
                .as_primitive::<arrow_array::types::Float64Type>()
                .value(row),
        ),
        DataType::Boolean => Value::from(array.as_boolean().value(row)),
        DataType::LargeBinary => Value::from(
            array
                .as_binary::<i64>()
                .value(row)
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>(),
        ),
        DataType::LargeUtf8 => {
            let text = array.as_string::<i64>().value(row);
            // Arrays, structures and mapped values are their JSON text.
            match serde_json::from_str::<Value>(text) {
                Ok(value @ (Value::Array(_) | Value::Object(_))) => value,
                _ => Value::from(text),
            }
        }
        other => panic!("column {column}: {other}"),
    }
}

/// Writes `trace` `--by-event` and checks every table's typed columns against the JSON lines'
/// `fields`; returns the types the typed columns took.
fn check_by_event(name: &str, args: &[&str]) -> Option<Vec<arrow_schema::DataType>> {
    let file = trace(name)?;
    let folder = tempfile::tempdir().expect("a temporary folder");
    let out = folder.path().join("tables");
    etwc()
        .arg("etl")
        .arg(&file)
        .args(["--format", "parquet", "--by-event", "-o"])
        .arg(&out)
        .args(args)
        .assert()
        .success();
    let lines = json_events(&file, args);
    let by_position: std::collections::HashMap<(u64, u64), &Value> = lines
        .iter()
        .map(|line| {
            let key = (
                line["buffer"].as_u64().unwrap(),
                line["offset"].as_u64().unwrap(),
            );
            (key, line)
        })
        .collect();
    let common = etw_classic_decode::EventColumns::schema().fields().len();
    let (mut rows, mut types, mut checked) = (0, Vec::new(), 0);
    for table in std::fs::read_dir(&out).expect("the folder") {
        let path = table.expect("an entry").path();
        let (batches, _) = read_parquet(&path);
        for batch in &batches {
            let schema = batch.schema();
            for column in common..batch.num_columns() {
                types.push(schema.field(column).data_type().clone());
            }
            for row in 0..batch.num_rows() {
                let position = |column: &str| {
                    batch
                        .column_by_name(column)
                        .unwrap()
                        .as_primitive::<UInt64Type>()
                        .value(row)
                };
                let line = by_position[&(position("buffer"), position("offset"))];
                let what = format!("{}: {}", path.display(), line["offset"]);
                // Every row holds one event type.
                assert_eq!(
                    string(batch, "event_name", row).as_deref(),
                    line["event_name"].as_str(),
                    "{what}"
                );
                let fields = line["fields"].as_object();
                for column in common..batch.num_columns() {
                    let got = typed_value(batch, column, row);
                    let name = schema.field(column).name().trim_end_matches('_').to_owned();
                    let expected = fields
                        .and_then(|f| f.get(&name))
                        .cloned()
                        .unwrap_or(Value::Null);
                    // A value of another kind than the column's first is null in the column.
                    if got != Value::Null || expected == Value::Null {
                        assert_eq!(got, expected, "{what}: {name}");
                    }
                    checked += usize::from(got != Value::Null);
                }
                rows += 1;
            }
        }
    }
    assert_eq!(rows, lines.len(), "{name}: every event in one table");
    assert!(checked > 0, "{name}: no typed value");
    Some(types)
}

#[test]
fn by_event_tables_type_the_fields() {
    use arrow_schema::DataType;
    if let Some(types) = check_by_event("primitive-types.etl", &[]) {
        for data_type in [
            DataType::UInt64,
            DataType::Int64,
            DataType::Boolean,
            DataType::LargeUtf8,
        ] {
            assert!(types.contains(&data_type), "{data_type} in {types:?}");
        }
    }
    check_by_event("SelfDescribingSingleEvent.etl", &[]);
    // Manifest events (the .NET runtime's EventSource and rundown) and kernel events.
    check_by_event("net.4.5.2.x64.etl", &["--limit", "20000"]);
}
