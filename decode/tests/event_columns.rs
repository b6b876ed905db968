//! The `events` table of `EventColumns` (feature `arrow`) against the JSON lines of the same
//! events, on four PerfView traces: every row holds the values its line's keys hold (the line
//! is what `etwc etl --json` prints, which `decoded_event.rs` holds to `serde_json`; the values
//! come from the traces). The `time` column is checked against the line's ISO 8601 text, read
//! here with the civil calendar's day count. The traces are read from `../shared/data/perfview`
//! unless `ETW_REQUIRE_TRACES=1` (see `shared_files/mod.rs`).

mod shared_files;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int32Type, Int64Type, TimestampNanosecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayAccessor, ArrowPrimitiveType, RecordBatch, StringArray};
use arrow_schema::{DataType, TimeUnit};
use etw_classic::EtlReader;
use etw_classic_decode::event::filetime_of;
use etw_classic_decode::render::hex_bytes;
use etw_classic_decode::{DecodedEvent, EventColumns, Registry};
use serde_json::Value;

/// Rows per batch in the test: small, so that `finish` runs often and every batch starts its
/// dictionaries anew.
const BATCH: usize = 4096;

/// A primitive column's value at `row`, `None` when null.
fn primitive<T: ArrowPrimitiveType>(
    batch: &RecordBatch,
    name: &str,
    row: usize,
) -> Option<T::Native> {
    let column = batch.column_by_name(name).expect(name).as_primitive::<T>();
    column.is_valid(row).then(|| column.value(row))
}

/// A dictionary-encoded string column's value at `row`.
fn name(batch: &RecordBatch, column: &str, row: usize) -> Option<String> {
    let dictionary = batch
        .column_by_name(column)
        .expect(column)
        .as_dictionary::<Int32Type>();
    let strings = dictionary
        .downcast_dict::<StringArray>()
        .expect("Utf8 values");
    dictionary
        .is_valid(row)
        .then(|| strings.value(row).to_owned())
}

/// A `LargeUtf8` column's value at `row`.
fn text(batch: &RecordBatch, column: &str, row: usize) -> Option<String> {
    let array = batch
        .column_by_name(column)
        .expect(column)
        .as_string::<i64>();
    array.is_valid(row).then(|| array.value(row).to_owned())
}

/// The line's unsigned integer under `key`, `None` when absent or `null`.
fn u64_of(line: &Value, key: &str) -> Option<u64> {
    line.get(key).and_then(Value::as_u64)
}

/// The line's text under `key`, `None` when absent or `null`.
fn str_of(line: &Value, key: &str) -> Option<String> {
    line.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian): the day count of
/// Howard Hinnant's `days_from_civil`, written from its description.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Nanoseconds since 1970 of `YYYY-MM-DDTHH:MM:SS.fffffffZ`.
fn parse_utc(time: &str) -> i64 {
    let number = |range: std::ops::Range<usize>| -> i64 { time[range].parse().expect(time) };
    assert_eq!(time.len(), 28, "{time}");
    assert!(time.ends_with('Z'), "{time}");
    let days = days_from_civil(number(0..4), number(5..7), number(8..10));
    let seconds = days * 86_400 + number(11..13) * 3600 + number(14..16) * 60 + number(17..19);
    seconds * 1_000_000_000 + number(20..27) * 100
}

/// Checks row `row` of `batch` against `line`; `what` names it in failures.
fn check_row(batch: &RecordBatch, row: usize, line: &Value, what: &str) {
    let u64_col = |column: &str| primitive::<UInt64Type>(batch, column, row);
    assert_eq!(u64_col("buffer"), u64_of(line, "buffer"), "{what}: buffer");
    assert_eq!(u64_col("offset"), u64_of(line, "offset"), "{what}: offset");
    assert_eq!(
        name(batch, "kind", row),
        str_of(line, "kind"),
        "{what}: kind"
    );
    assert_eq!(
        primitive::<UInt16Type>(batch, "processor", row).map(u64::from),
        u64_of(line, "processor"),
        "{what}: processor"
    );
    assert_eq!(
        primitive::<UInt16Type>(batch, "size", row).map(u64::from),
        u64_of(line, "size"),
        "{what}: size"
    );
    let raw = line
        .get("timestamp")
        .or_else(|| line.get("system_time"))
        .and_then(Value::as_i64);
    assert_eq!(
        primitive::<Int64Type>(batch, "timestamp", row),
        raw,
        "{what}: timestamp"
    );
    assert_eq!(
        primitive::<Int64Type>(batch, "filetime", row),
        line["filetime"].as_i64(),
        "{what}: filetime"
    );
    assert_eq!(
        primitive::<TimestampNanosecondType>(batch, "time", row),
        line["time"].as_str().map(parse_utc),
        "{what}: time {}",
        line["time"]
    );

    // One provider column whatever the header: the GUID of the header's own key, or the
    // kernel group of a version-first header.
    let provider = name(batch, "provider", row);
    if line.get("group").is_some() {
        assert!(
            provider
                .as_deref()
                .is_some_and(|p| p.starts_with("kernel:")),
            "{what}: {provider:?}"
        );
    } else {
        let guid = ["provider_id", "guid", "message_guid"]
            .into_iter()
            .find_map(|key| str_of(line, key));
        assert_eq!(provider, guid, "{what}: provider");
    }

    for column in [
        "provider_name",
        "event_name",
        "task_name",
        "opcode_name",
        "level_name",
        "process_name",
        "undecoded",
    ] {
        assert_eq!(
            name(batch, column, row),
            str_of(line, column),
            "{what}: {column}"
        );
    }
    let keywords = batch
        .column_by_name("keyword_names")
        .expect("keyword_names")
        .as_list::<i32>();
    let expected: Option<Vec<String>> = line.get("keyword_names").map(|names| {
        names
            .as_array()
            .expect("an array")
            .iter()
            .map(|n| n.as_str().expect("text").to_owned())
            .collect()
    });
    let got: Option<Vec<String>> = keywords.is_valid(row).then(|| {
        let names = keywords.value(row);
        let names = names.as_string::<i32>();
        names
            .iter()
            .map(|n| n.expect("a name").to_owned())
            .collect()
    });
    assert_eq!(got, expected, "{what}: keyword_names");

    assert_eq!(
        primitive::<UInt32Type>(batch, "pid", row).map(u64::from),
        u64_of(line, "process_id"),
        "{what}: pid"
    );
    assert_eq!(
        primitive::<UInt32Type>(batch, "tid", row).map(u64::from),
        u64_of(line, "thread_id"),
        "{what}: tid"
    );

    // The descriptor's numbers, under the keys each kind of header gives them.
    let (event_id, version, opcode, level, task, keyword) =
        if let Some(d) = line.get("event_descriptor") {
            (
                u64_of(d, "id"),
                u64_of(d, "version"),
                u64_of(d, "opcode"),
                u64_of(d, "level"),
                u64_of(d, "task"),
                u64_of(d, "keyword"),
            )
        } else if line.get("class_type").is_some() {
            (
                None,
                u64_of(line, "class_version"),
                u64_of(line, "class_type"),
                u64_of(line, "class_level"),
                None,
                None,
            )
        } else if line.get("group").is_some() {
            (
                None,
                u64_of(line, "version"),
                u64_of(line, "type"),
                None,
                None,
                None,
            )
        } else {
            (None, None, None, None, None, None)
        };
    assert_eq!(
        primitive::<UInt16Type>(batch, "event_id", row).map(u64::from),
        event_id,
        "{what}: event_id"
    );
    assert_eq!(
        primitive::<UInt16Type>(batch, "version", row).map(u64::from),
        version,
        "{what}: version"
    );
    assert_eq!(
        primitive::<UInt8Type>(batch, "opcode", row).map(u64::from),
        opcode,
        "{what}: opcode"
    );
    assert_eq!(
        primitive::<UInt8Type>(batch, "level", row).map(u64::from),
        level,
        "{what}: level"
    );
    assert_eq!(
        primitive::<UInt16Type>(batch, "task", row).map(u64::from),
        task,
        "{what}: task"
    );
    assert_eq!(u64_col("keyword"), keyword, "{what}: keyword");

    let fields = match &line["fields"] {
        Value::Null => None,
        fields => Some(fields.to_string()),
    };
    assert_eq!(text(batch, "fields", row), fields, "{what}: fields");
    assert_eq!(
        text(batch, "fields_error", row),
        str_of(line, "fields_error"),
        "{what}: fields_error"
    );
    assert_eq!(
        u64_col("fields_left"),
        u64_of(line, "fields_left"),
        "{what}: fields_left"
    );
    assert_eq!(
        text(batch, "error", row),
        str_of(line, "error"),
        "{what}: error"
    );

    let data = batch
        .column_by_name("data")
        .expect("data")
        .as_binary::<i64>();
    let data = data.is_valid(row).then(|| data.value(row));
    assert_eq!(
        primitive::<UInt32Type>(batch, "data_length", row).map(u64::from),
        data.map(|data| data.len() as u64),
        "{what}: data_length"
    );
    match (line.get("data"), line.get("bytes")) {
        (Some(Value::Null), _) => assert_eq!(data, None, "{what}: data"),
        (Some(hex), _) | (None, Some(hex)) => {
            assert_eq!(data.map(hex_bytes).as_deref(), hex.as_str(), "{what}: data")
        }
        // A kind whose line shows no bytes (padding): the column still holds them.
        (None, None) => assert!(data.is_some(), "{what}: data"),
    }
}

/// Checks every event of the trace `name`; returns how many rows there were and how many had
/// fields, a time and a process name.
fn check_trace(name: &str) -> Option<[usize; 4]> {
    let path = shared_files::trace_path(name)?;
    let path = path.to_str().expect("the trace's path is UTF-8");
    let no_files: &[&str] = &[];
    let registry = Registry::for_trace(no_files, no_files, Some(path)).expect("no schema files");
    let mut reader = EtlReader::open(path).expect("the trace opens");
    let clock = reader.clock().ok();
    let mut columns = EventColumns::new();
    let mut lines = Vec::new();
    let mut counts = [0; 4];
    let mut check = |columns: &mut EventColumns, lines: &mut Vec<Value>| {
        assert_eq!(columns.len(), lines.len());
        let batch = columns.finish();
        assert!(columns.is_empty());
        assert_eq!(batch.schema(), EventColumns::schema());
        assert_eq!(batch.num_rows(), lines.len());
        for (row, line) in lines.iter().enumerate() {
            let what = format!(
                "{name}: buffer {} offset {}",
                line["buffer"], line["offset"]
            );
            check_row(&batch, row, line, &what);
            counts[0] += 1;
            counts[1] += usize::from(line["fields"].is_object());
            counts[2] += usize::from(line["time"].is_string());
            counts[3] += usize::from(line["process_name"].is_string());
        }
        lines.clear();
    };
    let mut json = Vec::new();
    while let Some(buffer) = reader.next_buffer() {
        let buffer = buffer.expect("every buffer decodes");
        for event in buffer.events() {
            let event = event.expect("every event reads");
            let filetime = filetime_of(&event, clock);
            let decoded = DecodedEvent::new(
                buffer.position.index,
                buffer.processor,
                event,
                filetime,
                &registry,
            );
            columns.push(&decoded);
            json.clear();
            decoded.write_json(&mut json);
            lines.push(serde_json::from_slice(&json).expect("a JSON line"));
            if columns.len() == BATCH {
                check(&mut columns, &mut lines);
            }
        }
    }
    check(&mut columns, &mut lines);
    Some(counts)
}

#[test]
fn every_row_holds_its_json_line() {
    // The events after the logfile header, as dissect.etl's record walk counts them
    // (tools/etl-crosscheck/crosscheck.py holds etwc's counts to dissect.etl's in CI).
    for (trace, expected_events) in [
        ("SelfDescribingSingleEvent.etl", 23),
        ("gcevents.etl", 71),
        ("primitive-types.etl", 7),
        ("net.4.5.2.x64.etl", 179_474),
    ] {
        let Some([events, with_fields, with_time, with_process]) = check_trace(trace) else {
            continue;
        };
        assert_eq!(events, expected_events, "{trace}");
        assert!(
            with_fields > 0 && with_time > 0,
            "{trace}: {with_fields} fields, {with_time} times"
        );
        eprintln!("{trace}: {events} rows, {with_fields} with fields, {with_time} with a time, {with_process} with a process name");
    }
}

#[test]
fn the_schema_types_time_as_utc_nanoseconds_and_names_as_dictionaries() {
    let schema = EventColumns::schema();
    assert_eq!(
        schema.field_with_name("time").expect("time").data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
    );
    for column in [
        "kind",
        "provider",
        "provider_name",
        "event_name",
        "process_name",
    ] {
        assert_eq!(
            schema.field_with_name(column).expect(column).data_type(),
            &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            "{column}"
        );
    }
    assert_eq!(
        schema.field_with_name("data").expect("data").data_type(),
        &DataType::LargeBinary
    );
    let mut columns = EventColumns::default();
    assert!(columns.is_empty());
    let empty = columns.finish();
    assert_eq!(empty.num_rows(), 0);
    assert_eq!(empty.schema(), schema);
}
