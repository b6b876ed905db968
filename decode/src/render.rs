//! How a decoded value is shown: the rules every output shares (JSON, the table, CSV, Python),
//! from the value, its field's out-type and the map that names it.
//!
//! | value | shown as |
//! |---|---|
//! | integers, floats | numbers (a float that is not finite as the text `NaN`, `inf`, `-inf`) |
//! | `BOOLEAN`, and an integer whose out-type is `BOOLEAN` | `true` / `false` |
//! | an integer whose out-type is `STRING` (TraceLogging's character) | the character |
//! | `HEXINT32`/`HEXINT64`, pointers | `0x` and at least 8 hexadecimal digits (an integer whose out-type only asks for hexadecimal stays a number, as TraceEvent prints it) |
//! | out-types `WIN32_ERROR`, `NTSTATUS`, `HRESULT`, `ERROR_CODE` | `0x` and 8 uppercase hexadecimal digits |
//! | out-type `PORT` | the `u16` read big-endian, as a number |
//! | out-type `IPV4` on a `UINT32` | dotted quad, the bytes in the order stored |
//! | out-type `IPV6` on 16 bytes, `SOCKET_ADDRESS` on a `SOCKADDR_IN`/`IN6` | the address's text form |
//! | `GUID` | lowercase with hyphens |
//! | `FILETIME` | ISO 8601 UTC, 100 ns digits; `SYSTEMTIME` the same without a zone, as stored |
//! | `SID` | `S-1-5-...`; the kernel's "no SID" as `null` |
//! | UTF-16 text | the text (an unpaired surrogate as U+FFFD) |
//! | 8-bit text | UTF-8 when it is UTF-8, else each byte as the character of that code (Latin-1) |
//! | binary | lowercase hexadecimal |
//! | a value its field's map names | `{"value": n, "name": "Small"}` (a bit map: the set bits' names joined by `|`) |
//!
//! Nothing is lost: the event's bytes stay available beside the fields.

use std::fmt::Write as _;
use std::net::{Ipv4Addr, Ipv6Addr};

use etw_classic::payload::{FieldSchema, OutType, Value};
use etw_classic::wire::UtcDateTime;
use serde_json::{json, Value as Json};

use crate::schema::ValueMap;

/// The JSON of one value of `field`, named by `map` when it has one.
pub fn value_json<N>(value: &Value<'_>, field: &FieldSchema<N>, map: Option<&ValueMap>) -> Json {
    if let (Some(map), Some(number)) = (map, value.as_u64()) {
        if let Some(name) = map.describe(number) {
            return json!({ "value": number, "name": name });
        }
    }
    let out = field.out_type;
    match *value {
        Value::Null | Value::NoSid => Json::Null,
        Value::Bool(v) => json!(v != 0),
        Value::I8(v) => integer(i64::from(v), out),
        Value::I16(v) => integer(i64::from(v), out),
        Value::I32(v) => integer(i64::from(v), out),
        Value::I64(v) => integer(v, out),
        Value::U8(v) if out == OutType::STRING => json!(char::from(v).to_string()),
        Value::U16(v) if out == OutType::STRING => json!(utf16_char(v)),
        Value::U16(v) if out == OutType::PORT => json!(u16::from_be_bytes(v.to_le_bytes())),
        Value::U32(v) if out == OutType::IPV4 => json!(Ipv4Addr::from(v.to_le_bytes()).to_string()),
        Value::U8(v) => unsigned(u64::from(v), out),
        Value::U16(v) => unsigned(u64::from(v), out),
        Value::U32(v) => unsigned(u64::from(v), out),
        Value::U64(v) => unsigned(v, out),
        Value::HexInt32(v) => json!(hex(u64::from(v))),
        Value::HexInt64(v) | Value::Pointer(v) => json!(hex(v)),
        Value::F32(v) => float(f64::from(v)),
        Value::F64(v) => float(v),
        Value::Guid(guid) => json!(guid.to_string()),
        Value::FileTime(v) => match i64::try_from(v) {
            Ok(filetime) => json!(UtcDateTime::from_filetime(filetime).to_string()),
            Err(_) => json!(v),
        },
        Value::SystemTime(t) => json!(format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
            t.year, t.month, t.day, t.hour, t.minute, t.second, t.milliseconds
        )),
        Value::Sid(sid) => json!(sid.to_string()),
        Value::Utf16(text) => json!(text.chars().collect::<String>()),
        Value::Ansi(bytes) => json!(ansi(bytes)),
        Value::Binary(bytes) => binary(bytes, out),
        Value::Char16(v) => json!(utf16_char(v)),
        Value::Char8(v) => json!(char::from(v).to_string()),
        _ => Json::Null,
    }
}

/// The text of one value as the table shows it: the JSON without quotes around strings.
pub fn value_text<N>(value: &Value<'_>, field: &FieldSchema<N>, map: Option<&ValueMap>) -> String {
    match value_json(value, field, map) {
        Json::String(text) => text,
        Json::Object(object) => object
            .get("name")
            .and_then(Json::as_str)
            .map_or_else(|| Json::Object(object.clone()).to_string(), str::to_owned),
        other => other.to_string(),
    }
}

fn integer(v: i64, out: OutType) -> Json {
    match out {
        OutType::BOOLEAN => json!(v != 0),
        OutType::WIN32_ERROR | OutType::NTSTATUS | OutType::HRESULT | OutType::ERROR_CODE => {
            json!(code(u64::from_ne_bytes(v.to_ne_bytes()) & 0xFFFF_FFFF))
        }
        _ => json!(v),
    }
}

fn unsigned(v: u64, out: OutType) -> Json {
    match out {
        OutType::BOOLEAN => json!(v != 0),
        OutType::WIN32_ERROR | OutType::NTSTATUS | OutType::HRESULT | OutType::ERROR_CODE => {
            json!(code(v))
        }
        _ => json!(v),
    }
}

/// `0x` and at least 8 lowercase hexadecimal digits, as TraceEvent prints pointers.
fn hex(v: u64) -> String {
    format!("{v:#010x}")
}

/// `0x` and 8 uppercase hexadecimal digits, as error codes are written.
fn code(v: u64) -> String {
    format!("0x{v:08X}")
}

fn float(v: f64) -> Json {
    if v.is_finite() {
        json!(v)
    } else {
        json!(v.to_string())
    }
}

fn utf16_char(unit: u16) -> String {
    char::decode_utf16([unit])
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// 8-bit text: UTF-8 when it is, else Latin-1 (each byte the character of that code).
pub fn ansi(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().map(|byte| char::from(*byte)).collect(),
    }
}

fn binary(bytes: &[u8], out: OutType) -> Json {
    match out {
        OutType::IPV6 => {
            if let Ok(octets) = <[u8; 16]>::try_from(bytes) {
                return json!(Ipv6Addr::from(octets).to_string());
            }
        }
        OutType::IPV4 => {
            if let Ok(octets) = <[u8; 4]>::try_from(bytes) {
                return json!(Ipv4Addr::from(octets).to_string());
            }
        }
        OutType::SOCKET_ADDRESS => {
            if let Some(text) = socket_address(bytes) {
                return json!(text);
            }
        }
        _ => {}
    }
    json!(hex_bytes(bytes))
}

/// A `SOCKADDR_IN` (family 2) or `SOCKADDR_IN6` (family 23) as `address:port`.
fn socket_address(bytes: &[u8]) -> Option<String> {
    let family = u16::from_le_bytes(bytes.get(0..2)?.try_into().ok()?);
    let port = u16::from_be_bytes(bytes.get(2..4)?.try_into().ok()?);
    match family {
        2 => {
            let octets: [u8; 4] = bytes.get(4..8)?.try_into().ok()?;
            Some(format!("{}:{port}", Ipv4Addr::from(octets)))
        }
        23 => {
            let octets: [u8; 16] = bytes.get(8..24)?.try_into().ok()?;
            Some(format!("[{}]:{port}", Ipv6Addr::from(octets)))
        }
        _ => None,
    }
}

/// Lowercase hexadecimal, two digits a byte.
pub fn hex_bytes(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// The fields of one event as JSON, in schema order, and how the walk ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldsJson {
    /// Field name to value; an array as a list, a structure as an object.
    pub fields: serde_json::Map<String, Json>,
    /// Why decoding stopped before the last field (which field, where, what was expected),
    /// when it did; the fields before it are in `fields`.
    pub error: Option<String>,
    /// Bytes of data left after the last field (0 when every byte is a field's).
    pub rest: usize,
}

/// An array or structure being filled, and the key it goes under in its parent.
enum Open {
    Object(serde_json::Map<String, Json>, String),
    Array(Vec<Json>, String),
}

/// Puts `value` under `key` in the innermost open container, or in `top`.
fn place(open: &mut [Open], top: &mut serde_json::Map<String, Json>, key: &str, value: Json) {
    match open.last_mut() {
        Some(Open::Array(list, _)) => list.push(value),
        Some(Open::Object(object, _)) => {
            object.insert(key.to_owned(), value);
        }
        None => {
            top.insert(key.to_owned(), value);
        }
    }
}

/// Closes the innermost open container into its parent.
fn close(open: &mut Vec<Open>, top: &mut serde_json::Map<String, Json>) {
    let (value, key) = match open.pop() {
        Some(Open::Object(object, key)) => (Json::Object(object), key),
        Some(Open::Array(list, key)) => (Json::Array(list), key),
        None => return,
    };
    place(open, top, &key, value);
}

/// Decodes `data` with `fields` (the core's walk, [`PayloadDecoder`]) into JSON, each value
/// shown by [`value_json`] with the map `maps` finds for its field.
///
/// [`PayloadDecoder`]: etw_classic::payload::PayloadDecoder
pub fn fields_json<'m, N: AsRef<str> + std::fmt::Display>(
    fields: &[FieldSchema<N>],
    maps: impl Fn(&str) -> Option<&'m ValueMap>,
    data: &[u8],
    bitness: etw_classic::Bitness,
) -> FieldsJson {
    use etw_classic::payload::{ItemKind, PayloadDecoder};
    let mut top = serde_json::Map::new();
    let mut open: Vec<Open> = Vec::new();
    let mut error = None;
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    decoder.for_each_item(|item| match item {
        Ok(item) => {
            let name = item.field.name.as_ref();
            match item.kind {
                ItemKind::Value(value) => {
                    let map = item.field.map.as_ref().and_then(|map| maps(map.as_ref()));
                    place(
                        &mut open,
                        &mut top,
                        name,
                        value_json(&value, item.field, map),
                    );
                }
                ItemKind::ArrayStart { len } => open.push(Open::Array(
                    Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1024)),
                    name.to_owned(),
                )),
                ItemKind::StructStart => {
                    open.push(Open::Object(serde_json::Map::new(), name.to_owned()));
                }
                ItemKind::ArrayEnd | ItemKind::StructEnd => close(&mut open, &mut top),
                _ => {}
            }
        }
        Err(failure) => error = Some(failure.named(fields).to_string()),
    });
    while !open.is_empty() {
        close(&mut open, &mut top);
    }
    FieldsJson {
        fields: top,
        error,
        rest: if decoder.failed() {
            0
        } else {
            decoder.rest().len()
        },
    }
}
