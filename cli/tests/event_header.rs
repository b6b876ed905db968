//! `etwc etl` on the `EVENT_HEADER` events of the PerfView test traces: every member of the
//! header under its SDK name, the extended data items with their typed values, and the user
//! data. The values are those of `../shared/reference/EVENT-HEADERS.md` (§1 worked example and
//! §2 samples, decoded by hand) and of dissect.etl (`tools/event-header-vectors/extract.py`).

mod common;

use common::{from_hex, run, trace};
use serde_json::{json, Value};

/// The JSON lines of `etl PATH --json`.
fn json_lines(name: &str) -> Option<Vec<Value>> {
    let path = trace(name)?;
    let output = run(&["etl", path.to_str().unwrap(), "--json"]);
    Some(
        output
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    )
}

fn at(lines: &[Value], buffer: u64, offset: u64) -> &Value {
    lines
        .iter()
        .find(|line| line["buffer"] == json!(buffer) && line["offset"] == json!(offset))
        .unwrap_or_else(|| panic!("no event at buffer {buffer} offset {offset:#x}"))
}

/// primitive-types.etl file offset 0x2048 (buffer 1, offset 0): EVENT-HEADERS.md §1 and §2
/// sample 1, every key of the line.
#[test]
fn the_worked_example_of_primitive_types() {
    let Some(lines) = json_lines("primitive-types.etl") else {
        return;
    };
    let mut event = at(&lines, 1, 0).clone();
    let object = event.as_object_mut().unwrap();
    // The schema's and the user data's bytes, checked apart from the rest.
    let schema = object["extended_data"][1]
        .as_object_mut()
        .unwrap()
        .remove("data")
        .unwrap();
    let schema = from_hex(schema.as_str().unwrap());
    assert_eq!(schema.len(), 0xB6);
    assert!(schema[3..].starts_with(b"PrimitiveTypesTest\0"));
    let data = from_hex(object.remove("data").unwrap().as_str().unwrap());
    assert_eq!(data.len(), 0x176 - 0x128);
    assert!(data.starts_with(b"Mercury\0"));
    // The meaning, checked apart: PerfView's primitive-types baseline prints this event as
    // solar_system/PrimitiveTypesTest, PName=Process(33984) (a process the trace does not
    // name), string_type=Mercury; int16_type=-51; ... uint64_type=204.
    let fields = object.remove("fields").unwrap();
    assert_eq!(fields["string_type"], json!("Mercury"));
    assert_eq!(fields["int16_type"], json!(-51));
    assert_eq!(fields["uint64_type"], json!(204));
    for (key, value) in [
        ("provider_name", json!("solar_system")),
        ("event_name", json!("PrimitiveTypesTest")),
        ("task_name", Value::Null),
        ("opcode_name", Value::Null),
        ("process_name", Value::Null),
    ] {
        assert_eq!(object.remove(key), Some(value), "{key}");
    }
    assert_eq!(
        event,
        json!({
            "buffer": 1,
            "offset": 0,
            "kind": "EVENT_HEADER64",
            "size": 0x176,
            "header_type": 0x13,
            "marker_flags": 0xC0,
            "flags": 1,
            "event_property": 0,
            "thread_id": 0x5508,
            "process_id": 0x84C0,
            "timestamp": 0x25E_33AB_9546i64,
            "provider_id": "d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615",
            "event_descriptor": {
                "id": 0, "version": 0, "channel": 11, "level": 5, "opcode": 0, "task": 0,
                "keyword": 0
            },
            "kernel_time": 0x6F,
            "user_time": 0x3A,
            "processor_time": 0x3A_0000_006Fu64,
            "activity_id": "00000000-0000-0000-0000-000000000000",
            "extended_data": [
                {
                    "ext_type": 0x0C, "item_size": 0x18, "linkage": 1, "data_size": 15,
                    "traits_size": 15, "provider_name": "solar_system", "traits": [],
                    "data": "0f00736f6c61725f73797374656d00", "padding": "00"
                },
                {
                    "ext_type": 0x0B, "item_size": 0xC0, "linkage": 0, "data_size": 0xB6,
                    "padding": "0000"
                }
            ],
            "processor": 2,
            // dissect.etl's ETL.get_filetime_for_event of the same timestamp.
            "filetime": 132_756_731_758_001_567i64,
            "time": "2021-09-09T14:59:35.8001567Z",
        })
    );
}

/// The TraceLogging event of SelfDescribingSingleEvent.etl (§2 sample 2), with the values
/// dissect.etl reads. (The STACK_TRACE64 and RELATED_ACTIVITYID items of the large net.4.5.2
/// traces are checked by the library's `tests/event_header.rs`, which does not need the tool's
/// whole output of them.)
#[test]
fn a_self_describing_event() {
    if let Some(lines) = json_lines("SelfDescribingSingleEvent.etl") {
        let event = at(&lines, 2, 0);
        assert_eq!(event["kind"], json!("EVENT_HEADER64"));
        assert_eq!(
            event["provider_id"],
            json!("a61ea624-4944-55fc-c2a8-37838829438d")
        );
        assert_eq!(event["event_descriptor"]["id"], json!(3));
        let items = event["extended_data"].as_array().unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["provider_name"], json!("MySource"));
        assert_eq!(
            (
                &items[1]["ext_type"],
                &items[1]["item_size"],
                &items[1]["data_size"]
            ),
            (&json!(0x0B), &json!(0x20), &json!(0x17))
        );
        assert_eq!(event["data"].as_str().unwrap().len(), 26 * 2);
    }
}

#[test]
fn the_text_line_of_an_event_header_event() {
    let Some(path) = trace("primitive-types.etl") else {
        return;
    };
    let output = run(&["etl", path.to_str().unwrap()]);
    let line = output.lines().nth(3).unwrap();
    let header = "buffer    1 offset 0x00000 EVENT_HEADER64  size   374 \
                  2021-09-09T14:59:35.8001567Z  d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615 id 0 \
                  version 0 level win:Verbose opcode 0 task 0 keyword 0x0 tid 21768 pid 33984 raw_timestamp \
                  2603617064262 kernel_time 111 user_time 58 items 2";
    // Then the event as PerfView's baseline prints it: solar_system/PrimitiveTypesTest
    // string_type=Mercury; boolean_type=False; char_type=77 (a character out-type: M);
    // int16_type=-51; int32_type=-102; uint16_type=51; uint32_type=102.
    let meaning = line
        .strip_prefix(header)
        .unwrap_or_else(|| panic!("{line:?}"));
    assert!(
        meaning.starts_with(
            "  solar_system/PrimitiveTypesTest string_type=Mercury boolean_type=false \
             char_type=M int16_type=-51 int32_type=-102 uint16_type=51 uint32_type=102 "
        ),
        "{meaning:?}"
    );
}
