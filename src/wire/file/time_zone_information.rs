//! `TIME_ZONE_INFORMATION` and its `SYSTEMTIME` members: the time zone of the machine that
//! wrote a trace, member `TimeZone` of `TRACE_LOGFILE_HEADER`.

use crate::wire::field::{self, Field, Reader};
use crate::wire::utf16::Utf16Str;

/// Byte offsets of `TIME_ZONE_INFORMATION` (mingw-w64 timezoneapi.h, gcc-checked for i686 and
/// x86_64; the same in dissect.etl 3.14's `TZInfo` cstruct). 4-byte aligned, no padding.
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const BIAS: Field<0, 4> = Field::at(0x00); //                                 LONG Bias
    pub(super) const STANDARD_NAME: Field<{ BIAS.end() }, 64> = Field::at(0x04); //          WCHAR StandardName[32]
    pub(super) const STANDARD_DATE: Field<{ STANDARD_NAME.end() }, 16> = Field::at(0x44); // SYSTEMTIME StandardDate
    pub(super) const STANDARD_BIAS: Field<{ STANDARD_DATE.end() }, 4> = Field::at(0x54); //  LONG StandardBias
    pub(super) const DAYLIGHT_NAME: Field<{ STANDARD_BIAS.end() }, 64> = Field::at(0x58); // WCHAR DaylightName[32]
    pub(super) const DAYLIGHT_DATE: Field<{ DAYLIGHT_NAME.end() }, 16> = Field::at(0x98); // SYSTEMTIME DaylightDate
    pub(super) const DAYLIGHT_BIAS: Field<{ DAYLIGHT_DATE.end() }, 4> = Field::at(0xA8); //  LONG DaylightBias
}

/// Byte offsets of `SYSTEMTIME` (minwinbase.h): eight `WORD`s.
#[rustfmt::skip]
mod system_time {
    use super::Field;

    pub(super) const YEAR: Field<0, 2> = Field::at(0x00); //                        WORD wYear
    pub(super) const MONTH: Field<{ YEAR.end() }, 2> = Field::at(0x02); //          WORD wMonth
    pub(super) const DAY_OF_WEEK: Field<{ MONTH.end() }, 2> = Field::at(0x04); //   WORD wDayOfWeek
    pub(super) const DAY: Field<{ DAY_OF_WEEK.end() }, 2> = Field::at(0x06); //     WORD wDay
    pub(super) const HOUR: Field<{ DAY.end() }, 2> = Field::at(0x08); //            WORD wHour
    pub(super) const MINUTE: Field<{ HOUR.end() }, 2> = Field::at(0x0A); //         WORD wMinute
    pub(super) const SECOND: Field<{ MINUTE.end() }, 2> = Field::at(0x0C); //       WORD wSecond
    pub(super) const MILLISECONDS: Field<{ SECOND.end() }, 2> = Field::at(0x0E); // WORD wMilliseconds
}

const _: () = offset::DAYLIGHT_BIAS.ends_at(TimeZoneInformation::LEN);
const _: () = system_time::MILLISECONDS.ends_at(SystemTime::LEN);

/// `SYSTEMTIME` (minwinbase.h), 16 bytes: a date and time as eight 16-bit members.
///
/// | off | member | field |
/// |---|---|---|
/// | 0x00 | `wYear` | [`year`](Self::year) |
/// | 0x02 | `wMonth` | [`month`](Self::month) |
/// | 0x04 | `wDayOfWeek` | [`day_of_week`](Self::day_of_week) |
/// | 0x06 | `wDay` | [`day`](Self::day) |
/// | 0x08 | `wHour` | [`hour`](Self::hour) |
/// | 0x0A | `wMinute` | [`minute`](Self::minute) |
/// | 0x0C | `wSecond` | [`second`](Self::second) |
/// | 0x0E | `wMilliseconds` | [`milliseconds`](Self::milliseconds) |
///
/// In a `TIME_ZONE_INFORMATION` the dates name a yearly transition rather than one moment: with
/// `wYear` 0, `wDay` is the week of the month (1 to 5, 5 meaning the last) on which the
/// `wDayOfWeek` falls. Every value is kept as it is, valid or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SystemTime {
    /// `wYear` (0 in a yearly transition rule).
    pub year: u16,
    /// `wMonth`, 1 (January) to 12; 0 when a time zone has no transition.
    pub month: u16,
    /// `wDayOfWeek`, 0 (Sunday) to 6.
    pub day_of_week: u16,
    /// `wDay`: day of the month, or the week of the month in a transition rule.
    pub day: u16,
    /// `wHour`.
    pub hour: u16,
    /// `wMinute`.
    pub minute: u16,
    /// `wSecond`.
    pub second: u16,
    /// `wMilliseconds`.
    pub milliseconds: u16,
}

impl SystemTime {
    /// Bytes in a `SYSTEMTIME`.
    pub const LEN: usize = 16;

    /// Decodes any 16 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            year: read.u16(system_time::YEAR),
            month: read.u16(system_time::MONTH),
            day_of_week: read.u16(system_time::DAY_OF_WEEK),
            day: read.u16(system_time::DAY),
            hour: read.u16(system_time::HOUR),
            minute: read.u16(system_time::MINUTE),
            second: read.u16(system_time::SECOND),
            milliseconds: read.u16(system_time::MILLISECONDS),
        }
    }

    /// Encodes every member; `from_bytes(&t.to_bytes()) == t` for every `t`.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        field::encode(|write| {
            write.u16(system_time::YEAR, self.year);
            write.u16(system_time::MONTH, self.month);
            write.u16(system_time::DAY_OF_WEEK, self.day_of_week);
            write.u16(system_time::DAY, self.day);
            write.u16(system_time::HOUR, self.hour);
            write.u16(system_time::MINUTE, self.minute);
            write.u16(system_time::SECOND, self.second);
            write.u16(system_time::MILLISECONDS, self.milliseconds);
        })
    }
}

/// `TIME_ZONE_INFORMATION` (timezoneapi.h), 0xAC bytes on both bitnesses.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 4 | `Bias` | [`bias`](Self::bias) |
/// | 0x04 | 64 | `StandardName` | [`standard_name`](Self::standard_name) |
/// | 0x44 | 16 | `StandardDate` | [`standard_date`](Self::standard_date) |
/// | 0x54 | 4 | `StandardBias` | [`standard_bias`](Self::standard_bias) |
/// | 0x58 | 64 | `DaylightName` | [`daylight_name`](Self::daylight_name) |
/// | 0x98 | 16 | `DaylightDate` | [`daylight_date`](Self::daylight_date) |
/// | 0xA8 | 4 | `DaylightBias` | [`daylight_bias`](Self::daylight_bias) |
///
/// The names are kept as all 32 UTF-16 code units, what follows the terminating NUL included
/// (real traces have zeros there, but nothing guarantees it); [`standard_name_str`] and
/// [`daylight_name_str`] give the text up to the NUL. Real traces hold resource references such
/// as `@tzres.dll,-212` rather than display names.
///
/// [`standard_name_str`]: Self::standard_name_str
/// [`daylight_name_str`]: Self::daylight_name_str
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimeZoneInformation {
    /// `Bias`: minutes to add to local time to get UTC (`LONG`; 480 for UTC-8).
    pub bias: i32,
    /// `StandardName`: the standard-time name, NUL-terminated UTF-16.
    pub standard_name: [u16; 32],
    /// `StandardDate`: when daylight time ends (month 0: no daylight time).
    pub standard_date: SystemTime,
    /// `StandardBias`: minutes added to `Bias` in standard time.
    pub standard_bias: i32,
    /// `DaylightName`: the daylight-time name, NUL-terminated UTF-16.
    pub daylight_name: [u16; 32],
    /// `DaylightDate`: when daylight time starts.
    pub daylight_date: SystemTime,
    /// `DaylightBias`: minutes added to `Bias` in daylight time (usually -60).
    pub daylight_bias: i32,
}

impl TimeZoneInformation {
    /// Bytes in a `TIME_ZONE_INFORMATION`.
    pub const LEN: usize = 0xAC;

    /// Decodes any 0xAC bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            bias: i32::from_le_bytes(read.bytes(offset::BIAS)),
            standard_name: units_from_bytes(read.bytes(offset::STANDARD_NAME)),
            standard_date: SystemTime::from_bytes(&read.bytes(offset::STANDARD_DATE)),
            standard_bias: i32::from_le_bytes(read.bytes(offset::STANDARD_BIAS)),
            daylight_name: units_from_bytes(read.bytes(offset::DAYLIGHT_NAME)),
            daylight_date: SystemTime::from_bytes(&read.bytes(offset::DAYLIGHT_DATE)),
            daylight_bias: i32::from_le_bytes(read.bytes(offset::DAYLIGHT_BIAS)),
        }
    }

    /// Encodes every member; `from_bytes(&t.to_bytes()) == t` for every `t`.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        field::encode(|write| {
            write.bytes(offset::BIAS, self.bias.to_le_bytes());
            write.bytes(offset::STANDARD_NAME, units_to_bytes(&self.standard_name));
            write.bytes(offset::STANDARD_DATE, self.standard_date.to_bytes());
            write.bytes(offset::STANDARD_BIAS, self.standard_bias.to_le_bytes());
            write.bytes(offset::DAYLIGHT_NAME, units_to_bytes(&self.daylight_name));
            write.bytes(offset::DAYLIGHT_DATE, self.daylight_date.to_bytes());
            write.bytes(offset::DAYLIGHT_BIAS, self.daylight_bias.to_le_bytes());
        })
    }

    /// `StandardName` up to its first NUL (all 32 units when it has none).
    pub fn standard_name_str(&self) -> Utf16Str<'_> {
        Utf16Str::from_units_until_nul(&self.standard_name)
    }

    /// `DaylightName` up to its first NUL (all 32 units when it has none).
    pub fn daylight_name_str(&self) -> Utf16Str<'_> {
        Utf16Str::from_units_until_nul(&self.daylight_name)
    }
}

/// `TIME_ZONE_INFORMATION` as a member of a larger struct.
impl field::Member<{ TimeZoneInformation::LEN }> for TimeZoneInformation {
    fn decode(bytes: [u8; Self::LEN]) -> Self {
        Self::from_bytes(&bytes)
    }

    fn encode(&self) -> [u8; Self::LEN] {
        self.to_bytes()
    }
}

/// 32 little-endian UTF-16 code units from 64 bytes.
fn units_from_bytes(bytes: [u8; 64]) -> [u16; 32] {
    let mut units = [0; 32];
    for (unit, pair) in units.iter_mut().zip(bytes.chunks_exact(2)) {
        if let [low, high] = *pair {
            *unit = u16::from_le_bytes([low, high]);
        }
    }
    units
}

/// The 64 little-endian bytes of 32 UTF-16 code units.
fn units_to_bytes(units: &[u16; 32]) -> [u8; 64] {
    let mut bytes = [0; 64];
    for (pair, unit) in bytes.chunks_exact_mut(2).zip(units) {
        pair.copy_from_slice(&unit.to_le_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `TimeZone` of `primitive-types.etl` (PerfView test traces) as dissect.etl decodes it:
    /// Bias -120, `@tzres.dll,-352` / `@tzres.dll,-351`, October and March transitions.
    #[test]
    fn decodes_a_real_time_zone() {
        let mut bytes = [0u8; TimeZoneInformation::LEN];
        bytes[..4].copy_from_slice(&(-120i32).to_le_bytes());
        for (at, name) in [(0x04, "@tzres.dll,-352"), (0x58, "@tzres.dll,-351")] {
            for (index, unit) in name.encode_utf16().enumerate() {
                bytes[at + 2 * index..at + 2 * index + 2].copy_from_slice(&unit.to_le_bytes());
            }
        }
        bytes[0x44..0x54].copy_from_slice(&[0, 0, 10, 0, 0, 0, 5, 0, 4, 0, 0, 0, 0, 0, 0, 0]);
        bytes[0x98..0xA8].copy_from_slice(&[0, 0, 3, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
        bytes[0xA8..].copy_from_slice(&(-60i32).to_le_bytes());

        let zone = TimeZoneInformation::from_bytes(&bytes);
        assert_eq!(zone.bias, -120);
        assert!(zone.standard_name_str() == "@tzres.dll,-352");
        assert!(zone.daylight_name_str() == "@tzres.dll,-351");
        assert_eq!(
            zone.standard_date,
            SystemTime {
                month: 10,
                day: 5,
                hour: 4,
                ..SystemTime::default()
            }
        );
        assert_eq!((zone.daylight_date.month, zone.daylight_date.hour), (3, 3));
        assert_eq!((zone.standard_bias, zone.daylight_bias), (0, -60));
        assert_eq!(zone.to_bytes(), bytes);
    }

    #[test]
    fn names_keep_what_follows_the_nul() {
        let mut zone = TimeZoneInformation::default();
        zone.standard_name[0] = u16::from(b'A');
        zone.standard_name[5] = 0xD800;
        let back = TimeZoneInformation::from_bytes(&zone.to_bytes());
        assert_eq!(back, zone);
        assert!(back.standard_name_str() == "A");
        assert_eq!(back.daylight_name_str().len(), 0);
    }
}
