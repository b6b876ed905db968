//! Property laws for every type and both bitnesses:
//! bytes → struct → bytes is the identity; struct → bytes → struct is the identity;
//! `parse` of any input never panics and reports the right remainder; the Class and
//! VersionDetail roll-ups, the union views, the GUID text and the UTF-16 names round-trip.

use etw_classic::{
    wire::{
        EventInstanceInfo32, EventInstanceInfo64, EventTrace32, EventTrace64, LogInstance,
        LogfileNames, SystemTime, TimeZoneInformation, TraceLogfileHeader32, TraceLogfileHeader64,
        Utf16Str, VersionDetail,
    },
    Bitness, BufferContext, Class, ClockType, CodecError, EventInstanceGuidHeader,
    EventInstanceHeader, EventInstanceInfo, EventTrace, EventTraceHeader, EventType, Guid,
    GuidOrPtr, HeaderType, Layout, Level, MarkerFlags, MofField, SystemTraceHeader, TimesOrFlags,
    TraceLogfileHeader, WmiBufferHeader,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Where the checked members of an event header lie, by the rules of LAYOUTS.md: `Size` is a
/// `u16` at 0 of an `EVENT_TRACE_HEADER` and at 4 of a `SYSTEM_TRACE_HEADER`; `HeaderType` is
/// byte 2 and `MarkerFlags` byte 3 of both; `HookId` a `u16` at 6 of a `SYSTEM_TRACE_HEADER`.
fn size_at(layout: Layout) -> usize {
    if layout == Layout::SystemTraceHeader {
        4
    } else {
        0
    }
}

/// An error of `parse_event` over `input` must say what the input holds: the struct it names,
/// the lengths or the byte it found, and a message that names the struct and the value found.
fn error_matches_input(error: &CodecError, input: &[u8]) -> Result<(), TestCaseError> {
    let message = error.to_string();
    let layout = error.layout();
    prop_assert!(
        message.starts_with(layout.sdk_name()),
        "{message:?} does not name {layout}"
    );
    let u16_at = |at: usize| u16::from_le_bytes([input[at], input[at + 1]]);
    match *error {
        CodecError::Truncated { needed, found, .. } => {
            prop_assert_eq!(needed, layout.byte_len());
            prop_assert!(found < needed);
            let expected = format!("expected {needed} bytes, found {found}");
            prop_assert!(
                message.contains(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        CodecError::NotATraceHeader { found, .. } => {
            prop_assert_eq!(found.0, input[3]);
            prop_assert!(found.0 & 0xC0 != 0xC0);
            let expected = String::from("MarkerFlags (offset 0x03)");
            prop_assert!(
                message.contains(&expected),
                "{message:?} lacks {expected:?}"
            );
            let expected = format!("found {:#04x}", input[3]);
            prop_assert!(
                message.ends_with(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        CodecError::WrongHeaderType { found, .. } => {
            prop_assert_eq!(found.0, input[2]);
            prop_assert!(message.contains("HeaderType (offset 0x02)"));
            let expected = format!("found {found:?}");
            prop_assert!(
                message.ends_with(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        CodecError::SizeBelowHeader {
            header_len, size, ..
        } => {
            prop_assert_eq!(size, u16_at(size_at(layout)));
            prop_assert!(usize::from(size) < header_len);
            let expected =
                format!("Size: expected at least the {header_len}-byte header, found {size}");
            prop_assert!(
                message.contains(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        CodecError::SizeBeyondInput {
            size, available, ..
        } => {
            prop_assert_eq!(size, u16_at(size_at(layout)));
            prop_assert_eq!(available, input.len());
            prop_assert!(usize::from(size) > available);
            let expected =
                format!("Size: expected at most the {available} bytes present, found {size}");
            prop_assert!(
                message.contains(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        CodecError::UnexpectedHookId {
            expected, found, ..
        } => {
            prop_assert_eq!(found, u16_at(6));
            let expected = format!("expected {expected:#06x}, found {found:#06x}");
            prop_assert!(
                message.ends_with(&expected),
                "{message:?} lacks {expected:?}"
            );
        }
        other => prop_assert!(false, "parse_event cannot say {other:?}"),
    }
    Ok(())
}

fn bitness() -> impl Strategy<Value = Bitness> {
    prop_oneof![Just(Bitness::Bits32), Just(Bitness::Bits64)]
}

fn guid() -> impl Strategy<Value = Guid> {
    any::<[u8; 16]>().prop_map(Guid::from_bytes_le)
}

prop_compose! {
    fn class()(event_type in any::<u8>(), level in any::<u8>(), version in any::<u16>()) -> Class {
        Class::new(EventType(event_type), Level(level), version)
    }
}

prop_compose! {
    fn trace_header()(
        size in any::<u16>(), header_type in any::<u8>(), marker_flags in any::<u8>(), class in class(),
        thread_id in any::<u32>(), process_id in any::<u32>(), timestamp in any::<i64>(),
        guid in any::<[u8; 16]>(), times in any::<[u8; 8]>(),
    ) -> EventTraceHeader {
        EventTraceHeader {
            size, header_type: HeaderType(header_type), marker_flags: MarkerFlags(marker_flags), class,
            thread_id, process_id, timestamp, guid: GuidOrPtr(guid), times: TimesOrFlags(times),
        }
    }
}

prop_compose! {
    fn instance_header()(
        prefix in trace_header(), reg_handle in any::<u64>(), instance_id in any::<u32>(),
        parent_instance_id in any::<u32>(), parent_reg_handle in any::<u64>(),
    ) -> EventInstanceHeader {
        EventInstanceHeader {
            size: prefix.size, header_type: prefix.header_type, marker_flags: prefix.marker_flags,
            class: prefix.class, thread_id: prefix.thread_id, process_id: prefix.process_id,
            timestamp: prefix.timestamp, reg_handle, instance_id, parent_instance_id,
            times: prefix.times, parent_reg_handle,
        }
    }
}

prop_compose! {
    fn instance_guid_header()(
        header in trace_header(), instance_id in any::<u32>(), parent_instance_id in any::<u32>(),
        parent_guid in guid(),
    ) -> EventInstanceGuidHeader {
        EventInstanceGuidHeader { header, instance_id, parent_instance_id, parent_guid }
    }
}

prop_compose! {
    fn event_trace32()(
        first in instance_guid_header(), mof_data in any::<u32>(), mof_length in any::<u32>(),
        context in any::<[u8; 4]>(), tail_padding in any::<[u8; 4]>(),
    ) -> EventTrace32 {
        EventTrace32 {
            header: first.header, instance_id: first.instance_id, parent_instance_id: first.parent_instance_id,
            parent_guid: first.parent_guid, mof_data, mof_length, buffer_context: BufferContext(context),
            tail_padding,
        }
    }
}

prop_compose! {
    fn event_trace64()(
        first in instance_guid_header(), mof_data in any::<u64>(), mof_length in any::<u32>(),
        context in any::<[u8; 4]>(),
    ) -> EventTrace64 {
        EventTrace64 {
            header: first.header, instance_id: first.instance_id, parent_instance_id: first.parent_instance_id,
            parent_guid: first.parent_guid, mof_data, mof_length, buffer_context: BufferContext(context),
        }
    }
}

fn event_trace() -> impl Strategy<Value = EventTrace> {
    prop_oneof![
        event_trace32().prop_map(EventTrace::from),
        event_trace64().prop_map(EventTrace::from)
    ]
}

fn event_instance_info() -> impl Strategy<Value = EventInstanceInfo> {
    prop_oneof![
        (any::<u32>(), any::<u32>()).prop_map(|(reg_handle, instance_id)| EventInstanceInfo32 {
            reg_handle,
            instance_id
        }
        .into()),
        (any::<u64>(), any::<u32>(), any::<[u8; 4]>()).prop_map(
            |(reg_handle, instance_id, tail_padding)| {
                EventInstanceInfo64 {
                    reg_handle,
                    instance_id,
                    tail_padding,
                }
                .into()
            }
        ),
    ]
}

prop_compose! {
    fn mof_field()(data_ptr in any::<u64>(), length in any::<u32>(), data_type in any::<u32>()) -> MofField {
        MofField { data_ptr, length, data_type }
    }
}

prop_compose! {
    fn system_header()(
        version in any::<u16>(), header_type in any::<u8>(), flags in any::<u8>(), size in any::<u16>(),
        hook_id in any::<u16>(), thread_id in any::<u32>(), process_id in any::<u32>(),
        system_time in any::<i64>(), kernel_time in any::<u32>(), user_time in any::<u32>(),
    ) -> SystemTraceHeader {
        SystemTraceHeader {
            version, header_type: HeaderType(header_type), flags: MarkerFlags(flags), size, hook_id,
            thread_id, process_id, system_time, kernel_time, user_time,
        }
    }
}

fn system_time() -> impl Strategy<Value = SystemTime> {
    any::<[u16; 8]>().prop_map(
        |[year, month, day_of_week, day, hour, minute, second, milliseconds]| SystemTime {
            year,
            month,
            day_of_week,
            day,
            hour,
            minute,
            second,
            milliseconds,
        },
    )
}

prop_compose! {
    fn time_zone()(
        bias in any::<i32>(), standard_name in any::<[u16; 32]>(), standard_date in system_time(),
        standard_bias in any::<i32>(), daylight_name in any::<[u16; 32]>(),
        daylight_date in system_time(), daylight_bias in any::<i32>(),
    ) -> TimeZoneInformation {
        TimeZoneInformation {
            bias, standard_name, standard_date, standard_bias, daylight_name, daylight_date,
            daylight_bias,
        }
    }
}

// The members before the pointers, as a 64-bit header with the rest zero.
prop_compose! {
    fn logfile_head()(
        buffer_size in any::<u32>(), version in any::<u32>(), provider_version in any::<u32>(),
        number_of_processors in any::<u32>(), end_time in any::<i64>(),
        timer_resolution in any::<u32>(), maximum_file_size in any::<u32>(),
        log_file_mode in any::<u32>(), buffers_written in any::<u32>(),
        log_instance in any::<[u8; 16]>(),
    ) -> TraceLogfileHeader64 {
        TraceLogfileHeader64 {
            buffer_size, version: VersionDetail::from_roll_up(version), provider_version,
            number_of_processors, end_time, timer_resolution, maximum_file_size, log_file_mode,
            buffers_written, log_instance: LogInstance(log_instance),
            ..TraceLogfileHeader64::default()
        }
    }
}

prop_compose! {
    fn logfile_header64()(
        head in logfile_head(), logger_name in any::<u64>(), log_file_name in any::<u64>(),
        time_zone in time_zone(), padding in any::<[u8; 4]>(), boot_time in any::<i64>(),
        perf_freq in any::<i64>(), start_time in any::<i64>(), reserved_flags in any::<u32>(),
        buffers_lost in any::<u32>(),
    ) -> TraceLogfileHeader64 {
        TraceLogfileHeader64 {
            logger_name, log_file_name, time_zone, padding, boot_time, perf_freq, start_time,
            reserved_flags: ClockType(reserved_flags), buffers_lost, ..head
        }
    }
}

prop_compose! {
    fn logfile_header32()(
        wide in logfile_header64(), logger_name in any::<u32>(), log_file_name in any::<u32>(),
    ) -> TraceLogfileHeader32 {
        TraceLogfileHeader32 {
            buffer_size: wide.buffer_size, version: wide.version,
            provider_version: wide.provider_version, number_of_processors: wide.number_of_processors,
            end_time: wide.end_time, timer_resolution: wide.timer_resolution,
            maximum_file_size: wide.maximum_file_size, log_file_mode: wide.log_file_mode,
            buffers_written: wide.buffers_written, log_instance: wide.log_instance, logger_name,
            log_file_name, time_zone: wide.time_zone, padding: wide.padding,
            boot_time: wide.boot_time, perf_freq: wide.perf_freq, start_time: wide.start_time,
            reserved_flags: wide.reserved_flags, buffers_lost: wide.buffers_lost,
        }
    }
}

fn logfile_header() -> impl Strategy<Value = TraceLogfileHeader> {
    prop_oneof![
        logfile_header32().prop_map(TraceLogfileHeader::from),
        logfile_header64().prop_map(TraceLogfileHeader::from)
    ]
}

proptest! {
    // ---- bytes -> struct -> bytes: nothing is lost, for every possible input ----

    #[test]
    fn system_header_bytes_round_trip(bytes in any::<[u8; 0x20]>()) {
        let header = SystemTraceHeader::from_bytes(&bytes);
        prop_assert_eq!(header.to_bytes(), bytes);
        prop_assert_eq!(header.marker(), u32::from_le_bytes(bytes[..4].try_into().unwrap()));
        prop_assert_eq!(header.header(), u32::from_le_bytes(bytes[4..8].try_into().unwrap()));
    }

    #[test]
    fn logfile_header_bytes_round_trip(
        bytes in proptest::collection::vec(any::<u8>(), 0x118),
        bitness in bitness(),
    ) {
        let (header, rest) = TraceLogfileHeader::parse(&bytes, bitness).unwrap();
        prop_assert_eq!(header.bitness(), bitness);
        let mut out = vec![0u8; 0x118];
        let unused = header.emit(&mut out).unwrap().len();
        prop_assert_eq!(unused, rest.len());
        prop_assert_eq!(&out[..header.byte_len()], &bytes[..header.byte_len()]);
        // Both layouts agree on the first 0x38 bytes.
        let (other, _) = TraceLogfileHeader::parse(&bytes, match bitness {
            Bitness::Bits32 => Bitness::Bits64,
            Bitness::Bits64 => Bitness::Bits32,
        }).unwrap();
        prop_assert_eq!(other.log_instance(), header.log_instance());
        prop_assert_eq!(other.version(), header.version());
        prop_assert_eq!(other.buffers_written(), header.buffers_written());
    }

    #[test]
    fn time_zone_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0xAC)) {
        let bytes: [u8; 0xAC] = bytes.try_into().unwrap();
        prop_assert_eq!(TimeZoneInformation::from_bytes(&bytes).to_bytes(), bytes);
    }

    #[test]
    fn trace_header_bytes_round_trip(bytes in any::<[u8; 0x30]>()) {
        prop_assert_eq!(EventTraceHeader::from_bytes(&bytes).to_bytes(), bytes);
    }

    #[test]
    fn instance_header_bytes_round_trip(bytes in any::<[u8; 0x38]>()) {
        prop_assert_eq!(EventInstanceHeader::from_bytes(&bytes).to_bytes(), bytes);
    }

    #[test]
    fn instance_guid_header_bytes_round_trip(bytes in any::<[u8; 0x48]>()) {
        prop_assert_eq!(EventInstanceGuidHeader::from_bytes(&bytes).to_bytes(), bytes);
    }

    #[test]
    fn event_trace_bytes_round_trip(bytes in any::<[u8; 0x58]>(), bitness in bitness()) {
        let trace = EventTrace::from_bytes(&bytes, bitness);
        prop_assert_eq!(trace.bitness(), bitness);
        prop_assert_eq!(trace.to_bytes(), bytes);
        // Both layouts agree on the first 0x48 bytes.
        prop_assert_eq!(
            trace.instance_header(),
            EventInstanceGuidHeader::from_bytes(bytes[..0x48].try_into().unwrap())
        );
    }

    #[test]
    fn event_instance_info_bytes_round_trip(bytes in any::<[u8; 16]>(), bitness in bitness()) {
        let (info, rest) = EventInstanceInfo::parse(&bytes, bitness).unwrap();
        let mut out = [0u8; 16];
        let unused = info.emit(&mut out).unwrap().len();
        prop_assert_eq!(unused, rest.len());
        prop_assert_eq!(&out[..info.byte_len()], &bytes[..info.byte_len()]);
    }

    #[test]
    fn mof_field_bytes_round_trip(bytes in any::<[u8; 16]>()) {
        prop_assert_eq!(MofField::from_bytes(&bytes).to_bytes(), bytes);
    }

    // ---- emit writes every byte of the struct and nothing after it, whatever `out` held ----

    #[test]
    fn emit_sets_every_byte(bytes in proptest::collection::vec(any::<u8>(), 0x118), fill in any::<u8>()) {
        macro_rules! check {
            ($($type:ty),+) => {$({
                let len = <$type>::LEN;
                let value = <$type>::from_bytes(bytes[..len].try_into().unwrap());
                // Two fillers that differ in every bit: a byte `emit` left alone shows in one.
                for fill in [fill, !fill] {
                    let mut out = vec![fill; len + 1];
                    let rest = value.emit(&mut out).unwrap();
                    prop_assert_eq!(rest, [fill]);
                    prop_assert_eq!(&out[..len], &bytes[..len], "{}", stringify!($type));
                }
            })+};
        }
        check!(
            EventTraceHeader, EventInstanceHeader, EventInstanceGuidHeader, EventTrace32, EventTrace64,
            EventInstanceInfo32, EventInstanceInfo64, MofField, WmiBufferHeader, SystemTraceHeader,
            TraceLogfileHeader32, TraceLogfileHeader64
        );
    }

    // ---- struct -> bytes -> struct: every value survives, unknown codes included ----

    #[test]
    fn trace_header_value_round_trip(header in trace_header()) {
        prop_assert_eq!(EventTraceHeader::from_bytes(&header.to_bytes()), header);
    }

    #[test]
    fn instance_header_value_round_trip(header in instance_header()) {
        prop_assert_eq!(EventInstanceHeader::from_bytes(&header.to_bytes()), header);
    }

    #[test]
    fn instance_guid_header_value_round_trip(header in instance_guid_header()) {
        prop_assert_eq!(EventInstanceGuidHeader::from_bytes(&header.to_bytes()), header);
        prop_assert_eq!(&header.to_bytes()[..0x30], &header.header.to_bytes()[..]);
    }

    #[test]
    fn event_trace_value_round_trip(trace in event_trace()) {
        prop_assert_eq!(EventTrace::from_bytes(&trace.to_bytes(), trace.bitness()), trace);
        let mut out = [0u8; 0x60];
        let rest = trace.emit(&mut out).unwrap();
        prop_assert_eq!(rest.len(), 8);
        prop_assert_eq!(EventTrace::parse(&out, trace.bitness()).unwrap().0, trace);
    }

    #[test]
    fn event_instance_info_value_round_trip(info in event_instance_info()) {
        let mut out = [0u8; 16];
        info.emit(&mut out).unwrap();
        prop_assert_eq!(EventInstanceInfo::parse(&out, info.bitness()).unwrap().0, info);
    }

    #[test]
    fn mof_field_value_round_trip(field in mof_field()) {
        prop_assert_eq!(MofField::from_bytes(&field.to_bytes()), field);
    }

    #[test]
    fn system_header_value_round_trip(header in system_header()) {
        prop_assert_eq!(SystemTraceHeader::from_bytes(&header.to_bytes()), header);
        prop_assert_eq!(header.with_marker(header.marker()), header);
        prop_assert_eq!(header.with_header(header.header()), header);
        prop_assert_eq!(
            SystemTraceHeader::hook_id_of(header.hook_type(), header.hook_group()),
            header.hook_id
        );
    }

    #[test]
    fn time_zone_value_round_trip(zone in time_zone()) {
        prop_assert_eq!(TimeZoneInformation::from_bytes(&zone.to_bytes()), zone);
    }

    #[test]
    fn logfile_header_value_round_trip(header in logfile_header()) {
        let mut out = [0u8; 0x120];
        let rest = header.emit(&mut out).unwrap();
        prop_assert_eq!(rest.len(), 0x120 - header.byte_len());
        prop_assert_eq!(TraceLogfileHeader::parse(&out, header.bitness()).unwrap().0, header);
    }

    #[test]
    fn version_detail_and_log_instance_views(roll_up in any::<u32>(), counts in any::<[u32; 4]>()) {
        prop_assert_eq!(VersionDetail::from_roll_up(roll_up).roll_up(), roll_up);
        let [start_buffers, pointer_size, events_lost, cpu_speed_in_mhz] = counts;
        let union = LogInstance::from_counts(start_buffers, pointer_size, events_lost, cpu_speed_in_mhz);
        prop_assert_eq!(
            [union.start_buffers(), union.pointer_size(), union.events_lost(), union.cpu_speed_in_mhz()],
            counts
        );
        prop_assert_eq!(LogInstance::from_guid(union.log_instance_guid()), union);
    }

    // ---- parse never panics, and what it returns is consistent ----

    #[test]
    fn wire_parse_is_total(input in proptest::collection::vec(any::<u8>(), 0..0x120)) {
        match EventTraceHeader::parse_event(&input) {
            Ok((header, data, rest)) => {
                prop_assert!(header.marker_flags.is_event_trace_header());
                prop_assert!(header.header_type.fixed_len() == Some(0x30));
                prop_assert_eq!(data.len() + 0x30, usize::from(header.size));
                prop_assert_eq!(rest.len(), input.len() - usize::from(header.size));
            }
            Err(error) => error_matches_input(&error, &input)?,
        }
        match EventInstanceGuidHeader::parse_event(&input) {
            Ok((header, data, rest)) => {
                prop_assert!(header.header.header_type.fixed_len() == Some(0x48));
                prop_assert_eq!(data.len() + 0x48 + rest.len(), input.len());
            }
            Err(error) => error_matches_input(&error, &input)?,
        }
    }

    #[test]
    fn valid_wire_headers_parse(mut header in trace_header(), data_len in 0usize..64, wide in any::<bool>()) {
        header.header_type = if wide { HeaderType::FULL_HEADER64 } else { HeaderType::FULL_HEADER32 };
        header.marker_flags = MarkerFlags::EVENT_TRACE_HEADER;
        header.size = u16::try_from(0x30 + data_len).unwrap();
        let mut event = vec![0x5Au8; 0x30 + data_len + 7];
        header.emit(&mut event).unwrap();
        let (parsed, data, rest) = EventTraceHeader::parse_event(&event).unwrap();
        prop_assert_eq!(parsed, header);
        prop_assert_eq!(data.len(), data_len);
        prop_assert_eq!(rest.len(), 7);
    }

    #[test]
    fn system_and_logfile_parse_are_total(input in proptest::collection::vec(any::<u8>(), 0..0x180)) {
        match SystemTraceHeader::parse_event(&input) {
            Ok((header, data, rest)) => {
                prop_assert!(header.flags.is_event_trace_header());
                prop_assert!(header.header_type == HeaderType::SYSTEM32 || header.header_type == HeaderType::SYSTEM64);
                prop_assert_eq!(data.len() + 0x20, usize::from(header.size));
                prop_assert_eq!(rest.len(), input.len() - usize::from(header.size));
            }
            Err(error) => error_matches_input(&error, &input)?,
        }
        match TraceLogfileHeader::parse_event(&input) {
            Ok((system, header, names, rest)) => {
                prop_assert_eq!(system.hook_id, 0);
                prop_assert_eq!(header.bitness(), system.header_type.bitness().unwrap());
                let names_len = 2 * (names.logger_name.len() + names.log_file_name.len());
                prop_assert!(0x20 + header.byte_len() + names_len + names.rest.len() <= usize::from(system.size));
                prop_assert_eq!(rest.len(), input.len() - usize::from(system.size));
            }
            Err(error) => error_matches_input(&error, &input)?,
        }
    }

    #[test]
    fn valid_system_headers_parse(mut header in system_header(), data_len in 0usize..64, wide in any::<bool>()) {
        header.header_type = if wide { HeaderType::SYSTEM64 } else { HeaderType::SYSTEM32 };
        header.flags = MarkerFlags::EVENT_TRACE_HEADER;
        header.size = u16::try_from(0x20 + data_len).unwrap();
        let mut event = vec![0xA5u8; 0x20 + data_len + 5];
        header.emit(&mut event).unwrap();
        let (parsed, data, rest) = SystemTraceHeader::parse_event(&event).unwrap();
        prop_assert_eq!(parsed, header);
        prop_assert_eq!(data.len(), data_len);
        prop_assert_eq!(rest.len(), 5);
    }

    // ---- the NUL-terminated names ----

    #[test]
    fn utf16_split_gives_back_its_input(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let (text, rest) = Utf16Str::split_nul_terminated(&bytes);
        prop_assert!(text.units().all(|unit| unit != 0));
        let text_len = 2 * text.len();
        prop_assert_eq!(text, Utf16Str::from_le_bytes(&bytes[..text_len]));
        match rest {
            Some(rest) => {
                prop_assert_eq!(&bytes[text_len..text_len + 2], &[0u8, 0][..]);
                prop_assert_eq!(rest, &bytes[text_len + 2..]);
            }
            None => prop_assert!(bytes.len() - text_len < 2),
        }
        let names = LogfileNames::parse(&bytes);
        prop_assert_eq!(names.logger_name, text);
        prop_assert_eq!(names.terminated, names.rest.len() + 2 * (names.logger_name.len() + names.log_file_name.len() + 2) == bytes.len());
    }

    #[test]
    fn utf16_text_round_trips_through_str(text in "\\PC{0,20}") {
        let bytes: Vec<u8> = text.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        let (name, rest) = Utf16Str::split_nul_terminated(&bytes);
        prop_assert!(name == text.as_str());
        prop_assert_eq!(name.to_string(), text);
        prop_assert!(name.is_well_formed());
        prop_assert_eq!(rest, Some(&[][..]));
    }

    // ---- the roll-up and the GUID text ----

    #[test]
    fn class_roll_up_round_trips(roll_up in any::<u32>()) {
        let class = Class::from(roll_up);
        prop_assert_eq!(u32::from(class), roll_up);
        prop_assert_eq!(roll_up.to_le_bytes()[0], class.event_type.0);
        prop_assert_eq!(roll_up.to_le_bytes()[1], class.level.0);
        prop_assert_eq!(roll_up >> 16, u32::from(class.version));
    }

    #[test]
    fn class_members_round_trip(class in class()) {
        prop_assert_eq!(Class::from_roll_up(class.roll_up()), class);
    }

    #[test]
    fn guid_display_parse_round_trip(guid in guid(), upper in any::<bool>(), braces in any::<bool>()) {
        let mut text = guid.to_string();
        prop_assert_eq!(text.len(), 36);
        if upper {
            text = text.to_uppercase();
        }
        if braces {
            text = format!("{{{text}}}");
        }
        prop_assert_eq!(text.parse::<Guid>(), Ok(guid));
    }

    #[test]
    fn guid_parse_is_total(text in ".{0,40}") {
        if let Ok(guid) = Guid::parse_str(&text) {
            let canonical = text.trim_start_matches('{').trim_end_matches('}').to_lowercase();
            prop_assert_eq!(guid.to_string(), canonical);
        }
    }
}

/// The roll-up law for every u32: each byte lands in its own member, so checking each byte's
/// 256 values in every position (with the others fixed at distinct values) covers the mapping.
#[test]
fn class_roll_up_every_byte_in_every_position() {
    for position in 0..4 {
        for value in 0..=255u8 {
            let mut bytes = [0x12, 0x34, 0x56, 0x78];
            bytes[position] = value;
            let roll_up = u32::from_le_bytes(bytes);
            let class = Class::from_roll_up(roll_up);
            assert_eq!(class.roll_up(), roll_up);
            assert_eq!([class.event_type.0, class.level.0], [bytes[0], bytes[1]]);
            assert_eq!(class.version, u16::from_le_bytes([bytes[2], bytes[3]]));
        }
    }
}
