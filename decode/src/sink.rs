//! Where a decoded event goes: a [`Sink`] receives it as the JSON data model (objects, arrays,
//! numbers, strings, `null`), one call per key and value, in the order of the JSON line, and
//! builds what its output needs from them without any map in between: [`JsonWriter`] writes
//! JSON text straight into a byte buffer, [`ValueBuilder`] a `serde_json::Value` (for the few
//! callers that want one), the Python module its dicts.
//!
//! The event's own bytes (`data`, `bytes`, an extended item's `data` and `padding`) come
//! through [`Sink::bytes`]: JSON shows them as lowercase hex, the Python module as `bytes`.

use std::fmt;

use etw_classic::wire::{UtcDateTime, Utf16Str};
use etw_classic::Guid;
use serde_json::{Map, Value};

/// A receiver of one value described in the JSON data model.
///
/// A value is a scalar call ([`null`](Self::null), [`u64`](Self::u64), [`str`](Self::str) ...)
/// or a container: [`begin_object`](Self::begin_object), then for each member
/// [`key`](Self::key) and its value, then [`end_object`](Self::end_object); arrays the same
/// without keys. The `put_*` methods are a key and a scalar in one call.
pub trait Sink {
    /// Opens an object; its members follow, each a [`key`](Self::key) and a value.
    fn begin_object(&mut self);
    /// Closes the object opened last.
    fn end_object(&mut self);
    /// Opens an array; its values follow.
    fn begin_array(&mut self);
    /// Closes the array opened last.
    fn end_array(&mut self);
    /// The key of the next member of the object open.
    fn key(&mut self, key: &str);
    /// `null`.
    fn null(&mut self);
    /// `true` or `false`.
    fn bool(&mut self, value: bool);
    /// An unsigned integer.
    fn u64(&mut self, value: u64);
    /// A signed integer.
    fn i64(&mut self, value: i64);
    /// A float; one that is not finite is `null`, as `serde_json` writes it.
    fn f64(&mut self, value: f64);
    /// A string.
    fn str(&mut self, value: &str);
    /// A string: the text `value` displays, written without an intermediate `String` where
    /// the sink can.
    fn display(&mut self, value: &dyn fmt::Display) {
        self.str(&value.to_string());
    }
    /// Bytes of the event (JSON: lowercase hex text).
    fn bytes(&mut self, value: &[u8]);
    /// A GUID, as its `Display` writes it.
    fn guid(&mut self, value: &Guid) {
        self.display(value);
    }
    /// A time, as its `Display` writes it (ISO 8601 UTC, seven fractional digits).
    fn utc(&mut self, value: &UtcDateTime) {
        self.display(value);
    }
    /// A number as `0x` and at least 8 lowercase hexadecimal digits (`{:#010x}`), as
    /// TraceEvent prints pointers.
    fn hex_number(&mut self, value: u64) {
        self.display(&format_args!("{value:#010x}"));
    }
    /// UTF-16 text, an unpaired surrogate as U+FFFD (its `Display`).
    fn utf16(&mut self, value: &Utf16Str<'_>) {
        self.display(value);
    }

    /// Describes `value`, an object whose keys may repeat (the fields of an event: a schema
    /// may give two fields one name), as a map shows it: a key given twice keeps its first
    /// place and takes its last value. A sink whose objects are maps (a dict) needs nothing
    /// more; [`JsonWriter`] checks the keys and writes the object again when one repeats.
    fn map_object<D: Described>(&mut self, value: &D) -> D::End
    where
        Self: Sized,
    {
        value.describe(self)
    }

    /// A member whose value is an unsigned integer.
    #[inline(always)]
    fn put_u64(&mut self, key: &str, value: u64) {
        self.key(key);
        self.u64(value);
    }
    /// A member whose value is a signed integer.
    #[inline(always)]
    fn put_i64(&mut self, key: &str, value: i64) {
        self.key(key);
        self.i64(value);
    }
    /// A member whose value is a string.
    #[inline(always)]
    fn put_str(&mut self, key: &str, value: &str) {
        self.key(key);
        self.str(value);
    }
    /// A member whose value is the text `value` displays.
    #[inline]
    fn put_display(&mut self, key: &str, value: &dyn fmt::Display) {
        self.key(key);
        self.display(value);
    }
    /// A member whose value is a GUID.
    #[inline(always)]
    fn put_guid(&mut self, key: &str, value: &Guid) {
        self.key(key);
        self.guid(value);
    }
    /// A member whose value is bytes of the event.
    #[inline(always)]
    fn put_bytes(&mut self, key: &str, value: &[u8]) {
        self.key(key);
        self.bytes(value);
    }
    /// A member whose value is `null`.
    #[inline(always)]
    fn put_null(&mut self, key: &str) {
        self.key(key);
        self.null();
    }
    /// A member whose value is an unsigned integer or `null`.
    #[inline(always)]
    fn put_opt_u64(&mut self, key: &str, value: Option<u64>) {
        self.key(key);
        match value {
            Some(value) => self.u64(value),
            None => self.null(),
        }
    }
    /// A member whose value is a signed integer or `null`.
    #[inline(always)]
    fn put_opt_i64(&mut self, key: &str, value: Option<i64>) {
        self.key(key);
        match value {
            Some(value) => self.i64(value),
            None => self.null(),
        }
    }
    /// A member whose value is a string or `null`.
    #[inline(always)]
    fn put_opt_str(&mut self, key: &str, value: Option<&str>) {
        self.key(key);
        match value {
            Some(value) => self.str(value),
            None => self.null(),
        }
    }
    /// A member whose value is an array of unsigned integers.
    #[inline]
    fn put_u64s(&mut self, key: &str, values: &mut dyn Iterator<Item = u64>) {
        self.key(key);
        self.begin_array();
        for value in values {
            self.u64(value);
        }
        self.end_array();
    }
}

/// A value that describes itself to any [`Sink`], as often as asked (see
/// [`Sink::map_object`]), and says how the description ended.
pub trait Described {
    /// What describing it tells besides the value (how a walk of fields ended, say).
    type End;
    /// Describes the value to `sink`.
    fn describe<S: Sink>(&self, sink: &mut S) -> Self::End;
}

/// Lowercase hexadecimal digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// What `serde_json` writes for each byte of a string: 0 for the byte itself, else the letter
/// of its escape (`u` for `\u00XX`). The control characters U+0000 to U+001F, `"` and `\` are
/// escaped, nothing else (`serde_json`'s `ESCAPE` table, RFC 8259 §7).
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Appends `text` to `out` as a JSON string, quotes included, escaped exactly as `serde_json`
/// escapes it: `"` and `\` after a backslash, the control characters U+0000 to U+001F as
/// `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX` (lowercase hex), nothing else.
#[inline(always)]
pub fn write_json_str(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    write_escaped(out, text);
    out.push(b'"');
}

/// `text` escaped for the inside of a JSON string.
#[inline(always)]
fn write_escaped(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    // Most text needs no escape: one pass without a branch per byte (which the compiler
    // vectorises) says so, and the text is copied whole.
    let plain = bytes.iter().fold(true, |plain, &byte| {
        plain & (byte >= 0x20) & (byte != b'"') & (byte != b'\\')
    });
    if plain {
        out.extend_from_slice(bytes);
    } else {
        write_escaped_slow(out, bytes);
    }
}

/// `bytes` (UTF-8 text) escaped byte by byte, by the [`ESCAPE`] table.
fn write_escaped_slow(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..at]);
        start = at + 1;
        match escape {
            b'u' => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0x0F)],
            ]),
            letter => out.extend_from_slice(&[b'\\', letter]),
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// The two lowercase hexadecimal digits of each byte.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = [HEX[byte >> 4], HEX[byte & 0x0F]];
        byte += 1;
    }
    pairs
};

/// Appends `bytes` as lowercase hexadecimal, two digits a byte.
pub fn write_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + 2 * bytes.len(), 0);
    for (pair, &byte) in out[start..].chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX_PAIRS[usize::from(byte)]);
    }
}

/// Appends a GUID as [`Guid`]'s `Display` writes it: lowercase, hyphens, no braces.
fn write_guid(out: &mut Vec<u8>, guid: &Guid) {
    let [a, b, c, d] = guid.data1.to_be_bytes();
    let [e, f] = guid.data2.to_be_bytes();
    let [g, h] = guid.data3.to_be_bytes();
    let [i, j, k, l, m, n, o, p] = guid.data4;
    let mut text = [b'-'; 36];
    let mut at = 0;
    for (index, byte) in [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p]
        .into_iter()
        .enumerate()
    {
        if matches!(index, 4 | 6 | 8 | 10) {
            at += 1;
        }
        text[at..at + 2].copy_from_slice(&HEX_PAIRS[usize::from(byte)]);
        at += 2;
    }
    out.extend_from_slice(&text);
}

/// Appends a time as [`UtcDateTime`]'s `Display` writes it (`2021-04-18T10:20:35.2722435Z`),
/// for the years 0 to 9999; `false`, writing nothing, for another.
fn write_utc(out: &mut Vec<u8>, time: &UtcDateTime) -> bool {
    let Ok(year) = u32::try_from(time.year) else {
        return false;
    };
    let small = [time.month, time.day, time.hour, time.minute, time.second];
    if year > 9999 || time.intervals > 9_999_999 || small.iter().any(|&part| part > 99) {
        return false;
    }
    write_digits(out, year, 4);
    out.push(b'-');
    write_digits(out, time.month.into(), 2);
    out.push(b'-');
    write_digits(out, time.day.into(), 2);
    out.push(b'T');
    write_digits(out, time.hour.into(), 2);
    out.push(b':');
    write_digits(out, time.minute.into(), 2);
    out.push(b':');
    write_digits(out, time.second.into(), 2);
    out.push(b'.');
    write_digits(out, time.intervals, 7);
    out.push(b'Z');
    true
}

/// Appends `value` (below 10^width) in decimal with leading zeros to `width` digits.
fn write_digits(out: &mut Vec<u8>, mut value: u32, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    for digit in out[start..].iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// Where each object's keys start with the [`key_bit`]s of its keys so far, and the keys as
/// their [`key_print`] and range of the output: what [`JsonWriter::map_object`] tracks keys in.
type KeyLists = (Vec<(usize, u64)>, Vec<(u64, usize, usize)>);

/// A fingerprint of `key`: equal keys have equal prints (so keys whose prints differ differ),
/// made from the length and the first and last eight bytes, without a loop.
#[inline]
fn key_print(key: &str) -> u64 {
    let bytes = key.as_bytes();
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    let first = bytes.get(..8).unwrap_or(bytes);
    let last = bytes.get(bytes.len().saturating_sub(8)..).unwrap_or(bytes);
    if let (Some(head), Some(tail)) = (head.get_mut(..first.len()), tail.get_mut(..last.len())) {
        head.copy_from_slice(first);
        tail.copy_from_slice(last);
    }
    let mixed = u64::from_le_bytes(head)
        ^ u64::from_le_bytes(tail).rotate_left(29)
        ^ u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The bit of a key's [`key_print`] in the set of an object's keys so far: a key whose bit is
/// not in the set is not among them, and needs no comparing.
#[inline]
fn key_bit(print: u64) -> u64 {
    1u64 << (print >> 58)
}

std::thread_local! {
    /// The key lists of the thread's last [`JsonWriter::map_object`], kept between objects.
    static KEY_SCRATCH: std::cell::Cell<KeyLists> =
        const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// A [`Sink`] that writes compact JSON text into a byte buffer, byte for byte as `serde_json`
/// writes the same value (`to_writer` of a `Value`): no spaces, strings escaped as
/// [`write_json_str`] does, integers in decimal, floats formatted by `serde_json` itself.
///
/// For an object whose keys may repeat (the fields of an event, whose schema may give two
/// fields one name), [`track_keys`](Self::track_keys) makes the writer note whether a key is
/// written twice in one object; the caller then writes that part again the way a map would
/// (the last value, at the first key's place), as `serde_json` did.
///
/// [`omit_bytes`](Self::omit_bytes) makes it leave out every member whose value is bytes of
/// the event ([`Sink::bytes`]: `data`, an extended item's `data` and `padding`, a malformed
/// event's `bytes`), key and all, for outputs that show what an event means rather than what
/// it holds (the Chrome trace's `args`).
#[derive(Debug)]
pub struct JsonWriter<'o> {
    out: &'o mut Vec<u8>,
    /// Whether a value has been written in the container open, so that a comma goes first.
    comma: bool,
    /// Where the keys of each object opened while tracking start in `keys`, and the
    /// [`key_bit`]s of its keys so far.
    levels: Vec<(usize, u64)>,
    /// The keys written in the objects open while tracking, as their [`key_print`] and range
    /// of `out`.
    keys: Vec<(u64, usize, usize)>,
    /// The [`key_bit`]s of the keys written outside any object opened while tracking.
    outer_bits: u64,
    tracking: bool,
    repeated: bool,
    /// Where the last key written starts (its comma included).
    key_start: usize,
    omitting_bytes: bool,
}

impl<'o> JsonWriter<'o> {
    /// A writer appending to `out`.
    pub fn new(out: &'o mut Vec<u8>) -> Self {
        Self {
            out,
            comma: false,
            levels: Vec::new(),
            keys: Vec::new(),
            outer_bits: 0,
            tracking: false,
            repeated: false,
            key_start: 0,
            omitting_bytes: false,
        }
    }

    /// Leaves out, from now on, the members whose value is bytes of the event (and such
    /// values in arrays).
    pub fn omit_bytes(&mut self, on: bool) {
        self.omitting_bytes = on;
    }

    /// The bytes written so far (and what `out` held before).
    pub fn written(&self) -> &[u8] {
        self.out
    }

    /// Starts or stops noting repeated keys in the objects opened from now on.
    pub fn track_keys(&mut self, on: bool) {
        self.tracking = on;
        self.levels.clear();
        self.keys.clear();
        self.outer_bits = 0;
        self.repeated = false;
    }

    /// Whether a key was written twice in one object since [`track_keys`](Self::track_keys).
    pub fn repeated_key(&self) -> bool {
        self.repeated
    }

    /// The length of the output, to [`truncate`](Self::truncate) back to.
    pub fn position(&self) -> usize {
        self.out.len()
    }

    /// Drops what was written after `position`, which must be where a value was about to be
    /// written (after a key).
    pub fn truncate(&mut self, position: usize) {
        self.out.truncate(position);
        self.comma = false;
    }

    /// Appends JSON text made elsewhere as the next value.
    pub fn raw_value(&mut self, json: &[u8]) {
        self.before_value();
        self.out.extend_from_slice(json);
    }

    /// Writes `key` and notes whether the object open has it already: compared only with the
    /// keys of the same [`key_print`], and only when the object's set of [`key_bit`]s says
    /// one may be there.
    fn tracked_key(&mut self, key: &str) {
        let start = self.out.len();
        write_json_str(self.out, key);
        let end = self.out.len();
        let print = key_print(key);
        let bit = key_bit(print);
        let (level, bits) = match self.levels.last_mut() {
            Some((level, bits)) => (*level, bits),
            None => (0, &mut self.outer_bits),
        };
        if *bits & bit != 0 {
            let written = &self.out[start..end];
            if self.keys[level..]
                .iter()
                .any(|&(other, from, to)| other == print && &self.out[from..to] == written)
            {
                self.repeated = true;
            }
        }
        *bits |= bit;
        self.keys.push((print, start, end));
    }

    /// A comma if a value came before in the container open.
    #[inline]
    fn before_value(&mut self) {
        if self.comma {
            self.out.push(b',');
        }
        self.comma = true;
    }
}

impl Sink for JsonWriter<'_> {
    #[inline]
    fn begin_object(&mut self) {
        self.before_value();
        self.out.push(b'{');
        self.comma = false;
        if self.tracking {
            self.levels.push((self.keys.len(), 0));
        }
    }

    #[inline]
    fn end_object(&mut self) {
        self.out.push(b'}');
        self.comma = true;
        if self.tracking {
            if let Some((level, _)) = self.levels.pop() {
                self.keys.truncate(level);
            }
        }
    }

    #[inline]
    fn begin_array(&mut self) {
        self.before_value();
        self.out.push(b'[');
        self.comma = false;
    }

    #[inline]
    fn end_array(&mut self) {
        self.out.push(b']');
        self.comma = true;
    }

    #[inline(always)]
    fn key(&mut self, key: &str) {
        self.key_start = self.out.len();
        if self.comma {
            self.out.push(b',');
        }
        if self.tracking {
            self.tracked_key(key);
        } else {
            write_json_str(self.out, key);
        }
        self.out.push(b':');
        self.comma = false;
    }

    #[inline]
    fn null(&mut self) {
        self.before_value();
        self.out.extend_from_slice(b"null");
    }

    #[inline]
    fn bool(&mut self, value: bool) {
        self.before_value();
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    #[inline]
    fn u64(&mut self, value: u64) {
        self.before_value();
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    #[inline]
    fn i64(&mut self, value: i64) {
        self.before_value();
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    fn f64(&mut self, value: f64) {
        if value.is_finite() {
            self.before_value();
            // serde_json's own formatting of a float (its shortest form, `e+` for large
            // exponents); writing to a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *self.out, &value);
        } else {
            self.null();
        }
    }

    #[inline]
    fn str(&mut self, value: &str) {
        self.before_value();
        write_json_str(self.out, value);
    }

    fn display(&mut self, value: &dyn fmt::Display) {
        /// Escapes what is written through it into the output.
        struct Escaping<'a>(&'a mut Vec<u8>);
        impl fmt::Write for Escaping<'_> {
            fn write_str(&mut self, text: &str) -> fmt::Result {
                write_escaped(self.0, text);
                Ok(())
            }
        }
        self.before_value();
        self.out.push(b'"');
        // Writing to a Vec cannot fail; a Display that fails leaves what it wrote.
        let _ = fmt::write(&mut Escaping(self.out), format_args!("{value}"));
        self.out.push(b'"');
    }

    #[inline]
    fn bytes(&mut self, value: &[u8]) {
        if self.omitting_bytes {
            // Right after its key (the output ends with the key's `:`), the member goes, and
            // the comma state is what it was before the key: a comma opened the key if one
            // was due.
            if self.out.last() == Some(&b':') {
                self.comma = self.out.get(self.key_start) == Some(&b',');
                self.out.truncate(self.key_start);
            }
            return;
        }
        self.before_value();
        self.out.push(b'"');
        write_hex(self.out, value);
        self.out.push(b'"');
    }

    fn guid(&mut self, value: &Guid) {
        self.before_value();
        self.out.push(b'"');
        write_guid(self.out, value);
        self.out.push(b'"');
    }

    fn hex_number(&mut self, value: u64) {
        self.before_value();
        let digits = (16 - value.leading_zeros() as usize / 4).max(8);
        let start = self.out.len();
        self.out.resize(start + digits + 4, b'0');
        let text = &mut self.out[start..];
        text[0] = b'"';
        text[2] = b'x';
        let mut rest = value;
        for digit in text[3..3 + digits].iter_mut().rev() {
            *digit = HEX[(rest & 0xF) as usize];
            rest >>= 4;
        }
        text[3 + digits] = b'"';
    }

    fn utf16(&mut self, value: &Utf16Str<'_>) {
        self.before_value();
        self.out.reserve(value.len().saturating_add(2));
        self.out.push(b'"');
        // Most text is ASCII that needs no escape: a byte a code unit, until one is not;
        // then the text is written again char by char.
        let start = self.out.len();
        let mut plain = true;
        for unit in value.units() {
            match u8::try_from(unit) {
                Ok(byte) if byte < 0x80 && ESCAPE[usize::from(byte)] == 0 => self.out.push(byte),
                _ => {
                    plain = false;
                    break;
                }
            }
        }
        if plain {
            self.out.push(b'"');
            return;
        }
        self.out.truncate(start);
        for c in value.chars() {
            match u8::try_from(c) {
                Ok(byte) if byte < 0x80 && ESCAPE[usize::from(byte)] == 0 => self.out.push(byte),
                Ok(byte) if byte < 0x80 => write_escaped_slow(self.out, &[byte]),
                _ => self
                    .out
                    .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        self.out.push(b'"');
    }

    fn utc(&mut self, value: &UtcDateTime) {
        self.before_value();
        let start = self.out.len();
        self.out.push(b'"');
        if write_utc(self.out, value) {
            self.out.push(b'"');
        } else {
            self.out.truncate(start);
            self.comma = false;
            self.display(value);
        }
    }

    fn map_object<D: Described>(&mut self, value: &D) -> D::End {
        let (comma, start) = (self.comma, self.out.len());
        // The key lists of the thread's last object, so that no event allocates its own.
        (self.levels, self.keys) = KEY_SCRATCH.take();
        self.track_keys(true);
        let end = value.describe(self);
        let repeated = self.repeated;
        self.track_keys(false);
        KEY_SCRATCH.set((
            std::mem::take(&mut self.levels),
            std::mem::take(&mut self.keys),
        ));
        if !repeated {
            return end;
        }
        // Again, through a map, which keeps a repeated key once.
        self.out.truncate(start);
        self.comma = comma;
        let mut builder = ValueBuilder::new();
        let end = value.describe(&mut builder);
        self.before_value();
        // Writing a Value to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *self.out, &builder.finish());
        end
    }
}

/// A [`Sink`] that builds a `serde_json::Value`: objects are maps, so that a key given twice
/// keeps its first place and its last value.
#[derive(Debug, Default)]
pub struct ValueBuilder {
    /// The containers open, each with the key it goes under in its parent.
    open: Vec<(Value, Option<String>)>,
    /// The key of the next member of the object open.
    key: Option<String>,
    done: Option<Value>,
}

impl ValueBuilder {
    /// A builder with nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value built (`null` if none was given).
    pub fn finish(self) -> Value {
        self.done.unwrap_or(Value::Null)
    }

    /// The object built, empty if the value is not one.
    pub fn finish_object(self) -> Map<String, Value> {
        match self.finish() {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// Puts a finished value into the container open, or makes it the result.
    fn place(&mut self, value: Value) {
        let key = self.key.take();
        match self.open.last_mut() {
            Some((Value::Object(map), _)) => {
                map.insert(key.unwrap_or_default(), value);
            }
            Some((Value::Array(list), _)) => list.push(value),
            _ => self.done = Some(value),
        }
    }

    fn close(&mut self) {
        if let Some((value, key)) = self.open.pop() {
            self.key = key;
            self.place(value);
        }
    }
}

impl Sink for ValueBuilder {
    fn begin_object(&mut self) {
        let key = self.key.take();
        self.open.push((Value::Object(Map::new()), key));
    }
    fn end_object(&mut self) {
        self.close();
    }
    fn begin_array(&mut self) {
        let key = self.key.take();
        self.open.push((Value::Array(Vec::new()), key));
    }
    fn end_array(&mut self) {
        self.close();
    }
    fn key(&mut self, key: &str) {
        self.key = Some(key.to_owned());
    }
    fn null(&mut self) {
        self.place(Value::Null);
    }
    fn bool(&mut self, value: bool) {
        self.place(Value::Bool(value));
    }
    fn u64(&mut self, value: u64) {
        self.place(Value::from(value));
    }
    fn i64(&mut self, value: i64) {
        self.place(Value::from(value));
    }
    fn f64(&mut self, value: f64) {
        self.place(Value::from(value));
    }
    fn str(&mut self, value: &str) {
        self.place(Value::String(value.to_owned()));
    }
    fn bytes(&mut self, value: &[u8]) {
        let mut hex = Vec::with_capacity(value.len() * 2);
        write_hex(&mut hex, value);
        self.place(Value::String(String::from_utf8(hex).unwrap_or_default()));
    }
}

/// What `describe` gives a [`ValueBuilder`]: the value as `serde_json` holds it.
pub fn to_value(describe: impl FnOnce(&mut ValueBuilder)) -> Value {
    let mut builder = ValueBuilder::new();
    describe(&mut builder);
    builder.finish()
}

/// The members `describe` gives inside an object, as a map.
pub fn to_map(describe: impl FnOnce(&mut ValueBuilder)) -> Map<String, Value> {
    let mut builder = ValueBuilder::new();
    builder.begin_object();
    describe(&mut builder);
    builder.end_object();
    builder.finish_object()
}
