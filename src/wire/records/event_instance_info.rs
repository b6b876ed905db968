//! `EVENT_INSTANCE_INFO`: a registration handle and the instance id created for it, in its 32-bit
//! and 64-bit layouts.

use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::layout::{Bitness, Layout};

/// Byte offsets of the 32-bit layout (mingw-w64, i686).
mod offset32 {
    use super::Field;

    pub(super) const REG_HANDLE: Field<4> = Field::at(0x00); //  HANDLE RegHandle
    pub(super) const INSTANCE_ID: Field<4> = Field::at(0x04); // ULONG InstanceId
}

/// Byte offsets of the 64-bit layout (mingw-w64, x86_64).
mod offset64 {
    use super::Field;

    pub(super) const REG_HANDLE: Field<8> = Field::at(0x00); //   HANDLE RegHandle
    pub(super) const INSTANCE_ID: Field<4> = Field::at(0x08); //  ULONG InstanceId
    pub(super) const TAIL_PADDING: Field<4> = Field::at(0x0C); // padding to 8-byte alignment
}

const _: () = assert!(offset32::INSTANCE_ID.end() == EventInstanceInfo32::LEN);
const _: () = assert!(offset64::TAIL_PADDING.end() == EventInstanceInfo64::LEN);

/// `EVENT_INSTANCE_INFO` (evntrace.h) as 32-bit code lays it out: 8 bytes.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 4 | `RegHandle` | [`reg_handle`](Self::reg_handle) |
/// | 0x04 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventInstanceInfo32 {
    /// `RegHandle`: the registration handle of the event trace class, a 32-bit `HANDLE`.
    pub reg_handle: u32,
    /// `InstanceId`: the instance identifier `CreateTraceInstanceId` made for the handle.
    pub instance_id: u32,
}

/// `EVENT_INSTANCE_INFO` (evntrace.h) as 64-bit code lays it out: 16 bytes.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 8 | `RegHandle` | [`reg_handle`](Self::reg_handle) |
/// | 0x08 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x0C | 4 | (tail padding) | [`tail_padding`](Self::tail_padding) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventInstanceInfo64 {
    /// `RegHandle`: the registration handle of the event trace class, a 64-bit `HANDLE`.
    pub reg_handle: u64,
    /// `InstanceId`: the instance identifier `CreateTraceInstanceId` made for the handle.
    pub instance_id: u32,
    /// Bytes 0x0C..0x10, padding the struct to a multiple of 8. Kept as read; zero in values
    /// built from fields.
    pub tail_padding: [u8; 4],
}

impl EventInstanceInfo32 {
    /// Bytes in a 32-bit `EVENT_INSTANCE_INFO`.
    pub const LEN: usize = 8;
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventInstanceInfo32;

    /// Decodes any 8 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            reg_handle: read.u32(offset32::REG_HANDLE),
            instance_id: read.u32(offset32::INSTANCE_ID),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    pub(crate) fn write(&self, write: &mut Writer<'_>) {
        write.u32(offset32::REG_HANDLE, self.reg_handle);
        write.u32(offset32::INSTANCE_ID, self.instance_id);
    }
}

impl EventInstanceInfo64 {
    /// Bytes in a 64-bit `EVENT_INSTANCE_INFO`.
    pub const LEN: usize = 16;
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::EventInstanceInfo64;

    /// Decodes any 16 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            reg_handle: read.u64(offset64::REG_HANDLE),
            instance_id: read.u32(offset64::INSTANCE_ID),
            tail_padding: read.bytes(offset64::TAIL_PADDING),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    pub(crate) fn write(&self, write: &mut Writer<'_>) {
        write.u64(offset64::REG_HANDLE, self.reg_handle);
        write.u32(offset64::INSTANCE_ID, self.instance_id);
        write.bytes(offset64::TAIL_PADDING, self.tail_padding);
    }
}

/// `EVENT_INSTANCE_INFO` in the layout a [`Bitness`] value chooses (8 or 16 bytes).
///
/// ```
/// use etw_classic::{Bitness, EventInstanceInfo};
/// let info = EventInstanceInfo::new(Bitness::Bits32, 0x1234, 7)?;
/// let mut out = [0u8; 16];
/// let rest = info.emit(&mut out)?;
/// assert_eq!(rest.len(), 8);
/// assert_eq!(out[..8], [0x34, 0x12, 0, 0, 7, 0, 0, 0]);
/// assert_eq!(EventInstanceInfo::parse(&out, Bitness::Bits32)?.0, info);
/// # Ok::<(), etw_classic::CodecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EventInstanceInfo {
    /// The 32-bit layout.
    Bits32(EventInstanceInfo32),
    /// The 64-bit layout.
    Bits64(EventInstanceInfo64),
}

impl EventInstanceInfo {
    /// An instance info of the given bitness, with zero padding.
    ///
    /// # Errors
    /// [`CodecError::PointerTooWide`] when `reg_handle` does not fit a 32-bit `HANDLE`.
    pub fn new(bitness: Bitness, reg_handle: u64, instance_id: u32) -> Result<Self, CodecError> {
        Ok(match bitness {
            Bitness::Bits32 => Self::Bits32(EventInstanceInfo32 {
                reg_handle: u32::try_from(reg_handle).map_err(|_| CodecError::PointerTooWide {
                    layout: Layout::EventInstanceInfo32,
                    bitness,
                    value: reg_handle,
                })?,
                instance_id,
            }),
            Bitness::Bits64 => Self::Bits64(EventInstanceInfo64 {
                reg_handle,
                instance_id,
                tail_padding: [0; 4],
            }),
        })
    }

    /// Decodes the first 8 (32-bit) or 16 (64-bit) bytes of `input` and returns the rest.
    ///
    /// # Errors
    /// [`CodecError::Truncated`] when `input` is shorter than the layout.
    pub fn parse(input: &[u8], bitness: Bitness) -> Result<(Self, &[u8]), CodecError> {
        Ok(match bitness {
            Bitness::Bits32 => {
                let (info, rest) = EventInstanceInfo32::parse(input)?;
                (Self::Bits32(info), rest)
            }
            Bitness::Bits64 => {
                let (info, rest) = EventInstanceInfo64::parse(input)?;
                (Self::Bits64(info), rest)
            }
        })
    }

    /// Writes the struct in its own layout to the start of `out` and returns the rest of `out`.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] when `out` is shorter than the layout; nothing is written then.
    pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        match self {
            Self::Bits32(info) => info.emit(out),
            Self::Bits64(info) => info.emit(out),
        }
    }

    /// The bitness of this value's layout.
    pub const fn bitness(&self) -> Bitness {
        match self {
            Self::Bits32(_) => Bitness::Bits32,
            Self::Bits64(_) => Bitness::Bits64,
        }
    }

    /// The length of this value's layout: 8 or 16.
    pub const fn byte_len(&self) -> usize {
        match self {
            Self::Bits32(_) => EventInstanceInfo32::LEN,
            Self::Bits64(_) => EventInstanceInfo64::LEN,
        }
    }

    /// `RegHandle`, widened to 64 bits.
    pub fn reg_handle(&self) -> u64 {
        match self {
            Self::Bits32(info) => u64::from(info.reg_handle),
            Self::Bits64(info) => info.reg_handle,
        }
    }

    /// `InstanceId`.
    pub fn instance_id(&self) -> u32 {
        match self {
            Self::Bits32(info) => info.instance_id,
            Self::Bits64(info) => info.instance_id,
        }
    }
}

impl From<EventInstanceInfo32> for EventInstanceInfo {
    fn from(info: EventInstanceInfo32) -> Self {
        Self::Bits32(info)
    }
}

impl From<EventInstanceInfo64> for EventInstanceInfo {
    fn from(info: EventInstanceInfo64) -> Self {
        Self::Bits64(info)
    }
}

field::fixed_layout_entry_points!(EventInstanceInfo32, length_only);
field::fixed_layout_entry_points!(EventInstanceInfo64, length_only);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vectors "EVENT_INSTANCE_INFO ascending": 8 bytes on i686, 16 on x86_64 with zero
    /// padding at 0x0C..0x10.
    #[test]
    fn both_layouts_decode_and_encode() {
        let bytes32: [u8; 8] = ascending();
        let info32 = EventInstanceInfo32::from_bytes(&bytes32);
        assert_eq!(
            (info32.reg_handle, info32.instance_id),
            (0x1413_1211, 0x1817_1615)
        );
        assert_eq!(info32.to_bytes(), bytes32);

        let mut bytes64: [u8; 16] = ascending();
        bytes64[0x0C..].fill(0);
        let info64 = EventInstanceInfo64::from_bytes(&bytes64);
        assert_eq!(
            (info64.reg_handle, info64.instance_id),
            (0x1817_1615_1413_1211, 0x1c1b_1a19)
        );
        assert_eq!(info64.tail_padding, [0; 4]);
        assert_eq!(info64.to_bytes(), bytes64);
    }
}
