//! Laws of the session in both modes, over any sequence of events of any size, buffers taken
//! back at any time and flushes, each buffer read back with the crate's reader:
//! - Drop newest (Windows' way): every accepted event is read back exactly once, in order; every
//!   refused one is counted lost; buffer `SequenceNumber`s count 1, 2, 3...
//! - Flight recorder: no event is lost; the events read back are accepted ones, in order, each
//!   once, and with the overwritten ones they make up all accepted; `SequenceNumber`s increase.
//! - Both: only the events written read the clock, so the n-th accepted event has the n-th
//!   reading, and a buffer carries `EVENTS_LOST` exactly when an event was lost before its first.
//!
//! And of the provider's checks, over any instance event (any level, flags, `Size`, data inline
//! or as `MOF_FIELD`s, instance infos of any handle, id and bitness, with or without a parent)
//! into a session that fills up: the outcome is the one the rules of `TraceEventInstance` give
//! in their order (a model written from them here), and an event refused without a loss always
//! has its reason: `NoFreeBuffer` exactly when the session counted the event lost, any other
//! error with the loss count unchanged.

use etw_classic::{
    wire::BufferFlags,
    write::{InstanceRole, WhenFull},
    Bitness, Class, EventData, EventInstanceHeader, EventInstanceInfo, EventType, Guid, Level,
    Provider, Session, SteppingContext, TimesOrFlags, TraceBuffer, TraceError, Traced, WnodeFlags,
};
use proptest::prelude::*;

const CLASS: Guid = Guid::from_fields(0x1a2b_3c4d, 0x5e6f, 0x7081, [9, 8, 7, 6, 5, 4, 3, 2]);
const BUFFER_SIZE: usize = 0x200;
const BUFFER_COUNT: usize = 3;
const STEP: i64 = 3;

#[derive(Clone, Debug)]
enum Step {
    /// An event with this many bytes of data (at least 4: its index goes there).
    Trace(usize),
    /// The caller takes the oldest full buffer, if any.
    Take,
    /// The caller seals the current buffer.
    Flush,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            6 => (4usize..0x120).prop_map(Step::Trace),
            2 => Just(Step::Take),
            1 => Just(Step::Flush),
        ],
        0..200,
    )
}

/// One read-back event: its index (the first 4 bytes of its data) and its time.
#[derive(Debug, PartialEq)]
struct ReadBack {
    index: u32,
    timestamp: i64,
}

/// One read-back buffer: its `SequenceNumber`, whether it carries `EVENTS_LOST`, and the
/// indexes of its first and last events.
#[derive(Debug)]
struct BufferRead {
    sequence_number: i64,
    events_lost: bool,
    first: u32,
    last: u32,
}

/// What the buffers held: their events in order, and each buffer.
#[derive(Default)]
struct Store {
    events: Vec<ReadBack>,
    buffers: Vec<BufferRead>,
}

impl Store {
    fn take(&mut self, buffer: &[u8; BUFFER_SIZE]) {
        let buffer = TraceBuffer::parse(buffer).expect("a sealed buffer parses");
        let before = self.events.len();
        for event in buffer.classic_events(Bitness::Bits32) {
            let event = event.expect("every event reads back");
            self.events.push(ReadBack {
                index: u32::from_le_bytes(event.data[..4].try_into().unwrap()),
                timestamp: event.event_trace.header().timestamp,
            });
        }
        let events = &self.events[before..];
        assert!(!events.is_empty(), "a sealed buffer holds events");
        self.buffers.push(BufferRead {
            sequence_number: buffer.header.sequence_number,
            events_lost: buffer.header.buffer_flag.contains(BufferFlags::EVENTS_LOST),
            first: events[0].index,
            last: events[events.len() - 1].index,
        });
    }
}

/// Runs `steps` in a session of mode `when_full`; returns the accepted indexes, the indexes
/// that were lost, what was read back, and the session's final counters.
fn run(
    when_full: WhenFull,
    steps: &[Step],
) -> (Vec<u32>, Vec<u32>, Store, etw_classic::write::SessionStats) {
    let mut session =
        Session::<BUFFER_SIZE, BUFFER_COUNT>::with_when_full(5, Level::VERBOSE, when_full);
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    let class = provider.register(CLASS).unwrap();
    let instance = provider.create_instance_id(class).unwrap();
    let mut clock = SteppingContext {
        step: STEP,
        ..Default::default()
    };
    let (mut accepted, mut lost, mut store) = (Vec::new(), Vec::new(), Store::default());
    for (index, step) in (0u32..).zip(steps) {
        match *step {
            Step::Trace(len) => {
                let mut data = vec![0xA5; len];
                data[..4].copy_from_slice(&index.to_le_bytes());
                let header = EventInstanceHeader {
                    size: u16::try_from(EventInstanceHeader::LEN + len).unwrap(),
                    class: Class::new(EventType::INFO, Level::INFORMATION, 0),
                    reg_handle: class,
                    times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
                    ..Default::default()
                };
                match provider.trace_event_instance(
                    &mut session,
                    &header,
                    EventData::Inline(&data),
                    &instance,
                    None,
                    &mut clock,
                ) {
                    Ok(Traced::Written { .. }) => accepted.push(index),
                    Err(TraceError::NoFreeBuffer { .. }) => lost.push(index),
                    other => panic!("unexpected {other:?}"),
                }
            }
            Step::Take => {
                if let Some(buffer) = session.oldest_full() {
                    store.take(buffer);
                    session.release_oldest_full();
                }
            }
            Step::Flush => {
                session.flush(clock.now);
            }
        }
    }
    session.flush(clock.now);
    session
        .drain(|buffer| {
            store.take(buffer);
            Ok::<(), ()>(())
        })
        .unwrap();
    (accepted, lost, store, session.stats())
}

proptest! {
    #[test]
    fn drop_newest_reads_back_every_accepted_event_once_in_order(steps in steps()) {
        let (accepted, lost, store, stats) = run(WhenFull::DropNewest, &steps);
        let read: Vec<u32> = store.events.iter().map(|event| event.index).collect();
        prop_assert_eq!(&read, &accepted);
        prop_assert_eq!(stats.events_lost as usize, lost.len());
        prop_assert_eq!(stats.events_written as usize, accepted.len());
        prop_assert_eq!((stats.events_overwritten, stats.buffers_overwritten), (0, 0));
        let sequence: Vec<i64> = store.buffers.iter().map(|buffer| buffer.sequence_number).collect();
        prop_assert!(sequence.iter().copied().eq(1..=sequence.len() as i64));
        // The n-th accepted event has the n-th clock reading: lost events read none.
        for (n, event) in store.events.iter().enumerate() {
            prop_assert_eq!(event.timestamp, n as i64 * STEP);
        }
        // A buffer says events were lost exactly when one was lost after the previous buffer's
        // last event and before its own first.
        let mut previous_last = None;
        for buffer in &store.buffers {
            let lost_between = lost.iter().any(|index| {
                previous_last.is_none_or(|last| *index > last) && *index < buffer.first
            });
            prop_assert_eq!(buffer.events_lost, lost_between, "{:?}", buffer);
            previous_last = Some(buffer.last);
        }
    }

    #[test]
    fn flight_recorder_reads_back_the_newest_events_once_in_order(steps in steps()) {
        let (accepted, lost, store, stats) = run(WhenFull::OverwriteOldest, &steps);
        prop_assert!(lost.is_empty());
        prop_assert_eq!(stats.events_lost, 0);
        prop_assert_eq!(stats.events_written as usize, accepted.len());
        let read: Vec<u32> = store.events.iter().map(|event| event.index).collect();
        // In order, each once, every one accepted.
        prop_assert!(read.windows(2).all(|pair| pair[0] < pair[1]));
        prop_assert!(read.iter().all(|index| accepted.binary_search(index).is_ok()));
        prop_assert_eq!(read.len() + stats.events_overwritten as usize, accepted.len());
        prop_assert_eq!(
            store.buffers.len() + stats.buffers_overwritten as usize,
            stats.buffers_written as usize
        );
        let sequence: Vec<i64> = store.buffers.iter().map(|buffer| buffer.sequence_number).collect();
        prop_assert!(sequence.windows(2).all(|pair| pair[0] < pair[1]));
        prop_assert!(store.buffers.iter().all(|buffer| !buffer.events_lost), "nothing is lost");
        // Each event read back has the reading of its place among the accepted ones.
        for event in &store.events {
            let n = accepted.binary_search(&event.index).unwrap();
            prop_assert_eq!(event.timestamp, n as i64 * STEP);
        }
    }
}

// --- the provider's checks -------------------------------------------------------------------

/// The second class the provider registers, for handles that are registered but not the
/// header's.
const OTHER_CLASS: Guid =
    Guid::from_fields(0x5a5a_5a5a, 0x1234, 0x5678, [1, 1, 2, 3, 5, 8, 13, 21]);
/// A handle no class is registered under.
const UNREGISTERED: u64 = 9;
/// The session's level: `TRACE_LEVEL_WARNING`, so that levels 1 to 3 are taken, 4 and up not.
const SESSION_LEVEL: u8 = 3;
/// The session of the checks' law: two small buffers, never taken back, so that events are
/// lost once they are full; an event of 0x200 - 72 bytes or more is too large.
const CHECK_BUFFER_SIZE: usize = 0x200;

/// One `EVENT_INSTANCE_INFO` argument: `(is 64-bit, which handle, instance id)`, the handle
/// 0: none, 1: the first class's, 2: the second's, 3: one not registered.
type InfoSpec = (bool, u8, u32);

/// One call of `trace_event_instance`, as the strategy draws it.
#[derive(Clone, Debug)]
struct Call {
    level: u8,
    traced_guid: bool,
    use_mof_ptr: bool,
    /// Inline data of this many bytes, or `MOF_FIELD`s of these lengths.
    data: Result<usize, Vec<usize>>,
    /// `Size`: 0 the right one for the data as given, 1 the one for the other kind of data, 2
    /// `size_other`.
    size_choice: u8,
    size_other: u16,
    info: InfoSpec,
    /// The header's `RegHandle`: the instance info's (true) or the first class's.
    header_handle_matches: bool,
    parent: Option<(InfoSpec, bool)>,
}

fn info_spec() -> impl Strategy<Value = InfoSpec> {
    (
        prop::bool::weighted(0.9),
        prop_oneof![1 => Just(0u8), 6 => Just(1), 2 => Just(2), 1 => Just(3)],
        prop_oneof![1 => Just(0u32), 9 => 1u32..100],
    )
}

fn call() -> impl Strategy<Value = Call> {
    (
        (0u8..=6, prop::bool::weighted(0.9), any::<bool>()),
        prop_oneof![
            (0usize..0x1E0).prop_map(Ok),
            prop::collection::vec(0usize..40, 0..19).prop_map(Err),
        ],
        (
            prop_oneof![6 => Just(0u8), 1 => Just(1), 1 => Just(2)],
            any::<u16>(),
        ),
        (info_spec(), prop::bool::weighted(0.9)),
        prop::option::weighted(0.3, (info_spec(), prop::bool::weighted(0.9))),
    )
        .prop_map(
            |(
                (level, traced_guid, use_mof_ptr),
                data,
                (size_choice, size_other),
                (info, matches),
                parent,
            )| {
                Call {
                    level,
                    traced_guid,
                    use_mof_ptr,
                    data,
                    size_choice,
                    size_other,
                    info,
                    header_handle_matches: matches,
                    parent,
                }
            },
        )
}

/// The handle an [`InfoSpec`] names, given the two registered ones.
fn handle_of(which: u8, handles: [u64; 2]) -> u64 {
    match which {
        0 => 0,
        1 => handles[0],
        2 => handles[1],
        _ => UNREGISTERED,
    }
}

/// The instance info of `spec`.
fn info_of(spec: InfoSpec, handles: [u64; 2]) -> EventInstanceInfo {
    let (wide, which, instance_id) = spec;
    let bitness = if wide {
        Bitness::Bits64
    } else {
        Bitness::Bits32
    };
    EventInstanceInfo::new(bitness, handle_of(which, handles), instance_id).unwrap()
}

/// What the rules of `TraceEventInstance` (docs/ARCHITECTURE.md's table, in its order) make of
/// `call` for a 64-bit provider: `Ok(None)` for an event filtered out by its level, `Ok(Some(total))`
/// for one that passes every check and takes `total` bytes in a buffer (the session then writes
/// or loses it), `Err` for the first check that fails.
fn rules(call: &Call, handles: [u64; 2]) -> Result<Option<usize>, TraceError> {
    // Level: the session at level N takes the events of levels 0 to N.
    if call.level > SESSION_LEVEL {
        return Ok(None);
    }
    let mut flags = WnodeFlags(0);
    if call.traced_guid {
        flags = flags | WnodeFlags::TRACED_GUID;
    }
    if call.use_mof_ptr {
        flags = flags | WnodeFlags::USE_MOF_PTR;
    }
    if !call.traced_guid {
        return Err(TraceError::MissingTracedGuidFlag { flags });
    }
    // The data: inline exactly without USE_MOF_PTR, at most 16 MOF_FIELDs with it; Size is
    // 0x38 plus the inline bytes or 16 per MOF_FIELD.
    let (given, written) = match &call.data {
        Ok(_) if call.use_mof_ptr => return Err(TraceError::MofFlagMismatch { flag_set: true }),
        Err(_) if !call.use_mof_ptr => return Err(TraceError::MofFlagMismatch { flag_set: false }),
        Err(fields) if fields.len() > 16 => {
            return Err(TraceError::TooManyMofFields {
                count: fields.len(),
            })
        }
        Ok(len) => (*len, *len),
        Err(fields) => (16 * fields.len(), fields.iter().sum()),
    };
    let size = size_of(call);
    if usize::from(size) != 0x38 + given {
        return Err(TraceError::WrongSize {
            expected: 0x38 + given,
            found: size,
        });
    }
    // The instance info, then the parent's.
    let header_handle = |spec: InfoSpec, matches: bool| {
        if matches {
            handle_of(spec.1, handles)
        } else {
            handles[0]
        }
    };
    let mut infos = vec![(InstanceRole::Event, call.info, call.header_handle_matches)];
    if let Some((parent, matches)) = call.parent {
        infos.push((InstanceRole::Parent, parent, matches));
    }
    for (role, spec, matches) in infos {
        let (wide, which, instance_id) = spec;
        let reg_handle = handle_of(which, handles);
        if reg_handle == 0 || instance_id == 0 {
            return Err(TraceError::EmptyInstanceInfo {
                role,
                reg_handle,
                instance_id,
            });
        }
        if !wide {
            return Err(TraceError::InstanceInfoBitness {
                role,
                expected: Bitness::Bits64,
                found: Bitness::Bits32,
            });
        }
        if which == 3 {
            return Err(TraceError::UnknownRegHandle { role, reg_handle });
        }
        let in_header = header_handle(spec, matches);
        if in_header != reg_handle {
            return Err(TraceError::RegHandleMismatch {
                role,
                in_header,
                in_instance_info: reg_handle,
            });
        }
    }
    // The event as written: the 0x48-byte EVENT_INSTANCE_GUID_HEADER and the data; refused
    // from buffer size - 72 bytes on.
    let total = 0x48 + written;
    let limit = CHECK_BUFFER_SIZE - 72;
    if total >= limit {
        return Err(TraceError::EventTooLarge { size: total, limit });
    }
    Ok(Some(total))
}

/// The `Size` the call gives.
fn size_of(call: &Call) -> u16 {
    let inline = |len: usize| 0x38 + len;
    let mof = |count: usize| 0x38 + 16 * count;
    let size = match (call.size_choice, &call.data) {
        (0, Ok(len)) => inline(*len),
        (0, Err(fields)) => mof(fields.len()),
        // What the other kind of data would need: some number of MOF_FIELDs for inline data,
        // the fields' bytes inline for MOF_FIELDs.
        (1, Ok(len)) => mof(len % 17),
        (1, Err(fields)) => inline(fields.iter().sum()),
        _ => return call.size_other,
    };
    u16::try_from(size).unwrap()
}

proptest! {
    #[test]
    #[cfg_attr(
        miri,
        ignore = "80 s under Miri for four cases; no byte order in its laws, which run natively"
    )]
    fn every_refused_instance_event_has_the_reason_the_rules_give(
        calls in prop::collection::vec(call(), 1..40),
    ) {
        let mut session = Session::<CHECK_BUFFER_SIZE, 2>::new(5, Level(SESSION_LEVEL));
        let mut provider = Provider::<2>::new(Bitness::Bits64);
        let handles = [
            provider.register(CLASS).unwrap(),
            provider.register(OTHER_CLASS).unwrap(),
        ];
        prop_assume!(!handles.contains(&UNREGISTERED));
        let mut clock = SteppingContext { step: STEP, ..Default::default() };
        for call in &calls {
            let inline = match &call.data {
                Ok(len) => vec![0x5Au8; *len],
                Err(_) => Vec::new(),
            };
            let fields: Vec<Vec<u8>> = match &call.data {
                Ok(_) => Vec::new(),
                Err(lengths) => lengths.iter().map(|len| vec![0xC3; *len]).collect(),
            };
            let field_slices: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
            let data = match &call.data {
                Ok(_) => EventData::Inline(&inline),
                Err(_) => EventData::MofFields(&field_slices),
            };
            let mut flags = WnodeFlags(0);
            if call.traced_guid {
                flags = flags | WnodeFlags::TRACED_GUID;
            }
            if call.use_mof_ptr {
                flags = flags | WnodeFlags::USE_MOF_PTR;
            }
            let info = info_of(call.info, handles);
            let parent = call.parent.map(|(spec, _)| info_of(spec, handles));
            let header_handle = |spec: InfoSpec, matches: bool| {
                if matches { handle_of(spec.1, handles) } else { handles[0] }
            };
            let header = EventInstanceHeader {
                size: size_of(call),
                class: Class::new(EventType::INFO, Level(call.level), 0),
                reg_handle: header_handle(call.info, call.header_handle_matches),
                parent_reg_handle: call
                    .parent
                    .map_or(0, |(spec, matches)| header_handle(spec, matches)),
                times: TimesOrFlags::from_event_id(0, flags),
                ..Default::default()
            };
            let before = session.stats();
            let outcome = provider.trace_event_instance(
                &mut session,
                &header,
                data,
                &info,
                parent.as_ref(),
                &mut clock,
            );
            let after = session.stats();
            let lost = after.events_lost - before.events_lost;
            let written = after.events_written - before.events_written;
            match (rules(call, handles), outcome) {
                (Ok(None), Ok(Traced::FilteredOut)) => prop_assert_eq!((lost, written), (0, 0)),
                (Ok(Some(total)), Ok(Traced::Written { size, .. })) => {
                    prop_assert_eq!(usize::from(size), total);
                    prop_assert_eq!((lost, written), (0, 1));
                }
                // Refused with a loss: the one reason that comes with one.
                (Ok(Some(_)), Err(TraceError::NoFreeBuffer { events_lost })) => {
                    prop_assert_eq!((lost, written), (1, 0));
                    prop_assert_eq!(events_lost, after.events_lost);
                }
                // Refused without a loss: the reason the rules give, never NoFreeBuffer.
                (Err(expected), Err(found)) => {
                    prop_assert_eq!(found, expected);
                    prop_assert_eq!((lost, written), (0, 0));
                }
                (expected, found) => {
                    return Err(TestCaseError::fail(format!(
                        "{call:?}: the rules give {expected:?}, the provider {found:?}"
                    )));
                }
            }
        }
    }
}
