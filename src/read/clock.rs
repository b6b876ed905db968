//! Raw timestamps as time: the session's clock, from the logfile header, turning each event's
//! raw timestamp into a FILETIME and a UTC date and time.

use core::num::NonZeroU64;

use crate::read::error::ClockError;
use crate::read::etl::EtlFile;
use crate::wire::file::trace_logfile_header::{ClockType, TraceLogfileHeader};
use crate::wire::time::UtcDateTime;

/// 100-nanosecond intervals (FILETIME units) per second.
const FILETIME_PER_SECOND: i128 = 10_000_000;

/// The system-time clock's ticks per second: its raw values are already FILETIMEs.
const SYSTEM_TIME_TICKS_PER_SECOND: NonZeroU64 = match NonZeroU64::new(10_000_000) {
    Some(ticks) => ticks,
    None => NonZeroU64::MIN,
};

/// Hertz in one megahertz, for `CpuSpeedInMHz`.
const HERTZ_PER_MEGAHERTZ: u64 = 1_000_000;

/// A session's clock: what its raw timestamps count, and the instant one of them is known to
/// be, so that any other converts to a FILETIME.
///
/// The clock type is `TRACE_LOGFILE_HEADER.ReservedFlags`, whose values docs:TRACE_LOGFILE_HEADER
/// refers to `WNODE_HEADER.ClientContext` for (docs:WNODE_HEADER; ntwmi.h
/// `EVENT_TRACE_CLOCK_*`; EVENT-HEADERS.md §6):
///
/// | `ReservedFlags` | clock | ticks per second `F` |
/// |---|---|---|
/// | 1 | query performance counter (QPC), the default | `PerfFreq` |
/// | 2 | system time (raw values are FILETIMEs) | 10,000,000 |
/// | 3 | CPU cycle counter | `CpuSpeedInMHz` × 10^6 |
/// | 0 (raw) or other | no stated frequency | [`ClockError::UnsupportedClockType`] |
///
/// The anchor pairs `StartTime` (a FILETIME) with the raw timestamp `r0` of the logfile header
/// event itself (the `SystemTime` of its `SYSTEM_TRACE_HEADER`), as TraceEvent (`_syncTimeUTC`
/// and `_syncTimeQPC`), snail and dissect.etl do; see [`to_filetime`](Self::to_filetime) for
/// the formula.
///
/// ```
/// use etw_classic::read::TraceClock;
/// use etw_classic::wire::{ClockType, UtcDateTime};
/// use core::num::NonZeroU64;
///
/// // A 10 MHz QPC clock whose raw 5_000_000_000 was 2020-07-29T00:07:14Z.
/// let start = UtcDateTime { year: 2020, month: 7, day: 29, hour: 0, minute: 7, second: 14,
///                           intervals: 0 }.to_filetime().unwrap();
/// let clock = TraceClock::from_parts(ClockType::QUERY_PERFORMANCE_COUNTER,
///                                    NonZeroU64::new(10_000_000).unwrap(), start, 5_000_000_000);
/// assert_eq!(clock.to_filetime(5_000_000_000), Some(start));
/// let later = clock.to_utc(5_015_000_001).unwrap();
/// assert_eq!(later.to_string(), "2020-07-29T00:07:15.5000001Z");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TraceClock {
    clock_type: ClockType,
    ticks_per_second: NonZeroU64,
    start_time: i64,
    reference_timestamp: i64,
}

impl TraceClock {
    /// The clock `logfile_header` describes, anchored at `reference_timestamp`: the raw
    /// timestamp of the logfile header event, which `StartTime` dates.
    ///
    /// # Errors
    /// [`ClockError::UnsupportedClockType`] when `ReservedFlags` is 0 (raw) or not a documented
    /// clock type; [`ClockError::FrequencyNotPositive`] when the clock's frequency (`PerfFreq`
    /// for QPC, `CpuSpeedInMHz` for the CPU cycle counter) is zero or negative. Nothing is
    /// guessed: TraceEvent falls back to the reading machine's `Stopwatch.Frequency` for a
    /// `PerfFreq` of 0, which names another machine's clock.
    pub fn new(
        logfile_header: &TraceLogfileHeader,
        reference_timestamp: i64,
    ) -> Result<Self, ClockError> {
        let clock_type = logfile_header.reserved_flags();
        let not_positive = |found: i64| ClockError::FrequencyNotPositive { clock_type, found };
        let ticks_per_second = match clock_type {
            ClockType::QUERY_PERFORMANCE_COUNTER => {
                let perf_freq = logfile_header.perf_freq();
                u64::try_from(perf_freq)
                    .ok()
                    .and_then(NonZeroU64::new)
                    .ok_or(not_positive(perf_freq))?
            }
            ClockType::SYSTEM_TIME => SYSTEM_TIME_TICKS_PER_SECOND,
            ClockType::CPU_CYCLE_COUNTER => {
                let megahertz = logfile_header.cpu_speed_in_mhz();
                // At most (2^32 - 1) × 10^6 < 2^52.
                NonZeroU64::new(u64::from(megahertz).saturating_mul(HERTZ_PER_MEGAHERTZ))
                    .ok_or(not_positive(i64::from(megahertz)))?
            }
            _ => return Err(ClockError::UnsupportedClockType { clock_type }),
        };
        Ok(Self::from_parts(
            clock_type,
            ticks_per_second,
            logfile_header.start_time(),
            reference_timestamp,
        ))
    }

    /// The clock of an .etl file: [`new`](Self::new) with the file's logfile header and the
    /// raw timestamp of its logfile header event (`SystemTime` of its `SYSTEM_TRACE_HEADER`).
    ///
    /// # Errors
    /// Those of [`new`](Self::new).
    pub fn from_etl(file: &EtlFile<'_>) -> Result<Self, ClockError> {
        Self::new(&file.logfile_header, file.system_header.system_time)
    }

    /// A clock from its parts, for a session whose header is not at hand (a real-time
    /// session, a frequency known otherwise): `ticks_per_second` raw ticks per second, and the
    /// raw timestamp `reference_timestamp` known to be the FILETIME `start_time`.
    pub const fn from_parts(
        clock_type: ClockType,
        ticks_per_second: NonZeroU64,
        start_time: i64,
        reference_timestamp: i64,
    ) -> Self {
        Self {
            clock_type,
            ticks_per_second,
            start_time,
            reference_timestamp,
        }
    }

    /// The clock type (`ReservedFlags`).
    pub const fn clock_type(&self) -> ClockType {
        self.clock_type
    }

    /// Raw ticks per second, `F` in [`to_filetime`](Self::to_filetime).
    pub const fn ticks_per_second(&self) -> NonZeroU64 {
        self.ticks_per_second
    }

    /// The FILETIME of the anchor (`StartTime`).
    pub const fn start_time(&self) -> i64 {
        self.start_time
    }

    /// The raw timestamp of the anchor (`r0`, the logfile header event's).
    pub const fn reference_timestamp(&self) -> i64 {
        self.reference_timestamp
    }

    /// The FILETIME (100 ns intervals since 1601-01-01 UTC) of the raw timestamp `raw`:
    ///
    /// ```text
    /// filetime = StartTime + floor((raw − r0) × 10^7 / F)
    /// ```
    ///
    /// the formula of EVENT-HEADERS.md §6, computed exactly in 128-bit integers (no floating
    /// point): `(raw − r0) × 10^7` is below 2^88. It rounds down, towards the past, to the
    /// 100 ns unit, for raw timestamps before `r0` too, so the conversion is monotonic
    /// (non-decreasing in `raw`) and exact whenever `F` divides `(raw − r0) × 10^7` (always for
    /// the 10 MHz QPC of recent Windows and for the system-time clock).
    ///
    /// Other readers compute the same formula in floating point, and can differ:
    /// - TraceEvent (`TraceEventSource.QPCTimeToDateTimeUTC`):
    ///   `(long)((raw − r0) × 10000000.0 / F) + StartTime`, in `double`, truncated toward zero:
    ///   one unit later than this for raw timestamps before `r0` that do not convert exactly,
    ///   and possibly one unit off once `|raw − r0| × 10^7` exceeds 2^53 (90 s of a 10 MHz
    ///   clock) and the product is rounded. It supports neither clock type 3 nor 0.
    /// - dissect.etl (`LogfileHeader`): `scale = 10^7 / F` as a float, `base = StartTime −
    ///   int(scale × r0)`, `filetime = base + int(scale × raw)`: two truncations of products of
    ///   the absolute timestamps, so one unit more than this whenever the fractional part of
    ///   `scale × r0` exceeds that of `scale × raw`, and worse once `scale × raw` passes 2^53,
    ///   which the system-time clock always does (a raw FILETIME near 1.3 × 10^17 rounds to a
    ///   multiple of 16 as a float). With `F` = 10^7 and raw values below 2^53 it is exact and
    ///   agrees with this (checked on every event of the PerfView traces, `tests/time.rs`).
    ///
    /// `None` when the result lies outside an `i64`.
    ///
    /// While `(raw − r0) × 10^7` fits an `i64` (`|raw − r0|` below 2^63 / 10^7, about 25 hours
    /// of a 10 MHz clock) the same floor is taken in 64 bits, which a 64-bit processor divides
    /// in one instruction rather than in a 128-bit division routine.
    #[inline]
    pub fn to_filetime(&self, raw: i64) -> Option<i64> {
        let scaled = raw
            .checked_sub(self.reference_timestamp)
            .and_then(|elapsed| elapsed.checked_mul(10_000_000));
        if let (Some(scaled), Ok(ticks)) = (scaled, i64::try_from(self.ticks_per_second.get())) {
            // `ticks` is positive: the Euclidean quotient is the floor, as below.
            return scaled
                .checked_div_euclid(ticks)
                .and_then(|intervals| self.start_time.checked_add(intervals));
        }
        self.filetime_in_128_bits(raw)
    }

    /// [`to_filetime`](Self::to_filetime) in 128-bit integers, for any `raw`.
    fn filetime_in_128_bits(&self, raw: i64) -> Option<i64> {
        // |raw - r0| < 2^64 and 10^7 < 2^24: the product is below 2^88, the sum below 2^89.
        #[allow(clippy::arithmetic_side_effects)]
        let filetime = {
            let elapsed = i128::from(raw) - i128::from(self.reference_timestamp);
            let intervals =
                (elapsed * FILETIME_PER_SECOND).div_euclid(i128::from(self.ticks_per_second.get()));
            i128::from(self.start_time) + intervals
        };
        i64::try_from(filetime).ok()
    }

    /// The UTC date and time of the raw timestamp `raw`: [`to_filetime`](Self::to_filetime),
    /// then [`UtcDateTime::from_filetime`]. `None` when the FILETIME lies outside an `i64`.
    pub fn to_utc(&self, raw: i64) -> Option<UtcDateTime> {
        self.to_filetime(raw).map(UtcDateTime::from_filetime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::file::trace_logfile_header::{TraceLogfileHeader32, TraceLogfileHeader64};
    use crate::wire::layout::Bitness;
    use proptest::prelude::*;

    /// A 64-bit logfile header with the members the clock reads.
    fn header(clock_type: u32, perf_freq: i64, cpu_speed_in_mhz: u32) -> TraceLogfileHeader {
        let mut header = TraceLogfileHeader64 {
            perf_freq,
            start_time: 132_404_548_343_502_666,
            reserved_flags: ClockType(clock_type),
            ..TraceLogfileHeader64::default()
        };
        header.log_instance.set_cpu_speed_in_mhz(cpu_speed_in_mhz);
        TraceLogfileHeader::Bits64(header)
    }

    #[test]
    fn each_clock_type_takes_its_frequency_from_its_member() {
        let start = 132_404_548_343_502_666;
        let qpc = TraceClock::new(&header(1, 3_579_545, 3192), 1000).unwrap();
        assert_eq!(qpc.clock_type(), ClockType::QUERY_PERFORMANCE_COUNTER);
        assert_eq!(qpc.ticks_per_second().get(), 3_579_545);
        assert_eq!((qpc.start_time(), qpc.reference_timestamp()), (start, 1000));
        // One second of a 3.579545 MHz counter after r0, and one tick (2.79 units) more.
        assert_eq!(qpc.to_filetime(1000 + 3_579_545), Some(start + 10_000_000));
        assert_eq!(qpc.to_filetime(1000 + 3_579_546), Some(start + 10_000_002));
        // One tick before r0 rounds down: -2.79 units is -3.
        assert_eq!(qpc.to_filetime(999), Some(start - 3));

        let system = TraceClock::new(&header(2, 0, 0), 5).unwrap();
        assert_eq!(system.ticks_per_second().get(), 10_000_000);
        assert_eq!(system.to_filetime(12), Some(start + 7));

        // 3192 MHz: 319.2 cycles per 100 ns.
        let cycles = TraceClock::new(&header(3, 0, 3192), 0).unwrap();
        assert_eq!(cycles.ticks_per_second().get(), 3_192_000_000);
        assert_eq!(cycles.to_filetime(3_192_000_000), Some(start + 10_000_000));
        assert_eq!(cycles.to_filetime(320), Some(start + 1));
        assert_eq!(cycles.to_filetime(319), Some(start));
    }

    #[test]
    fn clocks_without_a_frequency_are_errors_not_divisions_by_zero() {
        assert_eq!(
            TraceClock::new(&header(0, 10_000_000, 3192), 0),
            Err(ClockError::UnsupportedClockType {
                clock_type: ClockType::RAW
            })
        );
        assert_eq!(
            TraceClock::new(&header(4, 10_000_000, 3192), 0),
            Err(ClockError::UnsupportedClockType {
                clock_type: ClockType(4)
            })
        );
        assert_eq!(
            TraceClock::new(&header(1, 0, 3192), 0),
            Err(ClockError::FrequencyNotPositive {
                clock_type: ClockType::QUERY_PERFORMANCE_COUNTER,
                found: 0
            })
        );
        assert_eq!(
            TraceClock::new(&header(1, -5, 3192), 0),
            Err(ClockError::FrequencyNotPositive {
                clock_type: ClockType::QUERY_PERFORMANCE_COUNTER,
                found: -5
            })
        );
        assert_eq!(
            TraceClock::new(&header(3, 10_000_000, 0), 0),
            Err(ClockError::FrequencyNotPositive {
                clock_type: ClockType::CPU_CYCLE_COUNTER,
                found: 0
            })
        );
        extern crate std;
        assert_eq!(
            std::format!("{}", TraceClock::new(&header(0, 1, 1), 0).unwrap_err()),
            "TRACE_LOGFILE_HEADER.ReservedFlags: expected a clock type of 1 (query performance \
             counter), 2 (system time) or 3 (CPU cycle counter), found 0"
        );
        assert_eq!(
            std::format!("{}", TraceClock::new(&header(3, 1, 0), 0).unwrap_err()),
            "TRACE_LOGFILE_HEADER.CpuSpeedInMHz: expected a positive frequency for clock type 3, \
             found 0"
        );
    }

    #[test]
    fn the_32_bit_layout_gives_the_same_clock() {
        let TraceLogfileHeader::Bits64(wide) = header(1, 10_000_000, 0) else {
            unreachable!()
        };
        let narrow = TraceLogfileHeader32 {
            perf_freq: wide.perf_freq,
            start_time: wide.start_time,
            reserved_flags: wide.reserved_flags,
            ..TraceLogfileHeader32::default()
        };
        let narrow = TraceLogfileHeader::Bits32(narrow);
        assert_eq!(narrow.bitness(), Bitness::Bits32);
        assert_eq!(
            TraceClock::new(&narrow, 77),
            TraceClock::new(&header(1, 10_000_000, 0), 77)
        );
    }

    #[test]
    fn results_outside_an_i64_are_none() {
        let one_hertz =
            TraceClock::from_parts(ClockType::QUERY_PERFORMANCE_COUNTER, NonZeroU64::MIN, 0, 0);
        assert_eq!(one_hertz.to_filetime(1), Some(10_000_000));
        assert_eq!(one_hertz.to_filetime(i64::MAX), None);
        assert_eq!(one_hertz.to_filetime(i64::MIN), None);
        let fast = TraceClock::from_parts(
            ClockType::CPU_CYCLE_COUNTER,
            NonZeroU64::MAX,
            i64::MAX,
            i64::MIN,
        );
        assert_eq!(fast.to_filetime(i64::MAX), None);
        assert_eq!(fast.to_filetime(i64::MIN), Some(i64::MAX));
        assert_eq!(fast.to_utc(i64::MIN).map(|utc| utc.year), Some(30828));
    }

    proptest! {
        #[test]
        fn conversion_is_monotonic_and_exact(
            ticks_per_second in prop_oneof![1..=u64::MAX, Just(10_000_000u64), 1..100_000_000u64],
            start_time in any::<i64>(),
            reference in any::<i64>(),
            a in any::<i64>(),
            b in any::<i64>(),
        ) {
            let frequency = NonZeroU64::new(ticks_per_second).unwrap();
            let clock = TraceClock::from_parts(
                ClockType::QUERY_PERFORMANCE_COUNTER, frequency, start_time, reference);
            let (early, late) = (a.min(b), a.max(b));
            if let (Some(early), Some(late)) = (clock.to_filetime(early), clock.to_filetime(late)) {
                prop_assert!(early <= late);
            }
            // The exact value: the largest FILETIME t with
            // (t - StartTime) × F <= (raw - r0) × 10^7.
            if let Some(filetime) = clock.to_filetime(a) {
                let elapsed = (i128::from(a) - i128::from(reference)) * 10_000_000;
                let f = i128::from(ticks_per_second);
                let units = i128::from(filetime) - i128::from(start_time);
                prop_assert!(units * f <= elapsed);
                prop_assert!((units + 1) * f > elapsed);
            }
            prop_assert_eq!(clock.to_filetime(reference), Some(start_time));
        }

        #[test]
        fn the_64_bit_division_gives_what_the_128_bit_one_gives(
            ticks_per_second in prop_oneof![1..=u64::MAX, Just(10_000_000u64), 1..100_000_000u64],
            start_time in any::<i64>(),
            reference in any::<i64>(),
            far in any::<i64>(),
            near in -2_000_000_000_000i64..2_000_000_000_000,
        ) {
            let frequency = NonZeroU64::new(ticks_per_second).unwrap();
            let clock = TraceClock::from_parts(
                ClockType::QUERY_PERFORMANCE_COUNTER, frequency, start_time, reference);
            // Near the anchor (the 64-bit path, mostly) and anywhere (the 128-bit one, mostly).
            for raw in [reference.saturating_add(near), far] {
                let filetime = clock.to_filetime(raw);
                prop_assert_eq!(filetime, clock.filetime_in_128_bits(raw));
                let exact = (i128::from(raw) - i128::from(reference)) * 10_000_000;
                let exact = i128::from(start_time)
                    + exact.div_euclid(i128::from(ticks_per_second));
                prop_assert_eq!(filetime, i64::try_from(exact).ok());
            }
        }
    }
}
