//! Laws of the session in both modes, over any sequence of events of any size, buffers taken
//! back at any time and flushes, each buffer read back with the crate's reader:
//! - Drop newest (Windows' way): every accepted event is read back exactly once, in order; every
//!   refused one is counted lost; buffer `SequenceNumber`s count 1, 2, 3...
//! - Flight recorder: no event is lost; the events read back are accepted ones, in order, each
//!   once, and with the overwritten ones they make up all accepted; `SequenceNumber`s increase.
//! - Both: only the events written read the clock, so the n-th accepted event has the n-th
//!   reading, and a buffer carries `EVENTS_LOST` exactly when an event was lost before its first.

use etw_classic::{
    wire::BufferFlags, write::WhenFull, Bitness, Class, EventData, EventInstanceHeader, EventType,
    Guid, Level, Provider, Session, SteppingContext, TimesOrFlags, TraceBuffer, TraceError, Traced,
    WnodeFlags,
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
