//! The `Class` / `Version` union at offset 0x04 of every classic event header.

use crate::wire::codes::{EventType, Level};

/// `Class`: the event's type, level and class version, the structured view of the `Version` union.
///
/// ```c
/// union {
///     ULONG Version;
///     struct { UCHAR Type; UCHAR Level; USHORT Version; } Class;
/// };
/// ```
/// "This is a roll-up of the members of Class. The low-order byte contains the Type, the next
/// byte contains the Level, and the last two bytes contain the version." The conversions to and
/// from the `u32` roll-up are lossless both ways, for every value.
///
/// ```
/// use etw_classic::{Class, EventType, Level};
/// let class = Class::from(0x0002_040A);
/// assert_eq!(class, Class { event_type: EventType(10), level: Level::INFORMATION, version: 2 });
/// assert_eq!(u32::from(class), 0x0002_040A);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Class {
    /// `Class.Type`, the low-order byte.
    pub event_type: EventType,
    /// `Class.Level`, the next byte.
    pub level: Level,
    /// `Class.Version`, the high 16 bits: the version of the event trace class (all 16 bits kept).
    pub version: u16,
}

impl Class {
    /// The class with the given members.
    pub const fn new(event_type: EventType, level: Level, version: u16) -> Self {
        Self {
            event_type,
            level,
            version,
        }
    }

    /// Splits the `Version` roll-up into its members.
    #[inline]
    pub const fn from_roll_up(roll_up: u32) -> Self {
        let [event_type, level, version_low, version_high] = roll_up.to_le_bytes();
        Self {
            event_type: EventType(event_type),
            level: Level(level),
            version: u16::from_le_bytes([version_low, version_high]),
        }
    }

    /// The `Version` roll-up of the members.
    #[inline]
    pub const fn roll_up(self) -> u32 {
        let [version_low, version_high] = self.version.to_le_bytes();
        u32::from_le_bytes([self.event_type.0, self.level.0, version_low, version_high])
    }
}

impl From<u32> for Class {
    fn from(roll_up: u32) -> Self {
        Self::from_roll_up(roll_up)
    }
}

impl From<Class> for u32 {
    fn from(class: Class) -> Self {
        class.roll_up()
    }
}
