//! The provider and session driven by arbitrary operations, then read back by the consumer.
//!
//! The input is a program: each step takes an opcode byte and, for events, the header fields and
//! data from the bytes after it. Steps trace instance events (with or without a parent, inline
//! or as `MOF_FIELD`s, sometimes with a wrong `Size` or missing flag), trace full events, change
//! the enable level, flush, and hand buffers back (stored, or discarded as lost).
//!
//! Laws:
//! - a call either writes the event (`Traced::Written`, `events_written` + 1), filters it
//!   (nothing changes), or fails; only `NoFreeBuffer` changes a counter (`events_lost` + 1);
//! - every buffer handed out parses as a `TraceBuffer`, walks without error, and its sequence
//!   numbers count 1, 2, 3... in hand-out order;
//! - the events read from all handed-out buffers, in order, are exactly the events reported
//!   written, at the reported offsets, with the data, class and instance fields given;
//! - `events_written` equals the number of events read back once everything is flushed.
#![no_main]

use etw_classic::{
    Bitness, Class, EventData, EventInstanceHeader, EventInstanceInfo, EventKind, EventTraceHeader,
    EventType, Guid, GuidOrPtr, Level, Provider, Session, SteppingContext, TimesOrFlags,
    TraceBuffer, TraceError, Traced, WnodeFlags,
};
use libfuzzer_sys::fuzz_target;

const BUFFER_SIZE: usize = 512;
const CLASSES: [Guid; 2] = [
    Guid::from_fields(1, 2, 3, [4; 8]),
    Guid::from_fields(5, 6, 7, [8; 8]),
];

/// What the consumer must find for one written event.
#[derive(Debug, PartialEq)]
struct Expected {
    slot_offset: usize,
    class: Class,
    guid: Guid,
    instance_id: u32,
    data: Vec<u8>,
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
    session: Session<BUFFER_SIZE, 3>,
    provider: Provider<2>,
    handles: [u64; 2],
    last_instance: [Option<EventInstanceInfo>; 2],
    context: SteppingContext,
    /// Events reported written, not yet read back.
    pending: std::collections::VecDeque<Expected>,
    next_sequence: i64,
    read_back: u32,
}

impl Harness {
    /// Remembers a written event for the read-back.
    fn check_call(&mut self, result: Result<Traced, TraceError>, expected: Expected) {
        match result {
            Ok(Traced::Written { offset, .. }) => {
                assert_eq!(offset % 8, 0);
                self.pending.push_back(Expected {
                    slot_offset: offset,
                    ..expected
                });
            }
            Ok(Traced::FilteredOut) | Err(_) => {}
        }
    }

    /// Takes the oldest full buffer out, checks it, and matches its events against `pending`.
    fn hand_out(&mut self, discard: bool) {
        let Some(bytes) = self.session.oldest_full() else {
            assert!(!self.session.release_oldest_full());
            return;
        };
        let buffer = TraceBuffer::parse(bytes).expect("a sealed buffer parses");
        assert_eq!(buffer.header.sequence_number, self.next_sequence);
        self.next_sequence += 1;
        for event in buffer.events() {
            let event = event.expect("a sealed buffer walks without error");
            let expected = self
                .pending
                .pop_front()
                .expect("no more events than written");
            assert_eq!(event.offset + 0x48, expected.slot_offset);
            let (class, guid, instance_id, data) = match event.kind() {
                EventKind::Instance { header, data } => (
                    header.header.class,
                    header.header.guid.guid(),
                    header.instance_id,
                    data,
                ),
                EventKind::Full { header, data } => (header.class, header.guid.guid(), 0, data),
                EventKind::Other { .. } => panic!("only classic events are written"),
            };
            assert_eq!(
                Expected {
                    slot_offset: expected.slot_offset,
                    class,
                    guid,
                    instance_id,
                    data: data.to_vec(),
                },
                expected
            );
            self.read_back += 1;
        }
        let lost_before = self.session.stats().buffers_lost;
        if discard {
            assert!(self.session.discard_oldest_full());
            assert_eq!(self.session.stats().buffers_lost, lost_before + 1);
        } else {
            assert!(self.session.release_oldest_full());
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let mut program = Program { bytes: input };
    let bitness = if program.byte().unwrap_or(0) & 1 == 0 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let mut provider = Provider::<2>::new(bitness);
    let handles = CLASSES.map(|class| provider.register(class).unwrap());
    let mut harness = Harness {
        session: Session::new(3, Level::VERBOSE),
        provider,
        handles,
        last_instance: [None; 2],
        context: SteppingContext {
            now: 100,
            step: 1,
            ..Default::default()
        },
        pending: Default::default(),
        next_sequence: 1,
        read_back: 0,
    };
    while let Some(opcode) = program.byte() {
        let fields = program.take(4);
        let field = |index: usize| fields.get(index).copied().unwrap_or(0);
        let class = Class::new(
            EventType(field(0)),
            Level(field(1) % 8),
            u16::from(field(2)),
        );
        let tweak = field(3);
        let data_len = usize::from(program.byte().unwrap_or(0)) * 2;
        let data = program.take(data_len);
        let stats_before = harness.session.stats();
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
                if tweak & 0x80 != 0 && tweak & 1 != 0 {
                    flags = WnodeFlags::EMPTY; // missing TRACED_GUID
                }
                let size_error = usize::from(tweak & 0x80 != 0 && tweak & 2 != 0);
                let header = EventInstanceHeader {
                    size: u16::try_from(0x38 + input_len + size_error).unwrap_or(u16::MAX),
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
                let expected = Expected {
                    slot_offset: 0,
                    class,
                    guid: CLASSES[which],
                    instance_id: info.instance_id(),
                    data: data.to_vec(),
                };
                check_result(&harness, &result, stats_before);
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
                let expected = Expected {
                    slot_offset: 0,
                    class,
                    guid,
                    instance_id: 0,
                    data: data.to_vec(),
                };
                check_result(&harness, &result, stats_before);
                harness.check_call(result, expected);
            }
            4 => harness.session.set_enable_level(Level(tweak % 8)),
            5 => {
                harness.session.flush(i64::from(tweak));
            }
            6 => harness.hand_out(false),
            _ => harness.hand_out(true),
        }
    }
    harness.session.flush(0);
    while harness.session.full_count() > 0 {
        harness.hand_out(false);
    }
    assert!(
        harness.pending.is_empty(),
        "every written event was read back"
    );
    assert_eq!(harness.session.stats().events_written, harness.read_back);
});

/// The counters move exactly as the result says.
fn check_result(
    harness: &Harness,
    result: &Result<Traced, TraceError>,
    before: etw_classic::SessionStats,
) {
    let after = harness.session.stats();
    match result {
        Ok(Traced::Written { .. }) => {
            assert_eq!(after.events_written, before.events_written + 1);
            assert_eq!(after.events_lost, before.events_lost);
        }
        Err(TraceError::NoFreeBuffer { events_lost }) => {
            assert_eq!(after.events_lost, before.events_lost + 1);
            assert_eq!(*events_lost, after.events_lost);
            assert_eq!(after.events_written, before.events_written);
        }
        Ok(Traced::FilteredOut) | Err(_) => {
            assert_eq!(after.events_written, before.events_written);
            assert_eq!(after.events_lost, before.events_lost);
        }
    }
}
