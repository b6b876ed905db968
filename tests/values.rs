//! The value types: codes, the Class roll-up, GUID text, union views and the bitness-chosen structs.

use etw_classic::{
    wire::{GuidTextExpectation, HeaderFamily, MAX_MOF_FIELDS},
    Bitness, BufferContext, Class, CodecError, EventInstanceGuidHeader, EventInstanceInfo,
    EventTrace, EventType, Guid, GuidOrPtr, GuidParseError, HeaderType, Layout, Level, MarkerFlags,
    TimesOrFlags, WnodeFlags,
};

#[test]
fn header_types_imply_bitness_length_and_family() {
    let table = [
        (
            HeaderType::SYSTEM32,
            0x01,
            Some(Bitness::Bits32),
            Some(0x20),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::SYSTEM64,
            0x02,
            Some(Bitness::Bits64),
            Some(0x20),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::COMPACT32,
            0x03,
            Some(Bitness::Bits32),
            Some(0x18),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::COMPACT64,
            0x04,
            Some(Bitness::Bits64),
            Some(0x18),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::FULL_HEADER32,
            0x0A,
            Some(Bitness::Bits32),
            Some(0x30),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::INSTANCE32,
            0x0B,
            Some(Bitness::Bits32),
            Some(0x48),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::TIMED,
            0x0C,
            None,
            None,
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::ERROR,
            0x0D,
            None,
            None,
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::WNODE_HEADER,
            0x0E,
            None,
            None,
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::MESSAGE,
            0x0F,
            None,
            Some(0x08),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::PERFINFO32,
            0x10,
            Some(Bitness::Bits32),
            Some(0x10),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::PERFINFO64,
            0x11,
            Some(Bitness::Bits64),
            Some(0x10),
            Some(HeaderFamily::VersionFirst),
        ),
        (
            HeaderType::EVENT_HEADER32,
            0x12,
            Some(Bitness::Bits32),
            Some(0x50),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::EVENT_HEADER64,
            0x13,
            Some(Bitness::Bits64),
            Some(0x50),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::FULL_HEADER64,
            0x14,
            Some(Bitness::Bits64),
            Some(0x30),
            Some(HeaderFamily::SizeFirst),
        ),
        (
            HeaderType::INSTANCE64,
            0x15,
            Some(Bitness::Bits64),
            Some(0x48),
            Some(HeaderFamily::SizeFirst),
        ),
    ];
    for (header_type, raw, bitness, fixed_len, family) in table {
        assert_eq!(header_type.0, raw);
        assert_eq!(header_type.bitness(), bitness, "{header_type:?}");
        assert_eq!(header_type.fixed_len(), fixed_len, "{header_type:?}");
        assert_eq!(header_type.family(), family, "{header_type:?}");
        assert!(header_type.name().is_some());
    }
    assert_eq!(
        HeaderType::full_header(Bitness::Bits32),
        HeaderType::FULL_HEADER32
    );
    assert_eq!(
        HeaderType::instance(Bitness::Bits64),
        HeaderType::INSTANCE64
    );
    // Unknown codes are kept and named by value.
    let unknown = HeaderType(0x42);
    assert_eq!(
        (unknown.name(), unknown.bitness(), unknown.fixed_len()),
        (None, None, None)
    );
    assert_eq!(format!("{unknown:?}"), "HeaderType(0x42)");
    assert_eq!(format!("{:?}", HeaderType::INSTANCE64), "INSTANCE64");
}

#[test]
fn marker_flags() {
    assert_eq!(MarkerFlags::EVENT_TRACE_HEADER.0, 0xC0);
    assert!(MarkerFlags(0xC0).is_event_trace_header());
    assert!(!MarkerFlags(0x80).is_event_trace_header());
    assert!(!MarkerFlags(0x90).is_event_trace_header());
    assert_eq!(
        MarkerFlags::TRACE_HEADER_FLAG | MarkerFlags::TRACE_MESSAGE,
        MarkerFlags(0x90)
    );
    assert_eq!(MarkerFlags(0xC3).unnamed_bits(), 0x03);
    assert_eq!(
        format!("{:?}", MarkerFlags(0xC1)),
        "MarkerFlags(0xc1: TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE)"
    );
}

#[test]
fn event_types_match_evntrace_h() {
    let named = [
        (EventType::INFO, 0),
        (EventType::START, 1),
        (EventType::END, 2),
        (EventType::STOP, 2),
        (EventType::DC_START, 3),
        (EventType::DC_END, 4),
        (EventType::EXTENSION, 5),
        (EventType::REPLY, 6),
        (EventType::DEQUEUE, 7),
        (EventType::RESUME, 7),
        (EventType::CHECKPOINT, 8),
        (EventType::SUSPEND, 8),
        (EventType::WINEVT_SEND, 9),
        (EventType::WINEVT_RECEIVE, 0xF0),
    ];
    for (event_type, raw) in named {
        assert_eq!(event_type.0, raw);
        assert!(!event_type.is_provider_defined());
    }
    assert!(EventType(10).is_provider_defined());
    assert!(EventType(0xEF).is_provider_defined());
    assert!(!EventType(9).is_provider_defined());
    assert_eq!(EventType(10).name(), None);
}

#[test]
fn levels_and_the_enabling_rule() {
    assert_eq!(
        [
            Level::NONE,
            Level::CRITICAL,
            Level::FATAL,
            Level::ERROR,
            Level::WARNING,
            Level::INFORMATION,
            Level::VERBOSE
        ]
        .map(|level| level.0),
        [0, 1, 1, 2, 3, 4, 5]
    );
    // "if the controller specifies TRACE_LEVEL_WARNING (3), the provider also generates
    // TRACE_LEVEL_FATAL (1) and TRACE_LEVEL_ERROR (2) events."
    let warning = Level::WARNING;
    assert!(warning.enables(Level::FATAL));
    assert!(warning.enables(Level::ERROR));
    assert!(warning.enables(Level::WARNING));
    assert!(!warning.enables(Level::INFORMATION));
    assert!(!warning.enables(Level::VERBOSE));
    assert!(!warning.enables(Level(255)));
    // Enabling N includes exactly 1..=N, for every N and every event level.
    for enabled in 1..=255u8 {
        for event in 1..=255u8 {
            assert_eq!(Level(enabled).enables(Level(event)), event <= enabled);
        }
        assert!(
            Level(enabled).enables(Level::NONE),
            "a level-0 event has no severity to filter on"
        );
    }
    // "TRACE_LEVEL_NONE: Tracing is not on."
    assert!((0..=255u8).all(|event| !Level::NONE.enables(Level(event))));
}

#[test]
fn wnode_flags_match_wmistr_h() {
    assert_eq!(WnodeFlags::TRACED_GUID.0, 0x0002_0000);
    assert_eq!(WnodeFlags::LOG_WNODE.0, 0x0004_0000);
    assert_eq!(WnodeFlags::USE_GUID_PTR.0, 0x0008_0000);
    assert_eq!(WnodeFlags::USE_MOF_PTR.0, 0x0010_0000);
    assert_eq!(WnodeFlags::NO_HEADER.0, 0x0020_0000);
    assert_eq!(WnodeFlags::USE_TIMESTAMP.0, 0x0000_0200);
    assert_eq!(MAX_MOF_FIELDS, 16);
    let flags = WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR;
    assert!(flags.contains(WnodeFlags::TRACED_GUID));
    assert!(!flags.contains(WnodeFlags::USE_GUID_PTR));
    assert_eq!(
        flags.without(WnodeFlags::USE_MOF_PTR),
        WnodeFlags::TRACED_GUID
    );
    assert_eq!(flags & WnodeFlags::USE_MOF_PTR, WnodeFlags::USE_MOF_PTR);
    assert_eq!(
        format!("{flags:?}"),
        "WnodeFlags(0x120000: TRACED_GUID | USE_MOF_PTR)"
    );
    assert_eq!(WnodeFlags(0x0000_1800).unnamed_bits(), 0x1800);
}

#[test]
fn class_roll_up_places_type_level_version() {
    let class = Class::new(EventType(0xAB), Level(0xCD), 0x1234);
    assert_eq!(class.roll_up(), 0x1234_CDAB);
    assert_eq!(Class::from(0x1234_CDAB), class);
    assert_eq!(u32::from(class), 0x1234_CDAB);
    // Class.Version keeps all 16 bits (parsers that clamp it to 8 bits lose 0x12 here).
    assert_eq!(Class::from_roll_up(0xFFFF_0000).version, 0xFFFF);
}

#[test]
fn guid_text_forms() {
    let expected = Guid::from_fields(
        0x3d6f_a8d0,
        0xfe05,
        0x11d0,
        [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
    );
    for text in [
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",
        "3D6FA8D0-FE05-11D0-9DDA-00C04FD7BA7C",
        "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}",
        "{3D6FA8D0-fe05-11D0-9dda-00C04FD7BA7C}",
    ] {
        assert_eq!(text.parse::<Guid>(), Ok(expected), "{text}");
    }
    assert_eq!(expected.to_string(), "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
    assert_eq!(
        expected.to_bytes_le(),
        [
            0xd0, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7,
            0xba, 0x7c
        ]
    );
    assert_eq!(Guid::from_bytes_le(expected.to_bytes_le()), expected);
    assert!(Guid::NIL.is_nil());
    assert!(!expected.is_nil());
    assert!(!Guid::from_fields(0, 0, 0, [0, 0, 0, 0, 0, 0, 0, 1]).is_nil());
    assert_eq!(
        format!("{expected:?}"),
        "Guid(3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c)"
    );
}

#[test]
fn guid_text_errors_give_position_expectation_and_found() {
    use GuidTextExpectation::*;
    let cases: [(&str, usize, GuidTextExpectation, Option<u8>); 9] = [
        ("", 0, HexDigit, None),
        ("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7", 35, HexDigit, None),
        ("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c0", 36, End, Some(b'0')),
        (
            "3d6fa8d0_fe05-11d0-9dda-00c04fd7ba7c",
            8,
            Hyphen,
            Some(b'_'),
        ),
        (
            "3d6fa8d0-fe05-11d0-9dda-00c04fd7bag7",
            34,
            HexDigit,
            Some(b'g'),
        ),
        (
            "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",
            37,
            ClosingBrace,
            None,
        ),
        (
            "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c)",
            37,
            ClosingBrace,
            Some(b')'),
        ),
        (
            "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}x",
            38,
            End,
            Some(b'x'),
        ),
        (
            "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7}",
            36,
            HexDigit,
            Some(b'}'),
        ),
    ];
    for (text, at, expected, found) in cases {
        assert_eq!(
            Guid::parse_str(text),
            Err(GuidParseError::new(at, expected, found)),
            "{text:?}"
        );
    }
    assert_eq!(
        Guid::parse_str("3d6fa8d0-fe05-11d0-9dda-00c04fd7bag7")
            .unwrap_err()
            .to_string(),
        "GUID text: expected a hex digit at position 34, found 'g'"
    );
    assert_eq!(
        Guid::parse_str("").unwrap_err().to_string(),
        "GUID text: expected a hex digit at position 0, found the end of the text"
    );
    // Non-ASCII input is an error, not a panic.
    assert!(Guid::parse_str("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7é").is_err());
}

#[test]
fn guid_union_views_and_setters() {
    let guid: Guid = "00112233-4455-6677-8899-aabbccddeeff".parse().unwrap();
    let mut union = GuidOrPtr::from_guid(guid);
    assert_eq!(union.guid(), guid);
    assert_eq!(union.guid_ptr(), 0x6677_4455_0011_2233);
    union.set_guid_ptr(0x0102_0304_0506_0708);
    assert_eq!(union.guid_ptr(), 0x0102_0304_0506_0708);
    // GuidPtr covers bytes 0..8 only: Data4 keeps its bytes.
    assert_eq!(union.guid().data4, guid.data4);
    assert_eq!(
        GuidOrPtr::from_guid_ptr(7).0,
        [7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    // Setting the Guid view replaces all sixteen bytes.
    union.set_guid(guid);
    assert_eq!(union, GuidOrPtr::from_guid(guid));
    assert_eq!(GuidOrPtr::from(guid), GuidOrPtr::from_guid(guid));
    assert_eq!(
        format!("{union:?}"),
        "GuidOrPtr { guid: 00112233-4455-6677-8899-aabbccddeeff, guid_ptr: 0x6677445500112233 }"
    );
}

#[test]
fn times_union_views_share_bytes_as_in_c() {
    let mut union = TimesOrFlags::from_times(0x1111_2222, 0x3333_4444);
    assert_eq!(union.kernel_time(), 0x1111_2222);
    assert_eq!(union.user_time(), 0x3333_4444);
    assert_eq!(union.processor_time(), 0x3333_4444_1111_2222);
    assert_eq!(union.client_context(), 0x1111_2222);
    assert_eq!(union.event_id(), 0x1111_2222);
    assert_eq!(union.flags(), WnodeFlags(0x3333_4444));
    union.set_flags(WnodeFlags::TRACED_GUID);
    assert_eq!(
        union.kernel_time(),
        0x1111_2222,
        "setting Flags keeps the low half"
    );
    union.set_event_id(9);
    assert_eq!(union.event_id(), 9);
    assert_eq!(
        union.flags(),
        WnodeFlags::TRACED_GUID,
        "setting EventId keeps the high half"
    );
    union.set_processor_time(u64::MAX);
    assert_eq!(
        (union.kernel_time(), union.user_time()),
        (u32::MAX, u32::MAX)
    );
    union.set_kernel_time(1);
    assert_eq!(union.0, [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    union.set_user_time(2);
    assert_eq!(
        format!("{union:?}"),
        "TimesOrFlags { kernel_time: 1, user_time: 2, processor_time: 8589934593, \
         flags: WnodeFlags(0x2: SINGLE_INSTANCE) }"
    );
    union.set_client_context(3);
    assert_eq!(union.0, [3, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(
        TimesOrFlags::from_event_id(5, WnodeFlags::USE_MOF_PTR).0,
        [5, 0, 0, 0, 0, 0, 0x10, 0]
    );
    assert_eq!(
        TimesOrFlags::from_processor_time(0x0807_0605_0403_0201).0,
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    assert_eq!(
        TimesOrFlags::from_client_context(1, WnodeFlags(2)).0,
        [1, 0, 0, 0, 2, 0, 0, 0]
    );
}

#[test]
fn buffer_context_views() {
    let mut context = BufferContext::new(3, 8, 0x1234);
    assert_eq!(context.0, [3, 8, 0x34, 0x12]);
    assert_eq!(
        (
            context.processor_number(),
            context.alignment(),
            context.logger_id()
        ),
        (3, 8, 0x1234)
    );
    assert_eq!(context.processor_index(), 0x0803);
    assert_eq!(context.client_context(), 0x1234_0803);
    context.set_processor_index(0x0102);
    assert_eq!((context.processor_number(), context.alignment()), (2, 1));
    context.set_processor_number(7);
    context.set_alignment(9);
    context.set_logger_id(0xBEEF);
    assert_eq!(context, BufferContext::from_client_context(0xBEEF_0907));
    assert_eq!(
        format!("{context:?}"),
        "BufferContext { processor_number: 7, alignment: 9, logger_id: 48879 }"
    );
    context.set_client_context(0);
    assert_eq!(context, BufferContext::default());
}

#[test]
fn event_trace_layouts_differ_after_the_instance_header() {
    let instance = EventInstanceGuidHeader {
        instance_id: 0x11,
        parent_instance_id: 0x22,
        ..Default::default()
    };
    let context = BufferContext::new(1, 2, 3);
    let trace32 = EventTrace::new(Bitness::Bits32, instance, 0xAABB_CCDD, 0x40, context).unwrap();
    let trace64 = EventTrace::new(Bitness::Bits64, instance, 0x1_AABB_CCDD, 0x40, context).unwrap();
    let bytes32 = trace32.to_bytes();
    let bytes64 = trace64.to_bytes();
    assert_eq!(bytes32[..0x48], bytes64[..0x48]);
    assert_eq!(
        bytes32[0x48..],
        [0xDD, 0xCC, 0xBB, 0xAA, 0x40, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        bytes64[0x48..],
        [0xDD, 0xCC, 0xBB, 0xAA, 1, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3, 0]
    );
    assert_eq!(EventTrace::from_bytes(&bytes32, Bitness::Bits32), trace32);
    assert_eq!(EventTrace::from_bytes(&bytes64, Bitness::Bits64), trace64);
    assert_eq!(
        (trace32.bitness(), trace32.layout()),
        (Bitness::Bits32, Layout::EventTrace32)
    );
    assert_eq!(
        (trace64.mof_data(), trace64.mof_length()),
        (0x1_AABB_CCDD, 0x40)
    );
    assert_eq!(trace64.buffer_context(), context);
    assert_eq!(trace64.header(), instance.header);
    assert_eq!(
        EventTrace::new(Bitness::Bits32, instance, 0x1_0000_0000, 0, context),
        Err(CodecError::PointerTooWide {
            layout: Layout::EventTrace32,
            bitness: Bitness::Bits32,
            value: 0x1_0000_0000
        })
    );
}

#[test]
fn event_trace_keeps_the_32_bit_tail_padding() {
    let mut bytes = [0u8; 0x58];
    bytes[0x54..].copy_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]);
    let trace = EventTrace::from_bytes(&bytes, Bitness::Bits32);
    match trace {
        EventTrace::Bits32(inner) => assert_eq!(inner.tail_padding, [0xDE, 0xAD, 0xBE, 0xEF]),
        EventTrace::Bits64(_) => unreachable!(),
    }
    assert_eq!(trace.to_bytes(), bytes);
}

#[test]
fn event_instance_info_layouts() {
    let info32 = EventInstanceInfo::new(Bitness::Bits32, 0xCAFE, 0x42).unwrap();
    let info64 = EventInstanceInfo::new(Bitness::Bits64, 0x1_0000_CAFE, 0x42).unwrap();
    let mut out = [0xEEu8; 16];
    assert_eq!(info32.emit(&mut out).unwrap().len(), 8);
    assert_eq!(
        out,
        [0xFE, 0xCA, 0, 0, 0x42, 0, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE]
    );
    assert!(info64.emit(&mut out).unwrap().is_empty());
    assert_eq!(
        out,
        [0xFE, 0xCA, 0, 0, 1, 0, 0, 0, 0x42, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        (info64.reg_handle(), info64.instance_id(), info64.byte_len()),
        (0x1_0000_CAFE, 0x42, 16)
    );
    assert_eq!(
        EventInstanceInfo::new(Bitness::Bits32, 0x1_0000_CAFE, 0),
        Err(CodecError::PointerTooWide {
            layout: Layout::EventInstanceInfo32,
            bitness: Bitness::Bits32,
            value: 0x1_0000_CAFE
        })
    );
    // The 64-bit padding is kept as read.
    let mut bytes = [0u8; 16];
    bytes[12..].copy_from_slice(&[1, 2, 3, 4]);
    let (info, _) = EventInstanceInfo::parse(&bytes, Bitness::Bits64).unwrap();
    let mut out = [0u8; 16];
    info.emit(&mut out).unwrap();
    assert_eq!(out, bytes);
}
