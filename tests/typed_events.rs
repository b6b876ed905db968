//! Typed events: each MOF type written from a Rust value, read back from the session's sealed
//! buffer, its bytes checked against the layout MOF gives (hand-written from PAYLOADS.md §5
//! and Microsoft's "Event Tracing MOF Qualifiers": properties packed in `WmiDataId` order,
//! little-endian, pointers 4 or 8 bytes by the event's pointer size, strings NUL-terminated or
//! `u16`-byte-counted, `format("w")` UTF-16LE), and decoded with the description's own
//! `FieldSchema`s by `PayloadDecoder` to the values written.

use etw_classic::describe::{
    ClassDescription, Counted, Counted16, DescriptionError, EventTypeDescription, FileTime, Named,
    Pointer, ProviderDescription, TypedError, TypedEvent, Utf16, ValueErrorKind,
};
use etw_classic::payload::{FieldSchema, InType, ItemKind, Length, PayloadDecoder, Value};
use etw_classic::read::EventKind;
use etw_classic::{
    Bitness, EventType, Guid, HeaderType, Level, Provider, Session, SteppingContext, TraceBuffer,
    Traced,
};

const CLASS_GUID: Guid = Guid::from_fields(
    0x6b1d_5a30,
    0x2f1e,
    0x4c07,
    [0x9a, 0x53, 0x1e, 0x0c, 0x6d, 0x88, 0x21, 0x47],
);

etw_classic::event_class! {
    /// One event type per group of MOF types.
    pub const TYPES = (CLASS_GUID, "TypedTest", version 3);
    /// The integers.
    pub struct Ints = (10, "Ints") {
        pub a: i8 => "A",
        pub b: u8 => "B",
        pub c: i16 => "C",
        pub d: u16 => "D",
        pub e: i32 => "E",
        pub f: u32 => "F",
        pub g: i64 => "G",
        pub h: u64 => "H",
    }
    /// Floats and the 4-byte boolean.
    pub struct Floats = (11, "Floats") {
        pub single: f32 => "Single",
        pub double: f64 => "Double",
        pub yes: bool => "Yes",
        pub no: bool => "No",
    }
    /// GUID, pointer, FILETIME.
    pub struct Ids = (12, "Ids") {
        pub guid: Guid => "Id",
        pub address: Pointer => "Address",
        pub time: FileTime => "Time",
    }
    /// The four kinds of string.
    pub struct Strings<'a> = (13, "Strings") {
        pub ansi: &'a str => "Ansi",
        pub wide: Utf16<'a> => "Wide",
        pub counted: Counted<'a> => "CountedAnsi",
        pub counted_wide: Counted16<'a> => "CountedWide",
    }
    /// Fixed-size binary.
    pub struct Bytes = (14, "Bytes") {
        pub mac: [u8; 6] => "Mac",
    }
    /// The event of the cost measurement: u32, u16, pointer, an 8-character string.
    pub struct Four<'a> = (15, "Four") {
        pub stage: u32 => "Stage",
        pub flags: u16 => "Flags",
        pub entry: Pointer => "Entry",
        pub name: &'a str => "Name",
    }
}

const PROVIDER: ProviderDescription = ProviderDescription::new(
    Guid::from_fields(1, 2, 3, [4; 8]),
    "TypedTestProvider",
    &[TYPES],
);
const _: () = assert!(PROVIDER.check().is_ok());

/// Writes `event` through a session of `bitness` and returns the event's header facts and data
/// as the reader finds them in the sealed buffer.
fn write_and_read<E: TypedEvent>(
    event: &E,
    bitness: Bitness,
) -> (HeaderType, Guid, u8, u8, u16, Vec<u8>) {
    let mut session = Session::<1024, 2>::new(1, Level::VERBOSE);
    let provider = Provider::<1>::new(bitness);
    let mut context = SteppingContext {
        now: 100,
        step: 1,
        ..Default::default()
    };
    let traced = event
        .trace(&provider, &mut session, Level::WARNING, &mut context)
        .expect("the event is written");
    assert!(matches!(traced, Traced::Written { .. }));
    assert!(session.flush(200));
    let buffer =
        TraceBuffer::parse(session.oldest_full().expect("a sealed buffer")).expect("it parses");
    let mut events = buffer.events();
    let event = events.next().expect("one event").expect("it reads");
    assert!(events.next().is_none());
    match event.kind() {
        EventKind::Full { header, data } => (
            event.header_type,
            header.guid.guid(),
            header.class.event_type.0,
            header.class.level.0,
            header.class.version,
            data.to_vec(),
        ),
        other => panic!("a full header expected, found {other:?}"),
    }
}

/// The values `PayloadDecoder` reads from `data` with `fields`, each with its name; the whole
/// data consumed.
fn decode<'d>(
    fields: &'static [FieldSchema<&'static str>],
    data: &'d [u8],
    bitness: Bitness,
) -> Vec<(&'static str, Value<'d>)> {
    let mut decoder = PayloadDecoder::new(fields, data, bitness);
    let mut values = Vec::new();
    for item in decoder.by_ref() {
        let item = item.expect("every field decodes");
        match item.kind {
            ItemKind::Value(value) => values.push((item.field.name, value)),
            other => panic!("a value expected, found {other:?}"),
        }
    }
    assert!(
        decoder.rest().is_empty(),
        "the data ends with its last field"
    );
    values
}

fn utf16(value: &Value<'_>) -> String {
    match value {
        Value::Utf16(text) => text.chars().collect(),
        other => panic!("UTF-16 text expected, found {other:?}"),
    }
}

#[test]
fn integers_are_little_endian_and_packed() {
    let event = Ints {
        a: -2,
        b: 0xfe,
        c: -300,
        d: 0xbeef,
        e: -70000,
        f: 0xdead_beef,
        g: -5_000_000_000,
        h: 0x0102_0304_0506_0708,
    };
    let (header_type, guid, event_type, level, version, data) =
        write_and_read(&event, Bitness::Bits32);
    assert_eq!(
        (header_type, guid, event_type, level, version),
        (HeaderType::FULL_HEADER32, CLASS_GUID, 10, 3, 3)
    );
    let mut expected = vec![
        0xfe, 0xfe, 0xd4, 0xfe, 0xef, 0xbe, 0x90, 0xee, 0xfe, 0xff, 0xef, 0xbe, 0xad, 0xde,
    ];
    // -5 000 000 000 = 0xFFFF_FFFE_D5FA_0E00.
    expected.extend([0x00, 0x0e, 0xfa, 0xd5, 0xfe, 0xff, 0xff, 0xff]);
    expected.extend([0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]);
    assert_eq!(data, expected);
    let values = decode(Ints::EVENT_TYPE.fields(), &data, Bitness::Bits32);
    assert_eq!(
        values,
        [
            ("A", Value::I8(-2)),
            ("B", Value::U8(0xfe)),
            ("C", Value::I16(-300)),
            ("D", Value::U16(0xbeef)),
            ("E", Value::I32(-70000)),
            ("F", Value::U32(0xdead_beef)),
            ("G", Value::I64(-5_000_000_000)),
            ("H", Value::U64(0x0102_0304_0506_0708)),
        ]
    );
}

#[test]
fn floats_and_the_four_byte_boolean() {
    let event = Floats {
        single: 1.5,
        double: -2.25,
        yes: true,
        no: false,
    };
    let (.., data) = write_and_read(&event, Bitness::Bits64);
    // 1.5f32 = 0x3FC00000, -2.25f64 = 0xC002000000000000.
    let expected = [
        0x00, 0x00, 0xc0, 0x3f, 0, 0, 0, 0, 0, 0, 0x02, 0xc0, 1, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(data, expected);
    let values = decode(Floats::EVENT_TYPE.fields(), &data, Bitness::Bits64);
    assert_eq!(
        values,
        [
            ("Single", Value::F32(1.5)),
            ("Double", Value::F64(-2.25)),
            ("Yes", Value::Bool(1)),
            ("No", Value::Bool(0))
        ]
    );
}

#[test]
fn guid_pointer_and_filetime_by_pointer_size() {
    let id = Guid::from_fields(
        0x0011_2233,
        0x4455,
        0x6677,
        [0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff],
    );
    let guid_bytes = [
        0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
        0xff,
    ];
    let time = [0x00, 0x80, 0x3e, 0xd5, 0xde, 0xb1, 0x9d, 0x01]; // 0x019DB1DED53E8000
    let event = Ids {
        guid: id,
        address: Pointer(0x0800_1234),
        time: FileTime(0x019D_B1DE_D53E_8000),
    };

    let (header_type, .., data) = write_and_read(&event, Bitness::Bits32);
    assert_eq!(header_type, HeaderType::FULL_HEADER32);
    let mut expected = guid_bytes.to_vec();
    expected.extend([0x34, 0x12, 0x00, 0x08]);
    expected.extend(time);
    assert_eq!(data, expected);
    let values = decode(Ids::EVENT_TYPE.fields(), &data, Bitness::Bits32);
    assert_eq!(
        values,
        [
            ("Id", Value::Guid(id)),
            ("Address", Value::Pointer(0x0800_1234)),
            ("Time", Value::FileTime(0x019D_B1DE_D53E_8000))
        ]
    );

    let (header_type, .., data) = write_and_read(&event, Bitness::Bits64);
    assert_eq!(header_type, HeaderType::FULL_HEADER64);
    let mut expected = guid_bytes.to_vec();
    expected.extend([0x34, 0x12, 0x00, 0x08, 0, 0, 0, 0]);
    expected.extend(time);
    assert_eq!(data, expected);
    let values = decode(Ids::EVENT_TYPE.fields(), &data, Bitness::Bits64);
    assert_eq!(values[1], ("Address", Value::Pointer(0x0800_1234)));
}

#[test]
fn strings_nul_terminated_and_counted() {
    let event = Strings {
        ansi: "boot",
        wide: Utf16("é€"),
        counted: Counted("ab"),
        counted_wide: Counted16("hi"),
    };
    let (.., data) = write_and_read(&event, Bitness::Bits32);
    let expected = [
        b'b', b'o', b'o', b't', 0, // NUL-terminated 8-bit
        0xe9, 0x00, 0xac, 0x20, 0, 0, // NUL-terminated UTF-16LE: U+00E9, U+20AC, NUL
        2, 0, b'a', b'b', // u16 byte count, bytes
        4, 0, b'h', 0, b'i', 0, // u16 byte count, UTF-16LE
    ];
    assert_eq!(data, expected);
    let values = decode(Strings::EVENT_TYPE.fields(), &data, Bitness::Bits32);
    assert_eq!(values[0], ("Ansi", Value::Ansi(b"boot")));
    assert_eq!((values[1].0, utf16(&values[1].1).as_str()), ("Wide", "é€"));
    assert_eq!(values[2], ("CountedAnsi", Value::Ansi(b"ab")));
    assert_eq!(
        (values[3].0, utf16(&values[3].1).as_str()),
        ("CountedWide", "hi")
    );
}

#[test]
fn fixed_binary() {
    let event = Bytes {
        mac: [0x00, 0x1b, 0x63, 0x84, 0x45, 0xe6],
    };
    let (.., data) = write_and_read(&event, Bitness::Bits32);
    assert_eq!(data, [0x00, 0x1b, 0x63, 0x84, 0x45, 0xe6]);
    assert_eq!(Bytes::EVENT_TYPE.fields()[0].length, Length::Fixed(6));
    let values = decode(Bytes::EVENT_TYPE.fields(), &data, Bitness::Bits32);
    assert_eq!(
        values,
        [("Mac", Value::Binary(&[0x00, 0x1b, 0x63, 0x84, 0x45, 0xe6]))]
    );
}

#[test]
fn the_four_field_event_of_the_cost_measurement() {
    let event = Four {
        stage: 7,
        flags: 0x0102,
        entry: Pointer(0x2000_0400),
        name: "firmware",
    };
    let (.., data) = write_and_read(&event, Bitness::Bits32);
    let mut expected = vec![7, 0, 0, 0, 0x02, 0x01, 0x00, 0x04, 0x00, 0x20];
    expected.extend(b"firmware\0");
    assert_eq!(data, expected);
    // The description is the decoder's schema, found by the header's GUID, type and version.
    let fields = PROVIDER
        .schema(&CLASS_GUID, EventType(15), 3)
        .expect("described");
    assert_eq!(
        fields
            .iter()
            .map(|field| (field.name, field.in_type))
            .collect::<Vec<_>>(),
        [
            ("Stage", InType::UINT32),
            ("Flags", InType::UINT16),
            ("Entry", InType::POINTER),
            ("Name", InType::ANSI_STRING)
        ]
    );
    assert!(PROVIDER.schema(&CLASS_GUID, EventType(15), 2).is_none());
    let values = decode(fields, &data, Bitness::Bits32);
    assert_eq!(
        values,
        [
            ("Stage", Value::U32(7)),
            ("Flags", Value::U16(0x0102)),
            ("Entry", Value::Pointer(0x2000_0400)),
            ("Name", Value::Ansi(b"firmware"))
        ]
    );
}

/// A typed write into a session.
type Write<'p> =
    dyn Fn(&mut Session<1024, 2>, &mut SteppingContext) -> Result<Traced, TypedError> + 'p;

#[test]
fn values_that_cannot_be_written_are_errors_and_write_nothing() {
    let mut session = Session::<1024, 2>::new(1, Level::VERBOSE);
    let mut context = SteppingContext::default();
    let narrow = Provider::<1>::new(Bitness::Bits32);
    let cases: [(&Write<'_>, TypedError); 3] = [
        (
            &|session, context| {
                Four {
                    stage: 1,
                    flags: 0,
                    entry: Pointer(0x1_0000_0000),
                    name: "x",
                }
                .trace(&narrow, session, Level::ERROR, context)
            },
            TypedError::value(
                "Four",
                "Entry",
                ValueErrorKind::PointerTooWide {
                    value: 0x1_0000_0000,
                },
            ),
        ),
        (
            &|session, context| {
                Four {
                    stage: 1,
                    flags: 0,
                    entry: Pointer(0),
                    name: "a\0b",
                }
                .trace(&narrow, session, Level::ERROR, context)
            },
            TypedError::value("Four", "Name", ValueErrorKind::InteriorNul { at: 1 }),
        ),
        (
            &|session, context| {
                let long = "x".repeat(70_000);
                Strings {
                    ansi: "",
                    wide: Utf16(""),
                    counted: Counted(&long),
                    counted_wide: Counted16(""),
                }
                .trace(&narrow, session, Level::ERROR, context)
            },
            TypedError::value(
                "Strings",
                "CountedAnsi",
                ValueErrorKind::TooLong { len: 70_000 },
            ),
        ),
    ];
    for (write, expected) in cases {
        assert_eq!(write(&mut session, &mut context), Err(expected));
    }
    assert_eq!(session.stats().events_written, 0);
    assert_eq!(
        TypedError::value("Four", "Name", ValueErrorKind::InteriorNul { at: 1 }).to_string(),
        "event type Four, field Name: a NUL-terminated string holds a NUL at character 1: a reader would end it there"
    );
    // A filtered-out event is not looked at: its bad value is no error.
    let mut quiet = Session::<1024, 2>::new(1, Level::ERROR);
    let bad = Four {
        stage: 1,
        flags: 0,
        entry: Pointer(0x1_0000_0000),
        name: "x",
    };
    assert_eq!(
        bad.trace(&narrow, &mut quiet, Level::VERBOSE, &mut context),
        Ok(Traced::FilteredOut)
    );
    // Too large for the session's buffers: the session's error.
    let long = "y".repeat(2000);
    let big = Four {
        stage: 1,
        flags: 0,
        entry: Pointer(0),
        name: &long,
    };
    assert!(matches!(
        big.trace(&narrow, &mut session, Level::ERROR, &mut context),
        Err(TypedError::Trace(_))
    ));
}

const fn u32_field(name: &'static str) -> FieldSchema<&'static str> {
    FieldSchema::new(name, InType::UINT32)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "makes its descriptions 'static with Box::leak, which Miri reports; no byte order in a check"
)]
fn description_mistakes_are_found() {
    const GOOD_FIELDS: &[FieldSchema<&str>] = &[u32_field("A"), u32_field("B")];
    const DUP_FIELDS: &[FieldSchema<&str>] = &[u32_field("A"), u32_field("A")];
    const BAD_NAME: &[FieldSchema<&str>] = &[u32_field("1st")];
    const ARRAY: &[FieldSchema<&str>] =
        &[FieldSchema::new("A", InType::UINT32).with_count(etw_classic::payload::Count::Fixed(2))];
    const SID: &[FieldSchema<&str>] = &[FieldSchema::new("A", InType::SID)];
    const OPEN_BINARY: &[FieldSchema<&str>] = &[FieldSchema::new("A", InType::BINARY)];
    const fn class(types: &'static [EventTypeDescription]) -> ClassDescription {
        ClassDescription::new(CLASS_GUID, "C", 0, types)
    }
    let t = |n: u8, name: &'static str, fields: &'static [FieldSchema<&'static str>]| {
        EventTypeDescription::new(EventType(n), name, fields)
    };
    let leak = |types: Vec<EventTypeDescription>| -> &'static [EventTypeDescription] {
        Box::leak(types.into_boxed_slice())
    };
    let check = |types: Vec<EventTypeDescription>| class(leak(types)).check();

    assert_eq!(
        check(vec![t(1, "Start", GOOD_FIELDS), t(2, "End", GOOD_FIELDS)]),
        Ok(())
    );
    assert_eq!(
        check(vec![t(1, "Start", DUP_FIELDS)]),
        Err(DescriptionError::DuplicateField {
            event_type: "Start",
            field: "A"
        })
    );
    assert_eq!(
        check(vec![t(1, "Start", GOOD_FIELDS), t(1, "End", GOOD_FIELDS)]),
        Err(DescriptionError::DuplicateEventType {
            class: "C",
            event_type: EventType(1)
        })
    );
    assert_eq!(
        check(vec![t(1, "Start", GOOD_FIELDS), t(2, "Start", GOOD_FIELDS)]),
        Err(DescriptionError::DuplicateEventTypeName {
            class: "C",
            name: "Start"
        })
    );
    assert_eq!(
        check(vec![t(1, "Start", BAD_NAME)]),
        Err(DescriptionError::BadName {
            what: Named::Field,
            name: "1st"
        })
    );
    assert_eq!(
        check(vec![t(1, "Sta rt", GOOD_FIELDS)]),
        Err(DescriptionError::BadName {
            what: Named::EventType,
            name: "Sta rt"
        })
    );
    for fields in [ARRAY, SID, OPEN_BINARY] {
        assert!(matches!(
            check(vec![t(1, "Start", fields)]),
            Err(DescriptionError::UnsupportedField { field: "A", .. })
        ));
    }
    assert_eq!(
        ClassDescription::new(CLASS_GUID, "", 0, &[]).check(),
        Err(DescriptionError::BadName {
            what: Named::Class,
            name: ""
        })
    );

    // The provider: its name, its classes' GUIDs and names, and the TRACE_EVENT_INFO length.
    let provider = |name: &'static str, classes: Vec<ClassDescription>| {
        ProviderDescription::new(CLASS_GUID, name, Box::leak(classes.into_boxed_slice())).check()
    };
    let a = ClassDescription::new(CLASS_GUID, "A", 0, &[]);
    let b_same_guid = ClassDescription::new(CLASS_GUID, "B", 0, &[]);
    let a_other_guid = ClassDescription::new(Guid::NIL, "A", 0, &[]);
    assert_eq!(
        provider("P", vec![a, b_same_guid]),
        Err(DescriptionError::DuplicateClassGuid {
            class: "B",
            guid: CLASS_GUID
        })
    );
    assert_eq!(
        provider("P", vec![a, a_other_guid]),
        Err(DescriptionError::DuplicateClassName { name: "A" })
    );
    // EVENT_DESCRIPTOR.Version, which readers compare, is one byte.
    let wide = ClassDescription::new(CLASS_GUID, "Wide", 256, &[]);
    assert_eq!(
        wide.check(),
        Err(DescriptionError::VersionTooLarge {
            class: "Wide",
            version: 256
        })
    );
    assert_eq!(provider("P", vec![wide]), wide.check());
    assert_eq!(
        ClassDescription::new(CLASS_GUID, "Top", 255, &[]).check(),
        Ok(())
    );
    assert_eq!(
        provider("My-Provider", vec![a]),
        Err(DescriptionError::BadName {
            what: Named::Provider,
            name: "My-Provider"
        })
    );
    // 112 + 24 + UTF-16 names: "P" 4, "A" 4, "Start" 12, "A" 4 = 160.
    let small = ClassDescription::new(
        CLASS_GUID,
        "A",
        0,
        leak(vec![t(1, "Start", &GOOD_FIELDS[..1])]),
    );
    assert_eq!(small.event_info_len("P", &small.event_types()[0]), 160);
    let long_name: &'static str = Box::leak("N".repeat(40_000).into_boxed_str());
    let long = ClassDescription::new(
        CLASS_GUID,
        long_name,
        0,
        leak(vec![t(1, "Start", GOOD_FIELDS)]),
    );
    assert_eq!(long.check(), Ok(()));
    assert_eq!(
        provider("P", vec![long]),
        Err(DescriptionError::TooLong {
            event_type: "Start",
            len: 112 + 48 + 4 + 80_002 + 12 + 4 + 4
        })
    );
}

mod event_info {
    //! The `TRACE_EVENT_INFO` built at compile time from the description, read back by the
    //! crate's own `EventInfo` reader (the one that reads the `MetaData/EventInfo` events
    //! Windows wrote into net.4.5.2.x64) to the same names and fields.

    use super::*;
    use etw_classic::describe::event_info_bytes;
    use etw_classic::payload::{Count, DecodingSource, EventInfo, Utf16Name};

    const FOUR_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Four::EVENT_TYPE);
    const FOUR: [u8; FOUR_LEN] =
        match event_info_bytes::<FOUR_LEN>(&PROVIDER, &TYPES, &Four::EVENT_TYPE) {
            Some(bytes) => bytes,
            None => panic!("no TRACE_EVENT_INFO"),
        };
    const INTS_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Ints::EVENT_TYPE);
    const INTS: Option<[u8; INTS_LEN]> = event_info_bytes(&PROVIDER, &TYPES, &Ints::EVENT_TYPE);
    const FLOATS_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Floats::EVENT_TYPE);
    const FLOATS: Option<[u8; FLOATS_LEN]> =
        event_info_bytes(&PROVIDER, &TYPES, &Floats::EVENT_TYPE);
    const IDS_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Ids::EVENT_TYPE);
    const IDS: Option<[u8; IDS_LEN]> = event_info_bytes(&PROVIDER, &TYPES, &Ids::EVENT_TYPE);
    const STRINGS_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Strings::EVENT_TYPE);
    const STRINGS: Option<[u8; STRINGS_LEN]> =
        event_info_bytes(&PROVIDER, &TYPES, &Strings::EVENT_TYPE);
    const BYTES_LEN: usize = TYPES.event_info_len(PROVIDER.name(), &Bytes::EVENT_TYPE);
    const BYTES: Option<[u8; BYTES_LEN]> = event_info_bytes(&PROVIDER, &TYPES, &Bytes::EVENT_TYPE);

    fn text(name: Option<Utf16Name<'_>>) -> Option<String> {
        name.map(|name| name.chars().collect())
    }

    /// The reader's view of `bytes` matches `event_type` of `TYPES`.
    fn read_back(bytes: &[u8], event_type: &EventTypeDescription) {
        let info = EventInfo::parse(bytes).expect("the reader parses it");
        assert_eq!(info.provider_guid, PROVIDER.guid());
        assert_eq!(info.event_guid, CLASS_GUID);
        assert_eq!(info.decoding_source, DecodingSource(1));
        assert!(info.is_classic());
        assert_eq!(
            (
                info.descriptor.id,
                info.descriptor.version,
                info.descriptor.opcode,
                info.descriptor.task
            ),
            (0, 3, event_type.event_type().0, 0)
        );
        assert_eq!(
            text(info.provider_name).as_deref(),
            Some("TypedTestProvider")
        );
        assert_eq!(text(info.task_name).as_deref(), Some("TypedTest"));
        assert_eq!(text(info.opcode_name).as_deref(), Some(event_type.name()));
        assert_eq!(
            (info.level_name, info.channel_name, info.event_message),
            (None, None, None)
        );
        let mut out = [FieldSchema::new(Utf16Name::EMPTY, InType::NULL); 16];
        let fields = info.collect_fields(&mut out).expect("the fields read back");
        assert_eq!(fields.len(), event_type.fields().len());
        for (read, described) in fields.iter().zip(event_type.fields()) {
            assert_eq!(read.name.chars().collect::<String>(), described.name);
            assert_eq!(
                (read.in_type, read.out_type, read.count, read.length),
                (
                    described.in_type,
                    described.out_type,
                    described.count,
                    described.length
                ),
                "field {}",
                described.name
            );
            assert_eq!(read.count, Count::One);
        }
    }

    #[test]
    fn every_event_type_reads_back_to_its_description() {
        read_back(&FOUR, &Four::EVENT_TYPE);
        read_back(&INTS.expect("built"), &Ints::EVENT_TYPE);
        read_back(&FLOATS.expect("built"), &Floats::EVENT_TYPE);
        read_back(&IDS.expect("built"), &Ids::EVENT_TYPE);
        read_back(&STRINGS.expect("built"), &Strings::EVENT_TYPE);
        read_back(&BYTES.expect("built"), &Bytes::EVENT_TYPE);
    }

    #[test]
    fn the_layout_of_tdh_h() {
        // 112 fixed bytes, 4 × 24 of EVENT_PROPERTY_INFO, then the names in UTF-16LE:
        // "TypedTestProvider" 36, "TypedTest" 20, "Four" 10, "Stage" 12, "Flags" 12,
        // "Entry" 12, "Name" 10.
        assert_eq!(FOUR.len(), 112 + 96 + 36 + 20 + 10 + 12 + 12 + 12 + 10);
        let u32_at = |at: usize| u32::from_le_bytes(FOUR[at..at + 4].try_into().unwrap());
        let u16_at = |at: usize| u16::from_le_bytes(FOUR[at..at + 2].try_into().unwrap());
        assert_eq!(
            FOUR[0..16],
            Guid::from_fields(1, 2, 3, [4; 8]).to_bytes_le()
        );
        assert_eq!(FOUR[16..20], [0x30, 0x5a, 0x1d, 0x6b]); // Data1 of the class GUID
        assert_eq!(
            FOUR[32..48],
            [0, 0, 3, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(u32_at(48), 1); // DecodingSource: WMI MOF
        assert_eq!((u32_at(52), u32_at(68), u32_at(72)), (208, 244, 264)); // names after 112 + 96
        assert_eq!(
            (u32_at(56), u32_at(60), u32_at(64), u32_at(76), u32_at(92)),
            (0, 0, 0, 0, 0)
        );
        assert_eq!((u32_at(100), u32_at(104), u32_at(108)), (4, 4, 0));
        assert_eq!(FOUR[208..212], [b'T', 0, b'y', 0]);
        // Property 2, `Entry`: flags 0, its name at 298, POINTER (16), no out-type, count 1,
        // length 0 (the event's pointer size gives it).
        let entry = 112 + 2 * 24;
        assert_eq!(
            (
                u32_at(entry),
                u32_at(entry + 4),
                u16_at(entry + 8),
                u16_at(entry + 10)
            ),
            (0, 298, 16, 0)
        );
        assert_eq!((u16_at(entry + 16), u16_at(entry + 18)), (1, 0));
        // Property 0, `Stage`: UINT32, length 4.
        assert_eq!((u16_at(112 + 8), u16_at(112 + 18)), (8, 4));
        // `Bytes`' one property: BINARY with PropertyParamFixedLength and length 6.
        let bytes = BYTES.expect("built");
        assert_eq!(
            u32::from_le_bytes(bytes[112..116].try_into().unwrap()),
            0x10
        );
        assert_eq!(u16::from_le_bytes(bytes[130..132].try_into().unwrap()), 6);
    }

    #[test]
    fn a_wrong_length_or_version_builds_nothing() {
        assert!(event_info_bytes::<10>(&PROVIDER, &TYPES, &Four::EVENT_TYPE).is_none());
        assert!(
            event_info_bytes::<{ FOUR_LEN + 2 }>(&PROVIDER, &TYPES, &Four::EVENT_TYPE).is_none()
        );
        // EVENT_DESCRIPTOR's Version is one byte; Class.Version two.
        const WIDE: ClassDescription = ClassDescription::new(CLASS_GUID, "Wide", 256, &[]);
        assert!(
            event_info_bytes::<{ WIDE.event_info_len("TypedTestProvider", &Four::EVENT_TYPE) }>(
                &PROVIDER,
                &WIDE,
                &Four::EVENT_TYPE
            )
            .is_none()
        );
    }

    #[test]
    fn the_run_time_writer_lays_out_the_same_bytes_and_says_why_it_writes_nothing() {
        use etw_classic::describe::{EventInfoParts, EventInfoWriteError};
        let parts = EventInfoParts::of(&PROVIDER, &TYPES, &Four::EVENT_TYPE);
        assert_eq!(parts.byte_len(), FOUR_LEN);
        // Into a buffer of other bytes, longer than the structure: the same bytes as the
        // constant, the rest untouched.
        let mut out = vec![0xEE; FOUR_LEN + 3];
        assert_eq!(parts.write(&mut out), Ok(FOUR_LEN));
        assert_eq!(&out[..FOUR_LEN], &FOUR[..]);
        assert_eq!(&out[FOUR_LEN..], &[0xEE; 3]);

        let mut short = vec![0; FOUR_LEN - 1];
        assert_eq!(
            parts.write(&mut short),
            Err(EventInfoWriteError::TooShort {
                needed: FOUR_LEN,
                found: FOUR_LEN - 1
            })
        );
        assert_eq!(short, vec![0; FOUR_LEN - 1]);
        let version = EventInfoParts {
            version: 256,
            ..parts
        };
        assert_eq!(
            version.write(&mut out),
            Err(EventInfoWriteError::Version(256))
        );
        let accented = EventInfoParts {
            class_name: "Étape",
            ..parts
        };
        let mut long = vec![0; accented.byte_len()];
        assert_eq!(
            accented.write(&mut long),
            Err(EventInfoWriteError::NotAscii(1))
        );
        let array = [
            FieldSchema::new("Ok", InType::UINT32),
            FieldSchema::new("Many", InType::UINT32).with_count(Count::Fixed(2)),
        ];
        let arrays = EventInfoParts {
            fields: &array,
            ..parts
        };
        let mut long = vec![0; arrays.byte_len()];
        assert_eq!(
            arrays.write(&mut long),
            Err(EventInfoWriteError::UnsupportedField(1))
        );
    }

    #[test]
    fn the_session_writes_each_description_as_a_metadata_event_info_event() {
        use etw_classic::describe::trace_event_infos;
        use etw_classic::payload::{EVENT_INFO_TYPE, METADATA_GUID};
        const DESCRIPTIONS: [&[u8]; 2] = [
            etw_classic::event_info!(PROVIDER, Four<'static>),
            etw_classic::event_info!(PROVIDER, Bytes),
        ];
        assert_eq!(DESCRIPTIONS[0], &FOUR[..]);
        assert_eq!(DESCRIPTIONS[1], &BYTES.unwrap()[..]);
        for bitness in [Bitness::Bits32, Bitness::Bits64] {
            let mut session = Session::<2048, 2>::new(1, Level::CRITICAL);
            let provider = Provider::<1>::new(bitness);
            let mut context = SteppingContext::default();
            let written =
                trace_event_infos(&provider, &mut session, &DESCRIPTIONS, &mut context).unwrap();
            assert_eq!(written, 2);
            assert!(session.flush(0));
            let buffer = session.oldest_full().unwrap();
            let buffer = TraceBuffer::parse(buffer).unwrap();
            let mut seen = Vec::new();
            for event in buffer.classic_events(bitness) {
                let event = event.unwrap();
                let header = event.event_trace.header();
                assert_eq!(header.header_type, HeaderType::full_header(bitness));
                assert_eq!(header.guid.guid(), METADATA_GUID);
                // What net.4.5.2.x64's MetaData/EventInfo events carry (buffer 18, offset
                // 51000): type 32, level 0, version 0.
                assert_eq!(
                    (
                        header.class.event_type.0,
                        header.class.level.0,
                        header.class.version
                    ),
                    (EVENT_INFO_TYPE, 0, 0)
                );
                seen.push(event.data.to_vec());
            }
            assert_eq!(seen, [DESCRIPTIONS[0].to_vec(), DESCRIPTIONS[1].to_vec()]);
        }
        // A session that is off takes none.
        let mut off = Session::<2048, 2>::new(1, Level::NONE);
        let provider = Provider::<1>::new(Bitness::Bits32);
        let written = trace_event_infos(
            &provider,
            &mut off,
            &DESCRIPTIONS,
            &mut SteppingContext::default(),
        );
        assert_eq!(written, Ok(0));
    }
}

mod mof {
    //! The `.mof` written from a description, against the text Microsoft's "Publishing Your
    //! Event Schema for a Classic Provider" and "Event Tracing MOF Qualifiers" give for the
    //! same declarations, written out by hand.

    use super::*;
    use etw_classic::describe::mof::{write_event_type_class, MofWriteError};
    use etw_classic::describe::write_mof;

    etw_classic::event_class! {
        pub const SMALL = (Guid::from_fields(0x11, 0x22, 0x33, [0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb]), "Small", version 2);
        pub struct SmallStart<'a> = (1, "Start") {
            pub stage: u32 => "Stage",
            pub entry: Pointer => "Entry",
            pub name: &'a str => "Name",
            pub wide: Utf16<'a> => "Wide",
        }
        pub struct SmallMixed<'a> = (7, "Mixed") {
            pub id: Guid => "Id",
            pub at: FileTime => "At",
            pub ok: bool => "Ok",
            pub ratio: f64 => "Ratio",
            pub counted: Counted<'a> => "Counted",
            pub counted_wide: Counted16<'a> => "CountedWide",
            pub mac: [u8; 6] => "Mac",
            pub delta: i16 => "Delta",
        }
    }
    const SMALL_PROVIDER: ProviderDescription = ProviderDescription::new(
        Guid::from_fields(0x0102_0304, 0x0506, 0x0708, [9, 10, 11, 12, 13, 14, 15, 16]),
        "SmallProvider",
        &[SMALL],
    );

    const EXPECTED: &str = r#"#pragma namespace("\\\\.\\root\\wmi")

[dynamic: ToInstance, DisplayName("SmallProvider"), Guid("{01020304-0506-0708-090a-0b0c0d0e0f10}")]
class SmallProvider : EventTrace
{
};

[dynamic: ToInstance, DisplayName("Small"), Guid("{00000011-0022-0033-4455-66778899aabb}"), EventVersion(2)]
class Small : SmallProvider
{
};

[dynamic: ToInstance, EventType(1), EventTypeName("Start")]
class Small_Start : Small
{
    [WmiDataId(1), read] uint32 Stage;
    [WmiDataId(2), read, pointer] uint32 Entry;
    [WmiDataId(3), read, StringTermination("NullTerminated")] string Name;
    [WmiDataId(4), read, StringTermination("NullTerminated"), format("w")] string Wide;
};

[dynamic: ToInstance, EventType(7), EventTypeName("Mixed")]
class Small_Mixed : Small
{
    [WmiDataId(1), read, extension("Guid")] object Id;
    [WmiDataId(2), read] datetime At;
    [WmiDataId(3), read] boolean Ok;
    [WmiDataId(4), read] real64 Ratio;
    [WmiDataId(5), read, StringTermination("Counted")] string Counted;
    [WmiDataId(6), read, StringTermination("Counted"), format("w")] string CountedWide;
    [WmiDataId(7), read] uint8 Mac[6];
    [WmiDataId(8), read] sint16 Delta;
};
"#;

    #[test]
    fn the_mof_of_a_description() {
        let mut text = String::new();
        write_mof(&SMALL_PROVIDER, &mut text).unwrap();
        assert_eq!(text, EXPECTED);
    }

    #[test]
    fn a_field_a_mof_cannot_declare_writes_nothing() {
        let fields = [
            FieldSchema::new("Ok", InType::UINT32),
            FieldSchema::new("Sid", InType::WBEM_SID),
        ];
        let mut text = String::new();
        assert_eq!(
            write_event_type_class(&mut text, "Small", EventType(3), "Bad", &fields),
            Err(MofWriteError::UnsupportedField(1))
        );
        assert_eq!(text, "");
    }
}
