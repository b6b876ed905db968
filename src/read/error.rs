//! What reading can say: where (the buffer's index and file offset, the event's offset in the
//! buffer) and what, with the codec or decompression error under it as its
//! [`source`](core::error::Error::source).

use crate::wire::codes::HeaderType;
use crate::wire::error::CodecError;
use crate::wire::file::trace_logfile_header::ClockType;
use crate::wire::file::wmi_buffer_header::BufferFlags;

/// Where a buffer lies in an .etl file: its index, counting from 0 (the logfile header's
/// buffer), and the file offset of its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferPosition {
    /// The buffer's index in the file.
    pub index: usize,
    /// The file offset of the buffer's header.
    pub file_offset: usize,
}

/// An error of the reader: what went wrong ([`kind`](Self::kind)) and, when the buffer came
/// from an .etl file, which buffer ([`buffer`](Self::buffer)).
///
/// Its `Display` reads "buffer 17 at file offset 0x44000: " then the kind; its
/// [`source`](core::error::Error::source) is the [`CodecError`], [`Lz77Error`], [`Lznt1Error`] or
/// [`XpressHuffmanError`] under it.
///
/// ```
/// use etw_classic::{ReadError, ReadErrorKind, TraceBuffer};
/// let error = TraceBuffer::parse(&[0; 16]).unwrap_err();
/// assert_eq!(error.buffer, None);
/// assert!(matches!(error.kind, ReadErrorKind::Codec(_)));
/// assert_eq!(error.to_string(), "WMI_BUFFER_HEADER: expected 72 bytes, found 16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ReadError {
    /// The buffer the error is in; `None` for a buffer read on its own.
    pub buffer: Option<BufferPosition>,
    /// What went wrong.
    pub kind: ReadErrorKind,
}

impl ReadError {
    /// The error `kind` in the buffer at `buffer`.
    pub const fn new(buffer: Option<BufferPosition>, kind: ReadErrorKind) -> Self {
        Self { buffer, kind }
    }

    /// The same error, placed in the buffer at `buffer` (unless it already names one).
    pub const fn in_buffer(self, buffer: BufferPosition) -> Self {
        match self.buffer {
            Some(_) => self,
            None => Self::new(Some(buffer), self.kind),
        }
    }
}

impl From<ReadErrorKind> for ReadError {
    fn from(kind: ReadErrorKind) -> Self {
        Self::new(None, kind)
    }
}

impl From<CodecError> for ReadError {
    fn from(error: CodecError) -> Self {
        ReadErrorKind::Codec(error).into()
    }
}

impl From<Lz77Error> for ReadError {
    fn from(error: Lz77Error) -> Self {
        ReadErrorKind::Decompress(error).into()
    }
}

/// What went wrong while reading an .etl file, a trace buffer or its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A struct of the file or buffer could not be decoded (a buffer header cut short, a
    /// logfile header event that is not one).
    Codec(CodecError),
    /// The bytes left in the file after the last buffer are too few for a buffer header.
    BufferHeaderTruncated {
        /// Bytes a buffer header needs.
        needed: usize,
        /// Bytes left in the file.
        available: usize,
    },
    /// A buffer's `BufferSize` is smaller than its header or runs past the end of the file.
    BufferSizeOutOfRange {
        /// The `BufferSize` found.
        buffer_size: u32,
        /// The smallest size allowed: the buffer header.
        min: usize,
        /// The largest size allowed: the bytes left in the file.
        max: usize,
    },
    /// A buffer's `BufferSize` is smaller than its header or larger than
    /// [`MAX_BUFFER_SIZE`](crate::read::MAX_BUFFER_SIZE): the check of a reader that reads one
    /// buffer at a time, before it reads (or makes room for) the rest of the buffer.
    BufferSizeBeyondLimits {
        /// The `BufferSize` found.
        buffer_size: u32,
        /// The smallest size allowed: the buffer header.
        min: usize,
        /// The largest size allowed: [`MAX_BUFFER_SIZE`](crate::read::MAX_BUFFER_SIZE).
        max: usize,
    },
    /// The file ends, at a buffer boundary, after fewer buffers than the logfile header's
    /// `BuffersWritten` counts (a file cut short between two buffers). The error names where
    /// the next buffer should have started.
    FileEndsBeforeBuffersWritten {
        /// The buffers the file holds, the header buffer included.
        buffers: usize,
        /// The logfile header's `BuffersWritten`.
        buffers_written: u32,
    },
    /// The processor a buffer names (`ETW_BUFFER_CONTEXT.ProcessorIndex`, u16 at 0x28, when
    /// `BufferFlag` has `ETW_BUFFER_FLAG_PROC_INDEX` 0x20, else `ProcessorNumber`, byte 0x28) is
    /// not below the logfile header's `NumberOfProcessors`: the check of the time-ordered walk,
    /// which holds one buffer per processor (EVENT-HEADERS.md section 7: "each buffer is one
    /// processor's").
    ProcessorBeyondCount {
        /// The processor the buffer names.
        processor: u16,
        /// Whether it was read as `ProcessorIndex` (`ETW_BUFFER_FLAG_PROC_INDEX` set).
        proc_index: bool,
        /// The logfile header's `NumberOfProcessors`.
        number_of_processors: u32,
    },
    /// The first buffer has no event where the logfile header should be.
    MissingLogfileHeader,
    /// The logfile header's `BufferSize` is smaller than a buffer header or larger than
    /// [`MAX_BUFFER_SIZE`](crate::read::MAX_BUFFER_SIZE).
    LogfileBufferSizeOutOfRange {
        /// The `BufferSize` found in the `TRACE_LOGFILE_HEADER`.
        buffer_size: u32,
        /// The smallest size allowed: a buffer header.
        min: usize,
        /// The largest size allowed.
        max: usize,
    },
    /// The buffer's `BufferFlag` has `ETW_BUFFER_FLAG_COMPRESSED`: its events must be
    /// decompressed before they can be walked.
    CompressedBuffer {
        /// The `BufferFlag` found.
        buffer_flag: BufferFlags,
    },
    /// The buffer's `Offset` (where its events end) is before the end of its 0x48-byte header
    /// or past the end of the bytes given (for a compressed buffer: of the scratch space, which
    /// the logfile header's `BufferSize` sizes).
    BufferOffsetOutOfRange {
        /// The `Offset` found at 0x30 of the buffer header.
        offset: u32,
        /// The smallest `Offset` allowed: the header's length.
        min: usize,
        /// The largest `Offset` allowed.
        max: usize,
    },
    /// The compressed events of the buffer are not a valid Plain LZ77 stream.
    Decompress(Lz77Error),
    /// The compressed events of a buffer whose `State` names `COMPRESSION_FORMAT_LZNT1` (2), and
    /// which are not a Plain LZ77 stream, are not a valid LZNT1 buffer either.
    Lznt1(Lznt1Error),
    /// The compressed events of a buffer whose `State` names `COMPRESSION_FORMAT_XPRESS_HUFF`
    /// (4), and which are not a Plain LZ77 stream, are not a valid LZ77+Huffman stream either.
    XpressHuffman(XpressHuffmanError),
    /// A compressed buffer's events decompress to another length than its `Offset` says.
    DecompressedLengthMismatch {
        /// The length `Offset` says (`Offset` - 0x48).
        expected: usize,
        /// The length decompressed.
        found: usize,
    },
    /// Where an event should start, the first `u32` has no `TRACE_HEADER_FLAG` (bit 0x80 of
    /// byte 3) and is not the end mark 0xFFFFFFFF.
    NotAnEventHeader {
        /// Where the event should start, from the start of the events' bytes.
        offset: usize,
        /// The `u32` found there (little-endian).
        found: u32,
    },
    /// An event's `HeaderType` is one whose layout (where `Size` sits) is not known: a value
    /// ntwmi.h does not name (`TIMED`, `ERROR` and `WNODE_HEADER` are framed size first).
    UnknownEventHeaderType {
        /// Where the event starts.
        offset: usize,
        /// The header type found at byte 2.
        header_type: HeaderType,
    },
    /// Too few bytes are left to read an event's `Size` (a version-first header keeps it at
    /// bytes 4..6).
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
    /// An event's `Size` is smaller than its fixed header (or than 4 bytes).
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
    /// An event's `Size` runs past the end of the events' bytes.
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
    /// An event given to [`TraceBuffer::deliver`](crate::read::TraceBuffer::deliver) whose data
    /// an `EVENT_TRACE` cannot describe: the data's offset from the start of the buffer does not
    /// fit the 64-bit `MofData`, or its length the 32-bit `MofLength`. No event of a walk is one
    /// (its offset lies within the buffer and its data is below 64 KiB): only an
    /// [`Event`](crate::read::Event) built by hand can be.
    EventDataOutOfRange {
        /// The event's offset, from the start of the events' bytes.
        offset: usize,
        /// The length of its data.
        data_len: usize,
    },
    /// A classic event's header could not be delivered as an `EVENT_TRACE`.
    Event {
        /// Where the event starts, from the start of the events' bytes.
        offset: usize,
        /// What the codec said.
        error: CodecError,
    },
}

impl core::fmt::Display for ReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some(BufferPosition { index, file_offset }) = self.buffer {
            write!(f, "buffer {index} at file offset {file_offset:#x}: ")?;
        }
        core::fmt::Display::fmt(&self.kind, f)
    }
}

impl core::fmt::Display for ReadErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Codec(error) => core::fmt::Display::fmt(&error, f),
            Self::BufferHeaderTruncated { needed, available } => write!(
                f,
                "expected a {needed}-byte buffer header, found {available} bytes left in the file"
            ),
            Self::BufferSizeOutOfRange {
                buffer_size,
                min,
                max,
            } => write!(
                f,
                "WMI_BUFFER_HEADER.BufferSize: expected between {min:#x} and the {max:#x} bytes \
                 left in the file, found {buffer_size:#x}"
            ),
            Self::BufferSizeBeyondLimits {
                buffer_size,
                min,
                max,
            } => write!(
                f,
                "WMI_BUFFER_HEADER.BufferSize: expected between {min:#x} and {max:#x} \
                 (MAX_BUFFER_SIZE), found {buffer_size:#x}"
            ),
            Self::FileEndsBeforeBuffersWritten {
                buffers,
                buffers_written,
            } => write!(
                f,
                "expected the {buffers_written} buffers the logfile header's BuffersWritten \
                 counts, found the end of the file after {buffers}"
            ),
            Self::ProcessorBeyondCount {
                processor,
                proc_index,
                number_of_processors,
            } => {
                let field = if proc_index {
                    "ClientContext.ProcessorIndex (u16 at 0x28; BufferFlag has PROC_INDEX 0x20)"
                } else {
                    "ClientContext.ProcessorNumber (byte 0x28)"
                };
                write!(
                    f,
                    "WMI_BUFFER_HEADER.{field}: expected below the logfile header's \
                     NumberOfProcessors, {number_of_processors}, found {processor}"
                )
            }
            Self::MissingLogfileHeader => f.write_str(
                "expected the logfile header event at the start of the first buffer, found no event",
            ),
            Self::LogfileBufferSizeOutOfRange {
                buffer_size,
                min,
                max,
            } => write!(
                f,
                "TRACE_LOGFILE_HEADER.BufferSize: expected between {min:#x} and {max:#x}, \
                 found {buffer_size:#x}"
            ),
            Self::CompressedBuffer { buffer_flag } => write!(
                f,
                "WMI_BUFFER_HEADER.BufferFlag: expected an uncompressed trace buffer, found \
                 {:#06x} with ETW_BUFFER_FLAG_COMPRESSED (0x40)",
                buffer_flag.0
            ),
            Self::BufferOffsetOutOfRange { offset, min, max } => write!(
                f,
                "WMI_BUFFER_HEADER.Offset: expected between {min:#x} and {max:#x}, found {offset:#x}"
            ),
            Self::Decompress(error) => write!(f, "compressed events: {error}"),
            Self::Lznt1(error) => write!(
                f,
                "compressed events (State names COMPRESSION_FORMAT_LZNT1, not Plain LZ77): {error}"
            ),
            Self::XpressHuffman(error) => write!(
                f,
                "compressed events (State names COMPRESSION_FORMAT_XPRESS_HUFF, not Plain LZ77): \
                 {error}"
            ),
            Self::DecompressedLengthMismatch { expected, found } => write!(
                f,
                "compressed events: decompressed data ends at byte {found}, {expected} expected \
                 (the buffer's Offset - 0x48)"
            ),
            Self::NotAnEventHeader { offset, found } => write!(
                f,
                "event at offset {offset:#x}: expected a trace header (bit 0x80000000 set) or \
                 the end mark 0xffffffff, found {found:#010x}"
            ),
            Self::UnknownEventHeaderType {
                offset,
                header_type,
            } => write!(
                f,
                "event at offset {offset:#x}: expected a header type with a known layout, \
                 found {header_type:?}"
            ),
            Self::EventHeaderTruncated {
                offset,
                header_type,
                needed,
                available,
            } => write!(
                f,
                "{header_type:?} event at offset {offset:#x}: expected {needed} bytes to read \
                 its Size, found {available}"
            ),
            Self::EventSizeBelowHeader {
                offset,
                header_type,
                min_size,
                size,
            } => write!(
                f,
                "{header_type:?} event at offset {offset:#x}: expected a Size of at least \
                 {min_size}, found {size}"
            ),
            Self::EventSizeBeyondBuffer {
                offset,
                header_type,
                size,
                available,
            } => write!(
                f,
                "{header_type:?} event at offset {offset:#x}: expected a Size of at most the \
                 {available} bytes left, found {size}"
            ),
            Self::EventDataOutOfRange { offset, data_len } => write!(
                f,
                "event at offset {offset:#x}: expected data whose offset in the buffer fits a \
                 64-bit MofData and whose length fits a 32-bit MofLength, found {data_len} bytes"
            ),
            Self::Event { offset, error } => write!(f, "event at offset {offset:#x}: {error}"),
        }
    }
}

impl core::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match &self.kind {
            ReadErrorKind::Codec(error) | ReadErrorKind::Event { error, .. } => Some(error),
            ReadErrorKind::Decompress(error) => Some(error),
            ReadErrorKind::Lznt1(error) => Some(error),
            ReadErrorKind::XpressHuffman(error) => Some(error),
            _ => None,
        }
    }
}

/// A Plain LZ77 stream ([`plain_lz77`](crate::read::plain_lz77)) that cannot be decoded: what,
/// and at which input offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Lz77Error {
    /// 1 to 3 bytes are left where a 32-bit flag word is due (an input that ends exactly there
    /// is a complete stream).
    FlagsTruncated {
        /// Input offset where the flag word starts.
        offset: usize,
        /// Bytes left there (fewer than the 4 needed).
        available: usize,
    },
    /// 1 byte is left where a match's 2-byte token is due.
    MatchTruncated {
        /// Input offset where the token starts.
        offset: usize,
        /// Bytes left there (fewer than the 2 needed).
        available: usize,
    },
    /// The extra length bytes of a long match (a 4-bit/8-bit length byte, a 16-bit or a 32-bit
    /// length) run past the end of the input.
    LengthTruncated {
        /// Input offset where the length bytes start.
        offset: usize,
        /// Bytes the length needs there: 1, 2 or 4.
        needed: usize,
        /// Bytes left there.
        available: usize,
    },
    /// A 16- or 32-bit match length is below 22 (15 + 7), which [MS-XCA] calls an error.
    LengthBelowMinimum {
        /// Input offset of the 16- or 32-bit length.
        offset: usize,
        /// The length found.
        found: u32,
    },
    /// A match reaches back further than the bytes decoded so far.
    DistanceBeforeStart {
        /// Input offset of the match token.
        offset: usize,
        /// The match distance, 1 to 8192.
        distance: usize,
        /// Bytes decoded before the match, the largest distance allowed there.
        written: usize,
    },
    /// The output has no room left for a literal or for a whole match.
    OutputTooSmall {
        /// Input offset of the literal or of the match token.
        offset: usize,
        /// Output bytes the item needs: 1 for a literal, the length for a match.
        needed: u64,
        /// Output bytes left.
        available: usize,
    },
}

impl core::fmt::Display for Lz77Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::FlagsTruncated { offset, available } => write!(
                f,
                "plain LZ77: expected a 4-byte flag word (or the end of the input), \
                 found {available} bytes at offset {offset:#x}"
            ),
            Self::MatchTruncated { offset, available } => write!(
                f,
                "plain LZ77: expected a 2-byte match token, found {available} byte at offset {offset:#x}"
            ),
            Self::LengthTruncated {
                offset,
                needed,
                available,
            } => write!(
                f,
                "plain LZ77: expected {needed} bytes of match length, \
                 found {available} at offset {offset:#x}"
            ),
            Self::LengthBelowMinimum { offset, found } => write!(
                f,
                "plain LZ77: expected a 16/32-bit match length of at least 22, \
                 found {found} at offset {offset:#x}"
            ),
            Self::DistanceBeforeStart {
                offset,
                distance,
                written,
            } => write!(
                f,
                "plain LZ77: expected a match distance of at most the {written} bytes decoded, \
                 found {distance} at offset {offset:#x}"
            ),
            Self::OutputTooSmall {
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

impl core::error::Error for Lz77Error {}

/// An LZNT1 buffer ([`lznt1`](crate::read::lznt1)) that cannot be decoded: what, and at which
/// input offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Lznt1Error {
    /// 1 byte is left where a 2-byte chunk header is due (an input that ends exactly there is a
    /// complete buffer).
    HeaderTruncated {
        /// Input offset where the chunk header starts.
        offset: usize,
        /// Bytes left there (fewer than the 2 needed).
        available: usize,
    },
    /// A chunk header whose signature, bits 14 to 12, is not 3.
    BadSignature {
        /// Input offset of the chunk header.
        offset: usize,
        /// The chunk header found.
        header: u16,
    },
    /// A chunk's data, as long as its header says, runs past the end of the input.
    ChunkTruncated {
        /// Input offset of the chunk header.
        offset: usize,
        /// Bytes of data the header announces (its bits 11 to 0, plus 1).
        needed: usize,
        /// Bytes left after the header.
        available: usize,
    },
    /// 1 byte is left in a compressed chunk where a flag announces a 2-byte compressed word.
    WordTruncated {
        /// Input offset where the word starts.
        offset: usize,
        /// Bytes left in the chunk there (fewer than the 2 needed).
        available: usize,
    },
    /// A match reaches back before the start of its chunk (chunks are decoded independently).
    DistanceBeforeChunk {
        /// Input offset of the compressed word.
        offset: usize,
        /// The match displacement.
        distance: usize,
        /// Bytes the chunk had decompressed before the match, the largest displacement allowed.
        position: usize,
    },
    /// An item would take its chunk past the 4096 bytes a chunk decompresses to at most.
    ChunkTooLong {
        /// Input offset of the literal or compressed word.
        offset: usize,
        /// Bytes the chunk had decompressed before the item.
        position: usize,
        /// Bytes the item decompresses to: 1 for a literal, the length for a match.
        needed: usize,
    },
    /// The output has no room left for a literal, a match or an uncompressed chunk.
    OutputTooSmall {
        /// Input offset of the literal, of the compressed word or of an uncompressed chunk's data.
        offset: usize,
        /// Output bytes the item needs.
        needed: usize,
        /// Output bytes left.
        available: usize,
    },
}

impl core::fmt::Display for Lznt1Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::HeaderTruncated { offset, available } => write!(
                f,
                "LZNT1: expected a 2-byte chunk header (or the end of the input), \
                 found {available} byte at offset {offset:#x}"
            ),
            Self::BadSignature { offset, header } => write!(
                f,
                "LZNT1: expected a chunk header with signature 3 in bits 14-12, \
                 found {header:#06x} at offset {offset:#x}"
            ),
            Self::ChunkTruncated {
                offset,
                needed,
                available,
            } => write!(
                f,
                "LZNT1: the chunk at offset {offset:#x} announces {needed} bytes of data, \
                 found {available}"
            ),
            Self::WordTruncated { offset, available } => write!(
                f,
                "LZNT1: expected a 2-byte compressed word, found {available} byte left in the \
                 chunk at offset {offset:#x}"
            ),
            Self::DistanceBeforeChunk {
                offset,
                distance,
                position,
            } => write!(
                f,
                "LZNT1: expected a match displacement of at most the {position} bytes the chunk \
                 has decoded, found {distance} at offset {offset:#x}"
            ),
            Self::ChunkTooLong {
                offset,
                position,
                needed,
            } => write!(
                f,
                "LZNT1: expected a chunk of at most 4096 bytes, found an item of {needed} bytes \
                 at chunk position {position} (offset {offset:#x})"
            ),
            Self::OutputTooSmall {
                offset,
                needed,
                available,
            } => write!(
                f,
                "LZNT1: the item at offset {offset:#x} needs {needed} bytes of output, \
                 found room for {available}"
            ),
        }
    }
}

impl core::error::Error for Lznt1Error {}

/// An LZ77+Huffman stream ([`xpress_huffman`](crate::read::xpress_huffman)) that cannot be
/// decoded: what, and at which input offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum XpressHuffmanError {
    /// 1 to 255 bytes are left where a block's 256-byte table of code lengths is due, and the
    /// output is not full (an input that ends exactly there is a complete stream).
    TableTruncated {
        /// Input offset where the table starts.
        offset: usize,
        /// Bytes left there.
        available: usize,
    },
    /// A block's code lengths do not fill the `2^15` entries of the decoding table exactly
    /// (section 2.2.4): too many codes for their lengths, or too few.
    InvalidCodeLengths {
        /// Input offset of the table.
        offset: usize,
        /// The entries the lengths fill: each symbol of length `L` (1 to 15) `2^(15 - L)`.
        filled: u32,
    },
    /// Fewer than 2 bytes are left where the bit stream loads its next 16-bit word.
    BitsTruncated {
        /// Input offset where the word starts.
        offset: usize,
        /// Bytes left there (fewer than the 2 needed).
        available: usize,
    },
    /// The extra length bytes of a long match (a length byte, a 16-bit or a 32-bit length) run
    /// past the end of the input.
    LengthTruncated {
        /// Input offset where the length bytes start.
        offset: usize,
        /// Bytes the length needs there: 1, 2 or 4.
        needed: usize,
        /// Bytes left there.
        available: usize,
    },
    /// A 16- or 32-bit match length is below 15, which [MS-XCA] section 2.2.4 calls an error.
    LengthBelowMinimum {
        /// Input offset of the 16- or 32-bit length.
        offset: usize,
        /// The length found.
        found: u32,
    },
    /// A match reaches back further than the bytes decoded so far.
    DistanceBeforeStart {
        /// Input offset the bit stream had reached when the match's symbol was decoded.
        offset: usize,
        /// The match distance, 1 to 65535.
        distance: usize,
        /// Bytes decoded before the match, the largest distance allowed there.
        written: usize,
    },
    /// The output has no room left for a literal or for a whole match.
    OutputTooSmall {
        /// Input offset the bit stream had reached when the symbol was decoded.
        offset: usize,
        /// Output bytes the symbol needs: 1 for a literal, the length for a match.
        needed: u64,
        /// Output bytes left.
        available: usize,
    },
}

impl core::fmt::Display for XpressHuffmanError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::TableTruncated { offset, available } => write!(
                f,
                "LZ77+Huffman: expected a 256-byte table of code lengths (or the end of the \
                 input), found {available} bytes at offset {offset:#x}"
            ),
            Self::InvalidCodeLengths { offset, filled } => write!(
                f,
                "LZ77+Huffman: expected code lengths that fill the 32768 entries of the \
                 decoding table, found lengths that fill {filled} in the table at offset \
                 {offset:#x}"
            ),
            Self::BitsTruncated { offset, available } => write!(
                f,
                "LZ77+Huffman: expected a 16-bit word of the bit stream, found {available} \
                 byte at offset {offset:#x}"
            ),
            Self::LengthTruncated {
                offset,
                needed,
                available,
            } => write!(
                f,
                "LZ77+Huffman: expected {needed} bytes of match length, \
                 found {available} at offset {offset:#x}"
            ),
            Self::LengthBelowMinimum { offset, found } => write!(
                f,
                "LZ77+Huffman: expected a 16/32-bit match length of at least 15, \
                 found {found} at offset {offset:#x}"
            ),
            Self::DistanceBeforeStart {
                offset,
                distance,
                written,
            } => write!(
                f,
                "LZ77+Huffman: expected a match distance of at most the {written} bytes \
                 decoded, found {distance} (bit stream at offset {offset:#x})"
            ),
            Self::OutputTooSmall {
                offset,
                needed,
                available,
            } => write!(
                f,
                "LZ77+Huffman: the symbol decoded at offset {offset:#x} needs {needed} bytes \
                 of output, found room for {available}"
            ),
        }
    }
}

impl core::error::Error for XpressHuffmanError {}

/// An [`InstanceTree`](crate::read::InstanceTree) has no room for another instance.
/// `#[non_exhaustive]`, as the other errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct InstanceTreeFull {
    /// The tree's capacity.
    pub capacity: usize,
}

impl InstanceTreeFull {
    /// The error of a full tree of `capacity` instances (for comparing with the one
    /// [`InstanceTree::add`](crate::read::InstanceTree::add) returns).
    pub const fn new(capacity: usize) -> Self {
        Self { capacity }
    }
}

impl core::fmt::Display for InstanceTreeFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "expected room for another instance, found all {} entries of the tree in use",
            self.capacity
        )
    }
}

impl core::error::Error for InstanceTreeFull {}

/// A `TRACE_LOGFILE_HEADER` whose clock cannot turn raw timestamps into time
/// ([`TraceClock::new`](crate::read::TraceClock::new)): which member, what was expected, what
/// was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ClockError {
    /// `ReservedFlags` names no clock whose frequency the header gives: 0
    /// ([`ClockType::RAW`]) or a value no source documents.
    UnsupportedClockType {
        /// The `ReservedFlags` found.
        clock_type: ClockType,
    },
    /// The member that gives the clock's frequency (`PerfFreq` for the query performance
    /// counter, `CpuSpeedInMHz` for the CPU cycle counter) is zero or negative.
    FrequencyNotPositive {
        /// The clock type, which names the member.
        clock_type: ClockType,
        /// The value found in that member.
        found: i64,
    },
}

impl core::fmt::Display for ClockError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::UnsupportedClockType { clock_type } => write!(
                f,
                "TRACE_LOGFILE_HEADER.ReservedFlags: expected a clock type of 1 (query \
                 performance counter), 2 (system time) or 3 (CPU cycle counter), found {}",
                clock_type.0
            ),
            Self::FrequencyNotPositive { clock_type, found } => {
                let member = if clock_type == ClockType::CPU_CYCLE_COUNTER {
                    "CpuSpeedInMHz"
                } else {
                    "PerfFreq"
                };
                write!(
                    f,
                    "TRACE_LOGFILE_HEADER.{member}: expected a positive frequency for clock type \
                     {}, found {found}",
                    clock_type.0
                )
            }
        }
    }
}

impl core::error::Error for ClockError {}
