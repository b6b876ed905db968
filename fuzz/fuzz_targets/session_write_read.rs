//! The provider and session driven by arbitrary operations, against a model of the documented
//! rules, and every buffer they hand out read back byte by byte at the layout offsets.
//!
//! The input is a program: a byte whose bit 0 chooses the bitness and bit 1 the session's mode
//! (drop the newest event, or overwrite the oldest buffer: a flight recorder), then steps, each an opcode byte, four field bytes, a
//! data length byte (counting pairs of bytes) and the data. Steps trace instance events (with or
//! without a parent, inline or as `MOF_FIELD`s, sometimes with a wrong `Size` or a missing
//! flag), trace full events, change the enable level, flush, and hand buffers back (stored, or
//! discarded as lost).
//!
//! The model (each rule cited where it is applied) predicts, for every call, its result: the
//! error (`MissingTracedGuidFlag` 1004, `TooManyMofFields` and `WrongSize` 87, `EventTooLarge`
//! 234, `NoFreeBuffer` 8), `FilteredOut`, or `Written` at the offset the buffer rules give; and
//! it predicts the session's counters, its full and free buffers, and the bytes of every buffer
//! handed out: the `WMI_BUFFER_HEADER` members, each event's header members and data at their
//! offsets, zero padding to 8 bytes, and 0xFF fill after the events. Laws it checks with that:
//! every accepted event is read back exactly once, in order, unless a flight recorder overwrote
//! its buffer (then it is counted as overwritten); a lost event reads no clock, so the n-th
//! written event has the n-th reading; `SequenceNumber`s count every sealed buffer.
#![no_main]

use std::collections::VecDeque;

use etw_classic::{
    write::{SessionStats, WhenFull},
    Bitness, Class, EventData, EventInstanceHeader, EventInstanceInfo, EventTraceHeader, EventType,
    Guid, GuidOrPtr, Level, Provider, Session, SteppingContext, TimesOrFlags, TraceError, Traced,
    WnodeFlags,
};
use etw_classic_fuzz::model::{self, header_type, le16, le32, le64, le_i64, BUFFER_HEADER_LEN};
use libfuzzer_sys::fuzz_target;

const BUFFER_SIZE: usize = 512;
const BUFFER_COUNT: usize = 3;
const LOGGER_ID: u16 = 3;
const CLASSES: [Guid; 2] = [
    Guid::from_fields(1, 2, 3, [4; 8]),
    Guid::from_fields(5, 6, 7, [8; 8]),
];
/// What the context stamps into every event (documented: `ThreadId`, `ProcessId` and the CPU
/// times come from the caller's `TraceContext`).
const THREAD_ID: u32 = 0x0BAD_F00D;
const PROCESS_ID: u32 = 0x0000_1234;
const KERNEL_TIME: u32 = 0x55;
const USER_TIME: u32 = 0x66;

/// "Size must be less than the session buffer size minus 72 (0x48, the buffer header)"
/// (LAYOUTS §Rules from the seeds).
const SIZE_LIMIT: usize = BUFFER_SIZE - 72;
/// "MAX_MOF_FIELDS 16" (LAYOUTS §Constants).
const MAX_MOF_FIELDS: usize = 16;

/// An event the model expects in a buffer.
#[derive(Debug)]
struct ModelEvent {
    offset: usize,
    size: usize,
    header_type: u8,
    class: [u8; 4],
    guid: Guid,
    /// `InstanceId`, `ParentInstanceId`, `ParentGuid` of an instance event.
    instance: Option<(u32, u32, Guid)>,
    /// `TimeStamp`: the clock's reading when the event was written.
    timestamp: i64,
    data: Vec<u8>,
}

/// A buffer the model has sealed.
#[derive(Debug)]
struct Sealed {
    used: usize,
    sequence: i64,
    /// `TimeStamp`: the time of the call that sealed it.
    timestamp: i64,
    events_lost: bool,
    events: Vec<ModelEvent>,
}

/// The session, as its documented rules describe it.
#[derive(Debug)]
struct SessionModel {
    level: u8,
    when_full: WhenFull,
    /// The clock's next reading (the context steps by 1 at each).
    clock: i64,
    /// The buffer being filled: bytes used (header included) and its events.
    current: Option<(usize, Vec<ModelEvent>)>,
    full: VecDeque<Sealed>,
    free: usize,
    next_sequence: i64,
    lost_since_seal: bool,
    stats: SessionStats,
}

impl SessionModel {
    fn new(level: u8, when_full: WhenFull, clock: i64) -> Self {
        Self {
            level,
            when_full,
            clock,
            current: None,
            full: VecDeque::new(),
            free: BUFFER_COUNT,
            next_sequence: 1,
            lost_since_seal: false,
            stats: SessionStats::default(),
        }
    }

    /// "Enabling level N includes every event whose level is 1..=N" (LAYOUTS §Constants);
    /// TRACE_LEVEL_NONE (0) for the session takes nothing, and documented: an event of level 0
    /// carries no severity and is taken by any enabled session.
    fn enables(&self, event_level: u8) -> bool {
        self.level != 0 && event_level <= self.level
    }

    /// Seals the current buffer at `timestamp`: it waits for the caller with the next sequence
    /// number, marked when an event was lost since the last one was sealed (documented on
    /// `Session`).
    fn seal(&mut self, timestamp: i64) {
        if let Some((used, events)) = self.current.take() {
            self.full.push_back(Sealed {
                used,
                sequence: self.next_sequence,
                timestamp,
                events_lost: std::mem::take(&mut self.lost_since_seal),
                events,
            });
            self.next_sequence += 1;
            self.stats.buffers_written += 1;
        }
    }

    /// Places an event of `size` bytes; returns its offset in its buffer.
    /// - "Size must be less than the session buffer size minus 72" (LAYOUTS §Rules from the
    ///   seeds): `ERROR_MORE_DATA`;
    /// - "Data from one event never spans two buffers" (LAYOUTS §Rules): an event that does not
    ///   fit what is left seals the buffer and starts the next free one, at 0x48;
    /// - "ERROR_NOT_ENOUGH_MEMORY when no free buffer is left (the event is discarded, not
    ///   blocked on)" (LAYOUTS §Rules), and counted as lost; or, in a flight recorder
    ///   (documented on `WhenFull`), the oldest full buffer is overwritten, its events counted;
    /// - "Events in a buffer are 8-byte aligned" (LAYOUTS §Trace buffers);
    /// - documented on `Session`: the clock is read once for an event written, never for one
    ///   lost; a buffer sealed by an event has that event's time, or, when the event is lost,
    ///   the time of the buffer's last event.
    fn write(&mut self, mut event: ModelEvent) -> Result<(usize, u16), TraceError> {
        let size = event.size;
        if size >= SIZE_LIMIT {
            return Err(TraceError::EventTooLarge {
                size,
                limit: SIZE_LIMIT,
            });
        }
        let fits = matches!(&self.current, Some((used, _)) if used + size <= BUFFER_SIZE);
        if !fits {
            let none_free = self.free == 0;
            if none_free && self.when_full == WhenFull::DropNewest {
                let last = self
                    .current
                    .as_ref()
                    .and_then(|(_, events)| events.last())
                    .map(|event| event.timestamp);
                if let Some(last) = last {
                    self.seal(last);
                }
                self.stats.events_lost += 1;
                self.lost_since_seal = true;
                return Err(TraceError::NoFreeBuffer {
                    events_lost: self.stats.events_lost,
                });
            }
            self.seal(self.clock);
            if self.free == 0 {
                let overwritten = self.full.pop_front().expect("every buffer is full");
                self.stats.events_overwritten += overwritten.events.len() as u32;
                self.stats.buffers_overwritten += 1;
                self.free += 1;
            }
            self.free -= 1;
            self.current = Some((BUFFER_HEADER_LEN, Vec::new()));
        }
        event.timestamp = self.clock;
        self.clock += 1;
        let (used, events) = self.current.as_mut().expect("a current buffer");
        let offset = *used;
        *used += model::align(size);
        event.offset = offset;
        events.push(event);
        self.stats.events_written += 1;
        Ok((offset, size as u16))
    }

    /// `flush` seals the current buffer, at the time given, if it holds an event.
    fn flush(&mut self, timestamp: i64) -> bool {
        let sealing = self.current.is_some();
        self.seal(timestamp);
        sealing
    }
}

/// The bytes of a buffer handed out, against the model's sealed buffer: the `WMI_BUFFER_HEADER`
/// members at their offsets (LAYOUTS §Trace buffers) with the values the session documents, each
/// event at its offset, zero padding, and 0xFF after the events.
fn check_buffer(bytes: &[u8], sealed: &Sealed) {
    let used = sealed.used as u32;
    assert_eq!(le32(bytes, 0x00), BUFFER_SIZE as u32, "BufferSize");
    assert_eq!(le32(bytes, 0x04), used, "SavedOffset");
    assert_eq!(le32(bytes, 0x08), used, "CurrentOffset");
    assert_eq!(le32(bytes, 0x0C), 0, "ReferenceCount");
    assert_eq!(le_i64(bytes, 0x10), sealed.timestamp, "TimeStamp");
    assert_eq!(le_i64(bytes, 0x18), sealed.sequence, "SequenceNumber");
    assert_eq!(le64(bytes, 0x20), 0, "clock/frequency");
    // ETW_BUFFER_CONTEXT: ProcessorNumber 0, Alignment 8 ("always eight"), LoggerId.
    assert_eq!(bytes[0x28..0x2A], [0, 8], "ProcessorNumber, Alignment");
    assert_eq!(le16(bytes, 0x2A), LOGGER_ID, "LoggerId");
    // State 3, "flush" (EVENT-HEADERS §8: every buffer of the real traces has State 3).
    assert_eq!(le32(bytes, 0x2C), 3, "State");
    assert_eq!(le32(bytes, 0x30), used, "Offset");
    // ETW_BUFFER_FLAG_EVENTS_LOST 2 (EVENT-HEADERS §7); BufferType GENERIC 0.
    let flag = if sealed.events_lost { 2 } else { 0 };
    assert_eq!(le16(bytes, 0x34), flag, "BufferFlag");
    assert_eq!(le16(bytes, 0x36), 0, "BufferType");
    assert_eq!(bytes[0x38..0x48], [0; 16], "ReferenceTime");
    assert!(
        bytes[sealed.used..].iter().all(|&byte| byte == 0xFF),
        "0xFF after the events"
    );

    let mut next = BUFFER_HEADER_LEN;
    for event in &sealed.events {
        assert_eq!(event.offset, next, "events one after another, 8-aligned");
        let e = &bytes[event.offset..event.offset + event.size];
        check_event(e, event);
        let padded = model::align(event.size);
        assert!(
            bytes[event.offset + event.size..event.offset + padded]
                .iter()
                .all(|&byte| byte == 0),
            "writers of new buffers pad with zeros (LAYOUTS §Small structs)"
        );
        next += padded;
    }
    assert_eq!(
        next, sealed.used,
        "Offset is the end of the last event's padding"
    );
}

/// One event's bytes at the offsets of `EVENT_TRACE_HEADER` (LAYOUTS §EVENT_TRACE_HEADER) and,
/// for an instance event, `EVENT_INSTANCE_GUID_HEADER` (LAYOUTS §EVENT_INSTANCE_GUID_HEADER).
fn check_event(e: &[u8], event: &ModelEvent) {
    assert_eq!(usize::from(le16(e, 0x00)), event.size, "Size");
    assert_eq!(e[0x02], event.header_type, "HeaderType");
    assert_eq!(e[0x03], 0xC0, "MarkerFlags");
    assert_eq!(e[0x04..0x08], event.class, "Class");
    assert_eq!(le32(e, 0x08), THREAD_ID, "ThreadId");
    assert_eq!(le32(e, 0x0C), PROCESS_ID, "ProcessId");
    assert_eq!(le_i64(e, 0x10), event.timestamp, "TimeStamp");
    assert_eq!(model::guid(e, 0x18), event.guid, "Guid");
    assert_eq!(le32(e, 0x28), KERNEL_TIME, "KernelTime");
    assert_eq!(le32(e, 0x2C), USER_TIME, "UserTime");
    let header_len = match event.instance {
        Some((instance_id, parent_instance_id, parent_guid)) => {
            assert_eq!(le32(e, 0x30), instance_id, "InstanceId");
            assert_eq!(le32(e, 0x34), parent_instance_id, "ParentInstanceId");
            assert_eq!(model::guid(e, 0x38), parent_guid, "ParentGuid");
            0x48
        }
        None => 0x30,
    };
    assert_eq!(e[header_len..], event.data[..], "event data");
}

struct Program<'a> {
    bytes: &'a [u8],
}

impl<'a> Program<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(*first)
    }
    fn take(&mut self, len: usize) -> &'a [u8] {
        let (taken, rest) = self.bytes.split_at(len.min(self.bytes.len()));
        self.bytes = rest;
        taken
    }
}

struct Harness {
    session: Session<BUFFER_SIZE, BUFFER_COUNT>,
    model: SessionModel,
    provider: Provider<2>,
    bitness: Bitness,
    handles: [u64; 2],
    last_instance: [Option<EventInstanceInfo>; 2],
    context: SteppingContext,
}

impl Harness {
    /// The call's result against the model's prediction, then the session's state.
    fn check_call(&self, result: Result<Traced, TraceError>, expected: Result<Traced, TraceError>) {
        match (result, expected) {
            (
                Ok(Traced::Written { slot, offset, size }),
                Ok(Traced::Written {
                    offset: model_offset,
                    size: model_size,
                    ..
                }),
            ) => {
                assert!(slot < BUFFER_COUNT);
                assert_eq!(
                    (offset, size),
                    (model_offset, model_size),
                    "where it was written"
                );
            }
            (result, expected) => assert_eq!(result, expected, "the call's result"),
        }
        if let Err(error) = result {
            // Each error's documented Win32 code (LAYOUTS §Rules from the seeds).
            let code = match error {
                TraceError::MissingTracedGuidFlag { .. } => 1004,
                TraceError::TooManyMofFields { .. } | TraceError::WrongSize { .. } => 87,
                TraceError::EventTooLarge { .. } => 234,
                TraceError::NoFreeBuffer { .. } => 8,
                other => panic!("an error the program never provokes: {other:?}"),
            };
            assert_eq!(error.win32_code().0, code, "{error:?}");
        }
        self.check_state();
    }

    fn check_state(&self) {
        assert_eq!(
            self.context.now, self.model.clock,
            "one clock reading per event written, none for the others"
        );
        assert_eq!(
            self.session.stats(),
            self.model.stats,
            "the session's counters"
        );
        assert_eq!(
            self.session.full_count(),
            self.model.full.len(),
            "full buffers"
        );
        assert_eq!(self.session.free_count(), self.model.free, "free buffers");
    }

    /// Takes the oldest full buffer out, checks its bytes against the model, and gives it back.
    fn hand_out(&mut self, discard: bool) {
        let Some(sealed) = self.model.full.pop_front() else {
            assert!(self.session.oldest_full().is_none());
            assert!(!self.session.release_oldest_full());
            assert!(!self.session.discard_oldest_full());
            return;
        };
        let bytes = self.session.oldest_full().expect("a full buffer");
        check_buffer(bytes, &sealed);
        self.model.free += 1;
        if discard {
            assert!(self.session.discard_oldest_full());
            self.model.stats.buffers_lost += 1;
        } else {
            assert!(self.session.release_oldest_full());
        }
        self.check_state();
    }

    /// The event the model writes, and the result it predicts.
    fn predict(&mut self, level: u8, event: ModelEvent) -> Result<Traced, TraceError> {
        if !self.model.enables(level) {
            return Ok(Traced::FilteredOut);
        }
        self.model
            .write(event)
            .map(|(offset, size)| Traced::Written {
                slot: 0,
                offset,
                size,
            })
    }
}

/// `Class` as stored: Type, Level, then Version little-endian (LAYOUTS §EVENT_TRACE_HEADER).
fn class_bytes(event_type: u8, level: u8, version: u16) -> [u8; 4] {
    let [low, high] = version.to_le_bytes();
    [event_type, level, low, high]
}

fuzz_target!(|input: &[u8]| {
    let mut program = Program { bytes: input };
    let setup = program.byte().unwrap_or(0);
    let bitness = if setup & 1 == 0 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let when_full = if setup & 2 == 0 {
        WhenFull::DropNewest
    } else {
        WhenFull::OverwriteOldest
    };
    let mut provider = Provider::<2>::new(bitness);
    let handles = CLASSES.map(|class| provider.register(class).unwrap());
    let mut harness = Harness {
        session: Session::with_when_full(LOGGER_ID, Level::VERBOSE, when_full),
        model: SessionModel::new(Level::VERBOSE.0, when_full, 100),
        provider,
        bitness,
        handles,
        last_instance: [None; 2],
        context: SteppingContext {
            now: 100,
            step: 1,
            thread_id: THREAD_ID,
            process_id: PROCESS_ID,
            kernel_time: KERNEL_TIME,
            user_time: USER_TIME,
        },
    };
    // "0x0B = INSTANCE32 ..., 0x15 = INSTANCE64" by the provider's bitness (LAYOUTS
    // §EVENT_INSTANCE_GUID_HEADER), FULL_HEADER32/64 likewise (§The first four bytes).
    let (instance_type, full_type) = match harness.bitness {
        Bitness::Bits32 => (header_type::INSTANCE32, header_type::FULL_HEADER32),
        Bitness::Bits64 => (header_type::INSTANCE64, header_type::FULL_HEADER64),
    };
    while let Some(opcode) = program.byte() {
        let fields = program.take(4);
        let field = |index: usize| fields.get(index).copied().unwrap_or(0);
        let (event_type, level, version) = (field(0), field(1) % 8, u16::from(field(2)));
        let class = Class::new(EventType(event_type), Level(level), version);
        let tweak = field(3);
        let data_len = usize::from(program.byte().unwrap_or(0)) * 2;
        let data = program.take(data_len);
        match opcode % 8 {
            0..=2 => {
                let which = usize::from(opcode & 1);
                let info = harness
                    .provider
                    .create_instance_id(harness.handles[which])
                    .unwrap();
                let parent = if opcode & 2 != 0 {
                    harness.last_instance[1 - which]
                } else {
                    None
                };
                let chunks: Vec<&[u8]> = data.chunks(1 + usize::from(tweak % 64)).collect();
                let as_mof = tweak & 0x40 != 0;
                let mut flags = WnodeFlags::TRACED_GUID;
                let input_len = if as_mof {
                    flags = flags | WnodeFlags::USE_MOF_PTR;
                    16 * chunks.len()
                } else {
                    data.len()
                };
                let missing_flag = tweak & 0x80 != 0 && tweak & 1 != 0;
                if missing_flag {
                    flags = WnodeFlags::EMPTY;
                }
                let size_error = usize::from(tweak & 0x80 != 0 && tweak & 2 != 0);
                let size = u16::try_from(0x38 + input_len + size_error).unwrap_or(u16::MAX);
                let header = EventInstanceHeader {
                    size,
                    class,
                    reg_handle: harness.handles[which],
                    parent_reg_handle: parent.map_or(0, |p| p.reg_handle()),
                    times: TimesOrFlags::from_event_id(0, flags),
                    ..Default::default()
                };
                let event_data = if as_mof {
                    EventData::MofFields(&chunks)
                } else {
                    EventData::Inline(data)
                };
                let result = harness.provider.trace_event_instance(
                    &mut harness.session,
                    &header,
                    event_data,
                    &info,
                    parent.as_ref(),
                    &mut harness.context,
                );
                harness.last_instance[which] = Some(info);

                // The level first (documented on `trace_event_instance`: an event the session
                // does not take is not checked), then the checks in their documented order
                // (LAYOUTS §Rules from the seeds: "Flags must contain WNODE_FLAG_TRACED_GUID,
                // else ERROR_INVALID_FLAGS"; at most MAX_MOF_FIELDS; "a wrong Size" is
                // ERROR_INVALID_PARAMETER, where Size is the header plus the data, or plus 16
                // per MOF_FIELD), then room.
                let expected = if !harness.model.enables(level) {
                    Ok(Traced::FilteredOut)
                } else if missing_flag {
                    Err(TraceError::MissingTracedGuidFlag { flags })
                } else if as_mof && chunks.len() > MAX_MOF_FIELDS {
                    Err(TraceError::TooManyMofFields {
                        count: chunks.len(),
                    })
                } else if size_error != 0 {
                    Err(TraceError::WrongSize {
                        expected: 0x38 + input_len,
                        found: size,
                    })
                } else {
                    // The written event: an EVENT_INSTANCE_GUID_HEADER with the registered class
                    // GUID, the instance's id, the parent's id and class GUID, then the data
                    // (the MOF_FIELDs gathered in order).
                    let parent_fields =
                        parent.map_or((0, Guid::NIL), |p| (p.instance_id(), CLASSES[1 - which]));
                    let event = ModelEvent {
                        offset: 0,
                        size: 0x48 + data.len(),
                        header_type: instance_type,
                        class: class_bytes(event_type, level, version),
                        guid: CLASSES[which],
                        instance: Some((info.instance_id(), parent_fields.0, parent_fields.1)),
                        data: data.to_vec(),
                        timestamp: 0,
                    };
                    harness.predict(level, event)
                };
                harness.check_call(result, expected);
            }
            3 => {
                let guid = Guid::from_fields(u32::from(tweak), 0, 0, [field(0); 8]);
                let header = EventTraceHeader {
                    size: u16::try_from(0x30 + data.len()).unwrap_or(u16::MAX),
                    class,
                    guid: GuidOrPtr::from_guid(guid),
                    times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
                    ..Default::default()
                };
                let result = harness.provider.trace_event(
                    &mut harness.session,
                    &header,
                    EventData::Inline(data),
                    &mut harness.context,
                );
                let event = ModelEvent {
                    offset: 0,
                    size: 0x30 + data.len(),
                    header_type: full_type,
                    class: class_bytes(event_type, level, version),
                    guid,
                    instance: None,
                    data: data.to_vec(),
                    timestamp: 0,
                };
                let expected = harness.predict(level, event);
                harness.check_call(result, expected);
            }
            4 => {
                harness.session.set_enable_level(Level(tweak % 8));
                harness.model.level = tweak % 8;
            }
            5 => {
                let sealed = harness.session.flush(i64::from(tweak));
                assert_eq!(
                    sealed,
                    harness.model.flush(i64::from(tweak)),
                    "flush sealed a buffer"
                );
                harness.check_state();
            }
            6 => harness.hand_out(false),
            _ => harness.hand_out(true),
        }
    }
    assert_eq!(harness.session.flush(0), harness.model.flush(0));
    while !harness.model.full.is_empty() {
        harness.hand_out(false);
    }
    harness.hand_out(false);
    assert_eq!(harness.session.full_count(), 0);
});
