//! Writing an .etl file to any `std::io::Write + Seek` as its trace buffers come, the logfile
//! header's buffer rewritten at the start once the counts are known (the `std` feature).

use std::fmt;
use std::io::{self, Seek, SeekFrom, Write};
use std::vec::Vec;

use crate::invariant::usize_from_u32;
use crate::wire::error::CodecError;
use crate::wire::file::trace_logfile_header::ClockType;
use crate::wire::file::wmi_buffer_header::WmiBufferHeader;
use crate::write::etl_writer::EtlHeader;

/// An .etl file written as its trace buffers come: the logfile header's buffer first, the
/// buffers after it in the order given, then the first buffer again with the final counts, as
/// Windows rewrites the header when it closes a log file.
///
/// It wraps the `no_std` writer ([`EtlHeader::write_first_buffer`]) and holds one buffer in
/// memory (the first one's, `BufferSize` bytes) whatever the length of the file:
///
/// - [`new`](Self::new) writes the first buffer at the writer's current position (where the
///   file starts), with `BuffersWritten` 1 for now: a file whose writer never finishes still
///   starts with a logfile header that a reader accepts.
/// - [`write_buffer`](Self::write_buffer) appends one trace buffer unchanged: exactly
///   `BufferSize` bytes whose own header says `BufferSize` (a [`Session`](crate::write::Session)'s
///   sealed buffers, or buffers a target dumped). It does not walk their events.
/// - [`finish`](Self::finish) writes the first buffer again over the first: `BuffersWritten`
///   is the buffers written, this one included; `EndTime`, when left 0 with the
///   [`ClockType::SYSTEM_TIME`] clock (whose raw values are FILETIMEs), the latest `TimeStamp`
///   of the buffers written (when each was sealed). Every other member is the header's as
///   [`header_mut`](Self::header_mut) left it: the loss counts, the clock, the pointer size,
///   `StartTime` and the rest.
///
/// ```
/// use std::io::Cursor;
/// use etw_classic::{Bitness, EtlFile, EtlHeader, EtlWriter, EventData, EventTraceHeader,
///                   Level, Provider, Session, SteppingContext, TimesOrFlags, WnodeFlags};
///
/// let mut session = Session::<512, 2>::new(1, Level::VERBOSE);
/// let mut provider = Provider::<1>::new(Bitness::Bits32);
/// let mut clock = SteppingContext { now: 133_000_000_000_000_000, step: 10_000,
///                                   ..Default::default() };
/// let mut header = EtlHeader::new(Bitness::Bits32, 512);
/// header.cpu_speed_in_mhz = 64;
/// header.start_time = clock.now;
/// let mut writer = EtlWriter::new(Cursor::new(Vec::new()), header)?;
///
/// let event = EventTraceHeader {
///     size: 0x30 + 2,
///     times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
///     ..Default::default()
/// };
/// provider.trace_event(&mut session, &event, EventData::Inline(b"hi"), &mut clock)?;
/// session.flush(clock.now);
/// session.drain(|buffer| writer.write_buffer(buffer))?;
/// writer.header_mut().events_lost = session.stats().events_lost;
///
/// let file = writer.finish()?.into_inner();
/// let etl = EtlFile::parse(&file)?;
/// assert_eq!(etl.logfile_header.buffers_written(), 2);
/// assert_eq!(etl.logfile_header.end_time(), clock.now);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub struct EtlWriter<'a, W: Write + Seek> {
    out: W,
    header: EtlHeader<'a>,
    /// `BufferSize` as [`new`](Self::new) was given it: every buffer's length.
    buffer_size: u32,
    /// Where the file starts in `out`.
    start: u64,
    /// Where the next buffer goes: the end of the last one written whole.
    end: u64,
    /// A write failed part way: `out` is not at `end`.
    misplaced: bool,
    /// Trace buffers written after the first.
    trace_buffers: u32,
    /// The latest `TimeStamp` of the trace buffers written.
    latest_timestamp: Option<i64>,
    /// The first buffer's bytes.
    first: Vec<u8>,
}

impl<'a, W: Write + Seek> EtlWriter<'a, W> {
    /// Starts a file at `out`'s current position: writes the first buffer, from `header` with
    /// `BuffersWritten` 1.
    ///
    /// # Errors
    /// [`EtlWriterError::Codec`] when the first buffer cannot be written (a `BufferSize` too
    /// small for the logfile header event and its names, see
    /// [`EtlHeader::write_first_buffer`]); [`EtlWriterError::Io`] when `out` fails, or cannot
    /// set aside `BufferSize` bytes of memory.
    pub fn new(mut out: W, header: EtlHeader<'a>) -> Result<Self, EtlWriterError> {
        let start = out.stream_position()?;
        let length = usize_from_u32(header.buffer_size);
        let mut first = Vec::new();
        first
            .try_reserve_exact(length)
            .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        first.resize(length, 0);
        let mut writer = Self {
            out,
            header,
            buffer_size: header.buffer_size,
            start,
            end: start,
            misplaced: false,
            trace_buffers: 0,
            latest_timestamp: None,
            first,
        };
        let mut provisional = header;
        provisional.buffers_written = 1;
        writer.write_first_buffer(&provisional)?;
        writer.end = start.saturating_add(u64::from(writer.buffer_size));
        Ok(writer)
    }

    /// The header [`finish`](Self::finish) writes (with `BuffersWritten` and `EndTime` as it
    /// says).
    pub const fn header(&self) -> &EtlHeader<'a> {
        &self.header
    }

    /// The header to change before [`finish`](Self::finish) writes it: loss counts, times,
    /// names. `buffer_size` is fixed by [`new`](Self::new) (`finish` refuses another one) and
    /// `buffers_written` is set by `finish`.
    pub fn header_mut(&mut self) -> &mut EtlHeader<'a> {
        &mut self.header
    }

    /// Trace buffers written so far, the first buffer not counted.
    pub const fn trace_buffers(&self) -> u32 {
        self.trace_buffers
    }

    /// The latest `TimeStamp` (the time a buffer was sealed, in the session's clock) of the
    /// trace buffers written so far.
    pub const fn latest_timestamp(&self) -> Option<i64> {
        self.latest_timestamp
    }

    /// The underlying writer.
    pub const fn get_ref(&self) -> &W {
        &self.out
    }

    /// Appends one trace buffer, unchanged.
    ///
    /// # Errors
    /// - [`EtlWriterError::BufferSizeMismatch`] when `buffer` is not `BufferSize` bytes long or
    ///   its header's `BufferSize` says another length;
    /// - [`EtlWriterError::TooManyBuffers`] when `BuffersWritten` would pass `u32::MAX`;
    /// - [`EtlWriterError::Io`] when `out` fails. The buffer is not counted then, and the next
    ///   one goes where it should have gone.
    ///
    /// Nothing is written on an error but the `Io` one.
    pub fn write_buffer(&mut self, buffer: &[u8]) -> Result<(), EtlWriterError> {
        let index = self.trace_buffers.saturating_add(1);
        let header = WmiBufferHeader::parse(buffer)
            .map(|(header, _)| header)
            .ok();
        let mismatch = EtlWriterError::BufferSizeMismatch {
            index,
            buffer_size: self.buffer_size,
            length: buffer.len(),
            header_buffer_size: header.map(|header| header.buffer_size),
        };
        let length_matches = u32::try_from(buffer.len()).is_ok_and(|len| len == self.buffer_size);
        let Some(header) =
            header.filter(|header| length_matches && header.buffer_size == self.buffer_size)
        else {
            return Err(mismatch);
        };
        let (Some(counted), Some(end)) = (
            self.trace_buffers
                .checked_add(1)
                .filter(|_| index < u32::MAX),
            self.end.checked_add(u64::from(self.buffer_size)),
        ) else {
            return Err(EtlWriterError::TooManyBuffers { index });
        };
        if self.misplaced {
            self.out.seek(SeekFrom::Start(self.end))?;
            self.misplaced = false;
        }
        if let Err(error) = self.out.write_all(buffer) {
            self.misplaced = true;
            return Err(error.into());
        }
        self.trace_buffers = counted;
        self.end = end;
        self.latest_timestamp = Some(
            self.latest_timestamp
                .map_or(header.timestamp, |latest| latest.max(header.timestamp)),
        );
        Ok(())
    }

    /// Writes the first buffer again with the final counts (see [`EtlWriter`]), leaves `out`
    /// at the end of the file, flushes it and returns it.
    ///
    /// # Errors
    /// [`EtlWriterError::BufferSizeChanged`] when the header's `buffer_size` is no longer the
    /// one given to [`new`](Self::new); [`EtlWriterError::Codec`] when the first buffer cannot
    /// be written (names made too long since); [`EtlWriterError::Io`] when `out` fails.
    pub fn finish(mut self) -> Result<W, EtlWriterError> {
        if self.header.buffer_size != self.buffer_size {
            return Err(EtlWriterError::BufferSizeChanged {
                given: self.buffer_size,
                found: self.header.buffer_size,
            });
        }
        // At most u32::MAX - 1 trace buffers are counted (`write_buffer`).
        self.header.buffers_written = self.trace_buffers.saturating_add(1);
        if self.header.end_time == 0 && self.header.clock_type == ClockType::SYSTEM_TIME {
            if let Some(latest) = self.latest_timestamp {
                self.header.end_time = latest;
            }
        }
        let header = self.header;
        self.write_first_buffer(&header)?;
        self.out.seek(SeekFrom::Start(self.end))?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes the first buffer from `header` at the start of the file; `out` is then at the
    /// end of that buffer.
    fn write_first_buffer(&mut self, header: &EtlHeader<'_>) -> Result<(), EtlWriterError> {
        header
            .write_first_buffer(&mut self.first)
            .map_err(EtlWriterError::Codec)?;
        // From here on `out` is away from `end`, unless the file holds this buffer alone.
        self.misplaced = self.trace_buffers != 0;
        self.out.seek(SeekFrom::Start(self.start))?;
        if let Err(error) = self.out.write_all(&self.first) {
            self.misplaced = true;
            return Err(error.into());
        }
        Ok(())
    }
}

impl<W: Write + Seek> fmt::Debug for EtlWriter<'_, W> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("EtlWriter")
            .field("header", &self.header)
            .field("start", &self.start)
            .field("end", &self.end)
            .field("trace_buffers", &self.trace_buffers)
            .field("latest_timestamp", &self.latest_timestamp)
            .finish_non_exhaustive()
    }
}

/// What went wrong in an [`EtlWriter`].
#[derive(Debug)]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[non_exhaustive]
pub enum EtlWriterError {
    /// The underlying writer failed.
    Io(io::Error),
    /// The first buffer cannot hold the logfile header event
    /// ([`EtlHeader::write_first_buffer`]).
    Codec(CodecError),
    /// A trace buffer is not `BufferSize` bytes long, or its header says another `BufferSize`.
    BufferSizeMismatch {
        /// Its index in the file (the first buffer is 0).
        index: u32,
        /// The file's `BufferSize`.
        buffer_size: u32,
        /// The buffer's length.
        length: usize,
        /// Its header's `BufferSize`; `None` when it is shorter than a header.
        header_buffer_size: Option<u32>,
    },
    /// `BuffersWritten` would pass `u32::MAX` with this buffer.
    TooManyBuffers {
        /// The buffer's index in the file.
        index: u32,
    },
    /// The header's `buffer_size` was changed after [`EtlWriter::new`].
    BufferSizeChanged {
        /// The `BufferSize` the file was started with.
        given: u32,
        /// The one the header says now.
        found: u32,
    },
}

impl fmt::Display for EtlWriterError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(error) => write!(formatter, "cannot write the .etl file: {error}"),
            Self::Codec(error) => write!(
                formatter,
                "cannot write the logfile header's buffer: {error}"
            ),
            Self::BufferSizeMismatch {
                index,
                buffer_size,
                length,
                header_buffer_size: Some(header_buffer_size),
            } => write!(
                formatter,
                "buffer {index}: expected {buffer_size} bytes whose header's BufferSize is \
                 {buffer_size}, found {length} bytes whose BufferSize is {header_buffer_size}"
            ),
            Self::BufferSizeMismatch {
                index,
                buffer_size,
                length,
                header_buffer_size: None,
            } => write!(
                formatter,
                "buffer {index}: expected {buffer_size} bytes, found {length}, too short for a \
                 {}-byte buffer header",
                WmiBufferHeader::LEN
            ),
            Self::TooManyBuffers { index } => write!(
                formatter,
                "buffer {index}: BuffersWritten cannot count more than {} buffers",
                u32::MAX
            ),
            Self::BufferSizeChanged { given, found } => write!(
                formatter,
                "the header's buffer_size is {found}, but the file was started with {given}-byte \
                 buffers"
            ),
        }
    }
}

impl std::error::Error for EtlWriterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(error) => Some(error),
            Self::Codec(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for EtlWriterError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}
