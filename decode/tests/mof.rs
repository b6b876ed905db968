//! Classic MOF text: PerfView's `kerneltraceeventparser.mof` (the kernel's classes from the
//! Vista source tree, read from `../shared/data/schemas`, never copied) parses whole, its
//! counts agreeing with counts taken from the file by other means, and its classes agree field
//! by field with Microsoft's documentation pages of the same classes (learn.microsoft.com,
//! "Process_V2_TypeGroup1 class", "Thread_V2_TypeGroup1 class", "Image_Load class",
//! "TcpIp_TypeGroup1 class"); the documentation's own MOF examples ("Publishing Your Event
//! Schema for a Classic Provider", "Event Tracing MOF Qualifiers") parse as they say; and bad
//! MOF texts give errors at the line that is wrong.

mod shared_files;

use etw_classic::payload::{Count, InType, Length, OutType};
use etw_classic::Guid;
use etw_classic_decode::mof::{parse_mof, Mof, MofErrorKind, MofKey};
use etw_classic_decode::{EventSchema, MapKind, SchemaSource};

const PROCESS: &str = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c";
const THREAD: &str = "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c";
const IMAGE: &str = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518";
const TCPIP: &str = "9a280ac0-c8e0-11d1-84e2-00c04fb998a2";

fn guid(text: &str) -> Guid {
    Guid::parse_str(text).unwrap()
}

fn kernel_mof() -> Option<Mof> {
    let text = shared_files::schema_file("kerneltraceeventparser.mof")?;
    Some(parse_mof(&text, "kerneltraceeventparser.mof").unwrap_or_else(|error| panic!("{error}")))
}

/// `(name, in-type, out-type)` of each field.
fn described(schema: &EventSchema) -> Vec<(String, InType, OutType)> {
    schema
        .fields
        .iter()
        .map(|field| (field.name.to_string(), field.in_type, field.out_type))
        .collect()
}

/// The event types of a class with their opcode names, from the schemas keyed under
/// `(guid, version)`.
fn types_of(mof: &Mof, class: &str) -> Vec<(u8, String)> {
    mof.events
        .iter()
        .filter(|(_, event)| &*event.class_name == class)
        .map(|(key, event)| {
            (
                key.event_type,
                event
                    .schema
                    .opcode_name
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

/// Every class parses: the 256 event types are what two other counts give (a regular
/// expression over `EventType(n)` and `EventType{...}`, and `grep -o` of the same qualifiers
/// with their commas counted); 133 event type classes (89 with `EventType(n)`, 44 with
/// `EventType{...}`); the four provider classes `grep ':EventTrace$'` finds.
#[test]
fn kernel_mof_parses_every_class() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    assert_eq!(mof.events.len(), 256);
    let mut classes: Vec<&str> = mof
        .events
        .values()
        .map(|event| &*event.class_name)
        .collect();
    classes.sort_unstable();
    classes.dedup();
    assert_eq!(classes.len(), 133);
    let providers: Vec<(&str, u32, String)> = mof
        .providers
        .iter()
        .map(|provider| {
            (
                &*provider.name,
                provider.line,
                provider
                    .guid
                    .map(|guid| guid.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        providers,
        [
            (
                "MSNT_SystemTrace",
                7,
                "9e814aad-3204-11d2-9a82-006008a86939".to_owned()
            ),
            (
                "ThreadPool",
                4895,
                "c861d0e2-a2c1-4d36-9f9c-970bab943a12".to_owned()
            ),
            (
                "HeapTraceProvider",
                5015,
                "222962ab-6180-4b88-a825-346b75f2a24a".to_owned()
            ),
            (
                "CritSecTraceProvider",
                5274,
                "3ac66736-cc59-4cff-8115-8df50e39816b".to_owned()
            ),
        ]
    );
    // The event class GUIDs of PAYLOADS.md §5 are among the keys.
    for class in [
        "68fdd900-4a3e-11d1-84f4-0000f80464e3",
        PROCESS,
        THREAD,
        "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c",
        "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c",
        IMAGE,
        "90cbdc39-4a3e-11d1-84f4-0000f80464e3",
        TCPIP,
        "bf3a50c5-a9c9-4988-a005-2df0b7c80f80",
        "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc",
        "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3",
        "ae53722e-c863-11d2-8659-00c04fa321a1",
        "45d8cccd-539f-4b72-a8b7-5c683142609a",
        "01853a65-418f-4f36-aefc-dc0f1d2fd235",
    ] {
        assert!(
            mof.events.keys().any(|key| key.guid == guid(class)),
            "{class}"
        );
    }
    let header = mof
        .schema(guid("68fdd900-4a3e-11d1-84f4-0000f80464e3"), 0, 2)
        .unwrap();
    assert_eq!(header.origin.source, SchemaSource::Mof);
    assert_eq!(header.origin.place, "kerneltraceeventparser.mof:122");
    assert_eq!(header.provider_name.as_deref(), Some("MSNT_SystemTrace"));
    assert_eq!(header.display_name().as_deref(), Some("EventTrace/Header"));
    // `uint8 TimeZoneInformation[176]` with Extension("NoPrint"); `char16 ComputerName[256]`
    // is a wide string of 256 characters.
    let zone = header
        .fields
        .iter()
        .find(|field| &*field.name == "TimeZoneInformation")
        .unwrap();
    assert_eq!(
        (zone.in_type, zone.out_type, zone.count),
        (InType::UINT8, OutType::NO_PRINT, Count::Fixed(176))
    );
    let cpu = mof
        .schema(guid("01853a65-418f-4f36-aefc-dc0f1d2fd235"), 10, 2)
        .unwrap();
    let computer = cpu
        .fields
        .iter()
        .find(|field| &*field.name == "ComputerName")
        .unwrap();
    assert_eq!(
        (computer.in_type, computer.length, computer.count),
        (InType::UNICODE_STRING, Length::Fixed(256), Count::One)
    );
}

/// `Process_TypeGroup1` of the file, an event type of `Process` (`EventVersion(2)`), is the
/// documentation's `Process_V2_TypeGroup1`: `[EventType{1, 2, 3, 4, 39},
/// EventTypeName{"Start", "End", "DCStart", "DCEnd", "Defunct"}]`, and `UniqueProcessKey`
/// (uint32, WmiDataId(1), Pointer), `ProcessId` (uint32, 2, Format("x")), `ParentId` (uint32,
/// 3, Format("x")), `SessionId` (uint32, 4), `ExitStatus` (sint32, 5), `UserSID` (object, 6,
/// Extension("Sid")), `ImageFileName` (string, 7, StringTermination("NullTerminated")),
/// `CommandLine` (string, 8, NullTerminated, Format("w")).
#[test]
fn process_v2_type_group1_is_as_documented() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    assert_eq!(
        types_of(&mof, "Process_TypeGroup1"),
        [
            (1, "Start".to_owned()),
            (2, "End".to_owned()),
            (3, "DCStart".to_owned()),
            (4, "DCEnd".to_owned()),
            (39, "Defunct".to_owned())
        ]
    );
    let start = mof.schema(guid(PROCESS), 1, 2).unwrap();
    assert_eq!(
        described(start),
        [
            (
                "UniqueProcessKey".to_owned(),
                InType::POINTER,
                OutType::NULL
            ),
            ("ProcessId".to_owned(), InType::UINT32, OutType::HEX_INT32),
            ("ParentId".to_owned(), InType::UINT32, OutType::HEX_INT32),
            ("SessionId".to_owned(), InType::UINT32, OutType::NULL),
            ("ExitStatus".to_owned(), InType::INT32, OutType::NULL),
            ("UserSID".to_owned(), InType::WBEM_SID, OutType::NULL),
            (
                "ImageFileName".to_owned(),
                InType::ANSI_STRING,
                OutType::NULL
            ),
            (
                "CommandLine".to_owned(),
                InType::UNICODE_STRING,
                OutType::NULL
            ),
        ]
    );
    assert_eq!(start.provider_name.as_deref(), Some("MSNT_SystemTrace"));
    assert_eq!(start.task_name.as_deref(), Some("Process"));
    assert_eq!(start.display_name().as_deref(), Some("Process/Start"));
    let key = MofKey {
        guid: guid(PROCESS),
        event_type: 39,
        version: Some(2),
    };
    assert_eq!(&*mof.events[&key].event_class, "Process");
    // Version 1 is Process_V1_TypeGroup1, whose first field is PageDirectoryBase.
    let older = mof.schema(guid(PROCESS), 1, 1).unwrap();
    assert_eq!(&*older.fields[0].name, "PageDirectoryBase");
    assert_eq!(older.display_name().as_deref(), Some("Process/Start"));
}

/// `Thread_TypeGroup1` (Thread, `EventVersion(2)`) is the documentation's
/// `Thread_V2_TypeGroup1`: `[EventType{1, 2, 3, 4}, EventTypeName{"Start", "End", "DCStart",
/// "DCEnd"}]`, ProcessId and TThreadId with Format("x"), StackBase, StackLimit,
/// UserStackBase, UserStackLimit, StartAddr, Win32StartAddr and TebBase with Pointer,
/// SubProcessTag with Format("x"), WmiDataId 1 to 10, all uint32.
#[test]
fn thread_v2_type_group1_is_as_documented() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    assert_eq!(
        types_of(&mof, "Thread_TypeGroup1"),
        [
            (1, "Start".to_owned()),
            (2, "End".to_owned()),
            (3, "DCStart".to_owned()),
            (4, "DCEnd".to_owned())
        ]
    );
    let start = mof.schema(guid(THREAD), 1, 2).unwrap();
    let hex = |name: &str| (name.to_owned(), InType::UINT32, OutType::HEX_INT32);
    let pointer = |name: &str| (name.to_owned(), InType::POINTER, OutType::NULL);
    assert_eq!(
        described(start),
        [
            hex("ProcessId"),
            hex("TThreadId"),
            pointer("StackBase"),
            pointer("StackLimit"),
            pointer("UserStackBase"),
            pointer("UserStackLimit"),
            pointer("StartAddr"),
            pointer("Win32StartAddr"),
            pointer("TebBase"),
            hex("SubProcessTag"),
        ]
    );
    assert_eq!(start.display_name().as_deref(), Some("Thread/Start"));
}

/// `Image_Load` as documented: `EventType(10, 2, 3, 4)`, `EventTypeName("Load", "Unload",
/// "DCStart", "DCEnd")`; ImageBase (1, Pointer), ImageSize (2, Pointer), ProcessId (3),
/// ImageCheckSum (4), TimeDateStamp (5), Reserved0 (6), DefaultBase (7, Pointer), Reserved1 to
/// Reserved4 (8 to 11), FileName (12, string, NullTerminated, Format("w")). The file spells
/// `ImageChecksum` and `UnLoad`; names are compared without regard to case.
#[test]
fn image_load_is_as_documented() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    let types: Vec<(u8, String)> = types_of(&mof, "Image_Load")
        .into_iter()
        .map(|(event_type, name)| (event_type, name.to_ascii_lowercase()))
        .collect();
    assert_eq!(
        types,
        [
            (2, "unload".to_owned()),
            (3, "dcstart".to_owned()),
            (4, "dcend".to_owned()),
            (10, "load".to_owned())
        ]
    );
    let load = mof.schema(guid(IMAGE), 10, 2).unwrap();
    let plain = |name: &str| (name.to_ascii_lowercase(), InType::UINT32, OutType::NULL);
    let pointer = |name: &str| (name.to_ascii_lowercase(), InType::POINTER, OutType::NULL);
    let fields: Vec<(String, InType, OutType)> = described(load)
        .into_iter()
        .map(|(name, in_type, out_type)| (name.to_ascii_lowercase(), in_type, out_type))
        .collect();
    assert_eq!(
        fields,
        [
            pointer("ImageBase"),
            pointer("ImageSize"),
            plain("ProcessId"),
            plain("ImageCheckSum"),
            plain("TimeDateStamp"),
            plain("Reserved0"),
            pointer("DefaultBase"),
            plain("Reserved1"),
            plain("Reserved2"),
            plain("Reserved3"),
            plain("Reserved4"),
            ("filename".to_owned(), InType::UNICODE_STRING, OutType::NULL),
        ]
    );
    assert_eq!(load.display_name().as_deref(), Some("Image/Load"));
}

/// `TcpIp_TypeGroup1` as documented: `EventType{11, 13, 14, 16, 18}`,
/// `EventTypeName{"RecvIPV4", "DisconnectIPV4", "RetransmitIPV4", "ReconnectIPV4",
/// "TCPCopyIPV4"}`; PID (uint32, 1), size (uint32, 2), daddr and saddr (object, 3 and 4,
/// Extension("IPAddrV4")), dport and sport (object, 5 and 6, Extension("Port")), seqnum
/// (uint32, 7), connid (uint32, 8, Pointer; the file writes `PointerType`, which the qualifier
/// page says some events use instead).
#[test]
fn tcpip_type_group1_is_as_documented() {
    let Some(mof) = kernel_mof() else {
        return;
    };
    assert_eq!(
        types_of(&mof, "TcpIp_TypeGroup1"),
        [
            (11, "RecvIPV4".to_owned()),
            (13, "DisconnectIPV4".to_owned()),
            (14, "RetransmitIPV4".to_owned()),
            (16, "ReconnectIPV4".to_owned()),
            (18, "TCPCopyIPV4".to_owned())
        ]
    );
    let receive = mof.schema(guid(TCPIP), 11, 2).unwrap();
    assert_eq!(
        described(receive),
        [
            ("PID".to_owned(), InType::UINT32, OutType::NULL),
            ("size".to_owned(), InType::UINT32, OutType::NULL),
            ("daddr".to_owned(), InType::UINT32, OutType::IPV4),
            ("saddr".to_owned(), InType::UINT32, OutType::IPV4),
            ("dport".to_owned(), InType::UINT16, OutType::PORT),
            ("sport".to_owned(), InType::UINT16, OutType::PORT),
            ("seqnum".to_owned(), InType::UINT32, OutType::NULL),
            ("connid".to_owned(), InType::POINTER, OutType::NULL),
        ]
    );
    assert_eq!(receive.display_name().as_deref(), Some("TcpIp/RecvIPV4"));
}

/// The documentation's current `Process_TypeGroup1` page, its qualifiers written out as MOF in
/// the page's own (alphabetical) order of properties: the fields come out in `WmiDataId`
/// order, `DirectoryTableBase` sixth, qualifiers read whatever their case.
#[test]
fn documented_process_type_group1_in_page_order() {
    let text = r#"
[Dynamic, Guid("{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}"), EventVersion(3), DisplayName("Process")]
class Process_V3 : MSNT_SystemTrace {};
[Dynamic, Guid("{9e814aad-3204-11d2-9a82-006008a86939}")]
class MSNT_SystemTrace : EventTrace {};
[EventType{1, 2, 3, 4, 39}, EventTypeName{"Start", "End", "DCStart", "DCEnd", "Defunct"}]
class Process_V3_TypeGroup1 : Process_V3
{
  [WmiDataId(9), StringTermination("NullTerminated"), Format("w"), read] string CommandLine;
  [WmiDataId(6), Pointer, read] uint32 DirectoryTableBase;
  [WmiDataId(5), read] sint32 ExitStatus;
  [WmiDataId(8), StringTermination("NullTerminated"), read] string ImageFileName;
  [WmiDataId(3), Format("x"), read] uint32 ParentId;
  [WmiDataId(2), Format("x"), read] uint32 ProcessId;
  [WmiDataId(4), read] uint32 SessionId;
  [WmiDataId(1), Pointer, read] uint32 UniqueProcessKey;
  [WmiDataId(7), Extension("Sid"), read] object UserSID;
};
"#;
    let mof = parse_mof(text, "process.mof").unwrap();
    let start = mof.schema(guid(PROCESS), 1, 3).unwrap();
    let names: Vec<&str> = start.fields.iter().map(|field| &*field.name).collect();
    assert_eq!(
        names,
        [
            "UniqueProcessKey",
            "ProcessId",
            "ParentId",
            "SessionId",
            "ExitStatus",
            "DirectoryTableBase",
            "UserSID",
            "ImageFileName",
            "CommandLine"
        ]
    );
    assert_eq!(start.fields[5].in_type, InType::POINTER);
    assert_eq!(start.fields[6].in_type, InType::WBEM_SID);
    assert_eq!(start.display_name().as_deref(), Some("Process/Start"));
    assert_eq!(start.origin.place, "process.mof:7");
}

/// The versioning example of "Publishing Your Event Schema for a Classic Provider": two
/// versions of `MyCategory`, `#pragma` lines, `dynamic: ToInstance` flavors, arrays with a
/// size in brackets, `Format("w")`, `Extension("Guid")` and `EventName("MyEvent")`.
#[test]
fn documented_versioning_example() {
    let text = r#"#pragma namespace("\\\\.\\root\\wmi")
#pragma classflags("forceupdate")

[dynamic: ToInstance, Description("Defines my event provider"),
 Guid("{7C214FB1-9CAC-4b8d-BAED-7BF48BF63BB3}")]
class MyProvider : EventTrace
{
};

[dynamic: ToInstance, Description("Defines a category of events that my provider logs."),
 Guid("{B49D5931-AD85-4070-B1B1-3F81F1532875}"),
 EventVersion(1)]
class MyCategory : MyProvider
{
};

[dynamic: ToInstance, Description("Defines an event within the category of events that my provider logs."): Amended,
 EventType(1),
 EventName("MyEvent")]
class MyCategory_MyEvent : MyCategory
{
    [WmiDataId(1), Description("Cost factor"): Amended, read] sint32 Cost;
    [WmiDataId(2), Description("Index values"): Amended, read] uint32 Indices[3];
    [WmiDataId(3), Description("Signature"): Amended, read, StringTermination("NullTerminated"), Format("w")] string Signature;
    [WmiDataId(4), Description("Is complete copy"): Amended, read] boolean IsComplete;
    [WmiDataId(5), Description("Identifier"): Amended, read, Extension("Guid")] object ID;
    [WmiDataId(6), Description("Buffer Size"): Amended, read] uint32 Size;
};

[dynamic: ToInstance, Description("Defines a category of events that my provider logs."): Amended,
 Guid("{B49D5931-AD85-4070-B1B1-3F81F1532875}"),
 EventVersion(0)]
class MyCategory_V0 : MyProvider
{
};

[dynamic: ToInstance, Description("Defines an event within the category of events that my provider logs."): Amended,
 EventType(1)]
class MyCategory_V0_MyEvent : MyCategory_V0
{
    [WmiDataId(1), Description("Cost factor"): Amended, read] sint32 Cost;
    [WmiDataId(2), Description("Index values"): Amended, read] uint32 Indices[3];
    [WmiDataId(3), Description("Signature"): Amended, read, StringTermination("NullTerminated"), Format("w")] string Signature;
    [WmiDataId(4), Description("Is complete copy"): Amended, read] boolean IsComplete;
    [WmiDataId(5), Description("Identifier"): Amended, read, Extension("Guid")] object ID;
};
"#;
    let mof = parse_mof(text, "example.mof").unwrap();
    let category = guid("B49D5931-AD85-4070-B1B1-3F81F1532875");
    assert_eq!(mof.providers.len(), 1);
    assert_eq!(&*mof.providers[0].name, "MyProvider");
    let latest = mof.schema(category, 1, 1).unwrap();
    let fields: Vec<(&str, InType, Count)> = latest
        .fields
        .iter()
        .map(|field| (&*field.name, field.in_type, field.count))
        .collect();
    assert_eq!(
        fields,
        [
            ("Cost", InType::INT32, Count::One),
            ("Indices", InType::UINT32, Count::Fixed(3)),
            ("Signature", InType::UNICODE_STRING, Count::One),
            ("IsComplete", InType::BOOLEAN, Count::One),
            ("ID", InType::GUID, Count::One),
            ("Size", InType::UINT32, Count::One),
        ]
    );
    assert_eq!(latest.event_name.as_deref(), Some("MyEvent"));
    assert_eq!(latest.task_name.as_deref(), Some("MyCategory"));
    assert_eq!(latest.provider_name.as_deref(), Some("MyProvider"));
    let older = mof.schema(category, 1, 0).unwrap();
    assert_eq!(older.fields.len(), 5);
    assert_eq!(
        older.task_name.as_deref(),
        Some("MyCategory"),
        "_V0 left out"
    );
    // No class has version 7 and every class has an EventVersion: nothing to fall back on.
    assert!(mof.schema(category, 1, 7).is_none());
}

/// A class without `EventVersion` is the latest version: [`Mof::schema`] gives it for any
/// version no class claims. Maps: `ValueMap` with `Values` (`ValueType("flag")` makes them
/// bits), `Values` alone (indexes from 0), `BitMap` with `BitValues` (bit positions);
/// `WmiSizeIs` and `MAX` size arrays and wide strings.
#[test]
fn latest_version_maps_and_sizes() {
    let text = r#"
[Guid("{01234567-89ab-cdef-0123-456789abcdef}")]
class Firmware : EventTrace {};
[Guid("{11111111-2222-3333-4444-555555555555}"), EventVersion(0)]
class Boot_V0 : Firmware {};
[EventType(1)] class Boot_V0_Stage : Boot_V0 { [WmiDataId(1)] uint8 Stage; };
[Guid("{11111111-2222-3333-4444-555555555555}")]
class Boot : Firmware {};
[EventType(1), EventTypeName("Stage")]
class Boot_Stage : Boot
{
    [WmiDataId(1), ValueMap{"0x1", "0x2", "4"}, Values{"Rom", "Loader", "Kernel"}] uint32 Stage;
    [WmiDataId(2), ValueType("flag"), ValueMap{"1", "2"}, Values{"Warm", "Safe"}] uint32 Flags;
    [WmiDataId(3), Values{"Off", "On"}] uint8 Power;
    [WmiDataId(4), BitMap{"0", "3"}, BitValues{"A", "D"}] uint16 Lanes;
    [WmiDataId(5)] uint16 NameLength;
    [WmiDataId(6), WmiSizeIs("NameLength")] char16 Name[];
    [WmiDataId(7), WmiSizeIs("namelength")] uint32 Values[];
    [WmiDataId(8), MAX(16)] uint8 Digest[];
    [WmiDataId(9), Format("s")] uint8 Tag[8];
    [WmiDataId(10), StringTermination("Counted")] string Note;
    [WmiDataId(11), Extension("SizeT")] object Size;
    [WmiDataId(12), Extension("WmiTime")] object When;
    [WmiDataId(13), Extension("IPAddrV6")] object Peer;
};
"#;
    let mof = parse_mof(text, "firmware.mof").unwrap();
    let boot = guid("11111111-2222-3333-4444-555555555555");
    assert_eq!(mof.schema(boot, 1, 0).unwrap().fields.len(), 1);
    let latest = mof.schema(boot, 1, 5).unwrap();
    assert_eq!(latest.fields.len(), 13);
    assert_eq!(latest.display_name().as_deref(), Some("Boot/Stage"));
    assert_eq!(latest.provider_name.as_deref(), Some("Firmware"));

    let map = |name: &str| latest.map(name).unwrap();
    let stage = map("Boot_Stage.Stage");
    assert_eq!(stage.kind, MapKind::Value);
    assert_eq!(stage.describe(4).as_deref(), Some("Kernel"));
    assert_eq!(latest.fields[0].map.as_deref(), Some("Boot_Stage.Stage"));
    let flags = map("Boot_Stage.Flags");
    assert_eq!(flags.kind, MapKind::Bits);
    assert_eq!(flags.describe(3).as_deref(), Some("Warm|Safe"));
    assert_eq!(map("Boot_Stage.Power").describe(1).as_deref(), Some("On"));
    let lanes = map("Boot_Stage.Lanes");
    assert_eq!(lanes.kind, MapKind::Bits);
    let entries: Vec<(u64, &str)> = lanes
        .entries
        .iter()
        .map(|(value, name)| (*value, &**name))
        .collect();
    assert_eq!(entries, [(1, "A"), (8, "D")]);

    let shape: Vec<(&str, InType, Count, Length)> = latest
        .fields
        .iter()
        .skip(4)
        .map(|field| (&*field.name, field.in_type, field.count, field.length))
        .collect();
    assert_eq!(
        shape,
        [
            ("NameLength", InType::UINT16, Count::One, Length::Natural),
            (
                "Name",
                InType::UNICODE_STRING,
                Count::One,
                Length::FromField(4)
            ),
            (
                "Values",
                InType::UINT32,
                Count::FromField(4),
                Length::Natural
            ),
            ("Digest", InType::UINT8, Count::Fixed(16), Length::Natural),
            ("Tag", InType::ANSI_STRING, Count::One, Length::Fixed(8)),
            (
                "Note",
                InType::COUNTED_ANSI_STRING,
                Count::One,
                Length::Natural
            ),
            ("Size", InType::SIZET, Count::One, Length::Natural),
            ("When", InType::UINT64, Count::One, Length::Natural),
            ("Peer", InType::BINARY, Count::One, Length::Fixed(16)),
        ]
    );
    assert_eq!(latest.fields[12].out_type, OutType::IPV6);
}

/// The provider class of "Event Tracing MOF Qualifiers" (its `Flags` and `Level` describe how
/// to enable it and have no `WmiDataId`), with its missing comma between two strings, which
/// MOF joins.
#[test]
fn documented_provider_class_with_levels_and_flags() {
    let text = r#"
[Dynamic,
 Description("IIS_Trace") : amended,
 guid("{3a2a4e84-4c21-4981-ae10-3fda0d9b0f83}"),
 locale("MS\\0x409")]
class IIS_Trace : EventTrace
{
    [Description ("Levels") : amended,
        DefineValues{
            "TRACE_LEVEL_FATAL",
            "TRACE_LEVEL_ERROR",
            "TRACE_LEVEL_WARNING"
            "TRACE_LEVEL_INFORMATION",
            "TRACE_LEVEL_VERBOSE" },
        Values{ "Fatal", "Error", "Warning", "Information", "Verbose" },
        ValueMap{ "0x1", "0x2", "0x3", "0x4", "0x5" },
        ValueType("index")
    ]
    uint32 Level;
};
"#;
    let mof = parse_mof(text, "iis.mof").unwrap();
    assert_eq!(mof.providers.len(), 1);
    assert_eq!(
        mof.providers[0].guid,
        Some(guid("3a2a4e84-4c21-4981-ae10-3fda0d9b0f83"))
    );
    assert!(mof.events.is_empty());
}

/// A small MOF text to break line by line: the event type class starts on line 4, its
/// properties are on lines 6 to 8.
fn small_mof() -> String {
    [
        r#"[Guid("{01234567-89ab-cdef-0123-456789abcdef}")] class P : EventTrace {};"#,
        r#"[Guid("{11111111-2222-3333-4444-555555555555}"), EventVersion(1)]"#,
        r#"class E : P {};"#,
        r#"[EventType{1, 2}, EventTypeName{"Start", "Stop"}]"#,
        r#"class E_Group : E {"#,
        r#"    [WmiDataId(1)] uint32 Count;"#,
        r#"    [WmiDataId(2), WmiSizeIs("Count")] uint32 Items[];"#,
        r#"    [WmiDataId(3), StringTermination("NullTerminated"), Format("w")] string Name;"#,
        r#"};"#,
    ]
    .join("\n")
}

#[test]
fn small_mof_parses() {
    let mof = parse_mof(&small_mof(), "small.mof").unwrap();
    let schema = mof
        .schema(guid("11111111-2222-3333-4444-555555555555"), 2, 1)
        .unwrap();
    assert_eq!(schema.display_name().as_deref(), Some("E/Stop"));
    assert_eq!(schema.fields[1].count, Count::FromField(0));
    assert_eq!(schema.origin.place, "small.mof:5");
}

/// A text to replace in the small MOF text, its replacement, the line of the error it makes
/// and what the error must say.
type Fault = (&'static str, &'static str, u32, fn(&MofErrorKind) -> bool);

/// Each fault, put into the small MOF text, is an error at its line naming what is wrong.
#[test]
fn bad_mof_gives_errors_at_the_right_line() {
    let cases: [Fault; 14] = [
        (
            "[WmiDataId(3),",
            "[WmiDataId(4),",
            8,
            |kind| matches!(kind, MofErrorKind::WmiDataIdGap { property, id: 4, expected: 3 } if property == "Name"),
        ),
        (
            "[WmiDataId(2),",
            "[WmiDataId(1),",
            7,
            |kind| matches!(kind, MofErrorKind::DuplicateWmiDataId { property, id: 1, first_line: 6 } if property == "Items"),
        ),
        (
            "uint32 Count;",
            "uint24 Count;",
            6,
            |kind| matches!(kind, MofErrorKind::UnknownType { type_name, .. } if type_name == "uint24"),
        ),
        (
            r#"WmiSizeIs("Count")"#,
            r#"WmiSizeIs("Total")"#,
            7,
            |kind| matches!(kind, MofErrorKind::NoSuchProperty { names, .. } if names == "Total"),
        ),
        (
            "[WmiDataId(1)] uint32 Count;",
            "uint32 Count;",
            6,
            |kind| matches!(kind, MofErrorKind::MissingWmiDataId { property } if property == "Count"),
        ),
        (
            r#"Format("w")] string"#,
            r#"Extension("Blob")] object"#,
            8,
            |kind| matches!(kind, MofErrorKind::UnknownExtension { extension, .. } if extension == "Blob"),
        ),
        (
            r#"Format("w")] string"#,
            r#"Format("w")] object"#,
            8,
            |kind| matches!(kind, MofErrorKind::ObjectWithoutExtension { .. }),
        ),
        (
            r#", WmiSizeIs("Count")] uint32 Items[]"#,
            "] uint32 Items[]",
            7,
            |kind| matches!(kind, MofErrorKind::ArrayWithoutSize { .. }),
        ),
        (
            "class E : P {};",
            "class E : Q {};",
            3,
            |kind| matches!(kind, MofErrorKind::UndefinedParent { parent, .. } if parent == "Q"),
        ),
        (r#""NullTerminated")"#, r#""Terminated")"#, 8, |kind| {
            matches!(kind, MofErrorKind::UnknownStringTermination { .. })
        }),
        ("uint32 Count;", "uint32 Count", 7, |kind| {
            matches!(kind, MofErrorKind::Unexpected { .. })
        }),
        (
            "class E : P {};",
            "class E : P {}; /* not closed",
            3,
            |kind| matches!(kind, MofErrorKind::UnterminatedComment),
        ),
        (
            "EventType{1, 2}",
            "EventType{1, 256}",
            4,
            |kind| matches!(kind, MofErrorKind::BadQualifier { qualifier, .. } if qualifier == "EventType"),
        ),
        (
            r#"EventTypeName{"Start", "Stop"}]"#,
            r#"EventTypeName{"Start", "Stop}]"#,
            4,
            |kind| matches!(kind, MofErrorKind::UnterminatedString),
        ),
    ];
    for (from, to, line, expected) in cases {
        let text = small_mof().replacen(from, to, 1);
        assert_ne!(text, small_mof(), "{from} is in the text");
        let error = parse_mof(&text, "bad.mof").unwrap_err();
        assert_eq!(error.line, line, "{to}: {error}");
        assert!(expected(&error.kind), "{to}: {error}");
        assert!(
            error.to_string().starts_with(&format!("bad.mof:{line}:")),
            "{error}"
        );
    }

    // A second event type class for the same event names the first.
    let text = format!(
        "{}\n[EventType(2)] class E_Again : E {{ [WmiDataId(1)] uint8 X; }};",
        small_mof()
    );
    let error = parse_mof(&text, "twice.mof").unwrap_err();
    assert_eq!(error.line, 10, "{error}");
    assert!(
        matches!(error.kind, MofErrorKind::DuplicateEvent { event_type: 2, version: Some(1), ref first_class, first_line: 5, .. } if first_class == "E_Group"),
        "{error}"
    );

    // A count taken from a property that is not an integer: the core's check, at the
    // property.
    let text = small_mof().replacen("uint32 Count;", "real32 Count;", 1);
    let error = parse_mof(&text, "bad.mof").unwrap_err();
    assert_eq!(error.line, 7, "{error}");
    assert!(matches!(error.kind, MofErrorKind::Schema { ref field, .. } if field == "Items"));

    // No Guid on the event type class or any ancestor.
    let error = parse_mof(
        "class P : EventTrace {};\nclass E : P {};\n[EventType(1)]\nclass E_One : E {};",
        "guid.mof",
    )
    .unwrap_err();
    assert_eq!(error.line, 4, "{error}");
    assert!(matches!(error.kind, MofErrorKind::NoGuid { ref class } if class == "E_One"));

    // A class that is its own ancestor.
    let error = parse_mof(
        "class A : B {};\nclass B : A {};\n[EventType(1)] class C : A {};",
        "loop.mof",
    )
    .unwrap_err();
    assert_eq!(error.line, 3, "{error}");
    assert!(
        matches!(error.kind, MofErrorKind::InheritanceLoop { .. }),
        "{error}"
    );

    // The end of the text where a class goes on.
    let error = parse_mof("class A : EventTrace {\n  uint32", "cut.mof").unwrap_err();
    assert_eq!((error.line, error.column), (2, 9), "{error}");
}
