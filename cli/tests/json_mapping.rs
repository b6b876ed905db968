//! The JSON mapping of `etwc decode --json` and `etwc encode`, through the built binary: one view
//! per union, missing keys zero, errors that name the key.

mod common;

use common::{decode, encode, etwc, utf8};
use serde_json::{json, Value};

/// `etwc encode LAYOUT JSON`, which must fail with exit code 1 and print nothing on stdout: its
/// message, without the `etwc: ` in front and the line end.
fn error(layout: &str, value: Value) -> String {
    let output = etwc()
        .args(["encode", layout, &value.to_string()])
        .assert()
        .code(1)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    message(&utf8(&output))
}

/// The message of a one-line `etwc: MESSAGE` error.
fn message(stderr: &str) -> String {
    stderr
        .strip_prefix("etwc: ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .filter(|message| !message.contains('\n'))
        .unwrap_or_else(|| panic!("one `etwc: ` line expected, found {stderr:?}"))
        .to_owned()
}

/// Every layout, with its length in bytes.
const LAYOUTS: [(&str, usize); 11] = [
    ("trace-header", 0x30),
    ("instance-header", 0x38),
    ("instance-guid-header", 0x48),
    ("event-trace32", 0x58),
    ("event-trace64", 0x58),
    ("instance-info32", 8),
    ("instance-info64", 16),
    ("mof-field", 16),
    ("system-header", 0x20),
    ("logfile-header32", 0x110),
    ("logfile-header64", 0x118),
];

#[test]
fn missing_keys_are_zero() {
    assert_eq!(encode("trace-header", &json!({})), vec![0; 0x30]);
    assert_eq!(encode("event-trace32", &json!({})), vec![0; 0x58]);
    let bytes = encode("mof-field", &json!({"length": 3}));
    assert_eq!(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
    // And for every layout: all zero, of the layout's length.
    for (layout, len) in LAYOUTS {
        assert_eq!(encode(layout, &json!({})), vec![0; len], "{layout}");
    }
}

#[test]
fn the_views_of_a_union_given_together_must_agree() {
    // Views that agree are what `decode` prints: the first is encoded, the others checked.
    assert_eq!(
        encode(
            "trace-header",
            &json!({"version": 0x0102_0304, "class_type": 4, "class_level": 3, "class_version": 0x0102})
        ),
        encode("trace-header", &json!({"version": 0x0102_0304}))
    );
    assert_eq!(
        error("trace-header", json!({"version": 1, "class_level": 2})),
        "trace-header: the Version/Class union's views disagree: `class_level` is 2, but the view encoded (`version`) makes it 0 (give one view, or views that agree)"
    );
    assert_eq!(
        error(
            "trace-header",
            json!({"guid_ptr": 1, "guid": "00000000-0000-0000-0000-000000000000"})
        ),
        "trace-header: the Guid/GuidPtr union's views disagree: `guid_ptr` is 1, but the view encoded (`guid`) makes it 0 (give one view, or views that agree)"
    );
    assert_eq!(
        error("instance-header", json!({"processor_time": 1, "event_id": 2})),
        "instance-header: the 0x28 union's views disagree: `event_id` is 2, but the view encoded (`processor_time`) makes it 1 (give one view, or views that agree)"
    );
    assert_eq!(
        error("event-trace64", json!({"client_context": 1, "logger_id": 2})),
        "event-trace64: the ClientContext/BufferContext union's views disagree: `logger_id` is 2, but the view encoded (`client_context`) makes it 0 (give one view, or views that agree)"
    );
    // The instance header's 0x28 view is EventId, not ClientContext.
    assert_eq!(
        error("instance-header", json!({"client_context": 1})),
        "instance-header: unknown key `client_context`"
    );
}

#[test]
fn views_land_in_the_same_bytes() {
    let by_class = encode(
        "trace-header",
        &json!({"class_type": 1, "class_level": 2, "class_version": 3}),
    );
    let by_version = encode("trace-header", &json!({"version": 0x0003_0201}));
    assert_eq!(by_class, by_version);
    let by_times = encode("trace-header", &json!({"kernel_time": 1, "user_time": 2}));
    let by_processor_time = encode("trace-header", &json!({"processor_time": 0x2_0000_0001u64}));
    assert_eq!(by_times, by_processor_time);
}

#[test]
fn unknown_keys_wrong_types_and_ranges_are_errors() {
    assert_eq!(
        error("mof-field", json!({"lenght": 1})),
        "mof-field: unknown key `lenght`"
    );
    assert_eq!(
        error("mof-field", json!([1, 2])),
        "mof-field: expected a JSON object, found an array"
    );
    assert_eq!(
        error("mof-field", json!({"length": "3"})),
        "mof-field: `length` must be a number, found a string"
    );
    assert_eq!(
        error("trace-header", json!({"header_type": 256})),
        "trace-header: `header_type` must be an integer that fits u8, found 256"
    );
    assert_eq!(
        error("trace-header", json!({"size": -1})),
        "trace-header: `size` must be an integer that fits u16, found -1"
    );
    assert_eq!(
        error("trace-header", json!({"thread_id": 1.5})),
        "trace-header: `thread_id` must be an integer that fits u32, found 1.5"
    );
    assert_eq!(
        error(
            "trace-header",
            json!({"timestamp": 9_223_372_036_854_775_808u64})
        ),
        "trace-header: `timestamp` must be an integer that fits i64, found 9223372036854775808"
    );
    assert_eq!(
        error("instance-guid-header", json!({"parent_guid": "nope"})),
        "instance-guid-header: `parent_guid`: GUID text: expected a hex digit at position 0, found 'n'"
    );
    assert_eq!(
        error("event-trace32", json!({"mof_data": 0x1_0000_0000u64})),
        "event-trace32: `mof_data`: EVENT_TRACE (32-bit).MofData: a 32-bit pointer holds at most 0xffffffff, found 0x100000000"
    );
    assert_eq!(
        error("event-trace64", json!({"header": {"bogus": 1}})),
        "header: unknown key `bogus`"
    );
    assert_eq!(
        error("event-trace64", json!({"header": 5})),
        "header: expected a JSON object, found a number"
    );
}

#[test]
fn pointers_fit_the_layout_width() {
    assert_eq!(
        error("instance-info32", json!({"reg_handle": 0x1_0000_0000u64})),
        "instance-info32: `reg_handle` must be an integer that fits u32, found 4294967296"
    );
    assert_eq!(
        encode(
            "instance-info32",
            &json!({"reg_handle": 0xFFFF_FFFFu32, "instance_id": 9})
        ),
        [0xFF, 0xFF, 0xFF, 0xFF, 9, 0, 0, 0]
    );
    assert_eq!(
        encode(
            "instance-info64",
            &json!({"reg_handle": 0x1_0000_0000u64, "instance_id": 9})
        ),
        [0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        error("instance-info64", json!({"reg_handle": -1})),
        "instance-info64: `reg_handle` must be an integer that fits u64, found -1"
    );
    let wide = encode(
        "event-trace64",
        &json!({"mof_data": 0x1_0000_0000u64, "mof_length": 2}),
    );
    assert_eq!(wide[0x48..0x54], [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
}

#[test]
fn negative_timestamps_survive() {
    let bytes = encode("trace-header", &json!({"timestamp": -2}));
    assert_eq!(
        bytes[0x10..0x18],
        [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    let decoded = decode("trace-header", &bytes);
    assert_eq!(decoded["timestamp"], json!(-2));
}

/// The keys to drop from a decoded object so that each union keeps one view.
fn other_views(layout: &str) -> &'static [&'static str] {
    match layout {
        "trace-header" | "instance-guid-header" => &[
            "version",
            "guid_ptr",
            "processor_time",
            "client_context",
            "flags",
        ],
        "instance-header" => &["version", "processor_time", "event_id", "flags"],
        "event-trace32" | "event-trace64" => &["processor_number", "alignment", "logger_id"],
        "instance-info32" | "instance-info64" | "mof-field" => &[],
        "system-header" => &["marker", "header", "type", "group"],
        "logfile-header32" | "logfile-header64" => &["version", "log_instance_guid"],
        other => panic!("unknown layout {other}"),
    }
}

#[test]
fn decode_then_encode_with_one_view_per_union_gives_the_bytes_back() {
    // Distinct non-zero bytes in every 251-byte window, long enough for every layout.
    let bytes: Vec<u8> = (0..0x118usize)
        .map(|index| u8::try_from(index % 251 + 1).unwrap())
        .collect();
    for (layout, len) in LAYOUTS {
        let mut decoded = decode(layout, &bytes);
        for key in other_views(layout) {
            decoded.remove(*key);
        }
        if let Some(Value::Object(header)) = decoded.get_mut("header") {
            for key in other_views("trace-header") {
                header.remove(*key);
            }
        }
        let encoded = encode(layout, &Value::Object(decoded));
        let mut expected = bytes[..len].to_vec();
        // Padding is not an SDK member: the JSON form writes it as zero.
        match layout {
            "event-trace32" | "instance-info64" => expected[len - 4..].fill(0),
            "logfile-header32" => expected[0xEC..0xF0].fill(0),
            "logfile-header64" => expected[0xF4..0xF8].fill(0),
            _ => {}
        }
        assert_eq!(encoded, expected, "{layout}");
    }
}

#[test]
fn system_header_views() {
    let by_marker = encode(
        "system-header",
        &json!({"marker": 0xC002_0002u32, "header": 0x0000_016C}),
    );
    let by_fields = encode(
        "system-header",
        &json!({"version": 2, "header_type": 2, "flags": 0xC0, "size": 364, "hook_id": 0}),
    );
    assert_eq!(by_marker, by_fields);
    assert_eq!(
        by_marker[..8],
        [0x02, 0x00, 0x02, 0xC0, 0x6C, 0x01, 0x00, 0x00]
    );
    let by_type_group = encode(
        "system-header",
        &json!({"size": 0x20, "type": 0x0A, "group": 0x05}),
    );
    assert_eq!(by_type_group[4..8], [0x20, 0x00, 0x0A, 0x05]);
    let decoded = decode("system-header", &by_type_group);
    assert_eq!(decoded["hook_id"], json!(0x050A));
    assert_eq!(decoded["header"], json!(0x050A_0020));

    assert_eq!(
        error("system-header", json!({"marker": 1, "flags": 0xC0})),
        "system-header: the Marker union's views disagree: `flags` is 192, but the view encoded (`marker`) makes it 0 (give one view, or views that agree)"
    );
    assert_eq!(
        error("system-header", json!({"header": 1, "size": 2})),
        "system-header: the Header/Packet union's views disagree: `size` is 2, but the view encoded (`header`) makes it 1 (give one view, or views that agree)"
    );
    assert_eq!(
        error("system-header", json!({"hook_id": 1, "group": 2})),
        "system-header: the HookId union's views disagree: `group` is 2, but the view encoded (`hook_id`) makes it 0 (give one view, or views that agree)"
    );
    assert_eq!(
        error("system-header", json!({"opcode": 1})),
        "system-header: unknown key `opcode`"
    );
}

#[test]
fn logfile_header_round_trip_and_errors() {
    let value = json!({
        "buffer_size": 65536,
        "major_version": 10, "minor_version": 0, "sub_version": 2, "sub_minor_version": 0,
        "start_buffers": 1, "pointer_size": 4, "events_lost": 7, "cpu_speed_in_mhz": 3192,
        "logger_name": 0xFFFF_FFFFu32,
        "time_zone": {
            "bias": -120,
            "standard_name": [0x41, 0x42],
            "daylight_date": {"month": 3, "day": 5, "hour": 3},
            "daylight_bias": -60
        },
        "end_time": -1,
        "reserved_flags": 2
    });
    let bytes = encode("logfile-header32", &value);
    assert_eq!(bytes.len(), 0x110);
    assert_eq!(bytes[0x2C..0x30], [4, 0, 0, 0]); // PointerSize
    assert_eq!(bytes[0x38..0x3C], [0xFF; 4]); // LoggerName, 4 bytes
    assert_eq!(bytes[0x40..0x44], (-120i32).to_le_bytes()); // TimeZone.Bias
    assert_eq!(bytes[0x44..0x48], [0x41, 0, 0x42, 0]); // StandardName
    assert_eq!(bytes[0x108..0x10C], [2, 0, 0, 0]); // ReservedFlags
    let decoded = decode("logfile-header32", &bytes);
    assert_eq!(decoded["version"], json!(0x0002_000A));
    assert_eq!(decoded["time_zone"]["bias"], json!(-120));
    assert_eq!(decoded["time_zone"]["daylight_date"]["day"], json!(5));
    assert_eq!(decoded["time_zone"]["standard_name"][1], json!(0x42));
    assert_eq!(
        decoded["time_zone"]["daylight_name"],
        json!([0u16; 32].to_vec())
    );
    assert_eq!(decoded["end_time"], json!(-1));

    // The same fields in the 64-bit layout: 8 bytes later from the time zone on.
    let wide = encode("logfile-header64", &value);
    assert_eq!(wide.len(), 0x118);
    assert_eq!(wide[..0x3C], bytes[..0x3C]);
    assert_eq!(wide[0x48..0xF4], bytes[0x40..0xEC]);
    assert_eq!(wide[0xF8..], bytes[0xF0..]);

    assert_eq!(
        error("logfile-header32", json!({"logger_name": 0x1_0000_0000u64})),
        "logfile-header32: `logger_name` must be an integer that fits u32, found 4294967296"
    );
    assert_eq!(
        error("logfile-header64", json!({"version": 1, "major_version": 2})),
        "logfile-header64: the Version/VersionDetail union's views disagree: `major_version` is 2, but the view encoded (`version`) makes it 1 (give one view, or views that agree)"
    );
    assert_eq!(
        error(
            "logfile-header64",
            json!({"pointer_size": 8, "log_instance_guid": "00000000-0000-0000-0000-000000000000"})
        ),
        "logfile-header64: the LogInstanceGuid union's views disagree: `pointer_size` is 8, but the view encoded (`log_instance_guid`) makes it 0 (give one view, or views that agree)"
    );
    assert_eq!(
        error(
            "logfile-header64",
            json!({"time_zone": {"bias": 2_147_483_648u64}})
        ),
        "time_zone: `bias` must be an integer that fits i32, found 2147483648"
    );
    assert_eq!(
        error("logfile-header64", json!({"time_zone": {"standard_name": "UTC"}})),
        "time_zone: `standard_name` must be an array of at most 32 UTF-16 code units (integers that fit u16)"
    );
    assert_eq!(
        error(
            "logfile-header64",
            json!({"time_zone": {"standard_date": {"week": 1}}})
        ),
        "standard_date: unknown key `week`"
    );
    assert_eq!(
        error("logfile-header64", json!({"padding": 0})),
        "logfile-header64: unknown key `padding`"
    );
}

#[test]
fn truncated_input_is_the_library_error() {
    let stderr = etwc()
        .args(["decode", "instance-guid-header", &"00".repeat(0x47)])
        .assert()
        .code(1)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    assert_eq!(
        message(&utf8(&stderr)),
        "EVENT_INSTANCE_GUID_HEADER: expected 72 bytes, found 71"
    );
    // Every layout, one byte short, in table and JSON form.
    let names = [
        "EVENT_TRACE_HEADER: expected 48 bytes",
        "EVENT_INSTANCE_HEADER: expected 56 bytes",
        "EVENT_INSTANCE_GUID_HEADER: expected 72 bytes",
        "EVENT_TRACE (32-bit): expected 88 bytes",
        "EVENT_TRACE (64-bit): expected 88 bytes",
        "EVENT_INSTANCE_INFO (32-bit): expected 8 bytes",
        "EVENT_INSTANCE_INFO (64-bit): expected 16 bytes",
        "MOF_FIELD: expected 16 bytes",
        "SYSTEM_TRACE_HEADER: expected 32 bytes",
        "TRACE_LOGFILE_HEADER (32-bit): expected 272 bytes",
        "TRACE_LOGFILE_HEADER (64-bit): expected 280 bytes",
    ];
    for ((layout, len), name) in LAYOUTS.into_iter().zip(names) {
        for json in [false, true] {
            let mut command = etwc();
            command.args(["decode", layout, &"11".repeat(len - 1)]);
            if json {
                command.arg("--json");
            }
            let stderr = command
                .assert()
                .code(1)
                .stdout("")
                .get_output()
                .stderr
                .clone();
            assert_eq!(
                message(&utf8(&stderr)),
                format!("{name}, found {}", len - 1),
                "{layout}"
            );
        }
    }
}
