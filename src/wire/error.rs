//! The crate's one error type.

use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::file::wmi_buffer_header::BufferFlags;
use crate::wire::layout::{Bitness, Layout};

/// Everything that can go wrong when decoding or encoding; each variant says what was expected
/// and what was found.
///
/// `Copy`, allocation-free, and `#[non_exhaustive]`: later versions may add variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Error {
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
    /// A pointer value does not fit the layout's pointer width.
    PointerTooWide {
        /// The struct whose pointer member was being set.
        layout: Layout,
        /// The layout's pointer width.
        bitness: Bitness,
        /// The value that did not fit.
        value: u64,
    },
    /// GUID text is not `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, optionally in braces.
    InvalidGuidText {
        /// Byte position in the text where the problem is (the text's length when it is too short).
        at: usize,
        /// What was expected there.
        expected: GuidTextExpectation,
        /// The byte found there, `None` past the end of the text.
        found: Option<u8>,
    },
    /// In a trace buffer, the first `u32` where an event should start has no `TRACE_HEADER_FLAG`
    /// (bit 0x80 of byte 3) and is not the end mark 0xFFFFFFFF.
    NotAnEventHeader {
        /// Where the event should start, from the start of the events' bytes.
        offset: usize,
        /// The `u32` found there (little-endian).
        found: u32,
    },
    /// In a trace buffer, an event's `HeaderType` is one whose layout (where `Size` sits) is not
    /// known: `TIMED`, `WNODE_HEADER` or a value ntwmi.h does not name.
    UnknownEventHeaderType {
        /// Where the event starts.
        offset: usize,
        /// The header type found at byte 2.
        header_type: HeaderType,
    },
    /// In a trace buffer, too few bytes are left to read an event's `Size` (a version-first
    /// header keeps it at bytes 4..6).
    EventHeaderTruncated {
        /// Where the event starts.
        offset: usize,
        /// The event's header type.
        header_type: HeaderType,
        /// Bytes needed to read `Size`.
        needed: usize,
        /// Bytes left from the event's start.
        available: usize,
    },
    /// In a trace buffer, an event's `Size` is smaller than its fixed header (or than 4 bytes).
    EventSizeBelowHeader {
        /// Where the event starts.
        offset: usize,
        /// The event's header type.
        header_type: HeaderType,
        /// The smallest `Size` this header type allows.
        min_size: usize,
        /// The `Size` found.
        size: u16,
    },
    /// In a trace buffer, an event's `Size` runs past the end of the bytes given.
    EventSizeBeyondBuffer {
        /// Where the event starts.
        offset: usize,
        /// The event's header type.
        header_type: HeaderType,
        /// The `Size` found.
        size: u16,
        /// Bytes left from the event's start.
        available: usize,
    },
    /// A trace buffer's `BufferFlag` has `ETW_BUFFER_FLAG_COMPRESSED`: its events must be
    /// decompressed before they can be walked.
    CompressedBuffer {
        /// The `BufferFlag` found.
        buffer_flag: BufferFlags,
    },
    /// A trace buffer's `Offset` (where its events end) is before the end of its 0x48-byte
    /// header or past the end of the bytes given.
    BufferOffsetOutOfRange {
        /// The `Offset` found at 0x30 of the buffer header.
        offset: u32,
        /// The smallest `Offset` allowed: the header's length.
        min: usize,
        /// The largest `Offset` allowed: the bytes given.
        max: usize,
    },
    /// An [`InstanceTree`](crate::InstanceTree) has no room for another instance.
    InstanceTreeFull {
        /// The tree's capacity.
        capacity: usize,
    },
    /// An .etl file's first buffer has no event where the logfile header should be.
    MissingLogfileHeader,
    /// The logfile header's `BufferSize` is smaller than a buffer header or larger than
    /// [`MAX_BUFFER_SIZE`](crate::MAX_BUFFER_SIZE).
    LogfileBufferSizeOutOfRange {
        /// The `BufferSize` found in the `TRACE_LOGFILE_HEADER`.
        buffer_size: u32,
        /// The smallest size allowed: a buffer header.
        min: usize,
        /// The largest size allowed.
        max: usize,
    },
    /// The bytes left in an .etl file after the last buffer are too few for a buffer header.
    EtlBufferTruncated {
        /// Where the buffer starts in the file.
        file_offset: usize,
        /// Bytes a buffer header needs.
        needed: usize,
        /// Bytes left in the file.
        available: usize,
    },
    /// A buffer's `BufferSize` is smaller than its header or runs past the end of the file.
    EtlBufferSizeOutOfRange {
        /// Where the buffer starts in the file.
        file_offset: usize,
        /// The `BufferSize` found.
        buffer_size: u32,
        /// The smallest size allowed: the buffer header.
        min: usize,
        /// The largest size allowed: the bytes left in the file.
        max: usize,
    },
    /// A compressed buffer's events decompress to another length than its `Offset` says.
    DecompressedLengthMismatch {
        /// Where the buffer starts in the file.
        file_offset: usize,
        /// The length `Offset` says (`Offset` - 0x48).
        expected: usize,
        /// The length decompressed.
        found: usize,
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
    /// Plain LZ77 ([`plain_lz77`](crate::plain_lz77)): 1 to 3 bytes are left where a 32-bit
    /// flag word is due (an input that ends exactly there is a complete stream).
    Lz77FlagsTruncated {
        /// Input offset where the flag word starts.
        offset: usize,
        /// Bytes left there (fewer than the 4 needed).
        available: usize,
    },
    /// Plain LZ77: 1 byte is left where a match's 2-byte token is due.
    Lz77MatchTruncated {
        /// Input offset where the token starts.
        offset: usize,
        /// Bytes left there (fewer than the 2 needed).
        available: usize,
    },
    /// Plain LZ77: the extra length bytes of a long match (a 4-bit/8-bit length byte, a 16-bit
    /// or a 32-bit length) run past the end of the input.
    Lz77LengthTruncated {
        /// Input offset where the length bytes start.
        offset: usize,
        /// Bytes the length needs there: 1, 2 or 4.
        needed: usize,
        /// Bytes left there.
        available: usize,
    },
    /// Plain LZ77: a 16- or 32-bit match length is below 22 (15 + 7), which [MS-XCA] calls an
    /// error.
    Lz77LengthBelowMinimum {
        /// Input offset of the 16- or 32-bit length.
        offset: usize,
        /// The length found.
        found: u32,
    },
    /// Plain LZ77: a match reaches back further than the bytes decoded so far.
    Lz77DistanceBeforeStart {
        /// Input offset of the match token.
        offset: usize,
        /// The match distance, 1 to 8192.
        distance: usize,
        /// Bytes decoded before the match, the largest distance allowed there.
        written: usize,
    },
    /// Plain LZ77: the output has no room left for a literal or for a whole match.
    Lz77OutputTooSmall {
        /// Input offset of the literal or of the match token.
        offset: usize,
        /// Output bytes the item needs: 1 for a literal, the length for a match.
        needed: u64,
        /// Output bytes left.
        available: usize,
    },
}

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

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Truncated {
                layout,
                needed,
                found,
            } => write!(f, "{layout} needs {needed} bytes, found {found}"),
            Self::OutputTooSmall {
                layout,
                needed,
                found,
            } => write!(
                f,
                "encoding {layout} needs {needed} bytes of output, found room for {found}"
            ),
            Self::NotATraceHeader { layout, found } => write!(
                f,
                "{layout}: expected marker flags with TRACE_HEADER_FLAG|TRACE_HEADER_EVENT_TRACE (0xc0) \
                 at offset 0x03, found {:#04x}",
                found.0
            ),
            Self::WrongHeaderType {
                layout,
                expected_32,
                expected_64,
                found,
            } => {
                write!(f, "{layout}: expected header type {expected_32:?} or {expected_64:?} at offset 0x02, found {found:?}")
            }
            Self::SizeBelowHeader {
                layout,
                header_len,
                size,
            } => write!(
                f,
                "{layout}: Size must cover the {header_len}-byte header, found Size {size}"
            ),
            Self::SizeBeyondInput {
                layout,
                size,
                available,
            } => write!(
                f,
                "{layout}: Size {size} is larger than the {available} bytes present"
            ),
            Self::PointerTooWide {
                layout,
                bitness,
                value,
            } => write!(
                f,
                "{layout}: a {bitness} pointer holds at most {:#x}, found {value:#x}",
                bitness.max_pointer()
            ),
            Self::InvalidGuidText {
                at,
                expected,
                found: Some(byte),
            } => write!(
                f,
                "GUID text: expected {expected} at position {at}, found {:?}",
                char::from(byte)
            ),
            Self::InvalidGuidText {
                at,
                expected,
                found: None,
            } => write!(
                f,
                "GUID text: expected {expected} at position {at}, found the end of the text"
            ),
            Self::NotAnEventHeader { offset, found } => write!(
                f,
                "expected a trace header (bit 0x80000000 set) or the end mark 0xffffffff, \
                 found {found:#010x} at offset {offset:#x}"
            ),
            Self::UnknownEventHeaderType {
                offset,
                header_type,
            } => write!(
                f,
                "expected a header type with a known layout, found {header_type:?} at offset {offset:#x}"
            ),
            Self::EventHeaderTruncated {
                offset,
                header_type,
                needed,
                available,
            } => write!(
                f,
                "{header_type:?} event: expected {needed} bytes to read its Size, \
                 found {available} at offset {offset:#x}"
            ),
            Self::EventSizeBelowHeader {
                offset,
                header_type,
                min_size,
                size,
            } => write!(
                f,
                "{header_type:?} event: expected a Size of at least {min_size}, \
                 found {size} at offset {offset:#x}"
            ),
            Self::EventSizeBeyondBuffer {
                offset,
                header_type,
                size,
                available,
            } => write!(
                f,
                "{header_type:?} event: expected a Size of at most the {available} bytes left, \
                 found {size} at offset {offset:#x}"
            ),
            Self::CompressedBuffer { buffer_flag } => write!(
                f,
                "expected an uncompressed trace buffer, found BufferFlag {:#06x} with \
                 ETW_BUFFER_FLAG_COMPRESSED (0x40)",
                buffer_flag.0
            ),
            Self::BufferOffsetOutOfRange { offset, min, max } => write!(
                f,
                "expected the buffer's Offset between {min:#x} and {max:#x}, found {offset:#x}"
            ),
            Self::InstanceTreeFull { capacity } => write!(
                f,
                "expected room for another instance, found all {capacity} entries of the tree in use"
            ),
            Self::MissingLogfileHeader => f.write_str(
                "expected the logfile header event at the start of the first buffer, found no event",
            ),
            Self::LogfileBufferSizeOutOfRange {
                buffer_size,
                min,
                max,
            } => write!(
                f,
                "expected the logfile header's BufferSize between {min:#x} and {max:#x}, \
                 found {buffer_size:#x}"
            ),
            Self::EtlBufferTruncated {
                file_offset,
                needed,
                available,
            } => write!(
                f,
                "expected a {needed}-byte buffer header at file offset {file_offset:#x}, \
                 found {available} bytes left"
            ),
            Self::EtlBufferSizeOutOfRange {
                file_offset,
                buffer_size,
                min,
                max,
            } => write!(
                f,
                "expected the BufferSize of the buffer at file offset {file_offset:#x} between \
                 {min:#x} and the {max:#x} bytes left, found {buffer_size:#x}"
            ),
            Self::DecompressedLengthMismatch {
                file_offset,
                expected,
                found,
            } => write!(
                f,
                "expected the compressed buffer at file offset {file_offset:#x} to decompress to \
                 {expected:#x} bytes (its Offset - 0x48), found {found:#x}"
            ),
            Self::UnexpectedHookId {
                layout,
                expected,
                found,
            } => write!(
                f,
                "{layout}: expected hook id {expected:#06x} at offset 0x06, found {found:#06x}"
            ),
            Self::Lz77FlagsTruncated { offset, available } => write!(
                f,
                "plain LZ77: expected a 4-byte flag word (or the end of the input), \
                 found {available} bytes at offset {offset:#x}"
            ),
            Self::Lz77MatchTruncated { offset, available } => write!(
                f,
                "plain LZ77: expected a 2-byte match token, found {available} byte at offset {offset:#x}"
            ),
            Self::Lz77LengthTruncated {
                offset,
                needed,
                available,
            } => write!(
                f,
                "plain LZ77: expected {needed} bytes of match length, \
                 found {available} at offset {offset:#x}"
            ),
            Self::Lz77LengthBelowMinimum { offset, found } => write!(
                f,
                "plain LZ77: expected a 16/32-bit match length of at least 22, \
                 found {found} at offset {offset:#x}"
            ),
            Self::Lz77DistanceBeforeStart {
                offset,
                distance,
                written,
            } => write!(
                f,
                "plain LZ77: expected a match distance of at most the {written} bytes decoded, \
                 found {distance} at offset {offset:#x}"
            ),
            Self::Lz77OutputTooSmall {
                offset,
                needed,
                available,
            } => write!(
                f,
                "plain LZ77: the item at offset {offset:#x} needs {needed} bytes of output, \
                 found room for {available}"
            ),
        }
    }
}

impl core::error::Error for Error {}
