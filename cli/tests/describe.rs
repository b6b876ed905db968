//! Traces that describe their own classic events: `etwc mof` writes the `.mof` of the
//! firmware's described trace (the text expected here is written by hand from the class the
//! firmware declares in `firmware/src/lib.rs` and Microsoft's "Publishing Your Event Schema
//! for a Classic Provider"); `etwc etl` decodes the typed events to the same names and values
//! from the in-band `MetaData/EventInfo` events alone and from that `.mof` alone (the same
//! file with its descriptions made unrecognisable); `etwc assemble --describe FILE.mof` writes
//! descriptions into an .etl file made from a dump that has none, byte for byte the ones the
//! firmware built at compile time.

mod common;

use std::path::{Path, PathBuf};

use common::{boot_trace_file, etwc, utf8};
use etw_classic::payload::METADATA_GUID;
use etw_classic_firmware::{Mode, BUFFER_SIZE, DESCRIPTIONS};
use serde_json::{json, Value};

const EXPECTED_MOF: &str = r#"#pragma namespace("\\\\.\\root\\wmi")

[dynamic: ToInstance, DisplayName("Boot"), Guid("{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104206}")]
class Boot : EventTrace
{
};

[dynamic: ToInstance, DisplayName("Stage"), Guid("{6b0f0a10-2c4e-4b8d-9a31-0e5c7f104207}"), EventVersion(1)]
class Stage : Boot
{
};

[dynamic: ToInstance, EventType(1), EventTypeName("Start")]
class Stage_Start : Stage
{
    [WmiDataId(1), read] uint32 Stage;
    [WmiDataId(2), read] uint16 Steps;
    [WmiDataId(3), read, pointer] uint32 Entry;
    [WmiDataId(4), read, StringTermination("NullTerminated")] string Name;
};

[dynamic: ToInstance, EventType(8), EventTypeName("Checkpoint")]
class Stage_Checkpoint : Stage
{
    [WmiDataId(1), read] boolean Ok;
    [WmiDataId(2), read, extension("Guid")] object Image;
    [WmiDataId(3), read] datetime At;
    [WmiDataId(4), read] uint8 Hash[4];
};

[dynamic: ToInstance, EventType(2), EventTypeName("End")]
class Stage_End : Stage
{
    [WmiDataId(1), read] uint32 Stage;
    [WmiDataId(2), read] sint32 Status;
};
"#;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("describe")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The described trace with its `MetaData` GUID zeroed wherever it is: no description left.
fn without_descriptions(file: &[u8]) -> Vec<u8> {
    let guid = METADATA_GUID.to_bytes_le();
    let mut stripped = file.to_vec();
    let mut found = 0;
    let mut at = 0;
    while let Some(offset) = stripped[at..].windows(16).position(|window| window == guid) {
        stripped[at + offset..at + offset + 16].fill(0);
        at += offset + 16;
        found += 1;
    }
    assert_eq!(found, DESCRIPTIONS.len());
    stripped
}

/// What `etwc etl --json` shows of every event of `path`: kind, names, fields, as JSON.
fn decoded(path: &Path, options: &[&str]) -> Vec<Value> {
    let output = etwc()
        .arg("etl")
        .arg(path)
        .arg("--json")
        .args(options)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    utf8(&output)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["kind"] != "LOGFILE_HEADER" && event["kind"] != "SYSTEM32")
        .collect()
}

/// The typed events' provider, event name and fields. A `.mof` has no binary type: fixed-size
/// binary is declared `uint8 Name[N]`, which a reader shows as the array of its bytes where
/// the in-band `BINARY` shows hex; the bytes are what is compared.
fn typed(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|event| event["provider_name"] == "Boot")
        .map(|event| {
            let mut fields = event["fields"].clone();
            if let Some(Value::Array(bytes)) = fields.get("Hash") {
                let hex: String = bytes
                    .iter()
                    .map(|byte| format!("{:02x}", byte.as_u64().unwrap()))
                    .collect();
                fields["Hash"] = json!(hex);
            }
            json!([event["provider_name"], event["event_name"], fields])
        })
        .collect()
}

#[test]
fn etwc_mof_writes_the_mof_of_the_in_band_descriptions() {
    let dir = scratch("mof");
    let etl = dir.join("described.etl");
    std::fs::write(&etl, boot_trace_file(Mode::Described)).unwrap();
    let output = etwc().arg("mof").arg(&etl).assert().success();
    assert_eq!(utf8(&output.get_output().stdout), EXPECTED_MOF);

    // A trace without classic descriptions: one sentence, status 1.
    let streaming = dir.join("streaming.etl");
    std::fs::write(&streaming, boot_trace_file(Mode::Streaming)).unwrap();
    let output = etwc().arg("mof").arg(&streaming).assert().code(1);
    assert_eq!(
        utf8(&output.get_output().stderr),
        format!(
            "etwc: {}: no MetaData/EventInfo event describes a classic (WMI MOF) event type\n",
            streaming.display()
        )
    );
}

#[test]
fn the_in_band_descriptions_and_the_emitted_mof_decode_the_same_fields() {
    let dir = scratch("same-fields");
    let file = boot_trace_file(Mode::Described);
    let etl = dir.join("described.etl");
    std::fs::write(&etl, &file).unwrap();
    let mof = dir.join("described.mof");
    let output = etwc().arg("mof").arg(&etl).assert().success();
    std::fs::write(&mof, &output.get_output().stdout).unwrap();
    let bare = dir.join("bare.etl");
    std::fs::write(&bare, without_descriptions(&file)).unwrap();

    let in_band = decoded(&etl, &[]);
    let from_mof = decoded(&bare, &["--mof", mof.to_str().unwrap()]);
    // Without either, nothing names them.
    assert!(typed(&decoded(&bare, &[])).is_empty());
    let in_band_typed = typed(&in_band);
    assert_eq!(in_band_typed.len(), 16);
    assert_eq!(in_band_typed, typed(&from_mof));
    // The values the firmware wrote (its STAGES: "clocks" of 2 steps, stage 1 entry
    // 0x08001000; the checkpoint of step 1 at BOOT_TIME + 1 ms).
    assert_eq!(
        in_band_typed[0],
        json!(["Boot", "Stage/Start", {"Stage": 1, "Steps": 2, "Entry": "0x08001000", "Name": "clocks"}])
    );
    assert_eq!(
        in_band_typed[1],
        json!(["Boot", "Stage/Checkpoint", {"Ok": true, "Image": "6b0f0a10-2c4e-4b8d-9a31-0e5c7f104201", "At": "2026-11-21T00:00:00.0010000Z", "Hash": "0102a55a"}])
    );
    assert_eq!(
        in_band_typed[3],
        json!(["Boot", "Stage/End", {"Stage": 1, "Status": 0}])
    );
}

#[test]
fn assemble_describe_writes_the_descriptions_the_firmware_built() {
    let dir = scratch("assemble");
    let file = boot_trace_file(Mode::Described);
    let etl = dir.join("described.etl");
    std::fs::write(&etl, &file).unwrap();
    let mof = dir.join("described.mof");
    std::fs::write(&mof, EXPECTED_MOF).unwrap();
    // The dump: the trace buffers, with no description in them.
    let dump = dir.join("dump.bin");
    std::fs::write(&dump, &without_descriptions(&file)[BUFFER_SIZE..]).unwrap();
    let assembled = dir.join("assembled.etl");
    etwc()
        .arg("assemble")
        .arg(&dump)
        .arg("-o")
        .arg(&assembled)
        .arg("--describe")
        .arg(&mof)
        .assert()
        .success();

    let events = decoded(&assembled, &[]);
    assert_eq!(typed(&events), typed(&decoded(&etl, &[])));
    // The descriptions come first, each the bytes the firmware has in flash.
    let mut infos: Vec<Vec<u8>> = events
        .iter()
        .take_while(|event| event["event_name"] == "MetaData/EventInfo")
        .map(|event| {
            let hex = event["data"].as_str().unwrap();
            (0..hex.len())
                .step_by(2)
                .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
                .collect()
        })
        .collect();
    let mut expected: Vec<Vec<u8>> = DESCRIPTIONS.iter().map(|info| info.to_vec()).collect();
    infos.sort();
    expected.sort();
    assert_eq!(infos, expected);

    // A .mof whose event types the library cannot describe: one sentence, status 1.
    let bad = dir.join("bad.mof");
    std::fs::write(
        &bad,
        EXPECTED_MOF.replace("uint32 Stage;", "uint32 Stage[2];"),
    )
    .unwrap();
    let output = etwc()
        .arg("assemble")
        .arg(&dump)
        .arg("-o")
        .arg(dir.join("bad.etl"))
        .arg("--describe")
        .arg(&bad)
        .assert()
        .code(1);
    let stderr = utf8(&output.get_output().stderr);
    assert!(
        stderr.contains("Boot/Stage/Start (class 6b0f0a10-2c4e-4b8d-9a31-0e5c7f104207 type 1 version 1): field 0 is not one value"),
        "{stderr}"
    );
}

/// Every type a typed payload writes, through `write_mof` and back through decode's MOF
/// reader: the fields of each event type are the description's, names, in-types, lengths and
/// order (binary of `N` bytes coming back as `N` `uint8`s, the `.mof`'s only way to say it), and
/// the names and keys those of the class.
#[test]
fn the_mof_of_every_type_reads_back_to_the_description() {
    use etw_classic::describe::{
        write_mof, Counted, Counted16, FileTime, Pointer, ProviderDescription, TypedEvent, Utf16,
    };
    use etw_classic::payload::{Count, FieldSchema, InType, Length};
    use etw_classic::Guid;
    use etw_classic_decode::mof::{parse_mof, MofKey};

    etw_classic::event_class! {
        const ALL = (Guid::from_fields(0x10, 0x20, 0x30, [1, 2, 3, 4, 5, 6, 7, 8]), "All", version 4);
        struct Numbers = (1, "Numbers") {
            a: i8 => "A", b: u8 => "B", c: i16 => "C", d: u16 => "D", e: i32 => "E",
            f: u32 => "F", g: i64 => "G", h: u64 => "H", i: f32 => "I", j: f64 => "J",
            k: bool => "K",
        }
        struct Others<'a> = (2, "Others") {
            id: Guid => "Id", at: FileTime => "At", address: Pointer => "Address",
            ansi: &'a str => "Ansi", wide: Utf16<'a> => "Wide", counted: Counted<'a> => "Counted",
            counted_wide: Counted16<'a> => "CountedWide", bytes: [u8; 5] => "Bytes",
        }
    }
    const PROVIDER: ProviderDescription = ProviderDescription::new(
        Guid::from_fields(0x99, 0x88, 0x77, [6; 8]),
        "Everything",
        &[ALL],
    );
    let mut text = String::new();
    write_mof(&PROVIDER, &mut text).unwrap();
    let mof = parse_mof(&text, "written.mof").unwrap();
    assert_eq!(mof.providers.len(), 1);
    assert_eq!(&*mof.providers[0].name, "Everything");
    assert_eq!(mof.providers[0].guid, Some(PROVIDER.guid()));
    for event_type in [Numbers::EVENT_TYPE, Others::EVENT_TYPE] {
        let key = MofKey {
            guid: ALL.guid(),
            event_type: event_type.event_type().0,
            version: Some(4),
        };
        let event = &mof.events[&key];
        assert_eq!(event.schema.task_name.as_deref(), Some("All"));
        assert_eq!(event.schema.opcode_name.as_deref(), Some(event_type.name()));
        let expected: Vec<FieldSchema<String>> = event_type
            .fields()
            .iter()
            .map(|field| match (field.in_type, field.length) {
                (InType::BINARY, Length::Fixed(len)) => {
                    FieldSchema::new(field.name.to_owned(), InType::UINT8)
                        .with_count(Count::Fixed(len))
                }
                _ => field.map_names(str::to_owned),
            })
            .collect();
        let read: Vec<FieldSchema<String>> = event
            .schema
            .fields
            .iter()
            .map(|field| field.clone().map_names(|name| name.to_string()))
            .collect();
        assert_eq!(read, expected, "{}", event_type.name());
    }
}
