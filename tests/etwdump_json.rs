//! The JSON mapping behind `etwdump`: one view per union, missing keys zero, clear errors.

#[path = "../examples/etwdump/fields.rs"]
#[allow(dead_code)]
mod fields;

use fields::{encode, CliLayout};
use serde_json::json;

fn error(layout: CliLayout, value: serde_json::Value) -> String {
    encode(layout, &value).unwrap_err().to_string()
}

#[test]
fn missing_keys_are_zero() {
    assert_eq!(
        encode(CliLayout::TraceHeader, &json!({})).unwrap(),
        vec![0; 0x30]
    );
    assert_eq!(
        encode(CliLayout::EventTrace32, &json!({})).unwrap(),
        vec![0; 0x58]
    );
    let bytes = encode(CliLayout::MofField, &json!({"length": 3})).unwrap();
    assert_eq!(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn each_union_takes_one_view() {
    assert_eq!(
        error(CliLayout::TraceHeader, json!({"version": 1, "class_level": 2})),
        "trace-header: the Version/Class union takes one view, found keys of two: version and class_type/class_level/class_version"
    );
    assert_eq!(
        error(
            CliLayout::TraceHeader,
            json!({"guid_ptr": 1, "guid": "00000000-0000-0000-0000-000000000000"})
        ),
        "trace-header: the Guid/GuidPtr union takes one view, found keys of two: guid and guid_ptr"
    );
    assert_eq!(
        error(CliLayout::InstanceHeader, json!({"processor_time": 1, "event_id": 2})),
        "instance-header: the 0x28 union takes one view, found keys of two: processor_time and event_id/flags"
    );
    assert_eq!(
        error(CliLayout::EventTrace64, json!({"client_context": 1, "logger_id": 2})),
        "event-trace64: the ClientContext/BufferContext union takes one view, found keys of two: client_context and processor_number/alignment/logger_id"
    );
    // The instance header's 0x28 view is EventId, not ClientContext.
    assert_eq!(
        error(CliLayout::InstanceHeader, json!({"client_context": 1})),
        "instance-header: unknown key `client_context`"
    );
}

#[test]
fn views_land_in_the_same_bytes() {
    let by_class = encode(
        CliLayout::TraceHeader,
        &json!({"class_type": 1, "class_level": 2, "class_version": 3}),
    )
    .unwrap();
    let by_version = encode(CliLayout::TraceHeader, &json!({"version": 0x0003_0201})).unwrap();
    assert_eq!(by_class, by_version);
    let by_times = encode(
        CliLayout::TraceHeader,
        &json!({"kernel_time": 1, "user_time": 2}),
    )
    .unwrap();
    let by_processor_time = encode(
        CliLayout::TraceHeader,
        &json!({"processor_time": 0x2_0000_0001u64}),
    )
    .unwrap();
    assert_eq!(by_times, by_processor_time);
}

#[test]
fn unknown_keys_wrong_types_and_ranges_are_errors() {
    assert_eq!(
        error(CliLayout::MofField, json!({"lenght": 1})),
        "mof-field: unknown key `lenght`"
    );
    assert_eq!(
        error(CliLayout::MofField, json!([1, 2])),
        "mof-field: expected a JSON object, found an array"
    );
    assert_eq!(
        error(CliLayout::MofField, json!({"length": "3"})),
        "mof-field: `length` must be a number, found a string"
    );
    assert_eq!(
        error(CliLayout::TraceHeader, json!({"header_type": 256})),
        "trace-header: `header_type` must be an integer that fits u8, found 256"
    );
    assert_eq!(
        error(CliLayout::TraceHeader, json!({"size": -1})),
        "trace-header: `size` must be an integer that fits u16, found -1"
    );
    assert_eq!(
        error(CliLayout::TraceHeader, json!({"thread_id": 1.5})),
        "trace-header: `thread_id` must be an integer that fits u32, found 1.5"
    );
    assert_eq!(
        error(
            CliLayout::TraceHeader,
            json!({"timestamp": 9_223_372_036_854_775_808u64})
        ),
        "trace-header: `timestamp` must be an integer that fits i64, found 9223372036854775808"
    );
    assert_eq!(
        error(CliLayout::InstanceGuidHeader, json!({"parent_guid": "nope"})),
        "instance-guid-header: `parent_guid`: GUID text: expected a hex digit at position 0, found 'n'"
    );
    assert_eq!(
        error(CliLayout::EventTrace32, json!({"mof_data": 0x1_0000_0000u64})),
        "event-trace32: `mof_data`: EVENT_TRACE (32-bit): a 32-bit pointer holds at most 0xffffffff, found 0x100000000"
    );
    assert_eq!(
        error(CliLayout::EventTrace64, json!({"header": {"bogus": 1}})),
        "header: unknown key `bogus`"
    );
    assert_eq!(
        error(CliLayout::EventTrace64, json!({"header": 5})),
        "header: expected a JSON object, found a number"
    );
}

#[test]
fn negative_timestamps_survive() {
    let bytes = encode(CliLayout::TraceHeader, &json!({"timestamp": -2})).unwrap();
    assert_eq!(
        bytes[0x10..0x18],
        [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    let decoded = fields::decode(CliLayout::TraceHeader, &bytes).unwrap();
    assert_eq!(decoded["timestamp"], json!(-2));
}

#[test]
fn decode_then_encode_with_one_view_per_union_gives_the_bytes_back() {
    let bytes: Vec<u8> = (1..=0x58u8).collect();
    for layout in CliLayout::ALL {
        let mut decoded = fields::decode(layout, &bytes).unwrap();
        // Keep one view per union: drop the alternatives.
        for key in [
            "version",
            "guid_ptr",
            "processor_time",
            "client_context",
            "event_id",
            "flags",
        ] {
            if layout != CliLayout::EventTrace32 && layout != CliLayout::EventTrace64
                || key != "client_context"
            {
                decoded.remove(key);
            }
        }
        for key in ["processor_number", "alignment", "logger_id"] {
            decoded.remove(key);
        }
        if let Some(serde_json::Value::Object(header)) = decoded.get_mut("header") {
            for key in [
                "version",
                "guid_ptr",
                "processor_time",
                "client_context",
                "flags",
            ] {
                header.remove(key);
            }
        }
        let encoded = encode(layout, &serde_json::Value::Object(decoded)).unwrap();
        let expected_len = layout.len();
        let mut expected = bytes[..expected_len].to_vec();
        if layout == CliLayout::EventTrace32 || layout == CliLayout::InstanceInfo64 {
            // Padding is not an SDK member: the JSON form writes it as zero.
            expected[expected_len - 4..].fill(0);
        }
        assert_eq!(encoded, expected, "{}", layout.name());
    }
}

#[test]
fn truncated_input_is_the_library_error() {
    assert_eq!(
        fields::decode(CliLayout::InstanceGuidHeader, &[0; 0x47])
            .unwrap_err()
            .to_string(),
        "EVENT_INSTANCE_GUID_HEADER needs 72 bytes, found 71"
    );
}
