//! Time values in the headers: FILETIME timestamps and CPU-time ticks.

use core::time::Duration;

use crate::invariant::known;

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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
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
        nanos: known(u32::try_from(intervals).ok(), 0).saturating_mul(NANOS_PER_FILETIME),
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

/// 100-nanosecond intervals in one day.
const FILETIME_PER_DAY: i64 = 86_400 * FILETIME_PER_SECOND;

/// Days in 400 Gregorian years: the calendar repeats with this period ("era").
const DAYS_PER_ERA: i64 = 146_097;

/// Days from 1600-03-01 to 1601-01-01 (March to December of 1600): the calendar below counts
/// from 1600-03-01, the start of an era whose years begin in March, so that a leap day is the
/// last day of its year.
const DAYS_FROM_ERA_START_TO_1601: i64 = 306;

/// The year the era of [`DAYS_FROM_ERA_START_TO_1601`] begins in (its March).
const ERA_START_YEAR: i64 = 1600;

/// A FILETIME as a date and time of day in UTC, in the proleptic Gregorian calendar (the
/// Gregorian rules applied to every year, the one FILETIME counts in: "the number of
/// 100-nanosecond intervals since January 1, 1601 (UTC)", docs:FILETIME), down to its 100 ns
/// unit.
///
/// Every `i64` FILETIME has one ([`from_filetime`](Self::from_filetime) never fails): from
/// -27627-04-19 (years counted astronomically, year 0 being 1 BC) to 30828-09-14T02:48:05.4775807Z
/// (`i64::MAX`, the last FILETIME Windows' `FileTimeToSystemTime` names). A day always has
/// 86,400 seconds: FILETIME counts no leap seconds.
///
/// `Display` writes ISO 8601 (the extended format, UTC, seven fraction digits):
/// `YYYY-MM-DDTHH:MM:SS.fffffffZ`. A year outside 0000..=9999 is written with its sign and at
/// least four digits (ISO 8601's expanded years, as `chrono` writes them): `+30828-09-14...`.
///
/// ```
/// use etw_classic::wire::{UtcDateTime, FILETIME_UNIX_EPOCH};
///
/// let epoch = UtcDateTime::from_filetime(FILETIME_UNIX_EPOCH);
/// assert_eq!(epoch.to_string(), "1970-01-01T00:00:00.0000000Z");
/// assert_eq!((epoch.year, epoch.month, epoch.day), (1970, 1, 1));
/// assert_eq!(epoch.to_filetime(), Some(FILETIME_UNIX_EPOCH));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UtcDateTime {
    /// The year, counted astronomically (0 is 1 BC, -1 is 2 BC).
    pub year: i32,
    /// The month, 1 (January) to 12.
    pub month: u8,
    /// The day of the month, from 1.
    pub day: u8,
    /// The hour, 0 to 23.
    pub hour: u8,
    /// The minute, 0 to 59.
    pub minute: u8,
    /// The second, 0 to 59.
    pub second: u8,
    /// 100-nanosecond intervals after the second, 0 to 9,999,999.
    pub intervals: u32,
}

impl UtcDateTime {
    /// The date and time `filetime` (100 ns intervals since 1601-01-01T00:00:00Z) names. Exact
    /// and total: every `i64`, negative ones (before 1601, which Windows does not produce)
    /// included.
    ///
    /// The day count is split into 400-year eras of 146,097 days that begin on 1 March (of
    /// 1600, 2000, ...), so that February, and its leap day, ends each calendar year of the
    /// count; within an era, years of 365 days with a leap day every fourth year but the
    /// hundredth ones (the Gregorian rule), and months of the 153-day five-month cycle
    /// 31-30-31-30-31 from March (the method of H. Hinnant's "chrono-Compatible Low-Level Date
    /// Algorithms", counted here from 1600-03-01).
    pub fn from_filetime(filetime: i64) -> Self {
        let days = filetime.div_euclid(FILETIME_PER_DAY);
        let within_day = filetime.rem_euclid(FILETIME_PER_DAY);
        // |days| <= 2^63 / 8.64e11 < 1.1e7: none of the sums and products below overflow,
        // and every quotient divides by a positive constant.
        #[allow(clippy::arithmetic_side_effects)]
        let (year, month, day, seconds, intervals) = {
            let since_era_start = days + DAYS_FROM_ERA_START_TO_1601;
            let era = since_era_start.div_euclid(DAYS_PER_ERA);
            // 0..=146_096
            let day_of_era = since_era_start.rem_euclid(DAYS_PER_ERA);
            // 0..=399: the era's 365-day years, less the leap days before `day_of_era` (one
            // every 1460 days, none every 36,524, the era's last day a leap day).
            let year_of_era =
                (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
            // 0..=365, from 1 March.
            let day_of_year =
                day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
            // 0..=11, March = 0: five-month cycles of 153 days.
            let month_from_march = (5 * day_of_year + 2) / 153;
            let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
            let (month, next_year) = if month_from_march < 10 {
                (month_from_march + 3, 0)
            } else {
                (month_from_march - 9, 1)
            };
            let year = ERA_START_YEAR + 400 * era + year_of_era + next_year;
            (
                year,
                month,
                day,
                within_day / FILETIME_PER_SECOND,
                within_day % FILETIME_PER_SECOND,
            )
        };
        // The ranges above: -27627..=30828, 1..=12, 1..=31, 0..86_400, 0..10^7.
        let small = |value: i64| known(u8::try_from(value).ok(), 0);
        let seconds = known(u32::try_from(seconds).ok(), 0);
        Self {
            year: known(i32::try_from(year).ok(), 0),
            month: small(month),
            day: small(day),
            hour: small(i64::from(seconds / 3600)),
            minute: small(i64::from(seconds / 60 % 60)),
            second: small(i64::from(seconds % 60)),
            intervals: known(u32::try_from(intervals).ok(), 0),
        }
    }

    /// The FILETIME of this date and time: the inverse of [`from_filetime`](Self::from_filetime).
    ///
    /// `None` when a field is out of its range (month 1..=12, day within the month, hour below
    /// 24, minute and second below 60, `intervals` below 10^7) or the instant lies outside what
    /// an `i64` FILETIME holds.
    pub fn to_filetime(&self) -> Option<i64> {
        let Self {
            year,
            month,
            day,
            hour,
            minute,
            second,
            intervals,
        } = *self;
        let valid = (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month)
            && hour < 24
            && minute < 60
            && second < 60
            && i64::from(intervals) < FILETIME_PER_SECOND;
        if !valid {
            return None;
        }
        // |year| < 2^31, month 1..=12, day 1..=31: the day count stays far within an i64 (below
        // 2^40).
        #[allow(clippy::arithmetic_side_effects)]
        let (days, within_day) = {
            let (month, year_from_march) = if month > 2 {
                (i64::from(month) - 3, i64::from(year))
            } else {
                (i64::from(month) + 9, i64::from(year) - 1)
            };
            let era = (year_from_march - ERA_START_YEAR).div_euclid(400);
            let year_of_era = (year_from_march - ERA_START_YEAR).rem_euclid(400);
            let day_of_year = (153 * month + 2) / 5 + i64::from(day) - 1;
            let day_of_era = 365 * year_of_era + year_of_era / 4 - year_of_era / 100 + day_of_year;
            let days = era * DAYS_PER_ERA + day_of_era - DAYS_FROM_ERA_START_TO_1601;
            let seconds = i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second);
            (days, seconds * FILETIME_PER_SECOND + i64::from(intervals))
        };
        // In an i128, so that the earliest FILETIMEs, whose whole day alone lies below
        // `i64::MIN`, still convert: |days| < 2^40 and the product stays below 2^80.
        #[allow(clippy::arithmetic_side_effects)]
        let filetime = i128::from(days) * i128::from(FILETIME_PER_DAY) + i128::from(within_day);
        i64::try_from(filetime).ok()
    }
}

/// Whether `year` is a leap year of the Gregorian calendar: divisible by 4, and not by 100
/// unless by 400.
const fn is_leap_year(year: i32) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

/// The days of `month` (1..=12) in `year`; 0 for any other month.
const fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// ISO 8601: `YYYY-MM-DDTHH:MM:SS.fffffffZ`, with a sign and at least four digits for a year
/// outside 0000..=9999.
impl core::fmt::Display for UtcDateTime {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if (0..=9999).contains(&self.year) {
            write!(f, "{:04}", self.year)?;
        } else {
            write!(f, "{:+05}", self.year)?;
        }
        write!(
            f,
            "-{:02}-{:02}T{:02}:{:02}:{:02}.{:07}Z",
            self.month, self.day, self.hour, self.minute, self.second, self.intervals
        )
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
    // `per_second` is 10^7, not 0.
    let seconds = known(intervals.checked_div(per_second), 0);
    let rest = known(intervals.checked_rem(per_second), 0);
    Duration::from_secs(seconds).saturating_add(Duration::from_nanos(rest.saturating_mul(100)))
}

#[cfg(test)]
mod tests {
    extern crate std;

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

    /// `UtcDateTime` from its fields, for the tables below.
    fn utc(year: i32, month: u8, day: u8, hms: (u8, u8, u8), intervals: u32) -> UtcDateTime {
        let (hour, minute, second) = hms;
        UtcDateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            intervals,
        }
    }

    #[test]
    fn known_instants_convert_both_ways() {
        // FILETIMEs from Python's `datetime` (an independent calendar): `(t - datetime(1601, 1,
        // 1))` in 100 ns units; the last from the documented FILETIME maximum.
        let table = [
            (
                0,
                utc(1601, 1, 1, (0, 0, 0), 0),
                "1601-01-01T00:00:00.0000000Z",
            ),
            (
                314_496_000_000_000,
                utc(1601, 12, 31, (0, 0, 0), 0),
                "1601-12-31T00:00:00.0000000Z",
            ),
            (
                94_405_824_000_000_000,
                utc(1900, 3, 1, (0, 0, 0), 0),
                "1900-03-01T00:00:00.0000000Z",
            ),
            (
                FILETIME_UNIX_EPOCH,
                utc(1970, 1, 1, (0, 0, 0), 0),
                "1970-01-01T00:00:00.0000000Z",
            ),
            (
                125_962_559_990_000_000,
                utc(2000, 2, 28, (23, 59, 59), 0),
                "2000-02-28T23:59:59.0000000Z",
            ),
            (
                125_962_560_000_000_000,
                utc(2000, 2, 29, (0, 0, 0), 0),
                "2000-02-29T00:00:00.0000000Z",
            ),
            (
                157_519_296_000_000_000,
                utc(2100, 2, 28, (0, 0, 0), 0),
                "2100-02-28T00:00:00.0000000Z",
            ),
            // 2100 is not a leap year: one day after 28 February is 1 March.
            (
                157_520_160_000_000_000,
                utc(2100, 3, 1, (0, 0, 0), 0),
                "2100-03-01T00:00:00.0000000Z",
            ),
            (
                2_650_467_743_999_999_999,
                utc(9999, 12, 31, (23, 59, 59), 9_999_999),
                "9999-12-31T23:59:59.9999999Z",
            ),
            (
                i64::MAX,
                utc(30828, 9, 14, (2, 48, 5), 4_775_807),
                "+30828-09-14T02:48:05.4775807Z",
            ),
            (
                -1,
                utc(1600, 12, 31, (23, 59, 59), 9_999_999),
                "1600-12-31T23:59:59.9999999Z",
            ),
        ];
        for (filetime, expected, text) in table {
            let date = UtcDateTime::from_filetime(filetime);
            assert_eq!(date, expected, "{filetime}");
            assert_eq!(std::format!("{date}"), text);
            assert_eq!(date.to_filetime(), Some(filetime), "{text}");
        }
        let earliest = UtcDateTime::from_filetime(i64::MIN);
        assert_eq!(earliest.year, -27627);
        assert_eq!(earliest.to_filetime(), Some(i64::MIN));
        assert!(std::format!("{earliest}").starts_with("-27627-"));
        assert_eq!(
            std::format!("{}", utc(-1, 1, 1, (0, 0, 0), 0)),
            "-0001-01-01T00:00:00.0000000Z"
        );
    }

    #[test]
    fn invalid_fields_and_instants_past_an_i64_have_no_filetime() {
        let valid = utc(2023, 2, 28, (12, 0, 0), 0);
        assert!(valid.to_filetime().is_some());
        for invalid in [
            utc(2023, 2, 29, (12, 0, 0), 0),
            utc(2023, 0, 1, (12, 0, 0), 0),
            utc(2023, 13, 1, (12, 0, 0), 0),
            utc(2023, 4, 31, (12, 0, 0), 0),
            utc(2023, 4, 0, (12, 0, 0), 0),
            utc(2023, 4, 1, (24, 0, 0), 0),
            utc(2023, 4, 1, (0, 60, 0), 0),
            utc(2023, 4, 1, (0, 0, 60), 0),
            utc(2023, 4, 1, (0, 0, 0), 10_000_000),
            utc(30828, 9, 14, (2, 48, 5), 4_775_808),
            utc(-27627, 1, 1, (0, 0, 0), 0),
            utc(i32::MAX, 12, 31, (23, 59, 59), 9_999_999),
            utc(i32::MIN, 1, 1, (0, 0, 0), 0),
        ] {
            assert_eq!(invalid.to_filetime(), None, "{invalid:?}");
        }
        assert!(utc(2024, 2, 29, (0, 0, 0), 0).to_filetime().is_some());
        assert!(utc(2000, 2, 29, (0, 0, 0), 0).to_filetime().is_some());
        assert!(utc(1900, 2, 29, (0, 0, 0), 0).to_filetime().is_none());
    }

    /// Days from 1970-01-01 to the first of `month` in `year`, counted without the era method:
    /// whole years by the leap-year rule's closed form, then a table of month lengths.
    fn days_since_1970(year: i64, month: u8, day: u8) -> i64 {
        let leap_days_before = |year: i64| {
            let y = year - 1;
            y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400)
        };
        let days_before_year = |year: i64| 365 * year + leap_days_before(year);
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let lengths = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        let before_month: i64 = lengths[..usize::from(month - 1)].iter().sum();
        days_before_year(year) - days_before_year(1970) + before_month + i64::from(day) - 1
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
        fn the_calendar_agrees_with_unix_time(
            filetime in prop_oneof![
                any::<i64>(),
                0..3_000_000_000_000_000_000i64,
                (0..20_000_000i64).prop_map(|n| i64::MIN + n),
                (0..20_000_000i64).prop_map(|n| i64::MAX - n),
            ],
        ) {
            let date = UtcDateTime::from_filetime(filetime);
            let unix = filetime_to_unix(filetime);
            // The same instant as `filetime_to_unix` gives, counted from the civil date.
            let days = days_since_1970(i64::from(date.year), date.month, date.day);
            let seconds = days * 86_400
                + i64::from(date.hour) * 3600
                + i64::from(date.minute) * 60
                + i64::from(date.second);
            prop_assert_eq!(seconds, unix.seconds);
            prop_assert_eq!(date.intervals * 100, unix.nanos);
            prop_assert!((1..=12).contains(&date.month));
            prop_assert!(date.day >= 1 && date.day <= days_in_month(date.year, date.month));
            prop_assert!(date.hour < 24 && date.minute < 60 && date.second < 60);
            prop_assert_eq!(date.to_filetime(), Some(filetime));
        }

        #[test]
        fn the_calendar_is_monotonic(a in any::<i64>(), b in any::<i64>()) {
            let (early, late) = (a.min(b), a.max(b));
            prop_assert!(UtcDateTime::from_filetime(early) <= UtcDateTime::from_filetime(late));
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
