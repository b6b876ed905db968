//! Reading .etl files from a byte slice: the logfile header of the first buffer, then every
//! buffer, its events decompressed into caller-provided scratch space when the buffer is
//! compressed.

use core::iter::FusedIterator;

use crate::invariant::usize_from_u32;
use crate::read::error::{BufferPosition, ReadError, ReadErrorKind};
use crate::read::trace_buffer::TraceBuffer;
use crate::wire::codes::CompressionFormat;
use crate::wire::error::CodecError;
use crate::wire::file::trace_logfile_header::{LogfileNames, TraceLogfileHeader};
use crate::wire::file::wmi_buffer_header::WmiBufferHeader;
use crate::wire::headers::system_trace_header::SystemTraceHeader;
use crate::wire::layout::Bitness;

/// The largest logfile `BufferSize` the reader accepts: 16 MiB, far above the 8 and 64 KiB of
/// the real traces, so that a corrupt header cannot ask a caller for absurd scratch space.
pub const MAX_BUFFER_SIZE: usize = 16 << 20;

/// An .etl file: a sequence of trace buffers, each starting with a [`WmiBufferHeader`] whose
/// `BufferSize` says where the next one starts; the first buffer's first event is the logfile
/// header.
///
/// Nothing is copied and nothing allocates: the file is one borrowed slice, and
/// [`EtlBuffer::trace_buffer`] decompresses a compressed buffer into scratch space the caller
/// owns (one `buffer_size()` array is enough for any buffer of the file).
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use etw_classic::EtlFile;
///
/// let bytes = std::fs::read("trace.etl")?;
/// let file = EtlFile::parse(&bytes)?;
/// let mut scratch = vec![0; file.buffer_size()];
/// for buffer in file.buffers() {
///     let buffer = buffer?;
///     for event in buffer.trace_buffer(&mut scratch)?.events() {
///         let event = event?;
///         println!("buffer {} offset {:#x}: {:?}", buffer.index, event.offset, event.header_type);
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EtlFile<'a> {
    bytes: &'a [u8],
    /// The logfile header's `BufferSize`, as checked by [`parse`](Self::parse).
    buffer_size: usize,
    /// The buffers the file must hold, as [`parse`](Self::parse) read them ([`buffers_due`]).
    buffers_due: Option<u32>,
    /// The first buffer's header.
    pub first_buffer: WmiBufferHeader,
    /// The logfile header event's `SYSTEM_TRACE_HEADER`.
    pub system_header: SystemTraceHeader,
    /// The `TRACE_LOGFILE_HEADER`, in the logger's layout.
    pub logfile_header: TraceLogfileHeader,
    /// The logger and log file names that follow it.
    pub names: LogfileNames<'a>,
}

impl<'a> EtlFile<'a> {
    /// Reads the first buffer and its logfile header event.
    ///
    /// # Errors
    /// A [`ReadError`] naming buffer 0:
    /// - the errors of [`EtlBuffers`] for the first buffer;
    /// - [`ReadErrorKind::CompressedBuffer`] or [`ReadErrorKind::BufferOffsetOutOfRange`] when
    ///   the first buffer cannot be walked ([`TraceBuffer::parse`]);
    /// - [`ReadErrorKind::MissingLogfileHeader`] when it has no event;
    /// - the error of the walk ([`Events`](crate::read::Events)) when its first event is malformed;
    /// - [`ReadErrorKind::Codec`] with the errors of [`TraceLogfileHeader::parse_event`] for its
    ///   first event;
    /// - [`ReadErrorKind::LogfileBufferSizeOutOfRange`] when the logfile header's `BufferSize`
    ///   is smaller than a buffer header or larger than [`MAX_BUFFER_SIZE`]. (It may be larger
    ///   than the file: compressed buffers are stored shorter.)
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        let first = read_buffer(bytes, 0, 0)?;
        let position = first.position();
        let at_first = |kind: ReadErrorKind| ReadError::new(Some(position), kind);
        let Some(event) = first.in_place()?.events().next() else {
            return Err(at_first(ReadErrorKind::MissingLogfileHeader));
        };
        let (system_header, logfile_header, names, _) =
            TraceLogfileHeader::parse_event(event?.bytes)
                .map_err(|error| at_first(ReadErrorKind::Codec(error)))?;
        let claimed = logfile_header.buffer_size();
        let buffer_size = usize_from_u32(claimed);
        if !(WmiBufferHeader::LEN..=MAX_BUFFER_SIZE).contains(&buffer_size) {
            return Err(at_first(ReadErrorKind::LogfileBufferSizeOutOfRange {
                buffer_size: claimed,
                min: WmiBufferHeader::LEN,
                max: MAX_BUFFER_SIZE,
            }));
        }
        Ok(Self {
            bytes,
            buffer_size,
            buffers_due: buffers_due(&logfile_header),
            first_buffer: first.header,
            system_header,
            logfile_header,
            names,
        })
    }

    /// The pointer size of the logger, from the logfile header's layout (`SYSTEM32` or
    /// `SYSTEM64`). Events say their own bitness through their header types.
    pub const fn bitness(&self) -> Bitness {
        self.logfile_header.bitness()
    }

    /// The logfile header's `BufferSize`, as [`parse`](Self::parse) read and checked it (a
    /// later change to [`logfile_header`](Self::logfile_header) does not change it): no buffer
    /// of the file decompresses to more (checked by [`EtlBuffer::trace_buffer`]), so scratch
    /// space of this size always does.
    pub const fn buffer_size(&self) -> usize {
        self.buffer_size
    }

    /// Every buffer of the file, the first one included, in file order; a file that ends
    /// cleanly, at a buffer boundary, before the buffers the logfile header's `BuffersWritten`
    /// counts ends the walk with [`ReadErrorKind::FileEndsBeforeBuffersWritten`] (see
    /// [`EtlBuffers`]), as `EtlReader` (feature `std`) does over the same bytes.
    /// `BuffersWritten` is the one [`parse`](Self::parse) read, as for
    /// [`buffer_size`](Self::buffer_size).
    pub const fn buffers(&self) -> EtlBuffers<'a> {
        EtlBuffers {
            bytes: self.bytes,
            next: Some(0),
            index: 0,
            buffers_written: self.buffers_due,
        }
    }
}

/// `EVENT_TRACE_FILE_MODE_CIRCULAR` (evntrace.h): the session's file is a ring of buffers
/// (`MaximumFileSize`) that the newest overwrite, so it may hold fewer than `BuffersWritten`.
const EVENT_TRACE_FILE_MODE_CIRCULAR: u32 = 0x0000_0002;

/// The buffers a file whose logfile header is `header` must hold: its `BuffersWritten`, unless
/// that is 0 (a session still running, or not stopped cleanly: the count is written when the
/// session stops) or the file is circular (`LogFileMode` has `EVENT_TRACE_FILE_MODE_CIRCULAR`,
/// 0x2: its buffers wrap around). Both readers end a file that holds fewer with
/// [`ReadErrorKind::FileEndsBeforeBuffersWritten`].
pub(crate) fn buffers_due(header: &TraceLogfileHeader) -> Option<u32> {
    let written = header.buffers_written();
    let circular = header.log_file_mode() & EVENT_TRACE_FILE_MODE_CIRCULAR != 0;
    (written != 0 && !circular).then_some(written)
}

/// The error of a file that ends cleanly at `position`, after `position.index` buffers, when
/// `buffers_written` (from [`buffers_due`]) counts more.
pub(crate) fn ends_before_buffers_written(
    position: BufferPosition,
    buffers_written: Option<u32>,
) -> Option<ReadError> {
    let buffers_written = buffers_written?;
    (usize_from_u32(buffers_written) > position.index).then_some(ReadError::new(
        Some(position),
        ReadErrorKind::FileEndsBeforeBuffersWritten {
            buffers: position.index,
            buffers_written,
        },
    ))
}

/// The buffers of an .etl file, in file order: each one `BufferSize` bytes from its start.
///
/// A buffer whose header is cut short, or whose `BufferSize` is smaller than its header or runs
/// past the end of the file, ends the walk with an error carrying its file offset; the iterator
/// then returns `None` for ever. Offsets strictly increase.
///
/// The walk ends where the file does. For the buffers of an [`EtlFile`]
/// ([`EtlFile::buffers`]), a file that ends there after fewer buffers than the logfile header's
/// `BuffersWritten` counts (unless it is 0, or the file is circular: `LogFileMode` has
/// `EVENT_TRACE_FILE_MODE_CIRCULAR`, 0x2) ends with one more item,
/// [`ReadErrorKind::FileEndsBeforeBuffersWritten`], naming where the next buffer should have
/// started: a file cut between two buffers is reported, as
/// `EtlReader` (feature `std`) reports it. [`EtlBuffers::new`] knows no logfile
/// header, and ends without it.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EtlBuffers<'a> {
    bytes: &'a [u8],
    next: Option<usize>,
    index: usize,
    /// The buffers the file must hold ([`buffers_due`]), when known.
    buffers_written: Option<u32>,
}

impl<'a> EtlBuffers<'a> {
    /// The buffers of `bytes`, the first one at offset 0, with no count of the buffers due.
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            next: Some(0),
            index: 0,
            buffers_written: None,
        }
    }
}

/// The buffer at the start of `rest`, which is at `file_offset` in the file.
fn read_buffer(rest: &[u8], index: usize, file_offset: usize) -> Result<EtlBuffer<'_>, ReadError> {
    let position = BufferPosition { index, file_offset };
    let at = |kind: ReadErrorKind| ReadError::new(Some(position), kind);
    let Ok((header, _)) = WmiBufferHeader::parse(rest) else {
        return Err(at(ReadErrorKind::BufferHeaderTruncated {
            needed: WmiBufferHeader::LEN,
            available: rest.len(),
        }));
    };
    let bytes = Some(usize_from_u32(header.buffer_size))
        .filter(|&size| size >= WmiBufferHeader::LEN)
        .and_then(|size| rest.get(..size))
        .ok_or(at(ReadErrorKind::BufferSizeOutOfRange {
            buffer_size: header.buffer_size,
            min: WmiBufferHeader::LEN,
            max: rest.len(),
        }))?;
    Ok(EtlBuffer {
        index,
        file_offset,
        header,
        bytes,
    })
}

impl<'a> Iterator for EtlBuffers<'a> {
    type Item = Result<EtlBuffer<'a>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        let file_offset = self.next.take()?;
        // The walk ends where the file does: cleanly, unless the logfile header counts more
        // buffers than the file holds.
        let Some(rest) = self
            .bytes
            .get(file_offset..)
            .filter(|rest| !rest.is_empty())
        else {
            let position = BufferPosition {
                index: self.index,
                file_offset,
            };
            return ends_before_buffers_written(position, self.buffers_written).map(Err);
        };
        let item = read_buffer(rest, self.index, file_offset);
        if let Ok(buffer) = &item {
            #[allow(clippy::arithmetic_side_effects)]
            {
                // `buffer.bytes` is the start of `rest`: the sum is at most `self.bytes.len()`.
                self.next = Some(file_offset + buffer.bytes.len());
                // At most `self.bytes.len() / 0x48`: each buffer read takes at least 0x48 bytes
                // of the file.
                self.index += 1;
            }
        }
        Some(item)
    }
}

impl FusedIterator for EtlBuffers<'_> {}

/// One buffer of an .etl file, as stored: compressed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct EtlBuffer<'a> {
    /// The buffer's position in the file, counting from 0 (the logfile header's buffer).
    pub index: usize,
    /// Where the buffer starts in the file.
    pub file_offset: usize,
    /// The buffer's header.
    pub header: WmiBufferHeader,
    /// The whole buffer as stored, header included: `BufferSize` bytes.
    pub bytes: &'a [u8],
}

impl<'a> EtlBuffer<'a> {
    /// One buffer read on its own, for callers that read a file one buffer at a time: its
    /// header, then `BufferSize` bytes from the start of `bytes` (read the header first to know
    /// how many). `index` and `file_offset` are the caller's to say.
    ///
    /// # Errors
    /// [`ReadErrorKind::BufferHeaderTruncated`] when `bytes` is shorter than a buffer header,
    /// [`ReadErrorKind::BufferSizeOutOfRange`] when `BufferSize` is below 0x48 or past its end.
    pub fn parse(bytes: &'a [u8], index: usize, file_offset: usize) -> Result<Self, ReadError> {
        read_buffer(bytes, index, file_offset)
    }

    /// Whether the events are compressed (`ETW_BUFFER_FLAG_COMPRESSED`).
    pub fn is_compressed(&self) -> bool {
        self.header.is_compressed()
    }

    /// For a compressed buffer, the compression format its header may name: the low 16 bits of
    /// `State` (offset 0x2C) read as a `COMPRESSION_FORMAT_*` code; `None` for a buffer that is
    /// not compressed.
    ///
    /// [`trace_buffer`](Self::trace_buffer) decodes every compressed buffer as
    /// [`CompressionFormat::XPRESS`] (MS-XCA Plain LZ77, [`plain_lz77`](crate::read::plain_lz77))
    /// first. When that fails, a buffer whose word is [`CompressionFormat::LZNT1`] (2) is decoded
    /// as LZNT1 ([`lznt1`](crate::read::lznt1)), one whose word is
    /// [`CompressionFormat::XPRESS_HUFF`] (4) as LZ77+Huffman
    /// ([`xpress_huffman`](crate::read::xpress_huffman)), and any other is reported with the
    /// Plain LZ77 error, for the reasons below.
    ///
    /// # What is known about that word
    ///
    /// No public source documents where a buffer's compression format is recorded:
    /// - snail (`snail/etl/etl_file.cpp`, "The compression format is hidden in the state of the
    ///   first buffer") takes `State & 0xFFFF` of the file's first buffer as the format of the
    ///   whole file when the logfile header's `LogFileMode` has `EVENT_TRACE_COMPRESSED_MODE`
    ///   (0x04000000), decodes `COMPRESSION_FORMAT_XPRESS` (3) and rejects LZNT1 and
    ///   XPRESS_HUFF as not implemented. ntwmi.h's annotation of the field at 0x2C mentions
    ///   compression as well.
    /// - But the field is the buffer's `ETW_BUFFER_STATE` (ntwmi.h: `EtwBufferStateFree` 0,
    ///   `GeneralLogging` 1, `CSwitch` 2, `Flush` 3; the symbols of later kernels add
    ///   `PendingCompression` 4, `Compressed` 5 and `Placeholder` 6, and overlay the field with
    ///   a `ULONG Flags`; snail's own `parser/buffer.hpp` lists the same values). So 3 cannot be
    ///   told apart from "flushed", nor 4 from "pending compression".
    /// - In the real traces this crate is tested with, every buffer has `State` 3, the
    ///   uncompressed ones and those of uncompressed files included, and every one of the 636
    ///   compressed buffers is Plain LZ77 (checked against dissect.util's decompressor).
    ///   dissect.etl ignores `State` and decodes every compressed buffer as Plain LZ77.
    /// - The one public claim of another format is a 2017 blog post ("Compressing ETL (ETW
    ///   output) files", peteronprogramming.wordpress.com), which says that xperf compresses
    ///   traces with `RtlCompressBuffer` and `COMPRESSION_FORMAT_LZNT1`; it shows no bytes, and
    ///   no public trace, reader or writer was found with an LZNT1 or XPRESS-Huffman buffer.
    ///
    /// Hence: every compressed buffer is decoded as Plain LZ77, which is what every compressed
    /// buffer seen so far needs, whatever its word says (a 4 may be a buffer that was pending
    /// compression when its `State` was written, a 2 a context-switch buffer). Only when the
    /// bytes are not a Plain LZ77 stream of the length `Offset` says is a 2 or a 4 taken at
    /// snail's word, and the bytes decoded in the format it names; a failure there is reported
    /// as that format's error ([`ReadErrorKind::Lznt1`], [`ReadErrorKind::XpressHuffman`]),
    /// since the Plain LZ77 one would then say little.
    pub fn compression_format(&self) -> Option<CompressionFormat> {
        if !self.is_compressed() {
            return None;
        }
        let [low, high, _, _] = self.header.state.to_le_bytes();
        Some(CompressionFormat(u16::from_le_bytes([low, high])))
    }

    /// Where the buffer lies in the file.
    pub const fn position(&self) -> BufferPosition {
        BufferPosition {
            index: self.index,
            file_offset: self.file_offset,
        }
    }

    /// The events of the buffer as stored, walked in place ([`TraceBuffer::parse`]); its errors
    /// and those of its events name this buffer.
    fn in_place(&self) -> Result<TraceBuffer<'a>, ReadError> {
        let position = self.position();
        TraceBuffer::parse(self.bytes)
            .map(|buffer| buffer.in_buffer(position))
            .map_err(|error| error.in_buffer(position))
    }

    /// The buffer's events, ready to walk: in place for an uncompressed buffer, or decompressed
    /// into the start of `scratch` for a compressed one. A compressed buffer's bytes after its
    /// header are an MS-XCA Plain LZ77 stream ([`plain_lz77`](crate::read::plain_lz77)), or,
    /// when they are not and its `State` names LZNT1 or XPRESS_HUFF
    /// ([`compression_format`](Self::compression_format)), an LZNT1 buffer
    /// ([`lznt1`](crate::read::lznt1)) or LZ77+Huffman stream
    /// ([`xpress_huffman`](crate::read::xpress_huffman)), whose decompressed length is the
    /// header's `Offset` minus the 0x48-byte header (the events end at `Offset`, counted as if
    /// the buffer were not compressed). The errors of the returned buffer's events name this
    /// buffer.
    ///
    /// # Errors
    /// A [`ReadError`] naming this buffer. For an uncompressed buffer, those of
    /// [`TraceBuffer::parse`]. For a compressed one:
    /// [`ReadErrorKind::BufferOffsetOutOfRange`]
    /// when `Offset` is below 0x48 or says the events decompress to more than `scratch` holds
    /// (a corrupt `Offset`, reported before any decompression);
    /// [`ReadErrorKind::Decompress`] for a corrupt Plain LZ77 stream;
    /// [`ReadErrorKind::Lznt1`] or [`ReadErrorKind::XpressHuffman`] when the bytes are not Plain
    /// LZ77 and not a valid stream of the format `State` names either;
    /// [`ReadErrorKind::DecompressedLengthMismatch`] when the stream decompresses to another
    /// length than `Offset` says (in the format `State` names, if the bytes are not Plain LZ77
    /// of that length).
    pub fn trace_buffer<'b>(&self, scratch: &'b mut [u8]) -> Result<TraceBuffer<'b>, ReadError>
    where
        'a: 'b,
    {
        let position = self.position();
        let at = |kind: ReadErrorKind| ReadError::new(Some(position), kind);
        let Some(format) = self.compression_format() else {
            return self.in_place();
        };
        // A slice holds at most `isize::MAX` bytes, so the sum fits a `usize`.
        #[allow(clippy::arithmetic_side_effects)]
        let max = WmiBufferHeader::LEN + scratch.len();
        let out_of_range = at(ReadErrorKind::BufferOffsetOutOfRange {
            offset: self.header.offset,
            min: WmiBufferHeader::LEN,
            max,
        });
        let expected = usize_from_u32(self.header.offset)
            .checked_sub(WmiBufferHeader::LEN)
            .ok_or(out_of_range)?;
        let output = scratch.get_mut(..expected).ok_or(out_of_range)?;
        // `bytes` is a public field: one shorter than a buffer header has no compressed stream.
        let Some((_, compressed)) = self.bytes.split_at_checked(WmiBufferHeader::LEN) else {
            return Err(at(ReadErrorKind::Codec(CodecError::Truncated {
                layout: WmiBufferHeader::LAYOUT,
                needed: WmiBufferHeader::LEN,
                found: self.bytes.len(),
            })));
        };
        // Plain LZ77 first, whatever `State` says: every compressed buffer seen so far is Plain
        // LZ77, and 2 and 4 are also the `ETW_BUFFER_STATE`s `CSwitch` and
        // `PendingCompression`. Only then the format the word names.
        let plain = crate::read::plain_lz77::decompress(compressed, output)
            .map_err(ReadErrorKind::Decompress);
        let result = match (plain, format) {
            (Ok(written), _) if written == expected => Ok(written),
            (_, CompressionFormat::LZNT1) => {
                crate::read::lznt1::decompress(compressed, output).map_err(ReadErrorKind::Lznt1)
            }
            (_, CompressionFormat::XPRESS_HUFF) => {
                crate::read::xpress_huffman::decompress(compressed, output)
                    .map_err(ReadErrorKind::XpressHuffman)
            }
            (plain, _) => plain,
        };
        let written = result.map_err(at)?;
        let output: &'b [u8] = output;
        if written != expected {
            return Err(at(ReadErrorKind::DecompressedLengthMismatch {
                expected,
                found: written,
            }));
        }
        Ok(TraceBuffer::from_parts(self.header, output).in_buffer(position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::file::wmi_buffer_header::BufferFlags;

    #[test]
    fn a_state_of_4_whose_bytes_are_not_plain_lz77_is_decoded_as_lz77_huffman() {
        extern crate std;
        use std::string::ToString;
        // `Offset` says 16 bytes of events; the stream, no bytes at all, is not LZ77+Huffman
        // of them either (its 256-byte table is missing).
        let header = WmiBufferHeader {
            buffer_flag: BufferFlags::COMPRESSED,
            state: 0x0001_0004,
            offset: 0x58,
            ..WmiBufferHeader::default()
        };
        let mut bytes = [0u8; 0x48 + 3];
        bytes[..0x48].copy_from_slice(&header.to_bytes());
        let buffer = EtlBuffer {
            index: 2,
            file_offset: 0x2000,
            header,
            bytes: &bytes,
        };
        assert_eq!(
            buffer.compression_format(),
            Some(CompressionFormat::XPRESS_HUFF)
        );
        let error = buffer.trace_buffer(&mut [0u8; 16]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "buffer 2 at file offset 0x2000: compressed events (State names \
             COMPRESSION_FORMAT_XPRESS_HUFF, not Plain LZ77): LZ77+Huffman: expected a 256-byte \
             table of code lengths (or the end of the input), found 3 bytes at offset 0x0"
        );
        let source = core::error::Error::source(&error).unwrap();
        assert_eq!(
            source.to_string(),
            "LZ77+Huffman: expected a 256-byte table of code lengths (or the end of the input), \
             found 3 bytes at offset 0x0"
        );
    }

    #[test]
    fn a_state_of_2_or_4_whose_bytes_are_plain_lz77_is_decoded() {
        // MS-XCA 2.4.4: a flags word of 0 makes the next 32 bytes literals; the stream ends
        // with its input. Eight literals: the 8 bytes of events `Offset` 0x50 says.
        let events = *b"\x01\x02\x03\x04\x05\x06\x07\x08";
        for state in [0x0000_0002, 0x0000_0004, 0x0001_0004] {
            let header = WmiBufferHeader {
                buffer_flag: BufferFlags::COMPRESSED,
                state,
                offset: 0x50,
                ..WmiBufferHeader::default()
            };
            let mut bytes = [0u8; 0x48 + 4 + 8];
            bytes[..0x48].copy_from_slice(&header.to_bytes());
            bytes[0x48 + 4..].copy_from_slice(&events);
            let buffer = EtlBuffer {
                index: 1,
                file_offset: 0x1000,
                header,
                bytes: &bytes,
            };
            let mut scratch = [0u8; 64];
            let decoded = buffer.trace_buffer(&mut scratch).unwrap();
            assert_eq!(decoded.event_bytes(), &events, "State {state:#x}");
        }
    }

    #[test]
    fn a_hand_built_compressed_buffer_shorter_than_its_header_is_an_error() {
        let header = WmiBufferHeader {
            buffer_flag: BufferFlags::COMPRESSED,
            offset: 0x48,
            ..WmiBufferHeader::default()
        };
        let bytes = header.to_bytes();
        let mut scratch = [0u8; 64];
        let whole = EtlBuffer {
            index: 3,
            file_offset: 0x3000,
            header,
            bytes: &bytes,
        };
        // A stream of no bytes decompresses to the 0 bytes `Offset` 0x48 says.
        let events = whole.trace_buffer(&mut scratch).unwrap();
        assert_eq!(events.event_bytes().len(), 0);

        let short = EtlBuffer {
            bytes: &bytes[..0x40],
            ..whole
        };
        assert_eq!(
            short.trace_buffer(&mut scratch).unwrap_err(),
            ReadError::new(
                Some(BufferPosition {
                    index: 3,
                    file_offset: 0x3000
                }),
                ReadErrorKind::Codec(CodecError::Truncated {
                    layout: WmiBufferHeader::LAYOUT,
                    needed: 0x48,
                    found: 0x40
                })
            )
        );
    }
}
