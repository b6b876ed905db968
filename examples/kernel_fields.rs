//! Prints the fields of a trace's kernel events, decoded with the built-in kernel tables, as
//! JSON lines, for `tools/etl-crosscheck/kernel_payloads.py` to compare with dissect.etl.
//!
//! ```text
//! cargo run --release --example kernel_fields -- TRACE.etl [--per-key N]
//! ```
//! One line per kernel event (`SYSTEM`, `COMPACT`, `PERFINFO` headers, and classic events of a
//! kernel class GUID) whose class, type and version the tables hold, in file order; with
//! `--per-key N`, only the first `N` of each (class, type, version). Each line: `buffer`,
//! `offset` (as `etwc etl --json` gives them), `class`, `type`, `version`, `event` (the name
//! TraceEvent prints), `data` (hex), `fields` (name to value: integers and pointers as numbers,
//! text as strings, GUIDs and SIDs in their text form, binary as hex, arrays as lists) and
//! `error` or `rest` when the data does not decode to its last byte.

#[path = "common/kernel_key.rs"]
mod kernel_key;

use std::collections::BTreeMap;
use std::process::ExitCode;

use etw_classic::payload::kernel;
use etw_classic::payload::{ItemKind, PayloadDecoder, Value};
use etw_classic::{EtlFile, Guid};
use kernel_key::kernel_key;
use serde_json::{json, Map, Value as Json};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn to_json(value: &Value<'_>) -> Json {
    match *value {
        Value::Null => Json::Null,
        Value::I8(v) => v.into(),
        Value::U8(v) => v.into(),
        Value::I16(v) => v.into(),
        Value::U16(v) => v.into(),
        Value::I32(v) => v.into(),
        Value::U32(v) => v.into(),
        Value::I64(v) => v.into(),
        Value::U64(v) | Value::Pointer(v) | Value::FileTime(v) | Value::HexInt64(v) => v.into(),
        Value::HexInt32(v) => v.into(),
        Value::F32(v) => v.into(),
        Value::F64(v) => v.into(),
        Value::Bool(v) => v.into(),
        Value::Char16(v) => v.into(),
        Value::Char8(v) => v.into(),
        Value::Guid(guid) => guid.to_string().into(),
        Value::Sid(sid) => sid.to_string().into(),
        Value::NoSid => Json::Null,
        Value::Utf16(text) => text.chars().collect::<String>().into(),
        Value::Ansi(text) => String::from_utf8_lossy(text).into_owned().into(),
        Value::Binary(bytes) => hex(bytes).into(),
        ref other => format!("{other:?}").into(),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, per_key) = match args.as_slice() {
        [path] => (path, usize::MAX),
        [path, flag, n] if flag == "--per-key" => match n.parse() {
            Ok(n) => (path, n),
            Err(_) => {
                eprintln!("kernel_fields: --per-key takes a number, not {n}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: kernel_fields TRACE.etl [--per-key N]");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("kernel_fields: cannot read {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let file = match EtlFile::parse(&bytes) {
        Ok(file) => file,
        Err(error) => {
            eprintln!("kernel_fields: {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut seen: BTreeMap<(Guid, u8, u16), usize> = BTreeMap::new();
    for buffer in file.buffers() {
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(error) => {
                eprintln!("kernel_fields: {path}: {error}");
                return ExitCode::FAILURE;
            }
        };
        let index = buffer.index;
        let events = match buffer.trace_buffer(&mut scratch) {
            Ok(events) => events,
            Err(error) => {
                eprintln!("kernel_fields: {path}: {error}");
                return ExitCode::FAILURE;
            }
        };
        for event in events.events() {
            let Ok(event) = event else { break };
            let Some(bitness) = event.header_type.bitness() else {
                continue;
            };
            let Some(key) = kernel_key(event.kind()) else {
                continue;
            };
            let (class, event_type, version, data) =
                (key.class, key.event_type, key.version, key.data);
            let Some(schema) = kernel::lookup(class, event_type, version) else {
                continue;
            };
            let count = seen.entry((class, event_type, version)).or_default();
            *count += 1;
            if *count > per_key {
                continue;
            }
            let fields = schema.fields_for(data.len(), bitness);
            let mut decoder = PayloadDecoder::new(&fields, data, bitness);
            let mut values = Map::new();
            let mut array: Option<(String, Vec<Json>)> = None;
            let mut error = None;
            for item in decoder.by_ref() {
                match item {
                    Ok(item) => match item.kind {
                        ItemKind::ArrayStart { .. } => {
                            array = Some((item.field.name.to_owned(), Vec::new()));
                        }
                        ItemKind::ArrayEnd => {
                            if let Some((name, list)) = array.take() {
                                values.insert(name, Json::Array(list));
                            }
                        }
                        ItemKind::Value(value) => match array.as_mut() {
                            Some((_, list)) => list.push(to_json(&value)),
                            None => {
                                values.insert(item.field.name.to_owned(), to_json(&value));
                            }
                        },
                        _ => {}
                    },
                    Err(problem) => error = Some(problem.named(fields.as_slice()).to_string()),
                }
            }
            let mut line = json!({
                "buffer": index,
                "offset": event.offset,
                "class": class.to_string(),
                "type": event_type,
                "version": version,
                "event": schema.event_name().to_string(),
                "data": hex(data),
                "fields": values,
            });
            if let Some(error) = error {
                line["error"] = error.into();
            } else if !decoder.rest().is_empty() {
                line["rest"] = hex(decoder.rest()).into();
            }
            println!("{line}");
        }
    }
    ExitCode::SUCCESS
}
