//! The provider and session against the rules of `TraceEventInstance`/`TraceEvent` (seeds 000,
//! 001, 003): every documented error code, buffer boundaries, lost events, order, both
//! bitnesses. Written bytes are checked at the offsets of the layout tables, read here by hand,
//! so the checks do not lean on the crate's own decoders.

use etw_classic::{
    wire::BufferFlags,
    write::{InstanceRole, WhenFull, Win32Error},
    Bitness, Class, EventData, EventInstanceHeader, EventInstanceInfo, EventTraceHeader, EventType,
    Guid, GuidOrPtr, Level, Provider, Session, SteppingContext, TimesOrFlags, TraceContext,
    TraceError, Traced, WnodeFlags,
};

const CLASS_A: Guid = Guid::from_fields(0x0a0b_0c0d, 0x1111, 0x2222, [1, 2, 3, 4, 5, 6, 7, 8]);
const CLASS_B: Guid = Guid::from_fields(0xb0b0_b0b0, 0x3333, 0x4444, [9, 8, 7, 6, 5, 4, 3, 2]);

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap())
}
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}
fn i64_at(bytes: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}
fn guid_at(bytes: &[u8], at: usize) -> Guid {
    Guid::from_bytes_le(bytes[at..at + 16].try_into().unwrap())
}

fn context() -> SteppingContext {
    SteppingContext {
        now: 0x01DB_0000_0000_0000,
        step: 10_000,
        thread_id: 0x44,
        process_id: 0x4,
        kernel_time: 3,
        user_time: 5,
    }
}

/// An `EVENT_INSTANCE_HEADER` as the seed asks callers to fill it: Size, Flags, RegHandle,
/// Class.Type and Class.Level.
fn instance_header(
    reg_handle: u64,
    data_len: usize,
    event_type: EventType,
    level: Level,
) -> EventInstanceHeader {
    EventInstanceHeader {
        size: u16::try_from(EventInstanceHeader::LEN + data_len).unwrap(),
        class: Class::new(event_type, level, 3),
        reg_handle,
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    }
}

fn full_header(data_len: usize, level: Level) -> EventTraceHeader {
    EventTraceHeader {
        size: u16::try_from(EventTraceHeader::LEN + data_len).unwrap(),
        class: Class::new(EventType::INFO, level, 1),
        guid: GuidOrPtr::from_guid(CLASS_B),
        times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    }
}

struct Fixture<const S: usize, const N: usize> {
    session: Session<S, N>,
    provider: Provider<4>,
    class_a: u64,
    class_b: u64,
    context: SteppingContext,
}

fn fixture<const S: usize, const N: usize>(bitness: Bitness) -> Fixture<S, N> {
    let mut provider = Provider::new(bitness);
    let class_a = provider.register(CLASS_A).unwrap();
    let class_b = provider.register(CLASS_B).unwrap();
    Fixture {
        session: Session::new(0x2C, Level::VERBOSE),
        provider,
        class_a,
        class_b,
        context: context(),
    }
}

impl<const S: usize, const N: usize> Fixture<S, N> {
    /// `trace_event_instance` into the fixture's session with its context.
    fn trace_instance(
        &mut self,
        header: &EventInstanceHeader,
        data: EventData,
        info: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
    ) -> Result<Traced, TraceError> {
        self.provider.trace_event_instance(
            &mut self.session,
            header,
            data,
            info,
            parent,
            &mut self.context,
        )
    }

    /// `trace_event` into the fixture's session with its context.
    fn trace_full(
        &mut self,
        header: &EventTraceHeader,
        data: EventData,
    ) -> Result<Traced, TraceError> {
        self.provider
            .trace_event(&mut self.session, header, data, &mut self.context)
    }

    fn instance(&mut self, data: &[u8]) -> Result<Traced, TraceError> {
        let info = self.provider.create_instance_id(self.class_a).unwrap();
        let header = instance_header(self.class_a, data.len(), EventType::INFO, Level::ERROR);
        self.trace_instance(&header, EventData::Inline(data), &info, None)
    }
}

#[test]
fn instance_event_is_written_as_ntdll_builds_it() {
    for (bitness, header_type) in [(Bitness::Bits32, 0x0B), (Bitness::Bits64, 0x15)] {
        let mut f = fixture::<1024, 2>(bitness);
        let parent = f.provider.create_instance_id(f.class_b).unwrap();
        let child = f.provider.create_instance_id(f.class_a).unwrap();
        let child = f
            .provider
            .create_instance_id(f.class_a)
            .map(|_| child)
            .unwrap();
        assert_eq!((parent.instance_id(), child.instance_id()), (1, 1));
        let mut header = instance_header(f.class_a, 5, EventType::CHECKPOINT, Level::WARNING);
        header.parent_reg_handle = f.class_b;
        let traced = f
            .trace_instance(&header, EventData::Inline(b"hello"), &child, Some(&parent))
            .unwrap();
        assert_eq!(
            traced,
            Traced::Written {
                slot: 0,
                offset: 0x48,
                size: 0x48 + 5
            }
        );
        assert!(f.session.flush(77));
        let buffer = f.session.oldest_full().unwrap();
        let event = &buffer[0x48..];
        assert_eq!(u16_at(event, 0x00), 0x4D, "Size");
        assert_eq!(event[0x02], header_type, "HeaderType");
        assert_eq!(event[0x03], 0xC0, "MarkerFlags");
        assert_eq!(
            u32_at(event, 0x04),
            0x0003_0308,
            "Version: Type 8, Level 3, Version 3"
        );
        assert_eq!(u32_at(event, 0x08), 0x44, "ThreadId");
        assert_eq!(u32_at(event, 0x0C), 0x4, "ProcessId");
        assert_eq!(i64_at(event, 0x10), 0x01DB_0000_0000_0000, "TimeStamp");
        assert_eq!(guid_at(event, 0x18), CLASS_A, "Guid");
        assert_eq!(
            (u32_at(event, 0x28), u32_at(event, 0x2C)),
            (3, 5),
            "KernelTime, UserTime"
        );
        assert_eq!(u32_at(event, 0x30), 1, "InstanceId");
        assert_eq!(u32_at(event, 0x34), 1, "ParentInstanceId");
        assert_eq!(guid_at(event, 0x38), CLASS_B, "ParentGuid");
        assert_eq!(&event[0x48..0x4D], b"hello");
        assert_eq!(&event[0x4D..0x50], [0, 0, 0], "zero padding to 8 bytes");
        assert_eq!(
            u32_at(event, 0x50),
            0xFFFF_FFFF,
            "end mark after the events"
        );
    }
}

#[test]
fn full_event_is_written_with_the_providers_header_type() {
    for (bitness, header_type) in [(Bitness::Bits32, 0x0A), (Bitness::Bits64, 0x14)] {
        let mut f = fixture::<512, 1>(bitness);
        let header = full_header(3, Level::INFORMATION);
        f.trace_full(&header, EventData::Inline(&[7, 8, 9]))
            .unwrap();
        f.session.flush(0);
        let event = &f.session.oldest_full().unwrap()[0x48..];
        assert_eq!(u16_at(event, 0), 0x33);
        assert_eq!(event[2], header_type);
        assert_eq!(event[3], 0xC0);
        assert_eq!(u32_at(event, 4), 0x0001_0400);
        assert_eq!(guid_at(event, 0x18), CLASS_B);
        assert_eq!((u32_at(event, 0x28), u32_at(event, 0x2C)), (3, 5));
        assert_eq!(&event[0x30..0x33], [7, 8, 9]);
    }
}

#[test]
fn sealed_buffer_header_is_filled_truthfully() {
    let mut f = fixture::<256, 3>(Bitness::Bits64);
    f.session.set_processor_number(2);
    // An event of 0x48 + 0x30 = 0x78 bytes ends at 0xC0; a second one would end at 0x138, past
    // the 0x100-byte buffer, so each event seals the buffer before it and takes the next.
    for _ in 0..3 {
        f.instance(&[0xAB; 0x30]).unwrap();
    }
    f.session.flush(999);
    let first = f.session.oldest_full().unwrap();
    assert_eq!(u32_at(first, 0x00), 256, "BufferSize");
    assert_eq!(u32_at(first, 0x04), 0xC0, "SavedOffset");
    assert_eq!(u32_at(first, 0x08), 0xC0, "CurrentOffset");
    assert_eq!(u32_at(first, 0x0C), 0, "ReferenceCount");
    assert_eq!(
        i64_at(first, 0x10),
        0x01DB_0000_0000_0000 + 10_000,
        "TimeStamp: when the second event sealed it"
    );
    assert_eq!(i64_at(first, 0x18), 1, "SequenceNumber");
    assert_eq!(
        &first[0x28..0x2C],
        [2, 8, 0x2C, 0],
        "ProcessorNumber, Alignment, LoggerId"
    );
    assert_eq!(u32_at(first, 0x2C), 3, "State: flush");
    assert_eq!(u32_at(first, 0x30), 0xC0, "Offset");
    assert_eq!(u16_at(first, 0x34), 0, "BufferFlag");
    assert_eq!(u16_at(first, 0x36), 0, "BufferType: generic");
    assert!(first[0xC0..].iter().all(|&byte| byte == 0xFF), "0xFF fill");
    assert!(f.session.release_oldest_full());
    assert!(f.session.release_oldest_full());
    let third = f.session.oldest_full().unwrap();
    assert_eq!(i64_at(third, 0x18), 3);
    assert_eq!(i64_at(third, 0x10), 999, "TimeStamp: the flush time");
    assert!(f.session.release_oldest_full());
    assert!(!f.session.release_oldest_full());
    assert!(!f.session.flush(1000), "nothing to seal");
    assert_eq!(f.session.stats().buffers_written, 3);
}

#[test]
fn event_that_exactly_fits_stays_one_byte_more_moves_on() {
    // 0x48 header + 0x48 first event leaves 0x200 - 0x90 = 0x170 bytes.
    let mut f = fixture::<0x200, 2>(Bitness::Bits64);
    f.instance(&[1; 0]).unwrap();
    let exact = 0x170 - 0x48;
    assert_eq!(
        f.instance(&vec![2; exact]).unwrap(),
        Traced::Written {
            slot: 0,
            offset: 0x90,
            size: 0x170
        }
    );
    assert_eq!(
        f.session.current_fill(),
        0x200 - 0x48,
        "buffer exactly full"
    );
    assert_eq!(f.session.full_count(), 0, "not sealed until the next event");

    let mut g = fixture::<0x200, 2>(Bitness::Bits64);
    g.instance(&[1; 0]).unwrap();
    assert_eq!(
        g.instance(&vec![2; exact + 1]).unwrap(),
        Traced::Written {
            slot: 1,
            offset: 0x48,
            size: 0x171
        }
    );
    assert_eq!(g.session.full_count(), 1);
}

#[test]
fn size_at_buffer_size_minus_72_is_more_data() {
    let mut f = fixture::<0x200, 2>(Bitness::Bits32);
    let limit = 0x200 - 72;
    let error = f.instance(&vec![0; limit - 0x48]).unwrap_err();
    assert_eq!(error, TraceError::EventTooLarge { size: limit, limit });
    assert_eq!(error.win32_code(), Win32Error::MORE_DATA);
    assert_eq!(error.win32_code().0, 234);
    // One byte less is the largest event, and it fits an empty buffer.
    assert!(matches!(
        f.instance(&vec![0; limit - 0x48 - 1]),
        Ok(Traced::Written { offset: 0x48, .. })
    ));
    assert_eq!(f.session.stats().events_lost, 0);
}

#[test]
fn event_over_64k_is_more_data_in_big_buffers() {
    let mut f = fixture::<0x20000, 1>(Bitness::Bits64);
    let error = f.instance(&vec![0; 0x10000 - 0x48]).unwrap_err();
    assert_eq!(
        error,
        TraceError::EventTooLarge {
            size: 0x10000,
            limit: 0x10000
        }
    );
    assert!(f.instance(&vec![0; 0xFFFF - 0x48]).is_ok());
}

#[test]
fn no_free_buffer_loses_the_event_and_counts_it() {
    let mut f = fixture::<0x100, 2>(Bitness::Bits64);
    // Each 0x48 + 0x68 = 0xB0-byte event takes a 0x100 buffer of its own (0xB8 of room).
    f.instance(&[1; 0x68]).unwrap();
    f.instance(&[2; 0x68]).unwrap();
    let lost = f.instance(&[3; 0x68]).unwrap_err();
    assert_eq!(lost, TraceError::NoFreeBuffer { events_lost: 1 });
    assert_eq!(lost.win32_code(), Win32Error::NOT_ENOUGH_MEMORY);
    assert_eq!(
        f.instance(&[4; 8]).unwrap_err(),
        TraceError::NoFreeBuffer { events_lost: 2 }
    );
    let stats = f.session.stats();
    assert_eq!((stats.events_written, stats.events_lost), (2, 2));
    assert_eq!(stats.buffers_written, 2, "both buffers sealed");

    // The caller stores one buffer; the next event goes there and its buffer says events were lost.
    assert_eq!(u16_at(f.session.oldest_full().unwrap(), 0x34), 0);
    assert!(f.session.release_oldest_full());
    f.instance(&[5; 8]).unwrap();
    assert!(f.session.release_oldest_full());
    f.session.flush(0);
    let third = f.session.oldest_full().unwrap();
    assert_eq!(i64_at(third, 0x18), 3);
    assert_eq!(
        u16_at(third, 0x34),
        BufferFlags::EVENTS_LOST.0,
        "ETW_BUFFER_FLAG_EVENTS_LOST"
    );
    assert_eq!(third[0x48 + 0x48], 5, "the event after the loss");
}

#[test]
fn events_keep_their_order_across_buffers() {
    let mut f = fixture::<0x100, 5>(Bitness::Bits32);
    for index in 0u8..9 {
        f.instance(&[index; 0x10]).unwrap();
    }
    f.session.flush(0);
    let mut seen = Vec::new();
    let stored = f
        .session
        .drain(|buffer| {
            let mut offset = 0x48;
            while offset + 4 <= buffer.len() && u32_at(buffer, offset) != 0xFFFF_FFFF {
                let size = usize::from(u16_at(buffer, offset));
                seen.push(buffer[offset + 0x48]);
                offset += size.next_multiple_of(8);
            }
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(stored, 5, "two 0x58-byte events per 0x100 buffer");
    assert_eq!(seen, (0..9).collect::<Vec<u8>>());
    assert_eq!(f.session.free_count(), 5);
}

#[test]
fn drain_keeps_the_buffer_the_store_refused() {
    let mut f = fixture::<0x100, 2>(Bitness::Bits64);
    f.instance(&[1; 0x68]).unwrap();
    f.instance(&[2; 0x68]).unwrap();
    f.session.flush(0);
    let mut calls = 0;
    let result = f.session.drain(|_| {
        calls += 1;
        if calls == 2 {
            Err("disk full")
        } else {
            Ok(())
        }
    });
    assert_eq!(result, Err("disk full"));
    assert_eq!(f.session.full_count(), 1);
    assert_eq!(f.session.oldest_full().unwrap()[0x48 + 0x48], 2);
    assert!(f.session.discard_oldest_full());
    assert_eq!(f.session.stats().buffers_lost, 1);
    assert!(!f.session.discard_oldest_full());
    assert_eq!(f.session.stats().buffers_lost, 1);
}

#[test]
fn flags_without_traced_guid_is_invalid_flags() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let mut header = instance_header(f.class_a, 0, EventType::INFO, Level::ERROR);
    header.times = TimesOrFlags::from_event_id(0, WnodeFlags::USE_MOF_PTR);
    let error = f
        .trace_instance(&header, EventData::Inline(&[]), &info, None)
        .unwrap_err();
    assert_eq!(
        error,
        TraceError::MissingTracedGuidFlag {
            flags: WnodeFlags::USE_MOF_PTR
        }
    );
    assert_eq!(error.win32_code().0, 1004);
    let mut full = full_header(0, Level::ERROR);
    full.times = TimesOrFlags::from_client_context(0, WnodeFlags::EMPTY);
    let error = f.trace_full(&full, EventData::Inline(&[])).unwrap_err();
    assert_eq!(error.win32_code(), Win32Error::INVALID_FLAGS);
    assert_eq!(f.session.stats().events_written, 0);
}

#[test]
fn invalid_parameters_are_error_invalid_parameter() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let good = instance_header(f.class_a, 4, EventType::INFO, Level::ERROR);
    let mut cases: Vec<(
        EventInstanceHeader,
        EventData,
        EventInstanceInfo,
        TraceError,
    )> = vec![];

    let mut wrong_size = good;
    wrong_size.size = 0x38 + 3;
    cases.push((
        wrong_size,
        EventData::Inline(&[0; 4]),
        info,
        TraceError::WrongSize {
            expected: 0x3C,
            found: 0x3B,
        },
    ));
    cases.push((
        good,
        EventData::MofFields(&[&[0; 4]]),
        info,
        TraceError::MofFlagMismatch { flag_set: false },
    ));
    let mut mof = good;
    mof.times
        .set_flags(WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR);
    cases.push((
        mof,
        EventData::Inline(&[0; 4]),
        info,
        TraceError::MofFlagMismatch { flag_set: true },
    ));
    let seventeen: [&[u8]; 17] = [&[1]; 17];
    let mut many = mof;
    many.size = 0x38 + 17 * 16;
    cases.push((
        many,
        EventData::MofFields(&seventeen),
        info,
        TraceError::TooManyMofFields { count: 17 },
    ));
    let mut one_mof = mof;
    one_mof.size = 0x38 + 4;
    cases.push((
        one_mof,
        EventData::MofFields(&[&[0; 4]]),
        info,
        TraceError::WrongSize {
            expected: 0x48,
            found: 0x3C,
        },
    ));
    cases.push((
        good,
        EventData::Inline(&[0; 4]),
        EventInstanceInfo::new(Bitness::Bits64, 0, 1).unwrap(),
        TraceError::EmptyInstanceInfo {
            role: InstanceRole::Event,
            reg_handle: 0,
            instance_id: 1,
        },
    ));
    cases.push((
        good,
        EventData::Inline(&[0; 4]),
        EventInstanceInfo::new(Bitness::Bits64, f.class_a, 0).unwrap(),
        TraceError::EmptyInstanceInfo {
            role: InstanceRole::Event,
            reg_handle: f.class_a,
            instance_id: 0,
        },
    ));
    cases.push((
        good,
        EventData::Inline(&[0; 4]),
        EventInstanceInfo::new(Bitness::Bits32, f.class_a, 1).unwrap(),
        TraceError::InstanceInfoBitness {
            role: InstanceRole::Event,
            expected: Bitness::Bits64,
            found: Bitness::Bits32,
        },
    ));
    let mut other_handle = good;
    other_handle.reg_handle = f.class_b;
    cases.push((
        other_handle,
        EventData::Inline(&[0; 4]),
        info,
        TraceError::RegHandleMismatch {
            role: InstanceRole::Event,
            in_header: f.class_b,
            in_instance_info: f.class_a,
        },
    ));
    for (header, data, info, expected) in cases {
        let error = f.trace_instance(&header, data, &info, None).unwrap_err();
        assert_eq!(error, expected);
        assert_eq!(error.win32_code(), Win32Error::INVALID_PARAMETER, "{error}");
        assert_eq!(error.win32_code().0, 87);
    }
    assert_eq!(f.session.stats().events_written, 0);
}

#[test]
fn parent_instance_info_is_checked_too() {
    let mut f = fixture::<512, 1>(Bitness::Bits32);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let parent = f.provider.create_instance_id(f.class_b).unwrap();
    let header = instance_header(f.class_a, 0, EventType::INFO, Level::ERROR);
    // ParentRegHandle left zero while a parent is given.
    let error = f
        .trace_instance(&header, EventData::Inline(&[]), &info, Some(&parent))
        .unwrap_err();
    assert_eq!(
        error,
        TraceError::RegHandleMismatch {
            role: InstanceRole::Parent,
            in_header: 0,
            in_instance_info: f.class_b
        }
    );
    let stale = EventInstanceInfo::new(Bitness::Bits32, 9, 1).unwrap();
    let error = f
        .trace_instance(&header, EventData::Inline(&[]), &info, Some(&stale))
        .unwrap_err();
    assert_eq!(
        error,
        TraceError::UnknownRegHandle {
            role: InstanceRole::Parent,
            reg_handle: 9
        }
    );
}

#[test]
fn unknown_registration_is_invalid_handle() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let mut header = instance_header(5, 0, EventType::INFO, Level::ERROR);
    header.reg_handle = 5;
    let info = EventInstanceInfo::new(Bitness::Bits64, 5, 1).unwrap();
    let error = f
        .trace_instance(&header, EventData::Inline(&[]), &info, None)
        .unwrap_err();
    assert_eq!(
        error,
        TraceError::UnknownRegHandle {
            role: InstanceRole::Event,
            reg_handle: 5
        }
    );
    assert_eq!(error.win32_code().0, 6);
    assert_eq!(
        f.provider.create_instance_id(0).unwrap_err().win32_code(),
        Win32Error::INVALID_HANDLE
    );
}

#[test]
fn full_registration_table_is_outofmemory() {
    let mut provider = Provider::<2>::new(Bitness::Bits64);
    assert_eq!(provider.register(CLASS_A), Ok(1));
    assert_eq!(provider.register(CLASS_B), Ok(2));
    assert_eq!(
        provider.register(CLASS_A),
        Ok(1),
        "registering again gives the same handle"
    );
    let error = provider.register(Guid::NIL).unwrap_err();
    assert_eq!(error, TraceError::RegistrationTableFull { capacity: 2 });
    assert_eq!(error.win32_code().0, 14);
    assert_eq!(provider.class_guid(2), Some(CLASS_B));
    assert_eq!(provider.handle_of(CLASS_B), Some(2));
}

#[test]
fn instance_ids_count_per_class_and_skip_zero() {
    let mut provider = Provider::<2>::new(Bitness::Bits32);
    let a = provider.register(CLASS_A).unwrap();
    let b = provider.register(CLASS_B).unwrap();
    let ids: Vec<u32> = (0..3)
        .map(|_| provider.create_instance_id(a).unwrap().instance_id())
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    let info = provider.create_instance_id(b).unwrap();
    assert_eq!((info.reg_handle(), info.instance_id()), (2, 1));
    assert_eq!(info.bitness(), Bitness::Bits32);
    assert_eq!(info.to_bytes_vec(), [2, 0, 0, 0, 1, 0, 0, 0]);
}

trait ToBytesVec {
    fn to_bytes_vec(&self) -> Vec<u8>;
}
impl ToBytesVec for EventInstanceInfo {
    fn to_bytes_vec(&self) -> Vec<u8> {
        let mut out = vec![0; self.byte_len()];
        self.emit(&mut out).unwrap();
        out
    }
}

#[test]
fn mof_fields_are_gathered_in_order() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let mut header = instance_header(f.class_a, 3 * 16, EventType::INFO, Level::ERROR);
    header
        .times
        .set_flags(WnodeFlags::TRACED_GUID | WnodeFlags::USE_MOF_PTR);
    let fields: [&[u8]; 3] = [b"ab", b"", b"cde"];
    let traced = f
        .trace_instance(&header, EventData::MofFields(&fields), &info, None)
        .unwrap();
    assert!(matches!(traced, Traced::Written { size: 0x4D, .. }));
    f.session.flush(0);
    let event = &f.session.oldest_full().unwrap()[0x48..];
    assert_eq!(&event[0x48..0x4D], b"abcde");
    assert!(f.session.release_oldest_full());
    // Sixteen fields are allowed.
    let sixteen: [&[u8]; 16] = [b"x"; 16];
    header.size = 0x38 + 16 * 16;
    let traced = f.trace_instance(&header, EventData::MofFields(&sixteen), &info, None);
    assert!(
        matches!(traced, Ok(Traced::Written { size: 0x58, .. })),
        "{traced:?}"
    );
}

struct GuidTable;
impl TraceContext for GuidTable {
    fn timestamp(&mut self) -> i64 {
        42
    }
    fn guid_at(&self, guid_ptr: u64) -> Option<Guid> {
        (guid_ptr == 0x1000).then_some(CLASS_A)
    }
}

#[test]
fn guid_pointer_is_resolved_and_copied_into_the_event() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let mut header = full_header(0, Level::ERROR);
    header.guid = GuidOrPtr::from_guid_ptr(0x1000);
    header
        .times
        .set_flags(WnodeFlags::TRACED_GUID | WnodeFlags::USE_GUID_PTR);
    f.provider
        .trace_event(
            &mut f.session,
            &header,
            EventData::Inline(&[]),
            &mut GuidTable,
        )
        .unwrap();
    header.guid = GuidOrPtr::from_guid_ptr(0x2000);
    let error = f
        .provider
        .trace_event(
            &mut f.session,
            &header,
            EventData::Inline(&[]),
            &mut GuidTable,
        )
        .unwrap_err();
    assert_eq!(error, TraceError::UnresolvedGuidPtr { guid_ptr: 0x2000 });
    assert_eq!(error.win32_code(), Win32Error::INVALID_PARAMETER);
    f.session.flush(0);
    let event = &f.session.oldest_full().unwrap()[0x48..];
    assert_eq!(guid_at(event, 0x18), CLASS_A);
    assert_eq!(i64_at(event, 0x10), 42);
    assert_eq!(
        (
            u32_at(event, 8),
            u32_at(event, 0x0C),
            u32_at(event, 0x28),
            u32_at(event, 0x2C)
        ),
        (0, 0, 0, 0),
        "defaults of TraceContext: ThreadId, ProcessId, KernelTime, UserTime"
    );

    // A context that only keeps time resolves no GuidPtr.
    struct ClockOnly;
    impl TraceContext for ClockOnly {
        fn timestamp(&mut self) -> i64 {
            7
        }
    }
    header.guid = GuidOrPtr::from_guid_ptr(0x1000);
    assert_eq!(
        f.provider.trace_event(
            &mut f.session,
            &header,
            EventData::Inline(&[]),
            &mut ClockOnly
        ),
        Err(TraceError::UnresolvedGuidPtr { guid_ptr: 0x1000 })
    );
}

#[test]
fn use_timestamp_keeps_the_callers_time() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let mut header = full_header(0, Level::ERROR);
    header.timestamp = -5;
    header
        .times
        .set_flags(WnodeFlags::TRACED_GUID | WnodeFlags::USE_TIMESTAMP);
    f.trace_full(&header, EventData::Inline(&[])).unwrap();
    f.session.flush(0);
    assert_eq!(i64_at(&f.session.oldest_full().unwrap()[0x48..], 0x10), -5);
    assert_eq!(
        f.context.now,
        context().now,
        "the clock was not read for the event"
    );
}

#[test]
fn level_filter_follows_the_enable_level() {
    let mut f = fixture::<0x1000, 1>(Bitness::Bits64);
    f.session.set_enable_level(Level::WARNING);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let mut outcomes = Vec::new();
    for level in 0..=6u8 {
        let header = instance_header(f.class_a, 0, EventType::INFO, Level(level));
        outcomes.push(matches!(
            f.trace_instance(&header, EventData::Inline(&[]), &info, None),
            Ok(Traced::Written { .. })
        ));
    }
    // "if the controller specifies TRACE_LEVEL_WARNING (3), the provider also generates
    // TRACE_LEVEL_FATAL (1) and TRACE_LEVEL_ERROR (2) events"; level 0 has no severity.
    assert_eq!(outcomes, [true, true, true, true, false, false, false]);
    f.session.set_enable_level(Level::NONE);
    let header = full_header(0, Level::CRITICAL);
    assert_eq!(
        f.trace_full(&header, EventData::Inline(&[])).unwrap(),
        Traced::FilteredOut
    );
    assert_eq!(f.session.stats().events_written, 4);
}

#[test]
fn the_level_filter_comes_before_the_checks() {
    let mut f = fixture::<512, 1>(Bitness::Bits64);
    let mut header = full_header(0, Level::VERBOSE);
    header.size = 0x20;
    let error = f.trace_full(&header, EventData::Inline(&[])).unwrap_err();
    assert_eq!(error.win32_code(), Win32Error::INVALID_PARAMETER);
    // An event the session does not take is not checked: it costs the level comparison only.
    f.session.set_enable_level(Level::NONE);
    assert_eq!(
        f.trace_full(&header, EventData::Inline(&[])),
        Ok(Traced::FilteredOut)
    );
    f.session.set_enable_level(Level::ERROR);
    let info = f.provider.create_instance_id(f.class_a).unwrap();
    let mut header = instance_header(f.class_a, 3, EventType::INFO, Level::WARNING);
    header.times = TimesOrFlags::from_event_id(0, WnodeFlags::USE_MOF_PTR);
    assert_eq!(
        f.trace_instance(&header, EventData::Inline(&[]), &info, None),
        Ok(Traced::FilteredOut)
    );
    let clock = f.context.now;
    assert_eq!(
        f.trace_instance(&header, EventData::Inline(&[]), &info, None),
        Ok(Traced::FilteredOut)
    );
    assert_eq!(
        f.context.now, clock,
        "no clock reading for a filtered event"
    );
    assert_eq!(f.session.stats().events_written, 0);
}

#[test]
fn errors_say_what_was_expected_and_found() {
    let cases = [
        (
            TraceError::WrongSize {
                expected: 0x3C,
                found: 0x3B,
            },
            "Size must be 0x3c (header plus event data), found 0x3b",
        ),
        (
            TraceError::NoFreeBuffer { events_lost: 3 },
            "expected a free trace buffer, found none: the event was discarded (3 lost so far)",
        ),
        (
            TraceError::EventTooLarge {
                size: 0x1B8,
                limit: 0x1B8,
            },
            "an event must be smaller than 0x1b8 bytes (buffer size minus 72, at most 64 KiB), found 0x1b8",
        ),
        (
            TraceError::UnknownRegHandle {
                role: InstanceRole::Event,
                reg_handle: 9,
            },
            "instance info must hold a handle this provider registered, found 0x9",
        ),
        (
            TraceError::UnknownRegHandle {
                role: InstanceRole::Parent,
                reg_handle: 9,
            },
            "parent instance info must hold a handle this provider registered, found 0x9",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
    assert_eq!(format!("{:?}", Win32Error(234)), "MORE_DATA");
    assert_eq!(format!("{:?}", Win32Error(5)), "Win32Error(0x5)");
}

#[test]
fn debug_shows_the_state_not_the_buffers() {
    let f = fixture::<0x1000, 4>(Bitness::Bits64);
    let text = format!("{:?}", f.session);
    assert!(text.starts_with("Session { buffer_size: 4096, slots: [Free, Free, Free, Free]"));
    assert!(text.contains("when_full: DropNewest"));
    assert!(text.contains("stats: SessionStats { events_written: 0"));
    assert!(text.len() < 400, "{text}");
}

#[test]
fn accessors_say_how_the_session_was_made() {
    let f = fixture::<0x400, 2>(Bitness::Bits32);
    assert_eq!(f.session.logger_id(), 0x2C);
    assert_eq!(f.session.buffer_size(), 0x400);
    assert_eq!(f.session.event_size_limit(), 0x400 - 72);
    assert_eq!(f.session.enable_level(), Level::VERBOSE);
    assert_eq!((f.session.free_count(), f.session.full_count()), (2, 0));
}

/// The events of a sealed buffer, walked by hand: (offset, `Size`) of each.
fn walk(buffer: &[u8]) -> Vec<(usize, usize)> {
    let end = usize::try_from(u32_at(buffer, 0x30)).unwrap();
    let mut events = Vec::new();
    let mut offset = 0x48;
    while offset < end {
        let size = usize::from(u16_at(buffer, offset));
        events.push((offset, size));
        offset += size.next_multiple_of(8);
    }
    assert_eq!(offset, end, "the events end at Offset");
    events
}

#[test]
fn a_lost_event_reads_no_clock_and_spends_no_sequence_number() {
    let mut f = fixture::<0x100, 2>(Bitness::Bits64);
    let start = f.context.now;
    // Each 0x48 + 0x68 = 0xB0-byte event takes a 0x100 buffer of its own.
    f.instance(&[1; 0x68]).unwrap();
    f.instance(&[2; 0x68]).unwrap();
    let before = f.context.now;
    assert_eq!(before, start + 2 * 10_000, "two readings");
    assert!(f.instance(&[3; 0x68]).is_err());
    assert!(f.instance(&[4; 0x08]).is_err());
    assert_eq!(f.context.now, before, "no reading for the lost events");
    assert_eq!(
        f.session.full_count(),
        2,
        "the lost event sealed the second buffer"
    );
    let second = f.session.drain(|_| Ok::<(), ()>(())).unwrap();
    assert_eq!(second, 2);
    f.instance(&[5; 0x08]).unwrap();
    f.session.flush(before + 5);
    let third = f.session.oldest_full().unwrap();
    assert_eq!(
        i64_at(third, 0x18),
        3,
        "SequenceNumber: none spent on the losses"
    );
    assert_eq!(u16_at(third, 0x34), BufferFlags::EVENTS_LOST.0);
    assert_eq!(
        i64_at(third, 0x48 + 0x10),
        before,
        "the next event has the next reading"
    );
}

#[test]
fn a_buffer_sealed_by_a_lost_event_has_its_last_events_time() {
    let mut f = fixture::<0x100, 2>(Bitness::Bits64);
    f.instance(&[1; 0x68]).unwrap();
    f.instance(&[2; 0x68]).unwrap();
    f.instance(&[3; 0x68]).unwrap_err();
    assert!(f.session.release_oldest_full());
    let second = f.session.oldest_full().unwrap();
    assert_eq!(i64_at(second, 0x18), 2);
    assert_eq!(
        i64_at(second, 0x10),
        i64_at(second, 0x48 + 0x10),
        "TimeStamp: its one event's"
    );
}

#[test]
fn flight_recorder_keeps_the_newest_buffers_in_order_across_many_wraps() {
    let mut f = fixture::<0x100, 3>(Bitness::Bits32);
    f.session.set_when_full(WhenFull::OverwriteOldest);
    assert_eq!(f.session.when_full(), WhenFull::OverwriteOldest);
    let start = f.context.now;
    // Two 0x58-byte events fit a 0x100-byte buffer (0xB8 bytes of room).
    for index in 0u32..1000 {
        let data: Vec<u8> = index.to_le_bytes().repeat(4);
        assert!(matches!(
            f.instance(&data),
            Ok(Traced::Written { size: 0x58, .. })
        ));
    }
    assert_eq!(f.context.now, start + 1000 * 10_000, "one reading an event");
    let stats = f.session.stats();
    assert_eq!(stats.events_written, 1000);
    assert_eq!(stats.events_lost, 0);
    assert_eq!(stats.buffers_written, 499, "the 500th is current");
    assert_eq!((f.session.full_count(), f.session.free_count()), (2, 0));
    assert_eq!(stats.buffers_overwritten, 497);
    assert_eq!(stats.events_overwritten, 994);
    assert!(f.session.flush(1));

    let mut sequence_numbers = Vec::new();
    let mut indexes = Vec::new();
    f.session
        .drain(|buffer| {
            sequence_numbers.push(i64_at(buffer, 0x18));
            assert_eq!(u16_at(buffer, 0x34), 0, "overwriting is not a loss");
            for (offset, _) in walk(buffer) {
                let index = u32_at(buffer, offset + 0x48);
                assert_eq!(
                    i64_at(buffer, offset + 0x10),
                    start + i64::from(index) * 10_000
                );
                indexes.push(index);
            }
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(sequence_numbers, [498, 499, 500]);
    assert_eq!(indexes, (994..1000).collect::<Vec<u32>>());
    assert_eq!(
        f.session.stats().events_overwritten as usize + indexes.len(),
        1000
    );
}

#[test]
fn flight_recorder_with_the_caller_taking_buffers_overwrites_only_what_it_left() {
    let mut f = fixture::<0x100, 2>(Bitness::Bits64);
    f.session.set_when_full(WhenFull::OverwriteOldest);
    let mut read = Vec::new();
    for index in 0u32..300 {
        f.instance(&index.to_le_bytes().repeat(4)).unwrap();
        // The caller keeps up for a while, then falls behind.
        if index < 100 || index % 7 == 0 {
            while let Some(buffer) = f.session.oldest_full() {
                read.extend(walk(buffer).iter().map(|(at, _)| u32_at(buffer, at + 0x48)));
                f.session.release_oldest_full();
            }
        }
    }
    f.session.flush(0);
    f.session
        .drain(|buffer| {
            read.extend(walk(buffer).iter().map(|(at, _)| u32_at(buffer, at + 0x48)));
            Ok::<(), ()>(())
        })
        .unwrap();
    let stats = f.session.stats();
    assert!(stats.buffers_overwritten > 0);
    assert_eq!(read.len() + stats.events_overwritten as usize, 300);
    assert!(
        read.windows(2).all(|pair| pair[0] < pair[1]),
        "in order, once each"
    );
    // The events sealed while it kept up (all but the current buffer's two) were all read.
    assert!(
        read[..98].iter().copied().eq(0..98),
        "nothing overwritten while it kept up"
    );
}

#[test]
fn flight_recorder_with_one_buffer_keeps_the_current_one() {
    let mut f = fixture::<0x100, 1>(Bitness::Bits32);
    f.session.set_when_full(WhenFull::OverwriteOldest);
    for index in 0u8..9 {
        f.instance(&[index; 0x68]).unwrap();
    }
    let stats = f.session.stats();
    assert_eq!((stats.buffers_written, stats.buffers_overwritten), (8, 8));
    assert!(f.session.flush(0));
    let buffer = f.session.oldest_full().unwrap();
    assert_eq!(i64_at(buffer, 0x18), 9);
    assert_eq!(buffer[0x48 + 0x48], 8);
}

#[test]
fn disabled_is_a_session_enabled_at_none() {
    let mut session = Session::<0x200, 2>::disabled();
    assert_eq!(session.enable_level(), Level::NONE);
    assert_eq!(session.logger_id(), 0);
    assert_eq!(session.when_full(), WhenFull::DropNewest);
    assert_eq!(session.stats(), Default::default());
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    let class = provider.register(CLASS_A).unwrap();
    let info = provider.create_instance_id(class).unwrap();
    let header = instance_header(class, 0, EventType::INFO, Level::CRITICAL);
    let mut clock = context();
    let trace = |session: &mut Session<0x200, 2>, clock: &mut SteppingContext| {
        provider.trace_event_instance(session, &header, EventData::Inline(&[]), &info, None, clock)
    };
    assert_eq!(trace(&mut session, &mut clock), Ok(Traced::FilteredOut));
    session.set_enable_level(Level::ERROR);
    session.set_logger_id(0x2C);
    assert!(trace(&mut session, &mut clock).is_ok());
    session.flush(0);
    assert_eq!(
        u16_at(session.oldest_full().unwrap(), 0x2A),
        0x2C,
        "LoggerId"
    );
    let flight = Session::<0x200, 2>::with_when_full(3, Level::ERROR, WhenFull::OverwriteOldest);
    assert_eq!(
        (
            flight.logger_id(),
            flight.enable_level(),
            flight.when_full()
        ),
        (3, Level::ERROR, WhenFull::OverwriteOldest)
    );
}

#[test]
fn the_logfile_header_takes_the_sessions_loss_counts() {
    let mut f = fixture::<0x100, 1>(Bitness::Bits64);
    f.instance(&[1; 0x68]).unwrap();
    f.instance(&[2; 0x68]).unwrap_err();
    f.instance(&[3; 0x68]).unwrap_err();
    assert!(f.session.discard_oldest_full());
    let mut header = etw_classic::EtlHeader::new(Bitness::Bits64, 0x100);
    header.record_losses(&f.session.stats());
    assert_eq!((header.events_lost, header.buffers_lost), (2, 1));
}
