//! What decoding or encoding one fixed-layout struct can say: the struct (its [`Layout`]), the
//! member at fault and the lengths involved. The reader's errors carry these under the buffer
//! and file offset where they happened.

use crate::wire::codes::{EventHeaderExtType, HeaderType, MarkerFlags};
use crate::wire::layout::{Bitness, Layout};

/// Everything that can go wrong when decoding or encoding one struct; each variant says which
/// struct, which member, what was expected and what was found.
///
/// `Copy`, allocation-free, and `#[non_exhaustive]`: later versions may add variants.
///
/// ```
/// use etw_classic::{CodecError, EventTraceHeader};
/// let error = EventTraceHeader::parse(&[0; 12]).unwrap_err();
/// assert_eq!(error.to_string(), "EVENT_TRACE_HEADER: expected 48 bytes, found 12");
/// assert!(matches!(error, CodecError::Truncated { needed: 48, found: 12, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum CodecError {
    /// The input holds fewer bytes than the struct needs.
    Truncated {
        /// The struct being decoded.
        layout: Layout,
        /// Bytes the struct needs.
        needed: usize,
        /// Bytes the input held.
        found: usize,
    },
    /// The output slice is shorter than the encoded struct; nothing was written.
    OutputTooSmall {
        /// The struct being encoded.
        layout: Layout,
        /// Bytes the encoding needs.
        needed: usize,
        /// Bytes the output had room for.
        found: usize,
    },
    /// The `MarkerFlags` byte lacks `TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE` (0xC0), so the
    /// bytes are not a trace header (a `WNODE_HEADER`, fill, or garbage).
    NotATraceHeader {
        /// The struct being decoded.
        layout: Layout,
        /// The marker flags found at offset 0x03.
        found: MarkerFlags,
    },
    /// The `HeaderType` byte names a different kind of header than the struct being decoded.
    WrongHeaderType {
        /// The struct being decoded.
        layout: Layout,
        /// The 32-bit header type this struct is written with (the 64-bit one is also accepted).
        expected_32: HeaderType,
        /// The 64-bit header type this struct is written with.
        expected_64: HeaderType,
        /// The header type found at offset 0x02.
        found: HeaderType,
    },
    /// `Size` is smaller than the fixed header it is supposed to include.
    SizeBelowHeader {
        /// The struct being decoded.
        layout: Layout,
        /// The fixed header length `Size` must at least cover.
        header_len: usize,
        /// The `Size` found.
        size: u16,
    },
    /// `Size` claims more bytes than the input holds.
    SizeBeyondInput {
        /// The struct being decoded.
        layout: Layout,
        /// The `Size` found.
        size: u16,
        /// Bytes present from the start of the header.
        available: usize,
    },
    /// A pointer value does not fit the layout's pointer width (the member is
    /// [`Layout::pointer_member`]).
    PointerTooWide {
        /// The struct whose pointer member was being set.
        layout: Layout,
        /// The layout's pointer width.
        bitness: Bitness,
        /// The value that did not fit.
        value: u64,
    },
    /// A system event's `HookId` is not that of the event being decoded (the logfile header
    /// event has `WMI_LOG_TYPE_HEADER`, 0).
    UnexpectedHookId {
        /// The header being decoded.
        layout: Layout,
        /// The hook id the event must have.
        expected: u16,
        /// The hook id found at offset 0x06.
        found: u16,
    },
    /// An extended data item after an `EVENT_HEADER` is malformed, or its data does not have
    /// the layout its type needs.
    ExtendedItem {
        /// Which item of the event, counting from 0.
        index: usize,
        /// Where the item starts, from the start of the event (0x50 for the first one).
        offset: usize,
        /// What is wrong, and what was expected.
        fault: ExtendedItemFault,
    },
    /// A header member announces fields after the fixed header (the PEBS index and PMC
    /// counters of a version-first header's `Version`, the optional fields of a message
    /// header's `OptionFlags`) that do not fit in the bytes its `Size` leaves after the header.
    AnnouncedBeyondSize {
        /// The header being decoded.
        layout: Layout,
        /// The member that announces the fields (`Version`, `OptionFlags`).
        member: &'static str,
        /// Bytes the announced fields need after the fixed header.
        needed: usize,
        /// Bytes `Size` leaves after the fixed header.
        available: usize,
    },
    /// A message header's `Version` byte (offset 0x03) lacks `TRACE_HEADER_FLAG | TRACE_MESSAGE`
    /// (0x90), so the bytes are not a message header.
    NotAMessageHeader {
        /// The header being decoded.
        layout: Layout,
        /// The byte found at offset 0x03.
        found: MarkerFlags,
    },
}

impl CodecError {
    /// The struct the error is about.
    pub const fn layout(&self) -> Layout {
        match *self {
            Self::Truncated { layout, .. }
            | Self::OutputTooSmall { layout, .. }
            | Self::NotATraceHeader { layout, .. }
            | Self::WrongHeaderType { layout, .. }
            | Self::SizeBelowHeader { layout, .. }
            | Self::SizeBeyondInput { layout, .. }
            | Self::PointerTooWide { layout, .. }
            | Self::UnexpectedHookId { layout, .. }
            | Self::AnnouncedBeyondSize { layout, .. }
            | Self::NotAMessageHeader { layout, .. } => layout,
            Self::ExtendedItem { .. } => Layout::ExtendedItemHeader,
        }
    }
}

impl core::fmt::Display for CodecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Truncated {
                layout,
                needed,
                found,
            } => write!(f, "{layout}: expected {needed} bytes, found {found}"),
            Self::OutputTooSmall {
                layout,
                needed,
                found,
            } => write!(
                f,
                "{layout}: encoding needs {needed} bytes of output, found room for {found}"
            ),
            Self::NotATraceHeader { layout, found } => write!(
                f,
                "{layout}.MarkerFlags (offset 0x03): expected \
                 TRACE_HEADER_FLAG|TRACE_HEADER_EVENT_TRACE (0xc0), found {:#04x}",
                found.0
            ),
            Self::WrongHeaderType {
                layout,
                expected_32,
                expected_64,
                found,
            } => write!(
                f,
                "{layout}.HeaderType (offset 0x02): expected {expected_32:?} or {expected_64:?}, \
                 found {found:?}"
            ),
            Self::SizeBelowHeader {
                layout,
                header_len,
                size,
            } => write!(
                f,
                "{layout}.Size: expected at least the {header_len}-byte header, found {size}"
            ),
            Self::SizeBeyondInput {
                layout,
                size,
                available,
            } => write!(
                f,
                "{layout}.Size: expected at most the {available} bytes present, found {size}"
            ),
            Self::PointerTooWide {
                layout,
                bitness,
                value,
            } => write!(
                f,
                "{layout}.{}: a {bitness} pointer holds at most {:#x}, found {value:#x}",
                layout.pointer_member(),
                bitness.max_pointer()
            ),
            Self::UnexpectedHookId {
                layout,
                expected,
                found,
            } => write!(
                f,
                "{layout}.HookId (offset 0x06): expected {expected:#06x}, found {found:#06x}"
            ),
            Self::ExtendedItem {
                index,
                offset,
                fault,
            } => write!(
                f,
                "{} {index} at event offset {offset:#x}: {fault}",
                Layout::ExtendedItemHeader
            ),
            Self::AnnouncedBeyondSize {
                layout,
                member,
                needed,
                available,
            } => write!(
                f,
                "{layout}.{member} announces {needed} bytes after the fixed header; expected at \
                 most the {available} bytes Size leaves there"
            ),
            Self::NotAMessageHeader { layout, found } => write!(
                f,
                "{layout}.Version (offset 0x03): expected TRACE_HEADER_FLAG|TRACE_MESSAGE (0x90), \
                 found {:#04x}",
                found.0
            ),
        }
    }
}

impl core::error::Error for CodecError {}

/// GUID text that is not `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, optionally in braces: where,
/// what was expected there and what was found.
///
/// ```
/// use etw_classic::{Guid, wire::GuidTextExpectation};
/// let error = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7g".parse::<Guid>().unwrap_err();
/// assert_eq!((error.at, error.expected, error.found), (35, GuidTextExpectation::HexDigit, Some(b'g')));
/// assert_eq!(error.to_string(), "GUID text: expected a hex digit at position 35, found 'g'");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct GuidParseError {
    /// Byte position in the text where the problem is (the text's length when it is too short).
    pub at: usize,
    /// What was expected there.
    pub expected: GuidTextExpectation,
    /// The byte found there, `None` past the end of the text.
    pub found: Option<u8>,
}

impl GuidParseError {
    /// The error at byte `at`.
    pub const fn new(at: usize, expected: GuidTextExpectation, found: Option<u8>) -> Self {
        Self {
            at,
            expected,
            found,
        }
    }
}

impl core::fmt::Display for GuidParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Self {
            at,
            expected,
            found,
        } = *self;
        match found {
            Some(byte) => write!(
                f,
                "GUID text: expected {expected} at position {at}, found {:?}",
                char::from(byte)
            ),
            None => write!(
                f,
                "GUID text: expected {expected} at position {at}, found the end of the text"
            ),
        }
    }
}

impl core::error::Error for GuidParseError {}

/// What a GUID parser expected at the position it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum GuidTextExpectation {
    /// A hexadecimal digit, either case.
    HexDigit,
    /// A `-` between groups.
    Hyphen,
    /// The closing `}` of a braced GUID.
    ClosingBrace,
    /// The end of the text.
    End,
}

impl core::fmt::Display for GuidTextExpectation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::HexDigit => "a hex digit",
            Self::Hyphen => "'-'",
            Self::ClosingBrace => "'}'",
            Self::End => "the end of the text",
        })
    }
}

/// What is wrong with an extended data item: the fault in a
/// [`CodecError::ExtendedItem`], which also says which item and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ExtendedItemFault {
    /// `EXTENDED_INFO` (for the first item) or the previous item's `Linkage` bit announce an
    /// item, but fewer than 8 bytes are left before the event's `Size`: the list is not
    /// terminated inside the event.
    HeaderBeyondEvent {
        /// Bytes left before the event's `Size`.
        available: usize,
    },
    /// The item's size (`Reserved1`) is below its own 8-byte header.
    ItemSizeBelowHeader {
        /// The item size found.
        item_size: u16,
    },
    /// `DataSize` is more than the item's size leaves after its header.
    DataSizeBeyondItem {
        /// The `DataSize` found.
        data_size: u16,
        /// The item's size.
        item_size: u16,
    },
    /// The item's size runs past the event's `Size`.
    ItemBeyondEvent {
        /// The item size found.
        item_size: u16,
        /// Bytes left before the event's `Size`, from the start of the item.
        available: usize,
    },
    /// The data does not have the length the item's type needs ([`ExtendedItem::payload`](crate::wire::headers::event_header_extended::ExtendedItem::payload)).
    PayloadSize {
        /// The item's type.
        ext_type: EventHeaderExtType,
        /// The length the type needs.
        expected: PayloadLength,
        /// The item's `DataSize`.
        data_size: u16,
    },
    /// A SID whose `SubAuthorityCount` needs more bytes than `DataSize`.
    SidSubAuthorities {
        /// The `SubAuthorityCount` found.
        sub_authority_count: u8,
        /// The item's `DataSize`.
        data_size: u16,
    },
    /// The provider traits' size (their first `u16`) is below 3 (the size and a NUL) or above
    /// `DataSize`.
    ProviderTraitsSize {
        /// The traits' size found.
        traits_size: u16,
        /// The item's `DataSize`.
        data_size: u16,
    },
    /// The provider name has no terminating NUL inside the provider traits.
    ProviderNameUnterminated {
        /// The traits' size.
        traits_size: u16,
    },
    /// A trait after the provider name does not fit the provider traits.
    ProviderTrait {
        /// Where the trait starts, from the start of the item's data.
        at: usize,
        /// The trait's size (its first `u16`); `None` when fewer than 3 bytes are left for its
        /// header.
        trait_size: Option<u16>,
        /// Bytes left in the provider traits from the start of the trait.
        available: usize,
    },
}

/// The data length an item's type needs, in a [`ExtendedItemFault::PayloadSize`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PayloadLength {
    /// Exactly this many bytes.
    Exactly(u16),
    /// At least this many bytes.
    AtLeast(u16),
    /// A fixed part of `fixed` bytes, then a whole number of `unit`-byte values.
    FixedAndMultipleOf {
        /// Bytes of the fixed part.
        fixed: u16,
        /// Bytes per value after it.
        unit: u16,
    },
}

impl core::fmt::Display for PayloadLength {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Exactly(len) => write!(f, "{len} bytes"),
            Self::AtLeast(len) => write!(f, "at least {len} bytes"),
            Self::FixedAndMultipleOf { fixed: 0, unit } => write!(f, "a multiple of {unit} bytes"),
            Self::FixedAndMultipleOf { fixed, unit } => {
                write!(f, "{fixed} bytes and a multiple of {unit}")
            }
        }
    }
}

impl core::fmt::Display for ExtendedItemFault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::HeaderBeyondEvent { available } => write!(
                f,
                "expected an 8-byte item header (announced by EVENT_HEADER_FLAG_EXTENDED_INFO or \
                 the previous item's Linkage) before the event's Size, found {available} bytes"
            ),
            Self::ItemSizeBelowHeader { item_size } => write!(
                f,
                "item size (Reserved1, offset 0): expected at least the 8-byte item header, \
                 found {item_size}"
            ),
            Self::DataSizeBeyondItem {
                data_size,
                item_size,
            } => write!(
                f,
                "DataSize (offset 6): expected at most {} (the item size {item_size} less its \
                 8-byte header), found {data_size}",
                item_size.saturating_sub(8)
            ),
            Self::ItemBeyondEvent {
                item_size,
                available,
            } => write!(
                f,
                "item size (Reserved1, offset 0): expected at most the {available} bytes left \
                 before the event's Size, found {item_size}"
            ),
            Self::PayloadSize {
                ext_type,
                expected,
                data_size,
            } => write!(
                f,
                "{ext_type:?} data: expected {expected}, found a DataSize of {data_size}"
            ),
            Self::SidSubAuthorities {
                sub_authority_count,
                data_size,
            } => write!(
                f,
                "SID data: expected the 8 + 4 x {sub_authority_count} bytes its \
                 SubAuthorityCount needs, found a DataSize of {data_size}"
            ),
            Self::ProviderTraitsSize {
                traits_size,
                data_size,
            } => write!(
                f,
                "PROV_TRAITS data: expected a traits size (u16 at 0) between 3 and the DataSize \
                 {data_size}, found {traits_size}"
            ),
            Self::ProviderNameUnterminated { traits_size } => write!(
                f,
                "PROV_TRAITS data: expected a NUL after the provider name within the traits' \
                 {traits_size} bytes, found none"
            ),
            Self::ProviderTrait {
                at,
                trait_size: Some(trait_size),
                available,
            } => write!(
                f,
                "PROV_TRAITS data: trait at data offset {at:#x}: expected a size between 3 and \
                 the {available} bytes left, found {trait_size}"
            ),
            Self::ProviderTrait {
                at,
                trait_size: None,
                available,
            } => write!(
                f,
                "PROV_TRAITS data: trait at data offset {at:#x}: expected a 3-byte trait header, \
                 found {available} bytes"
            ),
        }
    }
}
