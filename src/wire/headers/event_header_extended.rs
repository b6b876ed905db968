//! What follows an `EVENT_HEADER` in a trace buffer: the extended data items (when the header's
//! flags have `EVENT_HEADER_FLAG_EXTENDED_INFO`), then the user data, up to the event's `Size`.
//!
//! The rules, from `../shared/reference/EVENT-HEADERS.md` §2 (checked on the bytes of the 1,731
//! flagged events of the PerfView sample traces, without exception):
//!
//! - The consumer's `EVENT_HEADER_EXTENDED_DATA_ITEM` (evntcons.h) is 16 bytes: `Reserved1`,
//!   `ExtType`, `Linkage:1 | Reserved2:15`, `DataSize` (all `USHORT`), then a 64-bit `DataPtr`.
//!   A trace buffer stores no pointer: each item is the first 8 bytes of that struct followed
//!   in place by its `DataSize` bytes of data, padded to the item's size; and the first `USHORT`
//!   (`Reserved1` to the consumer) holds that size, 8 + `DataSize` rounded up to 8 in every
//!   item seen (this module reads it rather than assume it).
//! - The first item starts right after the 0x50-byte header; each next item starts where the
//!   previous one ends.
//! - The list ends with the item whose `Linkage` bit (bit 0 of the third `USHORT`) is 0. The
//!   header has no item count (`EVENT_RECORD.ExtendedDataCount` is the consumer's count).
//! - The user data runs from the end of the last item to the event's `Size`.
//!
//! Each item keeps every byte it was read from (its 8-byte header, `Linkage` word included,
//! its data and its padding), so that [`ExtendedItem::emit`] writes it back unchanged.

use core::iter::FusedIterator;

use crate::invariant::known;
use crate::wire::codes::{EventHeaderExtType, EventHeaderFlags};
use crate::wire::error::CodecError;
use crate::wire::error::{ExtendedItemFault, PayloadLength};
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::guid::Guid;
use crate::wire::layout::Layout;

/// Byte offsets of an item's header as a trace buffer stores it, named after evntcons.h
/// `EVENT_HEADER_EXTENDED_DATA_ITEM` (mingw-w64, the same offsets on i686 and x86_64).
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const ITEM_SIZE: Field<0, 2> = Field::at(0x00); //                 USHORT Reserved1 (on disk: the item's size)
    pub(super) const EXT_TYPE: Field<{ ITEM_SIZE.end() }, 2> = Field::at(0x02); // USHORT ExtType
    pub(super) const LINKAGE: Field<{ EXT_TYPE.end() }, 2> = Field::at(0x04); //   USHORT Linkage:1, Reserved2:15
    pub(super) const DATA_SIZE: Field<{ LINKAGE.end() }, 2> = Field::at(0x06); //  USHORT DataSize
}

const _: () = offset::DATA_SIZE.ends_at(ExtendedItemHeader::LEN);

/// Byte offsets of `EVENT_EXTENDED_ITEM_INSTANCE` (evntcons.h; 0x18 bytes, mingw-w64).
#[rustfmt::skip]
mod instance_offset {
    use super::Field;

    pub(super) const INSTANCE_ID: Field<0, 4> = Field::at(0x00); //                           ULONG InstanceId
    pub(super) const PARENT_INSTANCE_ID: Field<{ INSTANCE_ID.end() }, 4> = Field::at(0x04); // ULONG ParentInstanceId
    pub(super) const PARENT_GUID: Field<{ PARENT_INSTANCE_ID.end() }, 16> = Field::at(0x08); // GUID ParentGuid
}

const _: () = instance_offset::PARENT_GUID.ends_at(ExtendedInstance::LEN);

/// Byte offsets of `EVENT_EXTENDED_ITEM_STACK_KEY32` and `..._STACK_KEY64` (evntcons.h, Microsoft
/// docs; 16 bytes each).
#[rustfmt::skip]
mod stack_key_offset {
    use super::Field;

    pub(super) const MATCH_ID: Field<0, 8> = Field::at(0x00); //                       ULONG64 MatchId
    pub(super) const STACK_KEY32: Field<{ MATCH_ID.end() }, 4> = Field::at(0x08); //   ULONG StackKey (STACK_KEY32)
    pub(super) const PADDING: Field<{ STACK_KEY32.end() }, 4> = Field::at(0x0C); //    ULONG Padding (STACK_KEY32)
    pub(super) const STACK_KEY64: Field<{ MATCH_ID.end() }, 8> = Field::at(0x08); //   ULONG64 StackKey (STACK_KEY64)
}

const _: () = stack_key_offset::PADDING.ends_at(StackKey32::LEN);
const _: () = stack_key_offset::STACK_KEY64.ends_at(StackKey64::LEN);

/// The 8-byte header of an extended data item as a trace buffer stores it: the first four
/// members of `EVENT_HEADER_EXTENDED_DATA_ITEM` (evntcons.h), whose data follows in place.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Reserved1` | [`item_size`](Self::item_size): on disk, the item's size |
/// | 0x02 | 2 | `ExtType` | [`ext_type`](Self::ext_type) |
/// | 0x04 | 2 | `Linkage:1`, `Reserved2:15` | [`linkage`](Self::linkage) |
/// | 0x06 | 2 | `DataSize` | [`data_size`](Self::data_size) |
///
/// [`from_bytes`](Self::from_bytes) takes any 8 bytes and [`to_bytes`](Self::to_bytes) gives
/// them back unchanged; [`parse`](Self::parse) checks only the length (the checks of an item
/// against its event are [`ExtendedItems`]').
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtendedItemHeader {
    /// `Reserved1` to the consumer; in a trace buffer, the item's size: this header, the data
    /// and its padding. 8 + `DataSize` rounded up to a multiple of 8 in every item seen.
    pub item_size: u16,
    /// `ExtType`: what the data holds.
    pub ext_type: EventHeaderExtType,
    /// The whole `USHORT` of `Linkage:1` (bit 0: "Indicates if there are more extended data
    /// items", 1 when another item follows) and `Reserved2:15` (bits 1..15, 0 in every item
    /// seen, kept).
    pub linkage: u16,
    /// `DataSize`: "Size, in bytes, of the extended data", without the padding.
    pub data_size: u16,
}

impl ExtendedItemHeader {
    /// Bytes in an item's header.
    pub const LEN: usize = Layout::ExtendedItemHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::ExtendedItemHeader;
    /// The `Linkage` bit of [`linkage`](Self::linkage).
    pub const LINKAGE_BIT: u16 = 0x0001;

    /// The header of an item of `ext_type` holding `data_size` bytes, padded to a multiple of 8
    /// as Windows writes them, with the `Linkage` bit set when `another_follows`; `None` when
    /// the padded size exceeds 65,535.
    pub fn for_data(
        ext_type: EventHeaderExtType,
        data_size: u16,
        another_follows: bool,
    ) -> Option<Self> {
        let padded = usize::from(data_size)
            .checked_add(Self::LEN)?
            .next_multiple_of(8);
        Some(Self {
            item_size: u16::try_from(padded).ok()?,
            ext_type,
            linkage: u16::from(another_follows),
            data_size,
        })
    }

    /// Decodes any 8 bytes; nothing is checked and nothing is lost.
    #[inline]
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            item_size: read.u16(offset::ITEM_SIZE),
            ext_type: EventHeaderExtType(read.u16(offset::EXT_TYPE)),
            linkage: read.u16(offset::LINKAGE),
            data_size: read.u16(offset::DATA_SIZE),
        }
    }

    /// Encodes the members into the 8 bytes `write` covers (`to_bytes` and `emit` are built on
    /// it).
    #[inline]
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u16(offset::ITEM_SIZE, self.item_size);
        write.u16(offset::EXT_TYPE, self.ext_type.0);
        write.u16(offset::LINKAGE, self.linkage);
        write.u16(offset::DATA_SIZE, self.data_size);
    }

    /// Whether the `Linkage` bit says another item follows this one.
    pub const fn has_next(&self) -> bool {
        self.linkage & Self::LINKAGE_BIT != 0
    }

    /// `Reserved2`: bits 1..15 of the `Linkage` word.
    pub const fn reserved2(&self) -> u16 {
        self.linkage >> 1
    }
}

field::fixed_layout_entry_points!(ExtendedItemHeader, length_only);

/// One extended data item of an event, borrowed from the event's bytes: its header, data and
/// padding, every byte it was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ExtendedItem<'a> {
    /// Which item of the event this is, counting from 0.
    pub index: usize,
    /// Where the item starts, from the start of the event (0x50 for the first item).
    pub offset: usize,
    /// The item's 8-byte header.
    pub header: ExtendedItemHeader,
    /// The item's data: `DataSize` bytes.
    pub data: &'a [u8],
    /// The bytes after the data up to the item's size (zero in every item seen).
    pub padding: &'a [u8],
}

impl<'a> ExtendedItem<'a> {
    /// An item of `header` with `data` and `padding`, at item `index` and event offset `offset`
    /// (for building events; [`ExtendedItems`] makes the ones it reads).
    pub const fn new(
        index: usize,
        offset: usize,
        header: ExtendedItemHeader,
        data: &'a [u8],
        padding: &'a [u8],
    ) -> Self {
        Self {
            index,
            offset,
            header,
            data,
            padding,
        }
    }

    /// The item's type.
    pub const fn ext_type(&self) -> EventHeaderExtType {
        self.header.ext_type
    }

    /// Whether the `Linkage` bit says another item follows.
    pub const fn has_next(&self) -> bool {
        self.header.has_next()
    }

    /// The bytes [`emit`](Self::emit) writes: the header, the data and the padding (the item's
    /// size, for an item that was read).
    pub const fn byte_len(&self) -> usize {
        ExtendedItemHeader::LEN
            .saturating_add(self.data.len())
            .saturating_add(self.padding.len())
    }

    /// Writes the item's header, data and padding, as they are, to the start of `out`, and
    /// returns the rest of `out`. An item that was read is written back byte for byte.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] (about [`Layout::ExtendedItemHeader`], with the item's
    /// whole length) when `out` is shorter than [`byte_len`](Self::byte_len); nothing is
    /// written then.
    pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        let needed = self.byte_len();
        let too_small = CodecError::OutputTooSmall {
            layout: Layout::ExtendedItemHeader,
            needed,
            found: out.len(),
        };
        // Checked first, so that nothing is written when the three parts do not all fit.
        if out.len() < needed {
            return Err(too_small);
        }
        let (header, rest) = out
            .split_first_chunk_mut::<{ ExtendedItemHeader::LEN }>()
            .ok_or(too_small)?;
        *header = self.header.to_bytes();
        let rest = copy_to_front(rest, self.data).ok_or(too_small)?;
        copy_to_front(rest, self.padding).ok_or(too_small)
    }

    /// The data decoded by the item's type; [`ExtendedPayload::Raw`] for the types without a
    /// public layout (`PSM_KEY`, `CONTROL_GUID`, `QPC_DELTA`, `CONTAINER_ID`) and unknown ones.
    ///
    /// # Errors
    /// [`CodecError::ExtendedItem`] with this item's index and offset when the data does not
    /// have the length the type needs ([`ExtendedItemFault::PayloadSize`]), a SID's
    /// sub-authorities do not fit ([`ExtendedItemFault::SidSubAuthorities`]), or the provider
    /// traits are malformed (`ProviderTraitsSize`, `ProviderNameUnterminated`, `ProviderTrait`).
    pub fn payload(&self) -> Result<ExtendedPayload<'a>, CodecError> {
        let data = self.data;
        let size = |expected| ExtendedItemFault::PayloadSize {
            ext_type: self.header.ext_type,
            expected,
            data_size: self.header.data_size,
        };
        let exactly = |len: usize| {
            // Every length asked for here is at most 24.
            size(PayloadLength::Exactly(known(
                u16::try_from(len).ok(),
                u16::MAX,
            )))
        };
        let payload = match self.header.ext_type {
            EventHeaderExtType::RELATED_ACTIVITYID => exact::<16>(data)
                .map(|bytes| ExtendedPayload::RelatedActivityId(Guid::from_bytes_le(*bytes)))
                .ok_or(exactly(16)),
            EventHeaderExtType::SID => Sid::parse(data, size),
            EventHeaderExtType::TS_ID => exact::<4>(data)
                .map(|bytes| ExtendedPayload::TerminalSessionId(u32::from_le_bytes(*bytes)))
                .ok_or(exactly(4)),
            EventHeaderExtType::INSTANCE_INFO => exact(data)
                .map(|bytes| ExtendedPayload::Instance(ExtendedInstance::from_bytes(bytes)))
                .ok_or(exactly(ExtendedInstance::LEN)),
            EventHeaderExtType::STACK_TRACE32 => split_match_id::<4>(data)
                .map(|(match_id, addresses)| {
                    ExtendedPayload::StackTrace32(StackTrace32 {
                        match_id,
                        addresses: U32Values { bytes: addresses },
                    })
                })
                .ok_or(size(PayloadLength::FixedAndMultipleOf {
                    fixed: 8,
                    unit: 4,
                })),
            EventHeaderExtType::STACK_TRACE64 => split_match_id::<8>(data)
                .map(|(match_id, addresses)| {
                    ExtendedPayload::StackTrace64(StackTrace64 {
                        match_id,
                        addresses: U64Values { bytes: addresses },
                    })
                })
                .ok_or(size(PayloadLength::FixedAndMultipleOf {
                    fixed: 8,
                    unit: 8,
                })),
            EventHeaderExtType::PEBS_INDEX => exact_u64(data)
                .map(ExtendedPayload::PebsIndex)
                .ok_or(exactly(8)),
            EventHeaderExtType::PMC_COUNTERS => data
                .len()
                .is_multiple_of(8)
                .then_some(ExtendedPayload::PmcCounters(U64Values { bytes: data }))
                .ok_or(size(PayloadLength::FixedAndMultipleOf {
                    fixed: 0,
                    unit: 8,
                })),
            EventHeaderExtType::EVENT_KEY => exact_u64(data)
                .map(ExtendedPayload::EventKey)
                .ok_or(exactly(8)),
            EventHeaderExtType::EVENT_SCHEMA_TL => Ok(ExtendedPayload::EventSchemaTl(data)),
            EventHeaderExtType::PROV_TRAITS => {
                ProviderTraits::parse(data, size).map(ExtendedPayload::ProviderTraits)
            }
            EventHeaderExtType::PROCESS_START_KEY => exact_u64(data)
                .map(ExtendedPayload::ProcessStartKey)
                .ok_or(exactly(8)),
            EventHeaderExtType::STACK_KEY32 => exact(data)
                .map(|bytes| ExtendedPayload::StackKey32(StackKey32::from_bytes(bytes)))
                .ok_or(exactly(StackKey32::LEN)),
            EventHeaderExtType::STACK_KEY64 => exact(data)
                .map(|bytes| ExtendedPayload::StackKey64(StackKey64::from_bytes(bytes)))
                .ok_or(exactly(StackKey64::LEN)),
            _ => Ok(ExtendedPayload::Raw(data)),
        };
        payload.map_err(|fault| self.error(fault))
    }

    /// The error `fault` about this item.
    const fn error(&self, fault: ExtendedItemFault) -> CodecError {
        CodecError::ExtendedItem {
            index: self.index,
            offset: self.offset,
            fault,
        }
    }
}

/// Copies `bytes` to the start of `out` and returns the rest of `out`; `None` if `out` is
/// shorter. A loop rather than `copy_from_slice`, whose length check the optimiser does not
/// always remove at opt-level "z" (`tools/no-panic/check.sh`).
fn copy_to_front<'o>(out: &'o mut [u8], bytes: &[u8]) -> Option<&'o mut [u8]> {
    let (target, rest) = out.split_at_mut_checked(bytes.len())?;
    for (to, from) in target.iter_mut().zip(bytes) {
        *to = *from;
    }
    Some(rest)
}

/// `data` as an array of exactly `N` bytes.
fn exact<const N: usize>(data: &[u8]) -> Option<&[u8; N]> {
    data.try_into().ok()
}

/// `data` as exactly one little-endian `u64`.
fn exact_u64(data: &[u8]) -> Option<u64> {
    exact::<8>(data).map(|bytes| u64::from_le_bytes(*bytes))
}

/// A `MatchId` (`u64`) then a whole number of `UNIT`-byte addresses.
fn split_match_id<const UNIT: usize>(data: &[u8]) -> Option<(u64, &[u8])> {
    let (match_id, addresses) = data.split_first_chunk::<8>()?;
    addresses
        .len()
        .is_multiple_of(UNIT)
        .then_some((u64::from_le_bytes(*match_id), addresses))
}

/// An extended data item's data, decoded by its type ([`ExtendedItem::payload`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ExtendedPayload<'a> {
    /// `RELATED_ACTIVITYID`: `EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID.RelatedActivityId`, the
    /// parent activity of the event's `ActivityId` (16 bytes).
    RelatedActivityId(Guid),
    /// `SID`: the security identifier of the user that logged the event.
    Sid(Sid<'a>),
    /// `TS_ID`: `EVENT_EXTENDED_ITEM_TS_ID.SessionId`, the terminal session (4 bytes).
    TerminalSessionId(u32),
    /// `INSTANCE_INFO`: `EVENT_EXTENDED_ITEM_INSTANCE` (24 bytes).
    Instance(ExtendedInstance),
    /// `STACK_TRACE32`: `EVENT_EXTENDED_ITEM_STACK_TRACE32`, a `MatchId` and 32-bit return
    /// addresses.
    StackTrace32(StackTrace32<'a>),
    /// `STACK_TRACE64`: `EVENT_EXTENDED_ITEM_STACK_TRACE64`, a `MatchId` and 64-bit return
    /// addresses. It follows the operating system's stack walk, not the header type: 64-bit
    /// Windows adds it to `EVENT_HEADER32` events too.
    StackTrace64(StackTrace64<'a>),
    /// `PEBS_INDEX`: `EVENT_EXTENDED_ITEM_PEBS_INDEX.PebsIndex` (8 bytes).
    PebsIndex(u64),
    /// `PMC_COUNTERS`: `EVENT_EXTENDED_ITEM_PMC_COUNTERS.Counter`, the performance-monitoring
    /// counters, a whole number of `u64`s.
    PmcCounters(U64Values<'a>),
    /// `EVENT_KEY`: `EVENT_EXTENDED_ITEM_EVENT_KEY.Key` (8 bytes).
    EventKey(u64),
    /// `EVENT_SCHEMA_TL`: the TraceLogging event metadata, which has no public struct (in the
    /// PerfView samples: a `u16` size equal to `DataSize`, tag bytes, the NUL-terminated UTF-8
    /// event name, then the field entries); kept as it is.
    EventSchemaTl(&'a [u8]),
    /// `PROV_TRAITS`: the provider's name and traits.
    ProviderTraits(ProviderTraits<'a>),
    /// `PROCESS_START_KEY`: `EVENT_EXTENDED_ITEM_PROCESS_START_KEY.ProcessStartKey` (8 bytes).
    ProcessStartKey(u64),
    /// `STACK_KEY32`: `EVENT_EXTENDED_ITEM_STACK_KEY32` (16 bytes).
    StackKey32(StackKey32),
    /// `STACK_KEY64`: `EVENT_EXTENDED_ITEM_STACK_KEY64` (16 bytes).
    StackKey64(StackKey64),
    /// A type without a public layout (`PSM_KEY`, `CONTROL_GUID`, `QPC_DELTA`,
    /// `CONTAINER_ID`) or an unknown one: the data as it is.
    Raw(&'a [u8]),
}

/// Declares an iterator over the little-endian values of one width that fill a byte slice.
macro_rules! little_endian_values {
    ($(#[$meta:meta])* $name:ident($type:ty, $width:literal)) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub struct $name<'a> {
            /// The values not yet taken; a whole number of them.
            bytes: &'a [u8],
        }

        impl<'a> $name<'a> {
            /// The bytes of the values not yet taken.
            pub const fn bytes(&self) -> &'a [u8] {
                self.bytes
            }

            /// The value at `index` among those not yet taken.
            pub fn get(&self, index: usize) -> Option<$type> {
                let at = index.checked_mul($width)?;
                let value = self.bytes.get(at..)?.first_chunk::<$width>()?;
                Some(<$type>::from_le_bytes(*value))
            }
        }

        impl Iterator for $name<'_> {
            type Item = $type;

            #[inline]
            fn next(&mut self) -> Option<$type> {
                let (value, rest) = self.bytes.split_first_chunk::<$width>()?;
                self.bytes = rest;
                Some(<$type>::from_le_bytes(*value))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                let len = self.bytes.len() / $width;
                (len, Some(len))
            }
        }

        impl DoubleEndedIterator for $name<'_> {
            fn next_back(&mut self) -> Option<$type> {
                let (rest, value) = self.bytes.split_last_chunk::<$width>()?;
                self.bytes = rest;
                Some(<$type>::from_le_bytes(*value))
            }
        }

        impl ExactSizeIterator for $name<'_> {}

        impl FusedIterator for $name<'_> {}

        impl core::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_list().entries(*self).finish()
            }
        }
    };
}

little_endian_values! {
    /// The little-endian `u32`s of an item's data, read in place: the addresses of a
    /// [`StackTrace32`], a SID's sub-authorities.
    U32Values(u32, 4)
}

little_endian_values! {
    /// The little-endian `u64`s of an item's data, read in place: the addresses of a
    /// [`StackTrace64`], the PMC counters.
    U64Values(u64, 8)
}

/// A security identifier (`SID`, winnt.h), read in place: `Revision`, `SubAuthorityCount`,
/// the 6-byte `IdentifierAuthority` (big-endian), then `SubAuthorityCount` little-endian
/// `u32` sub-authorities. Its `Display` is the usual text form, `S-1-5-21-...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Sid<'a> {
    /// `Revision` (1 for every SID Windows writes).
    pub revision: u8,
    /// `SubAuthorityCount`.
    pub sub_authority_count: u8,
    /// `IdentifierAuthority.Value`: six bytes, most significant first.
    pub identifier_authority: [u8; 6],
    /// `SubAuthority[SubAuthorityCount]`.
    pub sub_authorities: U32Values<'a>,
}

/// Bytes of a SID before its sub-authorities.
const SID_FIXED_LEN: usize = 8;

/// The size of a provider trait's header: `u16` size, `u8` type.
const TRAIT_HEADER_LEN: usize = 3;

impl<'a> Sid<'a> {
    /// The SID at the start of `data`, whose `SubAuthorityCount` must fit in it (bytes after
    /// the SID are not part of it).
    fn parse(
        data: &'a [u8],
        size: impl Fn(PayloadLength) -> ExtendedItemFault,
    ) -> Result<ExtendedPayload<'a>, ExtendedItemFault> {
        let Some(([revision, sub_authority_count, authority @ ..], rest)) =
            data.split_first_chunk::<{ SID_FIXED_LEN }>()
        else {
            return Err(size(PayloadLength::AtLeast(8)));
        };
        let count = usize::from(*sub_authority_count);
        let Some(sub_authorities) = count.checked_mul(4).and_then(|len| rest.get(..len)) else {
            return Err(ExtendedItemFault::SidSubAuthorities {
                sub_authority_count: *sub_authority_count,
                data_size: u16::try_from(data.len()).unwrap_or(u16::MAX),
            });
        };
        Ok(ExtendedPayload::Sid(Sid {
            revision: *revision,
            sub_authority_count: *sub_authority_count,
            identifier_authority: *authority,
            sub_authorities: U32Values {
                bytes: sub_authorities,
            },
        }))
    }

    /// The SID at the start of `data` and the bytes after it; `None` when `data` is shorter
    /// than 8 bytes or than the `SubAuthorityCount` it states.
    pub fn from_prefix(data: &'a [u8]) -> Option<(Self, &'a [u8])> {
        let ([revision, sub_authority_count, authority @ ..], rest) =
            data.split_first_chunk::<{ SID_FIXED_LEN }>()?;
        let len = usize::from(*sub_authority_count).checked_mul(4)?;
        let sub_authorities = rest.get(..len)?;
        let after = rest.get(len..)?;
        let sid = Sid {
            revision: *revision,
            sub_authority_count: *sub_authority_count,
            identifier_authority: *authority,
            sub_authorities: U32Values {
                bytes: sub_authorities,
            },
        };
        Some((sid, after))
    }

    /// `IdentifierAuthority` as a number (48 bits, big-endian): 5 for `NT AUTHORITY`.
    pub const fn identifier_authority_value(&self) -> u64 {
        let [a, b, c, d, e, f] = self.identifier_authority;
        u64::from_be_bytes([0, 0, a, b, c, d, e, f])
    }

    /// The SID's length in bytes: 8 + 4 x `SubAuthorityCount`.
    pub const fn byte_len(&self) -> usize {
        SID_FIXED_LEN.saturating_add(self.sub_authorities.bytes.len())
    }
}

/// `S-{Revision}-{IdentifierAuthority}-{SubAuthority}...`, the authority in decimal below
/// 2^32 and in hexadecimal (`0x` and 12 digits) from there, as `ConvertSidToStringSid` writes it.
impl core::fmt::Display for Sid<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let authority = self.identifier_authority_value();
        if authority >> 32 == 0 {
            write!(f, "S-{}-{authority}", self.revision)?;
        } else {
            write!(f, "S-{}-0x{authority:012X}", self.revision)?;
        }
        for sub_authority in self.sub_authorities {
            write!(f, "-{sub_authority}")?;
        }
        Ok(())
    }
}

/// `EVENT_EXTENDED_ITEM_INSTANCE` (evntcons.h), 24 bytes: the instance ids of an event logged
/// with `EventWriteEx` or a transfer.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 4 | `InstanceId` | [`instance_id`](Self::instance_id) |
/// | 0x04 | 4 | `ParentInstanceId` | [`parent_instance_id`](Self::parent_instance_id) |
/// | 0x08 | 16 | `ParentGuid` | [`parent_guid`](Self::parent_guid) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtendedInstance {
    /// `InstanceId`.
    pub instance_id: u32,
    /// `ParentInstanceId`.
    pub parent_instance_id: u32,
    /// `ParentGuid`.
    pub parent_guid: Guid,
}

impl ExtendedInstance {
    /// Bytes in an `EVENT_EXTENDED_ITEM_INSTANCE`.
    pub const LEN: usize = 24;

    /// Decodes any 24 bytes.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            instance_id: read.u32(instance_offset::INSTANCE_ID),
            parent_instance_id: read.u32(instance_offset::PARENT_INSTANCE_ID),
            parent_guid: read.guid(instance_offset::PARENT_GUID),
        }
    }

    /// Encodes every member.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        field::encode(|write| {
            write.u32(instance_offset::INSTANCE_ID, self.instance_id);
            write.u32(instance_offset::PARENT_INSTANCE_ID, self.parent_instance_id);
            write.guid(instance_offset::PARENT_GUID, self.parent_guid);
        })
    }
}

/// `EVENT_EXTENDED_ITEM_STACK_TRACE32` (evntcons.h): `MatchId` then 32-bit return addresses,
/// innermost first, as many as `DataSize` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct StackTrace32<'a> {
    /// `MatchId`: "A unique identifier that you use to match the kernel-mode calls to the
    /// user-mode calls" (0 when the stack is whole).
    pub match_id: u64,
    /// `Address[]`.
    pub addresses: U32Values<'a>,
}

/// `EVENT_EXTENDED_ITEM_STACK_TRACE64` (evntcons.h): `MatchId` then 64-bit return addresses,
/// innermost first, as many as `DataSize` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct StackTrace64<'a> {
    /// `MatchId`, as in [`StackTrace32::match_id`].
    pub match_id: u64,
    /// `Address[]`.
    pub addresses: U64Values<'a>,
}

/// `EVENT_EXTENDED_ITEM_STACK_KEY32` (evntcons.h, Microsoft docs), 16 bytes: a key to a stack
/// stored once in the trace, for a 32-bit stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StackKey32 {
    /// `MatchId`, as in [`StackTrace32::match_id`].
    pub match_id: u64,
    /// `StackKey`.
    pub stack_key: u32,
    /// `Padding`, kept.
    pub padding: u32,
}

impl StackKey32 {
    /// Bytes in an `EVENT_EXTENDED_ITEM_STACK_KEY32`.
    pub const LEN: usize = 16;

    /// Decodes any 16 bytes.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            match_id: read.u64(stack_key_offset::MATCH_ID),
            stack_key: read.u32(stack_key_offset::STACK_KEY32),
            padding: read.u32(stack_key_offset::PADDING),
        }
    }

    /// Encodes every member.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        field::encode(|write| {
            write.u64(stack_key_offset::MATCH_ID, self.match_id);
            write.u32(stack_key_offset::STACK_KEY32, self.stack_key);
            write.u32(stack_key_offset::PADDING, self.padding);
        })
    }
}

/// `EVENT_EXTENDED_ITEM_STACK_KEY64` (evntcons.h, Microsoft docs), 16 bytes: a key to a stack
/// stored once in the trace, for a 64-bit stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StackKey64 {
    /// `MatchId`, as in [`StackTrace32::match_id`].
    pub match_id: u64,
    /// `StackKey`.
    pub stack_key: u64,
}

impl StackKey64 {
    /// Bytes in an `EVENT_EXTENDED_ITEM_STACK_KEY64`.
    pub const LEN: usize = 16;

    /// Decodes any 16 bytes.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            match_id: read.u64(stack_key_offset::MATCH_ID),
            stack_key: read.u64(stack_key_offset::STACK_KEY64),
        }
    }

    /// Encodes every member.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        field::encode(|write| {
            write.u64(stack_key_offset::MATCH_ID, self.match_id);
            write.u64(stack_key_offset::STACK_KEY64, self.stack_key);
        })
    }
}

open_code! {
    /// A provider trait's type: `ETW_PROVIDER_TRAIT_TYPE` (evntcons.h; the values of the
    /// Windows SDK metadata of windows-rs).
    pub struct ProviderTraitType(u8) {
        /// `EtwProviderTraitTypeGroup`: the GUID of the provider group the provider joins.
        GROUP = 1,
        /// `EtwProviderTraitDecodeGuid`: the GUID decoders use instead of the provider's.
        DECODE_GUID = 2,
    }
}

/// The provider traits of a `PROV_TRAITS` item, read in place and checked: a `u16` size (of
/// the traits, this size included), the provider's NUL-terminated UTF-8 name, then traits of
/// `{u16 size (header included), u8 type, data}` up to that size.
///
/// The layout is the one evntcons.h's `EtwGetTraitFromProviderTraits` walks and that
/// TraceLoggingProvider.h writes (Microsoft docs "Provider Traits"); in the PerfView samples the
/// size equals `DataSize` and no trait follows the name. Bytes after the size, if `DataSize` is
/// larger, are not part of the traits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ProviderTraits<'a> {
    /// The traits' size, their first `u16`.
    pub traits_size: u16,
    /// The provider name's bytes, without the NUL.
    pub name: &'a [u8],
    /// The traits after the name (checked to fit, each at least its 3-byte header).
    traits: &'a [u8],
    /// Where the traits start in the item's data.
    traits_at: usize,
}

impl<'a> ProviderTraits<'a> {
    fn parse(
        data: &'a [u8],
        size: impl Fn(PayloadLength) -> ExtendedItemFault,
    ) -> Result<Self, ExtendedItemFault> {
        let Some((raw_size, after_size)) = data.split_first_chunk::<2>() else {
            return Err(size(PayloadLength::AtLeast(3)));
        };
        let traits_size = u16::from_le_bytes(*raw_size);
        let data_size = u16::try_from(data.len()).unwrap_or(u16::MAX);
        if traits_size < 3 || traits_size > data_size {
            return Err(ExtendedItemFault::ProviderTraitsSize {
                traits_size,
                data_size,
            });
        }
        // `traits_size` is at most `DataSize` (a `data.len()` past `u16::MAX` counts as that):
        // the blob after the size is inside `data`.
        let blob = known(
            after_size.get(..usize::from(traits_size).saturating_sub(2)),
            &[],
        );
        let nul = blob
            .iter()
            .position(|&byte| byte == 0)
            .ok_or(ExtendedItemFault::ProviderNameUnterminated { traits_size })?;
        // `nul` is where the blob's NUL is: the name before it, the traits after it.
        let (name, after_name) = known(blob.split_at_checked(nul), (&[], &[]));
        let traits = known(after_name.get(1..), &[]);
        // The name starts at 2 and ends at its NUL: both inside `data`.
        let traits_at = nul.saturating_add(3);
        let mut rest = traits;
        while !rest.is_empty() {
            let at = traits_at.saturating_add(traits.len().saturating_sub(rest.len()));
            let available = rest.len();
            let fault = move |trait_size| ExtendedItemFault::ProviderTrait {
                at,
                trait_size,
                available,
            };
            let Some(([low, high, _], _)) = rest.split_first_chunk::<{ TRAIT_HEADER_LEN }>() else {
                return Err(fault(None));
            };
            let trait_size = u16::from_le_bytes([*low, *high]);
            rest = match rest.get(usize::from(trait_size)..) {
                Some(after) if usize::from(trait_size) >= TRAIT_HEADER_LEN => after,
                _ => return Err(fault(Some(trait_size))),
            };
        }
        Ok(Self {
            traits_size,
            name,
            traits,
            traits_at,
        })
    }

    /// The provider name as UTF-8 text, `None` when its bytes are not UTF-8.
    pub fn name_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.name).ok()
    }

    /// The traits after the name, in order.
    pub fn traits(&self) -> ProviderTraitIter<'a> {
        ProviderTraitIter {
            rest: self.traits,
            at: self.traits_at,
        }
    }
}

/// One trait of a [`ProviderTraits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ProviderTrait<'a> {
    /// Where the trait starts, from the start of the item's data.
    pub at: usize,
    /// The trait's size, its 3-byte header included.
    pub trait_size: u16,
    /// The trait's type.
    pub trait_type: ProviderTraitType,
    /// The trait's data: `trait_size - 3` bytes.
    pub data: &'a [u8],
}

impl ProviderTrait<'_> {
    /// The GUID of a [`ProviderTraitType::GROUP`] or [`ProviderTraitType::DECODE_GUID`] trait,
    /// `None` for another type or data that is not 16 bytes.
    pub fn guid(&self) -> Option<Guid> {
        match self.trait_type {
            ProviderTraitType::GROUP | ProviderTraitType::DECODE_GUID => {
                exact::<16>(self.data).map(|bytes| Guid::from_bytes_le(*bytes))
            }
            _ => None,
        }
    }
}

/// The traits of a [`ProviderTraits`] ([`ProviderTraits::traits`]), which were checked when the
/// item's payload was read.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProviderTraitIter<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for ProviderTraitIter<'a> {
    type Item = ProviderTrait<'a>;

    fn next(&mut self) -> Option<ProviderTrait<'a>> {
        let ([low, high, trait_type], _) = self.rest.split_first_chunk::<{ TRAIT_HEADER_LEN }>()?;
        let trait_size = u16::from_le_bytes([*low, *high]);
        let (whole, rest) = self.rest.split_at_checked(usize::from(trait_size))?;
        let data = whole.get(TRAIT_HEADER_LEN..)?;
        let at = self.at;
        self.rest = rest;
        self.at = at.saturating_add(usize::from(trait_size));
        Some(ProviderTrait {
            at,
            trait_size,
            trait_type: ProviderTraitType(*trait_type),
            data,
        })
    }
}

impl FusedIterator for ProviderTraitIter<'_> {}

/// Where a walk over the items stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum Walk {
    /// Another item is announced at `rest`.
    More,
    /// The last item has been read; `rest` is the user data.
    Done,
    /// An error was yielded.
    Failed,
}

/// The extended data items after an `EVENT_HEADER`, walked in place one by one; each is an
/// [`ExtendedItem`] or the error that stopped the walk.
///
/// Made by [`ExtendedAndUserData::items`] (or [`ExtendedItems::new`]) over the bytes after the
/// header, up to the event's `Size`. Without `EVENT_HEADER_FLAG_EXTENDED_INFO` there is no
/// item. Otherwise each item must have its 8-byte header inside the event, an item size of at
/// least 8 that stays inside the event, and a `DataSize` within its item size; the walk ends
/// after the item whose `Linkage` bit is 0. A fault is yielded once, as a
/// [`CodecError::ExtendedItem`] naming the item's index and offset in the event, and the walk
/// then ends. Once it has ended cleanly, [`user_data`](Self::user_data) is the rest of the
/// event.
///
/// ```
/// use etw_classic::wire::{EventHeaderExtType, EventHeaderFlags, ExtendedItems};
///
/// // One RELATED_ACTIVITYID item (size 0x18, last), then 3 bytes of user data.
/// let mut after_header = vec![0x18, 0, 0x01, 0, 0, 0, 0x10, 0];
/// after_header.extend_from_slice(&[0xAA; 16]);
/// after_header.extend_from_slice(b"abc");
/// let mut items = ExtendedItems::new(EventHeaderFlags::EXTENDED_INFO, &after_header);
/// let item = items.next().unwrap()?;
/// assert_eq!((item.offset, item.ext_type()), (0x50, EventHeaderExtType::RELATED_ACTIVITYID));
/// assert!(items.next().is_none());
/// assert_eq!(items.user_data(), Some(&b"abc"[..]));
/// # Ok::<(), etw_classic::CodecError>(())
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtendedItems<'a> {
    /// The bytes not yet walked, up to the event's `Size`.
    rest: &'a [u8],
    /// Where `rest` starts in the event.
    offset: usize,
    /// The index of the next item.
    index: usize,
    walk: Walk,
}

impl<'a> ExtendedItems<'a> {
    /// The items at the start of `after_header` (the event's bytes after its 0x50-byte header,
    /// up to its `Size`), if `flags` has `EXTENDED_INFO`.
    pub const fn new(flags: EventHeaderFlags, after_header: &'a [u8]) -> Self {
        Self {
            rest: after_header,
            offset: Layout::EventHeader.byte_len(),
            index: 0,
            walk: if flags.contains(EventHeaderFlags::EXTENDED_INFO) {
                Walk::More
            } else {
                Walk::Done
            },
        }
    }

    /// The user data, once the walk has read the last item (at once without `EXTENDED_INFO`):
    /// the bytes after it up to the event's `Size`. `None` while items remain or after an error.
    pub const fn user_data(&self) -> Option<&'a [u8]> {
        match self.walk {
            Walk::Done => Some(self.rest),
            Walk::More | Walk::Failed => None,
        }
    }

    /// Where the next item would start, from the start of the event.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The next item, or the fault that ends the walk.
    fn read_item(&mut self) -> Result<ExtendedItem<'a>, ExtendedItemFault> {
        let available = self.rest.len();
        let (raw, _) = self
            .rest
            .split_first_chunk::<{ ExtendedItemHeader::LEN }>()
            .ok_or(ExtendedItemFault::HeaderBeyondEvent { available })?;
        let header = ExtendedItemHeader::from_bytes(raw);
        let (item_size, data_size) = (header.item_size, header.data_size);
        let room = usize::from(item_size)
            .checked_sub(ExtendedItemHeader::LEN)
            .ok_or(ExtendedItemFault::ItemSizeBelowHeader { item_size })?;
        if usize::from(data_size) > room {
            return Err(ExtendedItemFault::DataSizeBeyondItem {
                data_size,
                item_size,
            });
        }
        let (item, rest) = self.rest.split_at_checked(usize::from(item_size)).ok_or(
            ExtendedItemFault::ItemBeyondEvent {
                item_size,
                available,
            },
        )?;
        // The item's size is at least its header, and `DataSize` at most what follows it (both
        // checked above).
        let body = known(item.get(ExtendedItemHeader::LEN..), &[]);
        let (data, padding) = known(body.split_at_checked(usize::from(data_size)), (&[], &[]));
        let read = ExtendedItem::new(self.index, self.offset, header, data, padding);
        self.rest = rest;
        self.offset = self.offset.saturating_add(usize::from(item_size));
        self.index = self.index.saturating_add(1);
        Ok(read)
    }
}

impl<'a> Iterator for ExtendedItems<'a> {
    type Item = Result<ExtendedItem<'a>, CodecError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.walk != Walk::More {
            return None;
        }
        Some(match self.read_item() {
            Ok(item) => {
                if !item.has_next() {
                    self.walk = Walk::Done;
                }
                Ok(item)
            }
            Err(fault) => {
                self.walk = Walk::Failed;
                Err(CodecError::ExtendedItem {
                    index: self.index,
                    offset: self.offset,
                    fault,
                })
            }
        })
    }
}

impl FusedIterator for ExtendedItems<'_> {}

/// The extended data items of an event, all checked ([`ExtendedAndUserData::split`]); iterating
/// gives each [`ExtendedItem`], with no error left to report.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtendedItemList<'a> {
    /// A walk over the items' bytes alone, known to end cleanly after `len` items.
    walk: ExtendedItems<'a>,
    len: usize,
}

impl<'a> ExtendedItemList<'a> {
    /// How many items there are.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no item.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The items' bytes, from the end of the 0x50-byte header to the start of the user data.
    pub const fn bytes(&self) -> &'a [u8] {
        self.walk.rest
    }

    /// The items, in order.
    pub fn iter(&self) -> ExtendedItemIter<'a> {
        ExtendedItemIter {
            walk: self.walk.clone(),
            left: self.len,
        }
    }
}

impl<'a> IntoIterator for ExtendedItemList<'a> {
    type Item = ExtendedItem<'a>;
    type IntoIter = ExtendedItemIter<'a>;

    fn into_iter(self) -> ExtendedItemIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &ExtendedItemList<'a> {
    type Item = ExtendedItem<'a>;
    type IntoIter = ExtendedItemIter<'a>;

    fn into_iter(self) -> ExtendedItemIter<'a> {
        self.iter()
    }
}

/// The items of an [`ExtendedItemList`].
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExtendedItemIter<'a> {
    walk: ExtendedItems<'a>,
    left: usize,
}

impl<'a> Iterator for ExtendedItemIter<'a> {
    type Item = ExtendedItem<'a>;

    fn next(&mut self) -> Option<ExtendedItem<'a>> {
        // The list was walked without error when it was made, so this walk yields the same items.
        let item = self.walk.next()?.ok()?;
        self.left = self.left.saturating_sub(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for ExtendedItemIter<'_> {}

impl FusedIterator for ExtendedItemIter<'_> {}

/// The bytes after an `EVENT_HEADER` up to the event's `Size`: the extended data items, if the
/// header's flags have `EVENT_HEADER_FLAG_EXTENDED_INFO`, then the user data. Nothing is read
/// until asked for: [`items`](Self::items) walks the items one by one, [`split`](Self::split)
/// checks them all and returns them with the user data.
///
/// ```
/// use etw_classic::wire::{EventHeaderFlags, ExtendedAndUserData, ExtendedPayload};
///
/// // A TS_ID item (DataSize 4, padded to 16 bytes, last), then the user data.
/// let bytes = [0x10, 0, 0x03, 0, 0, 0, 0x04, 0, 7, 0, 0, 0, 0, 0, 0, 0, b'h', b'i'];
/// let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
/// let (items, user_data) = body.split()?;
/// assert_eq!(user_data, b"hi");
/// let item = items.iter().next().unwrap();
/// assert_eq!(item.payload()?, ExtendedPayload::TerminalSessionId(7));
/// # Ok::<(), etw_classic::CodecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ExtendedAndUserData<'a> {
    /// The header's `Flags`, which say whether items are there.
    pub flags: EventHeaderFlags,
    /// The bytes after the header, up to the event's `Size`.
    pub bytes: &'a [u8],
}

impl<'a> ExtendedAndUserData<'a> {
    /// The bytes after a header whose `Flags` are `flags`.
    pub const fn new(flags: EventHeaderFlags, bytes: &'a [u8]) -> Self {
        Self { flags, bytes }
    }

    /// Whether the header announces extended data items.
    pub const fn has_items(&self) -> bool {
        self.flags.contains(EventHeaderFlags::EXTENDED_INFO)
    }

    /// A walk over the items, checking each as it goes ([`ExtendedItems`]).
    pub const fn items(&self) -> ExtendedItems<'a> {
        ExtendedItems::new(self.flags, self.bytes)
    }

    /// Checks every item and returns them with the user data after them.
    ///
    /// # Errors
    /// The first [`CodecError::ExtendedItem`] of the walk ([`ExtendedItems`]).
    pub fn split(&self) -> Result<(ExtendedItemList<'a>, &'a [u8]), CodecError> {
        let mut walk = self.items();
        let mut len = 0usize;
        for item in walk.by_ref() {
            item?;
            len = len.saturating_add(1);
        }
        // A walk that ended without an error has the user data after its items, a suffix of
        // the bytes.
        let user_data = known(walk.user_data(), &[]);
        let items_len = self.bytes.len().saturating_sub(user_data.len());
        let items = known(self.bytes.get(..items_len), &[]);
        let list = ExtendedItemList {
            walk: ExtendedItems::new(self.flags, items),
            len,
        };
        Ok((list, user_data))
    }

    /// The user data: the bytes after the last item (all of them without `EXTENDED_INFO`).
    ///
    /// # Errors
    /// The first [`CodecError::ExtendedItem`] of the walk over the items.
    pub fn user_data(&self) -> Result<&'a [u8], CodecError> {
        self.split().map(|(_, user_data)| user_data)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    /// An item of `ext_type` with `data`, padded with zeros to a multiple of 8.
    fn item(ext_type: u16, more: bool, data: &[u8]) -> Vec<u8> {
        let header = ExtendedItemHeader::for_data(
            EventHeaderExtType(ext_type),
            u16::try_from(data.len()).unwrap(),
            more,
        )
        .unwrap();
        let mut bytes = header.to_bytes().to_vec();
        bytes.extend_from_slice(data);
        bytes.resize(usize::from(header.item_size), 0);
        bytes
    }

    fn error(index: usize, offset: usize, fault: ExtendedItemFault) -> CodecError {
        CodecError::ExtendedItem {
            index,
            offset,
            fault,
        }
    }

    /// The PROV_TRAITS and EVENT_SCHEMA_TL items of primitive-types.etl at file offset 0x2098
    /// (`../shared/reference/EVENT-HEADERS.md` §2, sample 1), the first 16 bytes of the schema.
    #[test]
    fn reads_the_items_of_a_tracelogging_event() {
        let mut bytes = std::vec![
            0x18, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x0f, 0x00, 0x0f, 0x00, b's', b'o', b'l', b'a',
            b'r', b'_', b's', b'y', b's', b't', b'e', b'm', 0x00, 0x00,
        ];
        bytes.extend_from_slice(&[0xc0, 0x00, 0x0b, 0x00, 0x00, 0x00, 0xb6, 0x00]);
        bytes.extend_from_slice(&[0x5A; 0xB8]);
        bytes.extend_from_slice(b"Mercury");
        let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
        let (items, user_data) = body.split().unwrap();
        assert_eq!(user_data, b"Mercury");
        assert_eq!(items.len(), 2);
        assert_eq!(items.bytes().len(), 0x18 + 0xC0);
        let all: Vec<ExtendedItem<'_>> = items.iter().collect();
        assert_eq!((all[0].offset, all[1].offset), (0x50, 0x68));
        assert_eq!(all[0].header.item_size, 0x18);
        assert!(all[0].has_next() && !all[1].has_next());
        let ExtendedPayload::ProviderTraits(traits) = all[0].payload().unwrap() else {
            panic!("{:?}", all[0].payload())
        };
        assert_eq!(traits.traits_size, 15);
        assert_eq!(traits.name_str(), Some("solar_system"));
        assert_eq!(traits.traits().count(), 0);
        assert_eq!(all[0].padding, &[0]);
        assert_eq!(
            all[1].payload().unwrap(),
            ExtendedPayload::EventSchemaTl(&[0x5A; 0xB6])
        );
        assert_eq!(all[1].padding, &[0x5A; 2]);

        // Re-encoded byte for byte.
        let mut out = std::vec![0xEE; 0x18 + 0xC0 + 3];
        let rest = all[0].emit(&mut out).unwrap();
        let rest = all[1].emit(rest).unwrap();
        assert_eq!(rest.len(), 3);
        assert_eq!(&out[..0xD8], &bytes[..0xD8]);
    }

    #[test]
    fn without_extended_info_everything_is_user_data() {
        let bytes = item(1, false, &[0; 16]);
        let body = ExtendedAndUserData::new(EventHeaderFlags::EMPTY, &bytes);
        assert!(!body.has_items());
        assert_eq!(body.items().count(), 0);
        let (items, user_data) = body.split().unwrap();
        assert!(items.is_empty() && items.bytes().is_empty());
        assert_eq!(user_data, &bytes[..]);
    }

    #[test]
    fn each_fault_names_the_item_and_what_was_expected() {
        let flags = EventHeaderFlags::EXTENDED_INFO;
        fn split(bytes: &[u8]) -> Result<&[u8], CodecError> {
            ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, bytes).user_data()
        }

        // No room for the first item's header.
        assert_eq!(
            split(&[0x10, 0, 1, 0]),
            Err(error(
                0,
                0x50,
                ExtendedItemFault::HeaderBeyondEvent { available: 4 }
            ))
        );
        // The last item still says another follows.
        let linked = item(3, true, &[1, 2, 3, 4]);
        let fault = split(&linked).unwrap_err();
        assert_eq!(
            fault,
            error(
                1,
                0x60,
                ExtendedItemFault::HeaderBeyondEvent { available: 0 }
            )
        );
        assert_eq!(
            std::format!("{fault}"),
            "EVENT_HEADER_EXTENDED_DATA_ITEM 1 at event offset 0x60: expected an 8-byte item \
             header (announced by EVENT_HEADER_FLAG_EXTENDED_INFO or the previous item's \
             Linkage) before the event's Size, found 0 bytes"
        );
        // Item size below 8 (a zero size could never advance).
        assert_eq!(
            split(&[0, 0, 1, 0, 0, 0, 0, 0]),
            Err(error(
                0,
                0x50,
                ExtendedItemFault::ItemSizeBelowHeader { item_size: 0 }
            ))
        );
        // DataSize beyond the item.
        let fault = split(&[0x10, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(
            fault,
            error(
                0,
                0x50,
                ExtendedItemFault::DataSizeBeyondItem {
                    data_size: 9,
                    item_size: 0x10
                }
            )
        );
        assert_eq!(
            std::format!("{fault}"),
            "EVENT_HEADER_EXTENDED_DATA_ITEM 0 at event offset 0x50: DataSize (offset 6): \
             expected at most 8 (the item size 16 less its 8-byte header), found 9"
        );
        // Item beyond the event.
        assert_eq!(
            split(&[0x18, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err(error(
                0,
                0x50,
                ExtendedItemFault::ItemBeyondEvent {
                    item_size: 0x18,
                    available: 0x10
                }
            ))
        );

        // A walk yields its items up to the fault, the fault once, then nothing.
        let mut bytes = item(6, true, &[0; 16]);
        bytes.extend_from_slice(&[0x08, 0, 1, 0]);
        let mut walk = ExtendedItems::new(flags, &bytes);
        assert!(walk.next().unwrap().is_ok());
        assert!(walk.user_data().is_none());
        assert_eq!(
            walk.next(),
            Some(Err(error(
                1,
                0x68,
                ExtendedItemFault::HeaderBeyondEvent { available: 4 }
            )))
        );
        assert_eq!(walk.next(), None);
        assert!(walk.user_data().is_none());
    }

    #[test]
    fn typed_views_check_their_lengths() {
        let view = |ext_type: u16, data: &[u8]| {
            let bytes = item(ext_type, false, data);
            let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
            let (items, _) = body.split().unwrap();
            let item = items.iter().next().unwrap();
            match item.payload() {
                Ok(payload) => Ok(std::format!("{payload:?}")),
                Err(CodecError::ExtendedItem { fault, .. }) => Err(fault),
                Err(other) => panic!("{other:?}"),
            }
        };
        let guid = [
            0x47, 0xba, 0x5d, 0x2e, 0xd2, 0xa3, 0x16, 0x4d, 0x8e, 0xe0, 0x66, 0x71, 0xff, 0xdc,
            0xd7, 0xb5,
        ];
        assert_eq!(
            view(1, &guid).unwrap(),
            "RelatedActivityId(Guid(2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5))"
        );
        assert_eq!(
            view(1, &guid[..12]),
            Err(ExtendedItemFault::PayloadSize {
                ext_type: EventHeaderExtType::RELATED_ACTIVITYID,
                expected: PayloadLength::Exactly(16),
                data_size: 12
            })
        );
        assert_eq!(view(3, &[1, 0, 0, 0]).unwrap(), "TerminalSessionId(1)");
        assert_eq!(
            view(5, &[1, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0]).unwrap(),
            "StackTrace32(StackTrace32 { match_id: 1, addresses: [16, 32] })"
        );
        assert_eq!(
            view(6, &[0; 12]),
            Err(ExtendedItemFault::PayloadSize {
                ext_type: EventHeaderExtType::STACK_TRACE64,
                expected: PayloadLength::FixedAndMultipleOf { fixed: 8, unit: 8 },
                data_size: 12
            })
        );
        assert_eq!(
            view(8, &[2, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
            "PmcCounters([2])"
        );
        assert_eq!(view(9, &[1, 2, 3]).unwrap(), "Raw([1, 2, 3])");
        assert_eq!(view(0x7777, &[]).unwrap(), "Raw([])");
        let mut key32 = [0u8; 16];
        key32[0] = 3;
        key32[8] = 4;
        key32[12] = 5;
        assert_eq!(
            view(0x11, &key32).unwrap(),
            "StackKey32(StackKey32 { match_id: 3, stack_key: 4, padding: 5 })"
        );
        assert_eq!(StackKey32::from_bytes(&key32).to_bytes(), key32);
        let mut instance = [0u8; 24];
        instance[0] = 9;
        instance[4] = 8;
        instance[8..].copy_from_slice(&guid);
        assert_eq!(
            ExtendedInstance::from_bytes(&instance),
            ExtendedInstance {
                instance_id: 9,
                parent_instance_id: 8,
                parent_guid: Guid::from_bytes_le(guid)
            }
        );
        assert_eq!(ExtendedInstance::from_bytes(&instance).to_bytes(), instance);
    }

    #[test]
    fn a_sid_reads_as_its_text_form_and_its_count_must_fit() {
        // S-1-5-21-1-2-3-1001: revision 1, 5 sub-authorities, NT AUTHORITY (5).
        let mut sid = std::vec![1, 5, 0, 0, 0, 0, 0, 5];
        for sub_authority in [21u32, 1, 2, 3, 1001] {
            sid.extend_from_slice(&sub_authority.to_le_bytes());
        }
        let bytes = item(2, false, &sid);
        let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
        let item0 = body.items().next().unwrap().unwrap();
        let ExtendedPayload::Sid(parsed) = item0.payload().unwrap() else {
            panic!()
        };
        assert_eq!(std::format!("{parsed}"), "S-1-5-21-1-2-3-1001");
        assert_eq!(parsed.identifier_authority_value(), 5);
        assert_eq!(parsed.byte_len(), 28);
        assert_eq!(parsed.sub_authorities.len(), 5);
        assert_eq!(parsed.sub_authorities.get(4), Some(1001));

        let mut big = sid.clone();
        big[2] = 1;
        let big_item = item(2, false, &big);
        let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &big_item);
        let ExtendedPayload::Sid(parsed) = body.items().next().unwrap().unwrap().payload().unwrap()
        else {
            panic!()
        };
        assert_eq!(std::format!("{parsed}"), "S-1-0x010000000005-21-1-2-3-1001");

        sid[1] = 6;
        let bytes = item(2, false, &sid);
        let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
        let fault = body.items().next().unwrap().unwrap().payload().unwrap_err();
        assert_eq!(
            fault,
            error(
                0,
                0x50,
                ExtendedItemFault::SidSubAuthorities {
                    sub_authority_count: 6,
                    data_size: 28
                }
            )
        );
    }

    #[test]
    fn provider_traits_are_checked_and_iterated() {
        let group = [0x11u8; 16];
        let mut traits = std::vec![0, 0];
        traits.extend_from_slice(b"P\0");
        traits.extend_from_slice(&[19, 0, 1]);
        traits.extend_from_slice(&group);
        traits.extend_from_slice(&[3, 0, 9]);
        let len = u16::try_from(traits.len()).unwrap();
        traits[..2].copy_from_slice(&len.to_le_bytes());
        fn parse(data: &[u8]) -> Result<ProviderTraits<'_>, ExtendedItemFault> {
            ProviderTraits::parse(data, |expected| ExtendedItemFault::PayloadSize {
                ext_type: EventHeaderExtType::PROV_TRAITS,
                expected,
                data_size: 0,
            })
        }
        let parsed = parse(&traits).unwrap();
        assert_eq!(parsed.name, b"P");
        let all: Vec<ProviderTrait<'_>> = parsed.traits().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(
            (all[0].at, all[0].trait_size, all[0].trait_type),
            (4, 19, ProviderTraitType::GROUP)
        );
        assert_eq!(all[0].guid(), Some(Guid::from_bytes_le(group)));
        assert_eq!(
            (all[1].at, all[1].trait_size, all[1].data),
            (23, 3, &[][..])
        );
        assert_eq!(all[1].guid(), None);

        // A trait whose size runs past the traits.
        let mut bad = traits.clone();
        bad[4] = 23;
        assert_eq!(
            parse(&bad),
            Err(ExtendedItemFault::ProviderTrait {
                at: 4,
                trait_size: Some(23),
                available: 22
            })
        );
        // One byte longer: the next trait has only 2 bytes for its header.
        bad[4] = 20;
        assert_eq!(
            parse(&bad),
            Err(ExtendedItemFault::ProviderTrait {
                at: 24,
                trait_size: None,
                available: 2
            })
        );
        // A trait size below its header.
        bad[4] = 2;
        assert_eq!(
            parse(&bad),
            Err(ExtendedItemFault::ProviderTrait {
                at: 4,
                trait_size: Some(2),
                available: 22
            })
        );
        // No NUL after the name.
        assert_eq!(
            parse(&[4, 0, b'a', b'b']),
            Err(ExtendedItemFault::ProviderNameUnterminated { traits_size: 4 })
        );
        // A size beyond DataSize, below 3, or no room for the size.
        assert_eq!(
            parse(&[9, 0, 0]),
            Err(ExtendedItemFault::ProviderTraitsSize {
                traits_size: 9,
                data_size: 3
            })
        );
        assert_eq!(
            parse(&[2, 0, 0]),
            Err(ExtendedItemFault::ProviderTraitsSize {
                traits_size: 2,
                data_size: 3
            })
        );
        assert!(matches!(
            parse(&[2]),
            Err(ExtendedItemFault::PayloadSize {
                expected: PayloadLength::AtLeast(3),
                ..
            })
        ));
        // Two bytes left after the name: too few for a trait header.
        assert_eq!(
            parse(&[5, 0, 0, 1, 2]),
            Err(ExtendedItemFault::ProviderTrait {
                at: 3,
                trait_size: None,
                available: 2
            })
        );
    }

    #[test]
    fn emit_into_too_little_room_writes_nothing() {
        let bytes = item(3, false, &[1, 2, 3, 4]);
        let body = ExtendedAndUserData::new(EventHeaderFlags::EXTENDED_INFO, &bytes);
        let read = body.items().next().unwrap().unwrap();
        assert_eq!(read.byte_len(), 16);
        let mut out = [0xEE; 15];
        assert_eq!(
            read.emit(&mut out),
            Err(CodecError::OutputTooSmall {
                layout: Layout::ExtendedItemHeader,
                needed: 16,
                found: 15
            })
        );
        assert_eq!(out, [0xEE; 15]);
    }

    #[test]
    fn for_data_pads_to_eight() {
        let header = ExtendedItemHeader::for_data(EventHeaderExtType::TS_ID, 4, true).unwrap();
        assert_eq!((header.item_size, header.linkage), (16, 1));
        assert!(header.has_next());
        assert_eq!(
            ExtendedItemHeader::for_data(EventHeaderExtType::TS_ID, 0, false)
                .unwrap()
                .item_size,
            8
        );
        assert_eq!(
            ExtendedItemHeader::for_data(EventHeaderExtType::TS_ID, u16::MAX - 7, false),
            None
        );
        assert_eq!(
            ExtendedItemHeader::for_data(EventHeaderExtType::TS_ID, u16::MAX - 15, false)
                .unwrap()
                .item_size,
            0xFFF8
        );
    }
}
