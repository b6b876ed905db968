//! Events of many buffers in time order: a k-way merge of per-buffer cursors on each one's next
//! raw timestamp, in cursor storage the caller owns.
//!
//! Why a merge gives the order a consumer sees (EVENT-HEADERS.md §7): each buffer holds one
//! processor's events in non-decreasing timestamp order (0 violations in the 347,868 events of
//! the sample traces), a processor's buffers sorted by `SequenceNumber` continue that order,
//! and file order is not time order (gcevents.etl stores its `SequenceNumber` 1 buffer last).
//! snail merges the same way, on the next event's raw timestamp (a priority queue, earliest
//! first); TraceEvent leaves ordering to `ProcessTrace`, dissect.etl does none.

use core::iter::FusedIterator;

use crate::read::error::ReadError;
use crate::read::etl::EtlBuffer;
use crate::read::events::{Event, Events};

/// One buffer's events (or any other run of events in time order), with the identifier the
/// caller gives it and the next item the merge will compare.
///
/// [`new`](Self::new) reads the first item at once. The cursor's place in time is the raw
/// timestamp ([`Event::timestamp`]) of its next event; an event without one (`TIMED`, `ERROR`,
/// a message without `TRACE_MESSAGE_TIMESTAMP`, ...) and an error of the walk take the last
/// timestamp the cursor had, so they come out right after the event before them in their
/// buffer. Before the cursor's first timestamped event that timestamp is `i64::MIN`: such
/// leading events come out before every timestamped event.
///
/// `I` is any iterator of the walk's items, [`Events`] by default; a cursor over a chain of one
/// processor's buffers (sorted by [`ProcessorOrder`]) is one too, and lets a merge hold one
/// cursor per processor instead of one per buffer.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MergeCursor<'a, Id, I = Events<'a>> {
    id: Id,
    events: I,
    /// The next item; `None` once the cursor has ended (its walk ended, or it gave an error).
    head: Option<Result<Event<'a>, ReadError>>,
    /// The raw timestamp the merge orders the cursor by.
    key: i64,
}

impl<'a, Id, I> MergeCursor<'a, Id, I>
where
    I: Iterator<Item = Result<Event<'a>, ReadError>>,
{
    /// A cursor named `id` over `events`, whose first item it reads.
    pub fn new(id: Id, mut events: I) -> Self {
        let head = events.next();
        let key = next_key(head.as_ref(), i64::MIN);
        Self {
            id,
            events,
            head,
            key,
        }
    }

    /// A cursor named `id` over `events` that continues the walk of another cursor whose
    /// [`timestamp`](Self::timestamp) was `timestamp`: events without a timestamp at the start
    /// of `events` take that one, not `i64::MIN`. A merge that replaces one buffer of a
    /// processor by the next (holding one decoded buffer per processor) resumes each cursor so.
    pub fn continuing(id: Id, mut events: I, timestamp: i64) -> Self {
        let head = events.next();
        let key = next_key(head.as_ref(), timestamp);
        Self {
            id,
            events,
            head,
            key,
        }
    }

    /// The identifier the caller gave.
    pub const fn id(&self) -> &Id {
        &self.id
    }

    /// The item the cursor yields next; `None` once it has ended.
    pub const fn peek(&self) -> Option<&Result<Event<'a>, ReadError>> {
        self.head.as_ref()
    }

    /// The raw timestamp the merge orders the cursor by (see the type's documentation).
    pub const fn timestamp(&self) -> i64 {
        self.key
    }

    /// Reads the next item after the one just taken.
    fn advance(&mut self) {
        self.head = self.events.next();
        self.key = next_key(self.head.as_ref(), self.key);
    }
}

/// The timestamp a cursor whose next item is `head` is ordered by: the event's, or `carried`.
#[inline]
fn next_key(head: Option<&Result<Event<'_>, ReadError>>, carried: i64) -> i64 {
    match head {
        Some(Ok(event)) => event.timestamp().unwrap_or(carried),
        _ => carried,
    }
}

/// The events of many cursors in time order: an iterator of `(id, item)`, the item an event or
/// the error that ended that cursor's walk.
///
/// - Order: by the cursors' timestamps ([`MergeCursor::timestamp`]), ties going to the cursor with
///   the smaller `Id`, and each cursor's items in its own order. When every cursor's timestamps
///   are non-decreasing (as in every buffer of a real trace), the events come out in
///   non-decreasing raw timestamp; when a cursor's are not, every item still comes out exactly
///   once, that cursor's in its own order.
/// - Ties: with the buffer index as `Id`, an earlier buffer's event comes first; with
///   [`BufferOrder`], the lower `SequenceNumber`'s, then the earlier buffer's.
/// - Errors: a cursor's error is yielded once, with its id (and the [`ReadError`] names the
///   buffer when the events came from an [`EtlFile`](crate::read::EtlFile)); that cursor then
///   ends and the others go on.
///
/// No allocation: the cursors live in the caller's slice, which the merge rearranges into a
/// binary min-heap (so after the merge their order there is unspecified). Building it costs
/// O(k) comparisons for k cursors (each cursor's first item is read by [`MergeCursor::new`]),
/// and each event O(log k) at most: none for an event without a timestamp or when the same cursor stays
/// the earliest with an unchanged timestamp, two per level otherwise, stopping at the first
/// level where the cursor is earliest. A whole file has one cursor per buffer (hundreds for
/// a few MiB), so a linear scan of all cursors per event (O(k)) would cost far more; for a
/// handful of cursors the heap does about the same few comparisons as a scan would.
///
/// ```
/// use etw_classic::read::{MergeCursor, TimeOrder};
/// use etw_classic::Events;
///
/// /// A buffer of FULL_HEADER64 events with the given timestamps, then the end mark.
/// fn buffer(timestamps: &[i64]) -> Vec<u8> {
///     let mut bytes = Vec::new();
///     for timestamp in timestamps {
///         let mut event = [0u8; 0x30];
///         event[..4].copy_from_slice(&[0x30, 0x00, 0x14, 0xC0]);
///         event[0x10..0x18].copy_from_slice(&timestamp.to_le_bytes());
///         bytes.extend_from_slice(&event);
///     }
///     bytes.extend_from_slice(&[0xFF; 4]);
///     bytes
/// }
/// let (first, second) = (buffer(&[10, 30, 30]), buffer(&[20, 30, 40]));
/// let mut cursors = [
///     MergeCursor::new(0, Events::new(&first)),
///     MergeCursor::new(1, Events::new(&second)),
/// ];
/// let order: Vec<(usize, i64)> = TimeOrder::new(&mut cursors)
///     .map(|(id, event)| (id, event.unwrap().timestamp().unwrap()))
///     .collect();
/// assert_eq!(order, [(0, 10), (1, 20), (0, 30), (0, 30), (1, 30), (1, 40)]);
/// ```
#[derive(Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimeOrder<'c, 'a, Id, I = Events<'a>> {
    /// The cursors; those before `live` form the heap and all have a next item.
    cursors: &'c mut [MergeCursor<'a, Id, I>],
    live: usize,
}

impl<'c, 'a, Id, I> TimeOrder<'c, 'a, Id, I>
where
    Id: Copy + Ord,
    I: Iterator<Item = Result<Event<'a>, ReadError>>,
{
    /// The merge of `cursors`: cursors that have already ended are set aside, the others
    /// arranged into a heap.
    pub fn new(cursors: &'c mut [MergeCursor<'a, Id, I>]) -> Self {
        // The cursors with an item first, keeping none of the others in the heap.
        let mut live = 0;
        for at in 0..cursors.len() {
            if cursors.get(at).is_some_and(|cursor| cursor.head.is_some()) {
                swap(cursors, live, at);
                // live <= at < len.
                #[allow(clippy::arithmetic_side_effects)]
                {
                    live += 1;
                }
            }
        }
        if let Some(heap) = cursors.get_mut(..live) {
            for at in (0..live / 2).rev() {
                sift_down(heap, at);
            }
        }
        Self { cursors, live }
    }

    /// How many cursors have items left.
    pub const fn live_cursors(&self) -> usize {
        self.live
    }
}

/// Whether cursor `a` comes before cursor `b`: the earlier timestamp, then the smaller id.
#[inline]
fn earlier<Id: Ord, I>(a: &MergeCursor<'_, Id, I>, b: &MergeCursor<'_, Id, I>) -> bool {
    (a.key, &a.id) < (b.key, &b.id)
}

/// Swaps the items at `low` and `high` (`low <= high < items.len()`, which every caller
/// knows) of `items`; nothing to do when they are the same. (`slice::swap` would do the same,
/// but may keep a panic path where the optimiser cannot see that the indices are in range.)
/// Indices out of range are a broken invariant: a debug build panics, a release build swaps
/// nothing.
fn swap<T>(items: &mut [T], low: usize, high: usize) {
    debug_assert!(
        low <= high && high < items.len(),
        "broken invariant: swap of {low} and {high} in {} items",
        items.len()
    );
    if let Some((before, from_high)) = items.split_at_mut_checked(high) {
        if let (Some(low), Some(high)) = (before.get_mut(low), from_high.first_mut()) {
            core::mem::swap(low, high);
        }
    }
}

/// Restores the heap order below `at`, whose cursor may have moved later: swaps it with its
/// earlier child until neither child is earlier.
fn sift_down<Id: Ord, I>(heap: &mut [MergeCursor<'_, Id, I>], mut at: usize) {
    loop {
        let Some(left) = at.checked_mul(2).and_then(|twice| twice.checked_add(1)) else {
            return;
        };
        let Some(left_cursor) = heap.get(left) else {
            return;
        };
        let right = left.saturating_add(1);
        let child = match heap.get(right) {
            Some(right_cursor) if earlier(right_cursor, left_cursor) => right,
            _ => left,
        };
        match (heap.get(child), heap.get(at)) {
            (Some(child_cursor), Some(cursor)) if earlier(child_cursor, cursor) => {
                swap(heap, at, child);
                at = child;
            }
            _ => return,
        }
    }
}

impl<'a, Id, I> Iterator for TimeOrder<'_, 'a, Id, I>
where
    Id: Copy + Ord,
    I: Iterator<Item = Result<Event<'a>, ReadError>>,
{
    type Item = (Id, Result<Event<'a>, ReadError>);

    fn next(&mut self) -> Option<Self::Item> {
        let heap = self.cursors.get_mut(..self.live)?;
        let top = heap.first_mut()?;
        let item = top.head.take()?;
        let id = top.id;
        let key = top.key;
        // After an error the cursor ends: its head stays `None`.
        if item.is_ok() {
            top.advance();
        }
        if top.head.is_none() {
            // The last cursor of the heap takes the ended one's place, and sinks to its own.
            let Some(last) = self.live.checked_sub(1) else {
                return Some((id, item));
            };
            swap(heap, 0, last);
            self.live = last;
            if let Some(heap) = heap.get_mut(..last) {
                sift_down(heap, 0);
            }
        } else if top.key != key {
            sift_down(heap, 0);
        }
        Some((id, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Every live cursor has one item waiting; how many follow is unknown.
        (self.live, None)
    }
}

impl<'a, Id, I> FusedIterator for TimeOrder<'_, 'a, Id, I>
where
    Id: Copy + Ord,
    I: Iterator<Item = Result<Event<'a>, ReadError>>,
{
}

/// A cursor id that breaks ties between buffers by `SequenceNumber` (the order the session
/// numbered its buffers in), then by their place in the file: what a
/// [`TimeOrder`] over a file's buffers should be keyed by when equal timestamps must come out
/// as their processor wrote them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferOrder {
    /// `WMI_BUFFER_HEADER.SequenceNumber`.
    pub sequence_number: i64,
    /// The buffer's index in the file.
    pub index: usize,
}

impl BufferOrder {
    /// The order of `buffer`.
    pub const fn of(buffer: &EtlBuffer<'_>) -> Self {
        Self {
            sequence_number: buffer.header.sequence_number,
            index: buffer.index,
        }
    }
}

/// The order that takes a file's buffers processor by processor, each processor's in
/// `SequenceNumber` order (then file order): sort buffers by it to chain each processor's
/// buffers into one cursor, as snail does (it groups buffers by processor and sorts each
/// group by `SequenceNumber`), so that a merge holds one cursor per processor.
///
/// ```
/// # fn sort(buffers: &mut [etw_classic::read::EtlBuffer<'_>]) {
/// use etw_classic::read::ProcessorOrder;
/// buffers.sort_unstable_by_key(ProcessorOrder::of);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProcessorOrder {
    /// The buffer's processor
    /// ([`WmiBufferHeader::processor`](crate::wire::WmiBufferHeader::processor)).
    pub processor: u16,
    /// `WMI_BUFFER_HEADER.SequenceNumber`.
    pub sequence_number: i64,
    /// The buffer's index in the file.
    pub index: usize,
}

impl ProcessorOrder {
    /// The order of `buffer`.
    pub fn of(buffer: &EtlBuffer<'_>) -> Self {
        Self {
            processor: buffer.header.processor(),
            sequence_number: buffer.header.sequence_number,
            index: buffer.index,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::read::error::ReadErrorKind;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// A FULL_HEADER64 event (0x30 bytes) with `timestamp`, or a 0x10-byte `ERROR` event
    /// (no timestamp) for `None`.
    fn push_event(bytes: &mut Vec<u8>, timestamp: Option<i64>) {
        match timestamp {
            Some(timestamp) => {
                let mut event = [0u8; 0x30];
                event[..4].copy_from_slice(&[0x30, 0x00, 0x14, 0xC0]);
                event[0x10..0x18].copy_from_slice(&timestamp.to_le_bytes());
                bytes.extend_from_slice(&event);
            }
            None => bytes
                .extend_from_slice(&[0x10, 0x00, 0x0D, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        }
    }

    fn buffer(timestamps: &[Option<i64>]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for &timestamp in timestamps {
            push_event(&mut bytes, timestamp);
        }
        bytes.extend_from_slice(&[0xFF; 8]);
        bytes
    }

    /// `(id, offset, timestamp)` of every item of the merge; errors as offset `usize::MAX`.
    fn merge(buffers: &[Vec<u8>]) -> Vec<(usize, usize, Option<i64>)> {
        let mut cursors: Vec<MergeCursor<'_, usize>> = buffers
            .iter()
            .enumerate()
            .map(|(id, bytes)| MergeCursor::new(id, Events::new(bytes)))
            .collect();
        TimeOrder::new(&mut cursors)
            .map(|(id, item)| match item {
                Ok(event) => (id, event.offset, event.timestamp()),
                Err(_) => (id, usize::MAX, None),
            })
            .collect()
    }

    #[test]
    fn events_without_a_timestamp_follow_their_predecessor() {
        let buffers = [
            buffer(&[None, Some(5), None, Some(9)]),
            buffer(&[Some(5), Some(6), None]),
        ];
        assert_eq!(
            merge(&buffers),
            [
                // Before the first timestamp: as early as possible.
                (0, 0x00, None),
                (0, 0x10, Some(5)),
                // Carries 5, and cursor 0 wins the tie with its smaller id: right after.
                (0, 0x40, None),
                (1, 0x00, Some(5)),
                (1, 0x30, Some(6)),
                (1, 0x60, None),
                (0, 0x50, Some(9)),
            ]
        );
    }

    #[test]
    fn an_error_ends_its_cursor_only() {
        let mut broken = buffer(&[Some(2), Some(7)]);
        // The second event's marker no longer has TRACE_HEADER_FLAG.
        broken[0x33] = 0x00;
        let buffers = [broken, buffer(&[Some(1), Some(3), Some(8)]), Vec::new()];
        let mut cursors: Vec<MergeCursor<'_, usize>> = buffers
            .iter()
            .enumerate()
            .map(|(id, bytes)| MergeCursor::new(id, Events::new(bytes)))
            .collect();
        let mut merge = TimeOrder::new(&mut cursors);
        assert_eq!(merge.live_cursors(), 2);
        let items: Vec<(usize, Result<Option<i64>, ReadErrorKind>)> = merge
            .by_ref()
            .map(|(id, item)| (id, item.map(|event| event.timestamp()).map_err(|e| e.kind)))
            .collect();
        assert_eq!(
            items,
            [
                (1, Ok(Some(1))),
                (0, Ok(Some(2))),
                // The error keeps the timestamp before it (2): it comes right after.
                (
                    0,
                    Err(ReadErrorKind::NotAnEventHeader {
                        offset: 0x30,
                        found: 0x0014_0030
                    })
                ),
                (1, Ok(Some(3))),
                (1, Ok(Some(8))),
            ]
        );
        assert_eq!(merge.next().map(|(id, _)| id), None);
        assert_eq!(merge.live_cursors(), 0);
    }

    #[test]
    fn swap_exchanges_two_items_and_leaves_one_alone() {
        let mut items = [1, 2, 3];
        swap(&mut items, 0, 2);
        assert_eq!(items, [3, 2, 1]);
        swap(&mut items, 1, 1);
        assert_eq!(items, [3, 2, 1]);
    }

    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "broken invariant"))]
    fn a_swap_out_of_range_is_a_broken_invariant() {
        // Release builds swap nothing; debug builds (the tests, the fuzz targets) stop here.
        let mut items = [1, 2, 3];
        swap(&mut items, 1, 3);
        assert_eq!(items, [1, 2, 3]);
    }

    #[test]
    fn no_cursors_merge_to_nothing() {
        let mut cursors: [MergeCursor<'_, u8>; 0] = [];
        assert_eq!(TimeOrder::new(&mut cursors).next().map(|(id, _)| id), None);
    }

    /// Timestamps split into runs of one buffer each: `(buffer, timestamps)`.
    fn split(sorted: &[i64], cuts: &[usize], buffers: usize) -> Vec<Vec<i64>> {
        // Deal the sorted timestamps into `buffers` runs by the cut positions, each run sorted.
        let mut runs = std::vec![Vec::new(); buffers];
        for (at, &timestamp) in sorted.iter().enumerate() {
            let run = cuts.get(at).copied().unwrap_or(0) % buffers;
            runs[run].push(timestamp);
        }
        runs
    }

    proptest! {
        #[test]
        fn the_merge_is_a_stable_sort(
            mut timestamps in proptest::collection::vec(-20i64..20, 0..80),
            cuts in proptest::collection::vec(any::<usize>(), 0..80),
            buffers in 1usize..9,
        ) {
            timestamps.sort_unstable();
            let runs = split(&timestamps, &cuts, buffers);
            let bytes: Vec<Vec<u8>> = runs
                .iter()
                .map(|run| buffer(&run.iter().copied().map(Some).collect::<Vec<_>>()))
                .collect();
            let merged = merge(&bytes);
            // The stable sort of every (timestamp, buffer, position) by timestamp then buffer.
            let mut expected: Vec<(i64, usize, usize)> = runs
                .iter()
                .enumerate()
                .flat_map(|(id, run)| {
                    run.iter().enumerate().map(move |(at, &timestamp)| (timestamp, id, at * 0x30))
                })
                .collect();
            expected.sort_by_key(|&(timestamp, id, _)| (timestamp, id));
            let expected: Vec<(usize, usize, Option<i64>)> = expected
                .into_iter()
                .map(|(timestamp, id, offset)| (id, offset, Some(timestamp)))
                .collect();
            prop_assert_eq!(merged, expected);
        }

        #[test]
        fn unsorted_buffers_still_yield_every_event_once_in_buffer_order(
            runs in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(any::<i64>()), 0..12), 0..9),
        ) {
            let bytes: Vec<Vec<u8>> = runs.iter().map(|run| buffer(run)).collect();
            let merged = merge(&bytes);
            prop_assert_eq!(merged.len(), runs.iter().map(Vec::len).sum::<usize>());
            for (id, run) in runs.iter().enumerate() {
                let mine: Vec<Option<i64>> = merged
                    .iter()
                    .filter(|(from, _, _)| *from == id)
                    .map(|&(_, _, timestamp)| timestamp)
                    .collect();
                prop_assert_eq!(&mine, run);
            }
        }
    }
}
