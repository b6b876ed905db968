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
use serde_json::Value as Json;

use crate::schema::ValueMap;
use crate::sink::Sink;

/// The JSON of one value of `field`, named by `map` when it has one ([`describe_value`]).
pub fn value_json<N>(value: &Value<'_>, field: &FieldSchema<N>, map: Option<&ValueMap>) -> Json {
    crate::sink::to_value(|sink| describe_value(sink, value, field, map))
}

/// Describes one value of `field` to `sink`, named by `map` when it has one, by the rules of
/// the table above.
pub fn describe_value<S: Sink, N>(
    sink: &mut S,
    value: &Value<'_>,
    field: &FieldSchema<N>,
    map: Option<&ValueMap>,
) {
    if let (Some(map), Some(number)) = (map, value.as_u64()) {
        if let Some(name) = map.describe(number) {
            sink.begin_object();
            sink.put_u64("value", number);
            sink.put_str("name", &name);
            sink.end_object();
            return;
        }
    }
    let out = field.out_type;
    match *value {
        Value::Null | Value::NoSid => sink.null(),
        Value::Bool(v) => sink.bool(v != 0),
        Value::I8(v) => integer(sink, i64::from(v), out),
        Value::I16(v) => integer(sink, i64::from(v), out),
        Value::I32(v) => integer(sink, i64::from(v), out),
        Value::I64(v) => integer(sink, v, out),
        Value::U8(v) if out == OutType::STRING => sink.display(&char::from(v)),
        Value::U16(v) if out == OutType::STRING => sink.display(&utf16_char(v)),
        Value::U16(v) if out == OutType::PORT => {
            sink.u64(u16::from_be_bytes(v.to_le_bytes()).into())
        }
        Value::U32(v) if out == OutType::IPV4 => sink.display(&Ipv4Addr::from(v.to_le_bytes())),
        Value::U8(v) => unsigned(sink, u64::from(v), out),
        Value::U16(v) => unsigned(sink, u64::from(v), out),
        Value::U32(v) => unsigned(sink, u64::from(v), out),
        Value::U64(v) => unsigned(sink, v, out),
        Value::HexInt32(v) => sink.hex_number(u64::from(v)),
        Value::HexInt64(v) | Value::Pointer(v) => sink.hex_number(v),
        Value::F32(v) => float(sink, f64::from(v)),
        Value::F64(v) => float(sink, v),
        Value::Guid(guid) => sink.guid(&guid),
        Value::FileTime(v) => match i64::try_from(v) {
            Ok(filetime) => sink.utc(&UtcDateTime::from_filetime(filetime)),
            Err(_) => sink.u64(v),
        },
        Value::SystemTime(t) => sink.display(&format_args!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
            t.year, t.month, t.day, t.hour, t.minute, t.second, t.milliseconds
        )),
        Value::Sid(sid) => sink.display(&sid),
        Value::Utf16(text) => sink.utf16(&text),
        Value::Ansi(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => sink.str(text),
            Err(_) => sink.str(&ansi(bytes)),
        },
        Value::Binary(bytes) => binary(sink, bytes, out),
        Value::Char16(v) => sink.display(&utf16_char(v)),
        Value::Char8(v) => sink.display(&char::from(v)),
        _ => sink.null(),
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

fn integer<S: Sink>(sink: &mut S, v: i64, out: OutType) {
    match out {
        OutType::BOOLEAN => sink.bool(v != 0),
        OutType::WIN32_ERROR | OutType::NTSTATUS | OutType::HRESULT | OutType::ERROR_CODE => {
            code(sink, u64::from_ne_bytes(v.to_ne_bytes()) & 0xFFFF_FFFF);
        }
        _ => sink.i64(v),
    }
}

fn unsigned<S: Sink>(sink: &mut S, v: u64, out: OutType) {
    match out {
        OutType::BOOLEAN => sink.bool(v != 0),
        OutType::WIN32_ERROR | OutType::NTSTATUS | OutType::HRESULT | OutType::ERROR_CODE => {
            code(sink, v);
        }
        _ => sink.u64(v),
    }
}

/// `0x` and 8 uppercase hexadecimal digits, as error codes are written.
fn code<S: Sink>(sink: &mut S, v: u64) {
    sink.display(&format_args!("0x{v:08X}"));
}

/// A finite float as a number, any other as its text (`NaN`, `inf`, `-inf`).
fn float<S: Sink>(sink: &mut S, v: f64) {
    if v.is_finite() {
        sink.f64(v);
    } else {
        sink.display(&v);
    }
}

/// One UTF-16 code unit as a character, U+FFFD for a surrogate.
fn utf16_char(unit: u16) -> char {
    char::decode_utf16([unit])
        .next()
        .and_then(Result::ok)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// 8-bit text: UTF-8 when it is, else Latin-1 (each byte the character of that code).
pub fn ansi(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().map(|byte| char::from(*byte)).collect(),
    }
}

fn binary<S: Sink>(sink: &mut S, bytes: &[u8], out: OutType) {
    match out {
        OutType::IPV6 => {
            if let Ok(octets) = <[u8; 16]>::try_from(bytes) {
                return sink.display(&Ipv6Addr::from(octets));
            }
        }
        OutType::IPV4 => {
            if let Ok(octets) = <[u8; 4]>::try_from(bytes) {
                return sink.display(&Ipv4Addr::from(octets));
            }
        }
        OutType::SOCKET_ADDRESS => {
            if let Some(text) = socket_address(bytes) {
                return sink.str(&text);
            }
        }
        _ => {}
    }
    sink.display(&HexText(bytes));
}

/// Bytes shown as lowercase hexadecimal, two digits a byte.
struct HexText<'a>(&'a [u8]);

impl std::fmt::Display for HexText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = Vec::with_capacity(self.0.len() * 2);
        crate::sink::write_hex(&mut text, self.0);
        f.write_str(std::str::from_utf8(&text).unwrap_or_default())
    }
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

/// How walking an event's fields ended ([`describe_fields`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldsEnd {
    /// Why decoding stopped before the last field (which field, where, what was expected),
    /// when it did.
    pub error: Option<String>,
    /// Bytes of data left after the last field (0 when every byte is a field's, or decoding
    /// stopped at an error).
    pub rest: usize,
}

/// Decodes `data` with `fields` into JSON, each value shown by [`value_json`] with the map
/// `maps` finds for its field ([`describe_fields`] into a map).
pub fn fields_json<'m, N: AsRef<str> + std::fmt::Display>(
    fields: &[FieldSchema<N>],
    maps: impl Fn(&str) -> Option<&'m ValueMap>,
    data: &[u8],
    bitness: etw_classic::Bitness,
) -> FieldsJson {
    let mut builder = crate::sink::ValueBuilder::new();
    let end = describe_fields(&mut builder, fields, maps, data, bitness);
    FieldsJson {
        fields: builder.finish_object(),
        error: end.error,
        rest: end.rest,
    }
}

/// Describes the fields of `data`, decoded with `fields` (the core's walk,
/// [`PayloadDecoder`]), to `sink` as one object in schema order: a field under its name, an
/// array as a list, a structure as an object, each value shown by [`describe_value`] with the
/// map `maps` finds for its field. The containers still open when decoding stops are closed.
///
/// A schema may give two fields one name: the sink receives both (a map keeps the last value
/// at the first key's place, as [`fields_json`] does).
///
/// [`PayloadDecoder`]: etw_classic::payload::PayloadDecoder
pub fn describe_fields<'m, S: Sink, N: AsRef<str> + std::fmt::Display>(
    sink: &mut S,
    fields: &[FieldSchema<N>],
    maps: impl Fn(&str) -> Option<&'m ValueMap>,
    data: &[u8],
    bitness: etw_classic::Bitness,
) -> FieldsEnd {
    use etw_classic::payload::{ItemKind, PayloadDecoder};
    // For each container open: whether it is an array (whose values have no key).
    let mut open: Vec<bool> = Vec::new();
    let mut error = None;
    sink.begin_object();
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    decoder.for_each_item(|item| match item {
        Ok(item) => {
            let in_array = open.last().copied().unwrap_or(false);
            match item.kind {
                ItemKind::Value(value) => {
                    if !in_array {
                        sink.key(item.field.name.as_ref());
                    }
                    let map = item.field.map.as_ref().and_then(|map| maps(map.as_ref()));
                    describe_value(sink, &value, item.field, map);
                }
                ItemKind::ArrayStart { .. } => {
                    if !in_array {
                        sink.key(item.field.name.as_ref());
                    }
                    sink.begin_array();
                    open.push(true);
                }
                ItemKind::StructStart => {
                    if !in_array {
                        sink.key(item.field.name.as_ref());
                    }
                    sink.begin_object();
                    open.push(false);
                }
                ItemKind::ArrayEnd | ItemKind::StructEnd => close(sink, &mut open),
                _ => {}
            }
        }
        Err(failure) => error = Some(failure.named(fields).to_string()),
    });
    while !open.is_empty() {
        close(sink, &mut open);
    }
    sink.end_object();
    FieldsEnd {
        rest: if decoder.failed() {
            0
        } else {
            decoder.rest().len()
        },
        error,
    }
}

/// Closes the innermost container open.
fn close<S: Sink>(sink: &mut S, open: &mut Vec<bool>) {
    match open.pop() {
        Some(true) => sink.end_array(),
        Some(false) => sink.end_object(),
        None => {}
    }
}
