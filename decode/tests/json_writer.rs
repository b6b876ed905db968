//! The JSON writer of the event model (`sink::JsonWriter`) against an independent encoder,
//! `serde_json`: for any string, number, GUID, time or UTF-16 text (unpaired surrogates
//! included), the bytes it writes are the bytes `serde_json` writes for the same value (the
//! GUID, the time and the UTF-16 text as the library's `Display` and the standard library's
//! lossy decoding give their text). `etwc etl --json` relies on this to print, byte for byte,
//! what it printed when it built a `serde_json` map per event.

use etw_classic::wire::{UtcDateTime, Utf16Str};
use etw_classic::Guid;
use etw_classic_decode::sink::{write_json_str, JsonWriter, Sink, ValueBuilder};
use proptest::prelude::*;
use serde_json::json;

/// What `write` gives a fresh writer, as text.
fn written(write: impl FnOnce(&mut JsonWriter<'_>)) -> String {
    let mut out = Vec::new();
    write(&mut JsonWriter::new(&mut out));
    String::from_utf8(out).expect("the writer writes UTF-8")
}

/// Strings rich in what JSON escapes: control characters, quotes, backslashes, DEL, non-ASCII
/// (two-, three- and four-byte UTF-8), beside any `char`.
fn tricky_string() -> impl Strategy<Value = String> {
    let tricky = prop_oneof![
        (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or('\0')),
        Just('"'),
        Just('\\'),
        Just('/'),
        Just('\u{7f}'),
        Just('é'),
        Just('\u{2028}'),
        Just('\u{FFFD}'),
        Just('𝄞'),
        any::<char>(),
    ];
    proptest::collection::vec(tricky, 0..40).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #[test]
    fn strings_escape_as_serde_json(text in tricky_string()) {
        let expected = serde_json::to_string(&text).unwrap();
        prop_assert_eq!(written(|w| w.str(&text)), expected.clone());
        // The same text through `Display` (escaped piece by piece as it is formatted).
        prop_assert_eq!(written(|w| w.display(&text)), expected.clone());
        let mut direct = Vec::new();
        write_json_str(&mut direct, &text);
        prop_assert_eq!(String::from_utf8(direct).unwrap(), expected);
    }

    #[test]
    fn any_string_escapes_as_serde_json(text in any::<String>()) {
        prop_assert_eq!(written(|w| w.str(&text)), serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn keys_escape_as_serde_json(key in tricky_string(), value in any::<u64>()) {
        let expected = serde_json::to_string(&json!({ key.clone(): value })).unwrap();
        let got = written(|w| {
            w.begin_object();
            w.put_u64(&key, value);
            w.end_object();
        });
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn utf16_text_as_serde_json_of_its_lossy_decoding(
        units in proptest::collection::vec(
            prop_oneof![any::<u16>(), 0xD800u16..0xE000, 0u16..0x80],
            0..40,
        )
    ) {
        // Unpaired surrogates become U+FFFD, as std's lossy decoding makes them.
        let expected = serde_json::to_string(&String::from_utf16_lossy(&units)).unwrap();
        prop_assert_eq!(written(|w| w.utf16(&Utf16Str::from_units(&units))), expected);
    }

    #[test]
    fn numbers_as_serde_json(unsigned in any::<u64>(), signed in any::<i64>(), float in any::<f64>()) {
        prop_assert_eq!(written(|w| w.u64(unsigned)), serde_json::to_string(&unsigned).unwrap());
        prop_assert_eq!(written(|w| w.i64(signed)), serde_json::to_string(&signed).unwrap());
        // serde_json writes a float that is not finite as null.
        prop_assert_eq!(written(|w| w.f64(float)), serde_json::to_string(&json!(float)).unwrap());
        prop_assert_eq!(
            written(|w| w.hex_number(unsigned)),
            serde_json::to_string(&format!("{unsigned:#010x}")).unwrap()
        );
    }

    #[test]
    fn guids_as_their_display(data1 in any::<u32>(), data2 in any::<u16>(), data3 in any::<u16>(), data4 in any::<[u8; 8]>()) {
        let guid = Guid { data1, data2, data3, data4 };
        prop_assert_eq!(written(|w| w.guid(&guid)), serde_json::to_string(&guid.to_string()).unwrap());
    }

    #[test]
    fn times_as_their_display(filetime in any::<i64>()) {
        let time = UtcDateTime::from_filetime(filetime);
        prop_assert_eq!(written(|w| w.utc(&time)), serde_json::to_string(&time.to_string()).unwrap());
    }

    #[test]
    fn bytes_as_lowercase_hex(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        prop_assert_eq!(written(|w| w.bytes(&bytes)), serde_json::to_string(&hex).unwrap());
    }

    /// A tree of objects and arrays, written and built: the writer's text is serde_json's text
    /// of the value built, which keeps a repeated key once (see `repeated_keys_as_a_map`).
    #[test]
    fn nested_values_as_serde_json(keys in proptest::collection::vec(tricky_string(), 1..6), numbers in proptest::collection::vec(any::<i64>(), 1..6)) {
        let mut built = ValueBuilder::new();
        let mut out = Vec::new();
        {
            let mut writer = JsonWriter::new(&mut out);
            for sink in [&mut built as &mut dyn Sink, &mut writer as &mut dyn Sink] {
                sink.begin_object();
                for (index, key) in keys.iter().enumerate() {
                    // Each key at its own depth inside an array, so that none repeats in one object.
                    sink.key(&format!("{index}{key}"));
                    sink.begin_array();
                    for number in &numbers {
                        sink.i64(*number);
                    }
                    sink.begin_object();
                    sink.put_str(key, key);
                    sink.end_object();
                    sink.null();
                    sink.bool(index % 2 == 0);
                    sink.end_array();
                }
                sink.end_object();
            }
        }
        prop_assert_eq!(String::from_utf8(out).unwrap(), built.finish().to_string());
    }
}

/// A value `map_object` is given: an object of the members listed, which may repeat a key.
struct Members(Vec<(&'static str, u64)>);

impl etw_classic_decode::sink::Described for Members {
    type End = ();
    fn describe<S: Sink>(&self, sink: &mut S) {
        sink.begin_object();
        for (key, value) in &self.0 {
            sink.put_u64(key, *value);
        }
        sink.key("inner");
        sink.begin_object();
        sink.put_u64("a", 1);
        sink.put_u64("a", 2);
        sink.end_object();
        sink.end_object();
    }
}

#[test]
fn repeated_keys_as_a_map() {
    // What serde_json's map (preserve_order) makes of the same insertions: a key given twice
    // keeps its first place and its last value.
    let mut map = serde_json::Map::new();
    for (key, value) in [("x", 1u64), ("y", 2), ("x", 3)] {
        map.insert(key.to_owned(), json!(value));
    }
    map.insert("inner".to_owned(), json!({"a": 2}));
    let expected = serde_json::Value::Object(map).to_string();
    assert_eq!(expected, r#"{"x":3,"y":2,"inner":{"a":2}}"#);
    let got = written(|w| {
        w.begin_object();
        w.key("before");
        w.map_object(&Members(vec![("x", 1), ("y", 2), ("x", 3)]));
        w.end_object();
    });
    assert_eq!(got, format!(r#"{{"before":{expected}}}"#));
    // Without a repeated key the object is written as given, in one pass.
    let got = written(|w| w.map_object(&Members(vec![("x", 1), ("y", 2)])));
    assert_eq!(got, r#"{"x":1,"y":2,"inner":{"a":2}}"#);
}
