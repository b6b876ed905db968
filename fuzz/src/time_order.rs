//! The laws of `EtlReader::for_each_event_in_time_order` against the file-order walk of the
//! same bytes, and the memory the walk may take, which `etl_stream`, `etl_time_order` and
//! `etl_python` share.
//!
//! The file-order walk ([`Walked`]) is what the targets have checked against `EtlFile` (and
//! `EtlFile` against the rules, in `etl_reader`). From it and from the bytes, the rules of the
//! time order (EVENT-HEADERS.md section 7 and the documentation of the method) say:
//! - a buffer whose processor (`ProcessorIndex` u16 @0x28 with `PROC_INDEX` 0x20 in `BufferFlag`
//!   u16 @0x34, else `ProcessorNumber`, byte 0x28) is not below the logfile header's
//!   `NumberOfProcessors` (u32 @0x0C of the `TRACE_LOGFILE_HEADER`, after the 0x48-byte buffer
//!   header and the 0x20-byte `SYSTEM_TRACE_HEADER`) is one `ProcessorBeyondCount` error naming
//!   it, handed over before any event, and its events are not merged;
//! - a buffer whose decoded events would take the bytes held past the limit is one
//!   `TimeOrderMemory` error naming it, with its events' length (`Offset` - 0x48), the bytes
//!   held for the others (no more than the limit) and the limit; its events are not merged;
//! - every other error of the walk comes once, and every event of the other buffers exactly
//!   once; each processor's in the order of its buffers by (`SequenceNumber` @0x18, file
//!   order), each buffer's in its own;
//! - when every processor's events carry timestamps that do not go back along that order, the
//!   events come out sorted by (timestamp, `SequenceNumber`, buffer index, offset) (the merge
//!   of sorted runs, ties to the lower `SequenceNumber`, then the earlier buffer);
//! - the heap it takes at its peak (its own: what it hands over is copied into room made
//!   before it starts) is within the documented bound: the decoded events of one
//!   buffer per merged processor (the largest of each, at most the limit in all), one stored
//!   buffer and one scratch (the largest of each), 32 bytes per buffer listed (twice, as a
//!   vector grows), and a little per processor;
//! - the reader is done after it.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Cursor;
use std::ops::Range;

use etw_classic::{
    read::{BufferPosition, MAX_BUFFER_SIZE},
    EtlReader, EtlReaderError, ReadError, ReadErrorKind,
};

use crate::model::{le16, le32, le_i64, BUFFER_HEADER_LEN};

/// `ETW_BUFFER_FLAG_PROC_INDEX` (ntwmi.h), in `BufferFlag` (u16 @0x34).
const BUFFER_FLAG_PROC_INDEX: u16 = 0x20;
/// Where `NumberOfProcessors` lies in the file (see the module documentation).
const NUMBER_OF_PROCESSORS_AT: usize = BUFFER_HEADER_LEN + 0x20 + 0x0C;

/// One buffer the file-order walk framed (read whole), as its bytes say.
#[derive(Clone, Debug)]
pub struct WalkedBuffer {
    pub position: BufferPosition,
    /// Its `BufferSize`: the bytes it takes in the file.
    pub stored_len: usize,
    /// The length of its decoded events, when it decoded.
    pub decoded_len: Option<usize>,
}

/// One event of the walk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WalkedEvent {
    pub index: usize,
    pub offset: usize,
    pub bytes: Vec<u8>,
    pub timestamp: Option<i64>,
}

/// The file-order walk of a file: its framed buffers, its events, every error it met (each
/// once), and the logfile header's `BufferSize` as the reader took it.
#[derive(Clone, Debug, Default)]
pub struct Walked {
    pub buffers: Vec<WalkedBuffer>,
    pub events: Vec<WalkedEvent>,
    pub errors: Vec<ReadError>,
    pub buffer_size: usize,
}

/// The processor a buffer's header names, and whether as `ProcessorIndex`.
pub fn processor(data: &[u8], file_offset: usize) -> (u16, bool) {
    if le16(data, file_offset + 0x34) & BUFFER_FLAG_PROC_INDEX != 0 {
        (le16(data, file_offset + 0x28), true)
    } else {
        (u16::from(data[file_offset + 0x28]), false)
    }
}

/// The `SequenceNumber` of the buffer at `file_offset`.
pub fn sequence_number(data: &[u8], file_offset: usize) -> i64 {
    le_i64(data, file_offset + 0x18)
}

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Counts what this thread holds allocated, for [`peak_allocation`]; the fuzz targets install it
/// as their global allocator.
pub struct CountingAllocator;

fn add_held(size: usize) {
    let _ = HELD.try_with(|held| {
        let now = held.get().saturating_add(size);
        held.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn remove_held(size: usize) {
    let _ = HELD.try_with(|held| held.set(held.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only read the
// layouts.
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        add_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        add_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        remove_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        remove_held(layout.size());
        add_held(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

/// The most `run` held allocated at once on this thread, beyond what was held before (through
/// [`CountingAllocator`]; 0 without it).
pub fn peak_allocation(run: impl FnOnce()) -> usize {
    let before = HELD.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    run();
    PEAK.with(Cell::get).saturating_sub(before)
}

/// An event the time-ordered walk handed over: its buffer's index, its offset, where its bytes
/// were copied to, its timestamp.
type HandedEvent = (usize, usize, Range<usize>, Option<i64>);

/// Runs the time-ordered walk of `data` (with `limit` as its memory limit, when given) and
/// checks it against `walked` (see the module documentation).
pub fn check_time_order(data: &[u8], walked: &Walked, limit: Option<usize>) {
    let number_of_processors = le32(data, NUMBER_OF_PROCESSORS_AT);
    let mut reader = EtlReader::new(Cursor::new(data)).expect("the walk read the header");
    if let Some(limit) = limit {
        reader.set_time_order_memory(limit);
    }
    let limit = reader.time_order_memory();

    // What the rules say, before the walk.
    let mut beyond = Vec::new();
    let mut merged_buffers = BTreeMap::new();
    for buffer in &walked.buffers {
        let offset = buffer.position.file_offset;
        let (processor, proc_index) = processor(data, offset);
        if u32::from(processor) >= number_of_processors {
            beyond.push(ReadError::new(
                Some(buffer.position),
                ReadErrorKind::ProcessorBeyondCount {
                    processor,
                    proc_index,
                    number_of_processors,
                },
            ));
        } else {
            merged_buffers.insert(buffer.position.index, (processor, buffer));
        }
    }

    // The walk, with room for everything it hands over made beforehand, so that the peak
    // measured is the walk's own: each event as (buffer index, offset, where its bytes lie in
    // `event_bytes`, timestamp), its bytes copied into one vector sized for every event.
    let mut items: Vec<Result<HandedEvent, ()>> =
        Vec::with_capacity(walked.events.len() + walked.errors.len() + walked.buffers.len() + 2);
    let mut event_bytes: Vec<u8> =
        Vec::with_capacity(walked.events.iter().map(|event| event.bytes.len()).sum());
    let mut processor_errors: Vec<ReadError> = Vec::with_capacity(beyond.len());
    let mut left_out: Vec<(BufferPosition, usize, usize, usize)> =
        Vec::with_capacity(walked.buffers.len());
    let mut other_errors: Vec<ReadError> = Vec::with_capacity(walked.errors.len() + 1);
    let mut processors_of_events: Vec<u16> = Vec::with_capacity(walked.events.len());
    let mut buffers = 0;
    let peak = peak_allocation(|| {
        buffers = reader
            .for_each_event_in_time_order(|item| {
                match item {
                    Ok(item) => {
                        processors_of_events.push(item.processor);
                        let start = event_bytes.len();
                        event_bytes.extend_from_slice(item.event.bytes);
                        items.push(Ok((
                            item.position.index,
                            item.event.offset,
                            start..event_bytes.len(),
                            item.event.timestamp(),
                        )));
                    }
                    Err(EtlReaderError::Read(error))
                        if matches!(error.kind, ReadErrorKind::ProcessorBeyondCount { .. }) =>
                    {
                        assert!(items.is_empty(), "a processor error after an item: {error}");
                        processor_errors.push(error);
                    }
                    Err(EtlReaderError::TimeOrderMemory {
                        buffer,
                        needed,
                        held,
                        limit,
                    }) => left_out.push((buffer, needed, held, limit)),
                    Err(EtlReaderError::Read(error)) => {
                        items.push(Err(()));
                        other_errors.push(error);
                    }
                    Err(other) => panic!("time order: {other:?}"),
                }
                Ok::<(), ()>(())
            })
            .unwrap();
    });
    assert!(reader.is_done(), "the reader is done after the time order");
    assert_eq!(buffers, walked.buffers.len(), "the buffers read");
    assert_eq!(processor_errors, beyond, "ProcessorBeyondCount");

    // The buffers left out for memory: merged ones whose events did not fit.
    for &(position, needed, held, said) in &left_out {
        let (_, buffer) = merged_buffers
            .get(&position.index)
            .unwrap_or_else(|| panic!("left out: {position:?} is not a merged buffer"));
        assert_eq!(buffer.position, position);
        assert_eq!(Some(needed), buffer.decoded_len, "the events' length");
        assert_eq!(said, limit);
        assert!(
            held <= limit && held + needed > limit,
            "{held} + {needed} vs {limit}"
        );
    }
    let excluded = |index: usize| {
        !merged_buffers.contains_key(&index) || left_out.iter().any(|out| out.0.index == index)
    };

    // Every other error of the walk once (the framing error and the end of the file name no
    // buffer that was framed), every other event once.
    let mut expected_errors: Vec<String> = walked
        .errors
        .iter()
        .filter(|error| {
            let index = error.buffer.expect("every error names its buffer").index;
            !(index < walked.buffers.len() && excluded(index))
        })
        .map(|error| format!("{error:?}"))
        .collect();
    let mut found_errors: Vec<String> = other_errors.iter().map(|e| format!("{e:?}")).collect();
    expected_errors.sort();
    found_errors.sort();
    assert_eq!(
        found_errors, expected_errors,
        "time order: the walk's errors"
    );
    let events: Vec<WalkedEvent> = items
        .iter()
        .filter_map(|item| item.as_ref().ok())
        .map(|(index, offset, bytes, timestamp)| WalkedEvent {
            index: *index,
            offset: *offset,
            bytes: event_bytes[bytes.clone()].to_vec(),
            timestamp: *timestamp,
        })
        .collect();
    let events: Vec<&WalkedEvent> = events.iter().collect();
    let mut expected_events: Vec<&WalkedEvent> = walked
        .events
        .iter()
        .filter(|event| !excluded(event.index))
        .collect();
    let mut sorted = events.clone();
    sorted.sort();
    expected_events.sort();
    assert!(
        sorted == expected_events,
        "time order: not the walk's events"
    );

    // Each processor's events in the order of its chain.
    let key = |event: &WalkedEvent| {
        let buffer = merged_buffers[&event.index].1;
        (
            sequence_number(data, buffer.position.file_offset),
            event.index,
            event.offset,
        )
    };
    let mut chains = BTreeMap::<u16, Vec<&WalkedEvent>>::new();
    for (event, processor) in events.iter().zip(&processors_of_events) {
        assert_eq!(
            *processor, merged_buffers[&event.index].0,
            "the event's processor"
        );
        chains.entry(*processor).or_default().push(event);
    }
    let mut sorted_chains = true;
    for chain in chains.values() {
        assert!(
            chain.windows(2).all(|pair| key(pair[0]) < key(pair[1])),
            "a processor's events out of their chain's order"
        );
        sorted_chains &= chain.iter().all(|event| event.timestamp.is_some())
            && chain
                .windows(2)
                .all(|pair| pair[0].timestamp <= pair[1].timestamp);
    }
    if sorted_chains && other_errors.is_empty() {
        let mut by_time = events.clone();
        by_time.sort_by_key(|event| {
            let (sequence, index, offset) = key(event);
            (event.timestamp, sequence, index, offset)
        });
        assert!(
            by_time == events,
            "sorted chains: not merged by (timestamp, buffer order)"
        );
    }

    // The memory: within the documented bound.
    let mut largest = BTreeMap::<u16, usize>::new();
    for (index, (processor, buffer)) in &merged_buffers {
        if excluded(*index) {
            continue;
        }
        let entry = largest.entry(*processor).or_default();
        *entry = (*entry).max(buffer.decoded_len.unwrap_or(0));
    }
    let held = largest.values().sum::<usize>().min(limit);
    let stored = walked
        .buffers
        .iter()
        .map(|buffer| buffer.stored_len)
        .max()
        .unwrap_or(0)
        .max((2 * data.len() + (64 << 10)).min(MAX_BUFFER_SIZE));
    let scratch = walked.buffer_size;
    let bound = held
        + 2 * stored
        + scratch
        + 2 * 32 * walked.buffers.len()
        + 2048 * (largest.len() + 1)
        + (64 << 10);
    assert!(
        peak <= bound,
        "time order took {peak} bytes, above its bound {bound}"
    );
}
