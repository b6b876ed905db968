//! Time values in the headers: FILETIME timestamps and CPU-time ticks.

use core::time::Duration;

/// 100-nanosecond intervals in one second, the FILETIME unit.
const FILETIME_PER_SECOND: i64 = 10_000_000;

/// Nanoseconds in one FILETIME unit.
const NANOS_PER_FILETIME: u32 = 100;

/// Seconds from 1601-01-01 (the FILETIME epoch) to 1970-01-01 (the Unix epoch).
const EPOCH_DIFFERENCE_SECONDS: i64 = 11_644_473_600;

/// The Unix epoch, 1970-01-01T00:00:00Z, as a FILETIME: 116,444,736,000,000,000 intervals of
/// 100 ns since 1601-01-01.
pub const FILETIME_UNIX_EPOCH: i64 = 116_444_736_000_000_000;

const _: () = assert!(EPOCH_DIFFERENCE_SECONDS * FILETIME_PER_SECOND == FILETIME_UNIX_EPOCH);

/// A point in time as seconds and nanoseconds since the Unix epoch, 1970-01-01T00:00:00Z.
///
/// `nanos` is always below 1,000,000,000 in values from [`filetime_to_unix`], and times before
/// 1970 have negative `seconds` with non-negative `nanos` (−0.5 s is `{ seconds: -1,
/// nanos: 500_000_000 }`), as `std::time::SystemTime` and most libraries count them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UnixTime {
    /// Whole seconds since the Unix epoch (negative before it).
    pub seconds: i64,
    /// Nanoseconds after `seconds`, in `0..1_000_000_000`.
    pub nanos: u32,
}

/// Converts a FILETIME — the `TimeStamp` of a header when the session's clock is system time:
/// "the time the event occurred, in 100-nanosecond intervals since midnight, January 1, 1601"
/// — to Unix time. Exact: a FILETIME has no sub-100 ns part to lose.
///
/// Every `i64` has an answer (the range of the result is well within `i64` seconds), so this
/// never fails; negative FILETIMEs, which Windows does not produce, map to times before 1601.
pub fn filetime_to_unix(filetime: i64) -> UnixTime {
    let whole_seconds = filetime.div_euclid(FILETIME_PER_SECOND);
    let intervals = filetime.rem_euclid(FILETIME_PER_SECOND);
    UnixTime {
        // |whole_seconds| <= 2^63 / 10^7, so subtracting 1.2e10 cannot overflow.
        seconds: whole_seconds.saturating_sub(EPOCH_DIFFERENCE_SECONDS),
        // intervals < 10^7, so intervals * 100 < 10^9 fits a u32.
        nanos: u32::try_from(intervals)
            .unwrap_or_default()
            .saturating_mul(NANOS_PER_FILETIME),
    }
}

/// Converts Unix time to a FILETIME, dropping any part below 100 ns (rounding towards the
/// past). The inverse of [`filetime_to_unix`]: `unix_to_filetime(t.seconds, t.nanos) ==
/// Some(f)` for `t = filetime_to_unix(f)`.
///
/// `None` when `nanos` is 1,000,000,000 or more, or when the time lies outside what a FILETIME
/// (`i64`) holds: before about the year -27627 or after about 30828.
pub fn unix_to_filetime(seconds: i64, nanos: u32) -> Option<i64> {
    let intervals = nanos.checked_div(NANOS_PER_FILETIME)?;
    if i64::from(intervals) >= FILETIME_PER_SECOND {
        return None;
    }
    let intervals = i64::from(intervals);
    let since_1601 = seconds.checked_add(EPOCH_DIFFERENCE_SECONDS)?;
    if since_1601 < 0 && intervals > 0 {
        // Count from the next whole second down, so that the earliest FILETIMEs, whose whole
        // second alone would not fit, still convert.
        since_1601
            .checked_add(1)?
            .checked_mul(FILETIME_PER_SECOND)?
            .checked_sub(FILETIME_PER_SECOND.checked_sub(intervals)?)
    } else {
        since_1601
            .checked_mul(FILETIME_PER_SECOND)?
            .checked_add(intervals)
    }
}

/// CPU time in nanoseconds from the `KernelTime` or `UserTime` of a header, which count clock
/// ticks: "seconds = ticks × TimerResolution (100 ns units) × 100 / 1e9", where
/// `TimerResolution` comes from the session's `TRACE_LOGFILE_HEADER`.
///
/// Saturates at `u64::MAX` nanoseconds (about 584 years), which only ticks and resolutions both
/// above 2^30 reach; [`cpu_time`] is exact for every input.
///
/// ```
/// // The rule's example: resolution 156,250 (15.625 ms) and 25 ticks are 0.39 s.
/// assert_eq!(etw_classic::wire::cpu_time_nanos(25, 156_250), 390_625_000);
/// ```
pub fn cpu_time_nanos(ticks: u32, timer_resolution_100ns: u32) -> u64 {
    u64::from(ticks)
        .saturating_mul(u64::from(timer_resolution_100ns))
        .saturating_mul(u64::from(NANOS_PER_FILETIME))
}

/// CPU time as a [`Duration`], by the same rule as [`cpu_time_nanos`] but exact for every input
/// (`ticks × TimerResolution` always fits a `u64` of 100 ns units).
pub fn cpu_time(ticks: u32, timer_resolution_100ns: u32) -> Duration {
    // (2^32 - 1)^2 < 2^64: the product never saturates.
    let intervals = u64::from(ticks).saturating_mul(u64::from(timer_resolution_100ns));
    let per_second = FILETIME_PER_SECOND.unsigned_abs();
    let seconds = intervals.checked_div(per_second).unwrap_or_default();
    let rest = intervals.checked_rem(per_second).unwrap_or_default();
    Duration::from_secs(seconds).saturating_add(Duration::from_nanos(rest.saturating_mul(100)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_epochs_are_116_444_736_000_000_000_intervals_apart() {
        assert_eq!(
            filetime_to_unix(FILETIME_UNIX_EPOCH),
            UnixTime {
                seconds: 0,
                nanos: 0
            }
        );
        assert_eq!(unix_to_filetime(0, 0), Some(FILETIME_UNIX_EPOCH));
        assert_eq!(
            filetime_to_unix(0),
            UnixTime {
                seconds: -11_644_473_600,
                nanos: 0
            }
        );
    }

    #[test]
    fn converts_a_real_timestamp() {
        // 2023-06-15T12:34:56.789012300Z.
        let filetime = 133_313_060_967_890_123;
        let unix = filetime_to_unix(filetime);
        assert_eq!(
            unix,
            UnixTime {
                seconds: 1_686_832_496,
                nanos: 789_012_300
            }
        );
        assert_eq!(unix_to_filetime(unix.seconds, unix.nanos), Some(filetime));
        // Sub-100 ns parts are dropped.
        assert_eq!(unix_to_filetime(unix.seconds, 789_012_399), Some(filetime));
    }

    #[test]
    fn times_before_1970_keep_nanos_non_negative() {
        assert_eq!(
            filetime_to_unix(FILETIME_UNIX_EPOCH - 5_000_000),
            UnixTime {
                seconds: -1,
                nanos: 500_000_000
            }
        );
        assert_eq!(
            unix_to_filetime(-1, 500_000_000),
            Some(FILETIME_UNIX_EPOCH - 5_000_000)
        );
    }

    #[test]
    fn unix_to_filetime_reports_what_does_not_fit() {
        assert_eq!(unix_to_filetime(0, 1_000_000_000), None);
        assert_eq!(
            unix_to_filetime(0, 999_999_999),
            Some(FILETIME_UNIX_EPOCH + 9_999_999)
        );
        assert_eq!(unix_to_filetime(i64::MAX, 0), None);
        assert_eq!(unix_to_filetime(i64::MIN, 0), None);
        let last = filetime_to_unix(i64::MAX);
        assert_eq!(unix_to_filetime(last.seconds, last.nanos), Some(i64::MAX));
        assert_eq!(unix_to_filetime(last.seconds + 1, 0), None);
        let first = filetime_to_unix(i64::MIN);
        assert_eq!(unix_to_filetime(first.seconds, first.nanos), Some(i64::MIN));
    }

    #[test]
    fn cpu_time_follows_the_seed_example() {
        // Resolution 156,250 (100 ns units) and 25 ticks = 0.39 s (0.390625 s exactly).
        assert_eq!(cpu_time_nanos(25, 156_250), 390_625_000);
        assert_eq!(cpu_time(25, 156_250), Duration::from_nanos(390_625_000));
        assert_eq!(cpu_time(0, 156_250), Duration::ZERO);
    }

    #[test]
    fn cpu_time_nanos_saturates_and_cpu_time_does_not() {
        assert_eq!(cpu_time_nanos(u32::MAX, u32::MAX), u64::MAX);
        let intervals = u64::from(u32::MAX) * u64::from(u32::MAX);
        assert_eq!(
            cpu_time(u32::MAX, u32::MAX),
            Duration::new(
                intervals / 10_000_000,
                (intervals % 10_000_000) as u32 * 100
            )
        );
    }

    proptest! {
        #[test]
        fn filetimes_round_trip(
            filetime in prop_oneof![any::<i64>(), (0..20_000_000i64).prop_map(|n| i64::MIN + n)],
        ) {
            let unix = filetime_to_unix(filetime);
            prop_assert!(unix.nanos < 1_000_000_000);
            prop_assert_eq!(unix.nanos % 100, 0);
            prop_assert_eq!(unix_to_filetime(unix.seconds, unix.nanos), Some(filetime));
        }

        #[test]
        fn cpu_time_agrees_with_cpu_time_nanos(ticks in any::<u32>(), resolution in any::<u32>()) {
            let exact = u128::from(ticks) * u128::from(resolution) * 100;
            prop_assert_eq!(cpu_time(ticks, resolution).as_nanos(), exact);
            prop_assert_eq!(
                u128::from(cpu_time_nanos(ticks, resolution)),
                exact.min(u128::from(u64::MAX))
            );
        }
    }
}
