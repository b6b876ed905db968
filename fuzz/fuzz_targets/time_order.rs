//! Arbitrary bytes cut into up to eight runs of events, merged in time order by `TimeOrder`, and
//! every raw timestamp converted to a FILETIME and a UTC date and time.
//!
//! Input: a control byte (bits 0-2: cursors - 1; bit 3: make each run's timestamps sorted;
//! bits 4-5: the clock type of a logfile header), a `u64` frequency, an `i64` StartTime and an
//! `i64` reference raw timestamp, then one `u16` cut per cursor but the last (each run takes
//! `cut % (bytes left + 1)` of the bytes left; the last takes the rest), then the event bytes.
//! Missing fields read as zeros.
//!
//! Laws, against models written from `../shared/reference/EVENT-HEADERS.md`:
//! - `Event::timestamp` is the `i64` at the offset §1, §3 and §4 give for the event's kind
//!   (`model_timestamp` below), `None` for the others;
//! - every item of every run's walk comes out of the merge exactly once, each run's in its own
//!   order, an error last (its cursor then ends), whatever the bytes;
//! - the merge orders cursors by the timestamp of their next item (the last one carried over
//!   items without one, `i64::MIN` before the first) then by id; when every run's keys are
//!   non-decreasing (always with bit 3), the merge is exactly the stable sort of all items by
//!   (key, id), so its timestamps are non-decreasing;
//! - `TraceClock::to_filetime` is `StartTime + floor((raw − r0) × 10^7 / F)` when that fits an
//!   `i64` (§6), and non-decreasing in `raw`; `TraceClock::new` takes F from the member the
//!   clock type names and refuses clock types 0 and 4..=7 and a zero frequency;
//! - `UtcDateTime::from_filetime` gives fields in range, converts back to the same FILETIME,
//!   is monotonic, and displays as 28 characters for years 1601..=9999.
#![no_main]

use etw_classic::{
    read::{ClockError, MergeCursor, TimeOrder, TraceClock},
    wire::{TraceLogfileHeader64, UtcDateTime},
    ClockType, Event, Events, ReadError, TraceLogfileHeader,
};
use etw_classic_fuzz::model::{self, header_type};
use libfuzzer_sys::fuzz_target;
use std::num::NonZeroU64;

/// Where a kind's raw timestamp is (EVENT-HEADERS.md): `TimeStamp` @0x10 of the full and
/// instance headers (LAYOUTS.md) and of `EVENT_HEADER` (§1), `SystemTime` @0x10 of `SYSTEM` and
/// `COMPACT` and @0x08 of `PERFINFO` (§3); for a message (§4), after its 8-byte header, a `u32`
/// sequence (flag 0x01), a 16-byte GUID (0x02) or a `u32` component id (0x04), when the
/// `OptionFlags` `u16` @0x06 has `TRACE_MESSAGE_TIMESTAMP` (0x08) and not both 0x02 and 0x04.
fn model_timestamp_at(event: &[u8], kind: u8) -> Option<usize> {
    let at = match kind {
        header_type::FULL_HEADER32
        | header_type::FULL_HEADER64
        | header_type::INSTANCE32
        | header_type::INSTANCE64
        | header_type::SYSTEM32
        | header_type::SYSTEM64
        | header_type::COMPACT32
        | header_type::COMPACT64
        | header_type::EVENT_HEADER32
        | header_type::EVENT_HEADER64 => 0x10,
        header_type::PERFINFO32 | header_type::PERFINFO64 => 0x08,
        header_type::MESSAGE => {
            let flags = model::le16(event, 6);
            if flags & 0x08 == 0 || flags & 0x06 == 0x06 {
                return None;
            }
            let mut at = 8;
            if flags & 0x01 != 0 {
                at += 4;
            }
            if flags & 0x02 != 0 {
                at += 16;
            } else if flags & 0x04 != 0 {
                at += 4;
            }
            at
        }
        _ => return None,
    };
    (event.len() >= at + 8).then_some(at)
}

/// The raw timestamp at [`model_timestamp_at`].
fn model_timestamp(event: &[u8], kind: u8) -> Option<i64> {
    model_timestamp_at(event, kind).map(|at| model::le_i64(event, at))
}

/// The input's fields, zeros where it is short.
struct Input {
    sort: bool,
    clock_type: u32,
    frequency: u64,
    start_time: i64,
    reference: i64,
    /// The length of each run but the last, before it is bounded by the bytes left.
    cuts: Vec<usize>,
    events: Vec<u8>,
}

/// Where the cuts start: after the control byte and three 8-byte clock fields.
const CUTS_AT: usize = 25;

fn read_input(data: &[u8]) -> Input {
    let byte = |at: usize| data.get(at).copied().unwrap_or(0);
    let le =
        |at: usize, len: usize| (0..len).fold(0u64, |v, i| v | u64::from(byte(at + i)) << (8 * i));
    let control = byte(0);
    let cursors = usize::from(control & 7) + 1;
    Input {
        sort: control & 8 != 0,
        clock_type: u32::from((control >> 4) & 3),
        frequency: le(1, 8),
        start_time: le(9, 8) as i64,
        reference: le(17, 8) as i64,
        cuts: (0..cursors - 1)
            .map(|i| le(CUTS_AT + 2 * i, 2) as usize)
            .collect(),
        events: data
            .get(CUTS_AT + 2 * (cursors - 1)..)
            .unwrap_or_default()
            .to_vec(),
    }
}

/// The bounds of each run in the event bytes.
fn runs(input: &Input) -> Vec<(usize, usize)> {
    let mut bounds = Vec::new();
    let mut start = 0;
    for &cut in &input.cuts {
        let left = input.events.len() - start;
        let end = start + cut % (left + 1);
        bounds.push((start, end));
        start = end;
    }
    bounds.push((start, input.events.len()));
    bounds
}

/// Rewrites the timestamps of each run's events (as the walk model finds them) into a
/// non-decreasing sequence: each one the previous plus the old value modulo 16, so that ties
/// are frequent. The bytes the walk reads (marker, `Size`, message flags) are not touched.
fn sort_timestamps(events: &mut [u8], bounds: &[(usize, usize)]) {
    for &(start, end) in bounds {
        let (walked, _) = model::walk(&events[start..end]);
        let mut previous: Option<i64> = None;
        for event in walked {
            let at = start + event.offset;
            let bytes = &events[at..at + usize::from(event.size)];
            let Some(offset) = model_timestamp_at(bytes, event.header_type) else {
                continue;
            };
            let old = model::le_i64(bytes, offset);
            let new = previous.map_or(old, |previous| previous.saturating_add(old.rem_euclid(16)));
            events[at + offset..at + offset + 8].copy_from_slice(&new.to_le_bytes());
            previous = Some(new);
        }
    }
}

/// What one run's walk gives: `(item, key)` with the merge's key for each item.
type Walk<'a> = Vec<(Result<Event<'a>, ReadError>, i64)>;

fn walk_run(bytes: &[u8]) -> Walk<'_> {
    let mut key = i64::MIN;
    let mut items = Vec::new();
    for item in Events::new(bytes) {
        if let Ok(event) = &item {
            let expected = model_timestamp(event.bytes, event.header_type.0);
            assert_eq!(
                event.timestamp(),
                expected,
                "Event::timestamp at {:#x}",
                event.offset
            );
            key = expected.unwrap_or(key);
        }
        items.push((item, key));
    }
    items
}

/// `TraceClock::new` on a 64-bit logfile header with the input's clock fields, against §6.
fn check_new(input: &Input) -> Option<TraceClock> {
    let mut header = TraceLogfileHeader64 {
        perf_freq: input.frequency as i64,
        start_time: input.start_time,
        reserved_flags: ClockType(input.clock_type),
        ..TraceLogfileHeader64::default()
    };
    let megahertz = input.frequency as u32;
    header.log_instance.set_cpu_speed_in_mhz(megahertz);
    let result = TraceClock::new(&TraceLogfileHeader::Bits64(header), input.reference);
    let clock_type = ClockType(input.clock_type);
    let expected = match input.clock_type {
        1 if input.frequency as i64 > 0 => Ok(input.frequency),
        1 => Err(ClockError::FrequencyNotPositive {
            clock_type,
            found: input.frequency as i64,
        }),
        2 => Ok(10_000_000),
        3 if megahertz > 0 => Ok(u64::from(megahertz) * 1_000_000),
        3 => Err(ClockError::FrequencyNotPositive {
            clock_type,
            found: 0,
        }),
        _ => Err(ClockError::UnsupportedClockType { clock_type }),
    };
    let frequency = result.map(|clock| clock.ticks_per_second().get());
    assert_eq!(frequency, expected, "TraceClock::new");
    let clock = result.ok()?;
    assert_eq!(
        (clock.start_time(), clock.reference_timestamp()),
        (input.start_time, input.reference)
    );
    Some(clock)
}

/// The conversion of §6 in 128-bit integers, rounded down.
fn model_filetime(clock: &TraceClock, raw: i64) -> Option<i64> {
    let elapsed = (i128::from(raw) - i128::from(clock.reference_timestamp())) * 10_000_000;
    let units = elapsed.div_euclid(i128::from(clock.ticks_per_second().get()));
    i64::try_from(i128::from(clock.start_time()) + units).ok()
}

fn check_utc(filetime: i64) -> UtcDateTime {
    let date = UtcDateTime::from_filetime(filetime);
    assert!((1..=12).contains(&date.month) && (1..=31).contains(&date.day));
    assert!(date.hour < 24 && date.minute < 60 && date.second < 60 && date.intervals < 10_000_000);
    assert_eq!(date.to_filetime(), Some(filetime), "{date:?}");
    let text = date.to_string();
    if (1601..=9999).contains(&date.year) {
        assert_eq!(text.len(), 28, "{text}");
    }
    date
}

fuzz_target!(|data: &[u8]| {
    let mut input = read_input(data);
    let bounds = runs(&input);
    if input.sort {
        sort_timestamps(&mut input.events, &bounds);
    }
    let runs: Vec<&[u8]> = bounds
        .iter()
        .map(|&(start, end)| &input.events[start..end])
        .collect();
    let walks: Vec<Walk<'_>> = runs.iter().map(|run| walk_run(run)).collect();

    let mut cursors: Vec<MergeCursor<'_, usize>> = runs
        .iter()
        .enumerate()
        .map(|(id, run)| MergeCursor::new(id, Events::new(run)))
        .collect();
    let merged: Vec<(usize, Result<Event<'_>, ReadError>)> = TimeOrder::new(&mut cursors).collect();

    // Every item once, each run's in its own order.
    assert_eq!(merged.len(), walks.iter().map(Vec::len).sum::<usize>());
    let mut next = vec![0usize; walks.len()];
    let mut keys = Vec::with_capacity(merged.len());
    for (id, item) in &merged {
        let (expected, key) = &walks[*id][next[*id]];
        assert_eq!(item, expected, "cursor {id}, item {}", next[*id]);
        next[*id] += 1;
        keys.push((*key, *id));
    }

    // With sorted runs, exactly the stable sort by (key, id).
    let sorted_runs = walks
        .iter()
        .all(|walk| walk.windows(2).all(|pair| pair[0].1 <= pair[1].1));
    if input.sort {
        assert!(sorted_runs, "the runs were sorted");
    }
    if sorted_runs {
        assert!(keys.windows(2).all(|pair| pair[0] <= pair[1]), "{keys:?}");
    }

    // The clock, on every timestamp of the merge.
    let clocks = [
        check_new(&input),
        NonZeroU64::new(input.frequency).map(|frequency| {
            TraceClock::from_parts(
                ClockType(input.clock_type),
                frequency,
                input.start_time,
                input.reference,
            )
        }),
    ];
    for clock in clocks.into_iter().flatten() {
        let mut previous: Option<(i64, i64)> = None;
        let mut raws: Vec<i64> = merged
            .iter()
            .filter_map(|(_, item)| item.as_ref().ok()?.timestamp())
            .chain([input.reference, i64::MIN, i64::MAX, input.start_time])
            .collect();
        raws.sort_unstable();
        for raw in raws {
            let filetime = clock.to_filetime(raw);
            assert_eq!(filetime, model_filetime(&clock, raw), "raw {raw}");
            let Some(filetime) = filetime else { continue };
            if let Some((previous_raw, previous_filetime)) = previous {
                assert!(previous_raw <= raw && previous_filetime <= filetime);
            }
            previous = Some((raw, filetime));
            assert_eq!(clock.to_utc(raw), Some(check_utc(filetime)));
        }
        assert_eq!(clock.to_filetime(input.reference), Some(input.start_time));
    }
    let (a, b) = (
        input.start_time.min(input.reference),
        input.start_time.max(input.reference),
    );
    assert!(check_utc(a) <= check_utc(b));
});
