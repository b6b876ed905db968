//! Reading an .etl file from any [`std::io::Read`], one buffer at a time: the header buffer
//! first, then each buffer as stored (the 0x48-byte `WMI_BUFFER_HEADER`, then the rest of its
//! `BufferSize`), decompressed into scratch space the reader owns and walked with the same
//! functions [`EtlFile`] uses. Only the current buffer and that scratch space are in memory.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::vec::Vec;

use crate::invariant::usize_from_u32;
use crate::read::clock::TraceClock;
use crate::read::error::{BufferPosition, ClockError, ReadError, ReadErrorKind};
use crate::read::etl::{
    buffers_due, ends_before_buffers_written, EtlBuffer, EtlFile, MAX_BUFFER_SIZE,
};
use crate::read::events::{Event, Events};
use crate::read::trace_buffer::TraceBuffer;
use crate::wire::file::trace_logfile_header::{LogfileNames, TraceLogfileHeader};
use crate::wire::file::wmi_buffer_header::{BufferFlags, WmiBufferHeader};
use crate::wire::headers::system_trace_header::SystemTraceHeader;
use crate::wire::layout::Bitness;
use crate::wire::utf16::Utf16Str;

/// The most bytes of decoded events [`EtlReader::for_each_event_in_time_order`] holds at once
/// over every processor, unless [`EtlReader::set_time_order_memory`] says otherwise: 256 MiB.
///
/// The walk holds one buffer's events per processor. The real traces this crate is tested with
/// need at most 8 processors' buffers of 64 KiB (0.5 MiB); 256 MiB is one 64 KiB buffer for
/// each of 4096 processors (ntwmi.h's `ETW_PROCESSOR_INDEX_MASK`, 0x07FF, leaves room for 2048
/// processor indices), or 64 processors' buffers of 4 MiB, while a crafted file whose header claims 2048
/// processors of 16 MiB buffers ([`MAX_BUFFER_SIZE`](crate::read::MAX_BUFFER_SIZE)) would
/// otherwise ask for 32 GiB.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub const TIME_ORDER_MEMORY: usize = 256 << 20;

/// An .etl file read as a stream: the logfile header when it is opened, then its buffers one
/// at a time, each decompressed (when compressed) into scratch space the reader owns.
///
/// The reader holds one buffer as stored (at most [`MAX_BUFFER_SIZE`] bytes, checked before
/// the rest of a buffer is read, and read in steps that grow with the bytes that come) and,
/// once a compressed buffer comes, scratch space as long as the longest one decompresses to
/// (at most [`buffer_size`](Self::buffer_size)): never the whole file. Every allocation the
/// file sizes is asked for with `try_reserve`, a refusal being
/// [`EtlReaderError::OutOfMemory`]. The buffers are
/// the ones [`EtlFile::buffers`] finds in the same bytes, in the same order, with the same
/// events; the checks are the core's ([`EtlFile::parse`] for the header buffer,
/// [`EtlBuffer::trace_buffer`] for each buffer), so the errors are too: a file cut short ends
/// with the same error from both, naming the same buffer and file offset (within a buffer, the
/// buffer's header or its `BufferSize` cut short; between two buffers, when the logfile header's
/// `BuffersWritten` counts more, [`ReadErrorKind::FileEndsBeforeBuffersWritten`]: see
/// [`read_stored_buffer`](Self::read_stored_buffer)). One difference remains: a buffer whose
/// `BufferSize` is below 0x48 or above [`MAX_BUFFER_SIZE`] is
/// [`ReadErrorKind::BufferSizeBeyondLimits`], found from its header alone (the reader does not
/// know how many bytes the file has left, and allocates nothing for such a claim).
///
/// A file whose first buffer is not an .etl header buffer (any other file, `/dev/zero`) is
/// [`EtlReaderError::NotAnEtl`], naming its first bytes, as soon as that buffer's header is
/// read.
///
/// Rust has no lending iterator: [`next_buffer`](Self::next_buffer) hands out a
/// [`ReaderBuffer`] that borrows the reader until the next call, and
/// [`for_each_event`](Self::for_each_event) calls a closure for every event. For decoding
/// buffers on several threads, [`read_stored_buffer`](Self::read_stored_buffer) reads a buffer
/// without decompressing it, and [`StoredBuffer::decode`] decompresses and walks it anywhere.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use etw_classic::EtlReader;
///
/// let mut reader = EtlReader::open("trace.etl")?;
/// println!("logger {}", reader.names().logger_name);
/// while let Some(buffer) = reader.next_buffer() {
///     let buffer = buffer?;
///     for event in buffer.events() {
///         let event = event?;
///         println!(
///             "buffer {} (file offset {:#x}, processor {}) offset {:#x}: {:?}",
///             buffer.position.index,
///             buffer.position.file_offset,
///             buffer.processor,
///             event.offset,
///             event.header_type
///         );
///     }
/// }
/// if reader.buffers_written_was_zero() {
///     println!("BuffersWritten is 0: a live or unflushed session, read to its end");
/// }
/// # Ok(())
/// # }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Debug)]
pub struct EtlReader<R> {
    source: R,
    first_buffer: WmiBufferHeader,
    system_header: SystemTraceHeader,
    logfile_header: TraceLogfileHeader,
    names: OwnedNames,
    /// The logfile header's `BufferSize`, as [`EtlFile::parse`] checked it.
    buffer_size: usize,
    /// The buffer last read; after [`new`](EtlReader::new), the header buffer.
    current: StoredBuffer,
    /// Whether `current` is the header buffer, read by `new` and not handed out yet.
    first_pending: bool,
    /// Where compressed buffers are decompressed: empty until the first one, then as long as
    /// the longest one decompressed (at most `buffer_size` bytes).
    scratch: Vec<u8>,
    /// The index and file offset of the next buffer.
    next: BufferPosition,
    /// Whether the reading has ended: at the end of the file, or after an error that leaves no
    /// next buffer to find.
    done: bool,
    /// The most bytes of decoded events the time-ordered walk holds at once.
    time_order_memory: usize,
}

/// The names after the logfile header, owned: [`EtlReader::names`] lends them as
/// [`LogfileNames`].
#[derive(Clone, Debug, Default)]
struct OwnedNames {
    logger_name: Vec<u16>,
    log_file_name: Vec<u16>,
    terminated: bool,
    rest: Vec<u8>,
}

impl OwnedNames {
    /// A copy of `names`, read from the header buffer at `position`; the memory (at most the
    /// header buffer's length) is asked for, not assumed.
    fn of(names: &LogfileNames<'_>, position: BufferPosition) -> Result<Self, EtlReaderError> {
        let out_of_memory = |bytes: usize| EtlReaderError::OutOfMemory {
            buffer: Some(position),
            bytes,
        };
        let units = |name: &Utf16Str<'_>| -> Result<Vec<u16>, EtlReaderError> {
            let mut units = Vec::new();
            units
                .try_reserve_exact(name.len())
                .map_err(|_| out_of_memory(name.len().saturating_mul(2)))?;
            units.extend(name.units());
            Ok(units)
        };
        let mut rest = Vec::new();
        rest.try_reserve_exact(names.rest.len())
            .map_err(|_| out_of_memory(names.rest.len()))?;
        rest.extend_from_slice(names.rest);
        Ok(Self {
            logger_name: units(&names.logger_name)?,
            log_file_name: units(&names.log_file_name)?,
            terminated: names.terminated,
            rest,
        })
    }
}

impl EtlReader<BufReader<File>> {
    /// Opens the file at `path` and reads its header buffer (see [`new`](Self::new)).
    ///
    /// # Errors
    /// [`EtlReaderError::Io`] when the file cannot be opened; otherwise those of
    /// [`new`](Self::new).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, EtlReaderError> {
        let file = File::open(path).map_err(|error| EtlReaderError::Io {
            buffer: None,
            error,
        })?;
        Self::new(BufReader::new(file))
    }
}

impl<R: Read> EtlReader<R> {
    /// Reads the header buffer from the start of `source`: the first buffer, whose first event
    /// is the logfile header, checked by [`EtlFile::parse`]. The buffer is kept: the first
    /// call to [`next_buffer`](Self::next_buffer) or
    /// [`read_stored_buffer`](Self::read_stored_buffer) hands it out as buffer 0, as
    /// [`EtlFile::buffers`] does.
    ///
    /// # Errors
    /// - [`EtlReaderError::NotAnEtl`] when the first buffer is not the header buffer of an .etl
    ///   file (an empty stream, a header cut short, a `BufferSize` out of range, no logfile
    ///   header event, ...): it names the first bytes and holds the error that says which
    ///   check failed;
    /// - [`EtlReaderError::Io`] when reading fails otherwise than by ending.
    ///
    /// ```
    /// use std::io::Cursor;
    /// use etw_classic::{Bitness, EtlHeader, EtlReader, EtlReaderError};
    ///
    /// // A file of one buffer: the logfile header's, as the .etl writer makes it.
    /// let mut file = vec![0u8; 0x400];
    /// let mut header = EtlHeader::new(Bitness::Bits64, 0x400);
    /// header.logger_name = "boot";
    /// header.write_first_buffer(&mut file)?;
    /// let mut reader = EtlReader::new(Cursor::new(file))?;
    /// assert_eq!(reader.names().logger_name.to_string(), "boot");
    /// let buffer = reader.next_buffer().unwrap()?;
    /// assert_eq!(buffer.events().count(), 1); // the logfile header event
    /// assert!(reader.next_buffer().is_none());
    ///
    /// // Anything else is named by its first bytes.
    /// let error = EtlReader::new(Cursor::new(b"MZ\x90\0\x03\0\0\0 and the rest")).unwrap_err();
    /// assert!(matches!(error, EtlReaderError::NotAnEtl { .. }));
    /// assert!(error
    ///     .to_string()
    ///     .starts_with("not an .etl file: its first 8 bytes are 4d 5a 90 00 03 00 00 00; expected"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(mut source: R) -> Result<Self, EtlReaderError> {
        let position = BufferPosition {
            index: 0,
            file_offset: 0,
        };
        let mut current = StoredBuffer::new();
        match read_stored(&mut source, &mut current, position) {
            Ok(true) => {}
            // What `EtlFile::parse` says of an empty file.
            Ok(false) => {
                let kind = ReadErrorKind::BufferHeaderTruncated {
                    needed: WmiBufferHeader::LEN,
                    available: 0,
                };
                return Err(EtlReaderError::not_an_etl(
                    &[],
                    ReadError::new(Some(position), kind),
                ));
            }
            Err(EtlReaderError::Read(error)) => {
                return Err(EtlReaderError::not_an_etl(&current.bytes, error))
            }
            Err(error) => return Err(error),
        }
        let (first_buffer, system_header, logfile_header, names, buffer_size) =
            match EtlFile::parse(&current.bytes) {
                Ok(file) => (
                    file.first_buffer,
                    file.system_header,
                    file.logfile_header,
                    OwnedNames::of(&file.names, position)?,
                    file.buffer_size(),
                ),
                Err(error) => return Err(EtlReaderError::not_an_etl(&current.bytes, error)),
            };
        Ok(Self {
            source,
            first_buffer,
            system_header,
            logfile_header,
            names,
            buffer_size,
            next: BufferPosition {
                index: 1,
                file_offset: current.bytes.len(),
            },
            current,
            first_pending: true,
            scratch: Vec::new(),
            done: false,
            time_order_memory: TIME_ORDER_MEMORY,
        })
    }

    /// The header buffer's `WMI_BUFFER_HEADER`.
    pub const fn first_buffer(&self) -> WmiBufferHeader {
        self.first_buffer
    }

    /// The logfile header event's `SYSTEM_TRACE_HEADER`.
    pub const fn system_header(&self) -> SystemTraceHeader {
        self.system_header
    }

    /// The `TRACE_LOGFILE_HEADER`, in the logger's layout.
    pub const fn logfile_header(&self) -> TraceLogfileHeader {
        self.logfile_header
    }

    /// The logger and log file names that follow the logfile header.
    pub fn names(&self) -> LogfileNames<'_> {
        LogfileNames {
            logger_name: Utf16Str::from_units(&self.names.logger_name),
            log_file_name: Utf16Str::from_units(&self.names.log_file_name),
            terminated: self.names.terminated,
            rest: &self.names.rest,
        }
    }

    /// The logger's pointer size, from the logfile header's layout (as [`EtlFile::bitness`]).
    pub const fn bitness(&self) -> Bitness {
        self.logfile_header.bitness()
    }

    /// The file's clock, as [`TraceClock::from_etl`] gives it for an [`EtlFile`]: each event's
    /// raw [`timestamp`](Event::timestamp) through it is its FILETIME and UTC time.
    ///
    /// # Errors
    /// Those of [`TraceClock::new`].
    pub fn clock(&self) -> Result<TraceClock, ClockError> {
        TraceClock::new(&self.logfile_header, self.system_header.system_time)
    }

    /// The logfile header's `BufferSize`: scratch space of this size decompresses any buffer
    /// of the file (see [`StoredBuffer::decode`]).
    pub const fn buffer_size(&self) -> usize {
        self.buffer_size
    }

    /// Whether the logfile header's `BuffersWritten` is 0, as in the file of a session that is
    /// still running or was not stopped cleanly (the count is written when the session
    /// stops). The reader then reads buffers until the file ends; otherwise a file that ends
    /// before `BuffersWritten` buffers ends with
    /// [`ReadErrorKind::FileEndsBeforeBuffersWritten`].
    pub fn buffers_written_was_zero(&self) -> bool {
        self.logfile_header.buffers_written() == 0
    }

    /// The buffers handed out so far (by [`next_buffer`](Self::next_buffer) or
    /// [`read_stored_buffer`](Self::read_stored_buffer)), the header buffer included.
    pub const fn buffers_read(&self) -> usize {
        if self.first_pending {
            0
        } else {
            self.next.index
        }
    }

    /// The file offset where the next buffer starts: the bytes of the buffers read so far.
    pub const fn bytes_read(&self) -> usize {
        self.next.file_offset
    }

    /// Whether the reading has ended: the file ended, or an error left no next buffer to find
    /// (every call then returns `None`).
    pub const fn is_done(&self) -> bool {
        self.done
    }

    /// The source, for reading what may follow; where it stands is unspecified after an error.
    pub fn into_inner(self) -> R {
        self.source
    }

    /// The most bytes of decoded events
    /// [`for_each_event_in_time_order`](Self::for_each_event_in_time_order) holds at once, over
    /// every processor: [`TIME_ORDER_MEMORY`] unless
    /// [`set_time_order_memory`](Self::set_time_order_memory) said otherwise.
    pub const fn time_order_memory(&self) -> usize {
        self.time_order_memory
    }

    /// Sets the most bytes of decoded events
    /// [`for_each_event_in_time_order`](Self::for_each_event_in_time_order) holds at once, over
    /// every processor (one buffer's each). A buffer whose events would pass it is handed over
    /// as [`EtlReaderError::TimeOrderMemory`] and left out of the merge. Raise it for a trace
    /// of many processors with large buffers (it needs `NumberOfProcessors` times the logfile
    /// header's `BufferSize` at most); lower it to bound the walk more tightly.
    pub fn set_time_order_memory(&mut self, bytes: usize) {
        self.time_order_memory = bytes;
    }

    /// The source, for the time-ordered walk's second reading.
    pub(crate) fn source_mut(&mut self) -> &mut R {
        &mut self.source
    }

    /// Ends the reading: every call then returns `None`.
    pub(crate) fn finish(&mut self) {
        self.done = true;
    }

    /// Reads the next buffer as stored, without decompressing it, into `into` (whose memory is
    /// reused): its header, then the rest of its `BufferSize`. `None` once the file has ended
    /// (no byte left where a buffer would start) or after an error.
    ///
    /// # Errors
    /// Each ends the reading (then `None` for ever), and names the buffer's index and file
    /// offset:
    /// - [`ReadErrorKind::BufferHeaderTruncated`] when the file ends within a buffer header;
    /// - [`ReadErrorKind::BufferSizeBeyondLimits`] when `BufferSize` is below 0x48 or above
    ///   [`MAX_BUFFER_SIZE`] (checked before anything else is read or allocated);
    /// - [`ReadErrorKind::BufferSizeOutOfRange`] when the file ends before `BufferSize` bytes;
    /// - [`ReadErrorKind::FileEndsBeforeBuffersWritten`] when the file ends cleanly after
    ///   fewer buffers than the logfile header's `BuffersWritten` (unless it is 0, see
    ///   [`buffers_written_was_zero`](Self::buffers_written_was_zero), or the file is circular:
    ///   `LogFileMode` has `EVENT_TRACE_FILE_MODE_CIRCULAR`, 0x2);
    /// - [`EtlReaderError::Io`] when reading fails otherwise than by ending.
    pub fn read_stored_buffer(
        &mut self,
        into: &mut StoredBuffer,
    ) -> Option<Result<(), EtlReaderError>> {
        if self.done {
            return None;
        }
        if self.first_pending {
            self.first_pending = false;
            // The header buffer moves to the caller: the reader keeps no copy.
            core::mem::swap(into, &mut self.current);
            return Some(Ok(()));
        }
        match read_stored(&mut self.source, into, self.next) {
            Ok(true) => {
                // A stored buffer is at most MAX_BUFFER_SIZE bytes, which is far below
                // `usize::MAX`; only an offset past `usize::MAX` (a file over 4 GiB on a 32-bit
                // target) overflows, and that ends the reading with an error.
                let next = self
                    .next
                    .index
                    .checked_add(1)
                    .zip(self.next.file_offset.checked_add(into.bytes.len()));
                match next {
                    Some((index, file_offset)) => {
                        self.next = BufferPosition { index, file_offset };
                        Some(Ok(()))
                    }
                    None => {
                        self.done = true;
                        Some(Err(EtlReaderError::Io {
                            buffer: Some(self.next),
                            error: io::Error::new(
                                io::ErrorKind::FileTooLarge,
                                "the next buffer's file offset does not fit a usize",
                            ),
                        }))
                    }
                }
            }
            Ok(false) => {
                self.done = true;
                self.check_buffers_written().map(Err)
            }
            Err(error) => {
                self.done = true;
                Some(Err(error))
            }
        }
    }

    /// At the end of the file, after `self.next.index` buffers: the error when the logfile
    /// header counts more. Not for a circular file, whose buffers wrap around.
    fn check_buffers_written(&self) -> Option<EtlReaderError> {
        ends_before_buffers_written(self.next, buffers_due(&self.logfile_header))
            .map(EtlReaderError::Read)
    }

    /// Reads [the next buffer](Self::read_stored_buffer) and makes its events ready to walk
    /// ([`StoredBuffer::decode`] into the reader's scratch space). The buffer borrows the reader
    /// until the next call.
    ///
    /// # Errors
    /// - those of [`read_stored_buffer`](Self::read_stored_buffer), which end the reading;
    /// - those of [`StoredBuffer::decode`] (a compressed buffer that does not decompress, an
    ///   `Offset` out of range): they are this buffer's alone, and the next call reads the
    ///   next buffer, as [`EtlFile::buffers`] would go on to it.
    ///
    /// An error among the events of a buffer is the last item of its
    /// [`events`](ReaderBuffer::events); the next call reads the next buffer.
    pub fn next_buffer(&mut self) -> Option<Result<ReaderBuffer<'_>, EtlReaderError>> {
        if self.first_pending {
            self.first_pending = false;
        } else {
            let mut current = core::mem::take(&mut self.current);
            let read = self.read_stored_buffer(&mut current);
            self.current = current;
            match read? {
                Ok(()) => {}
                Err(error) => return Some(Err(error)),
            }
        }
        Some(
            self.current
                .decode_growing(&mut self.scratch, self.buffer_size),
        )
    }

    /// Calls `event` for every event of every remaining buffer, in file order, with the buffer
    /// it is in, and stops at the first error, which it returns: every event before it has
    /// been handed to `event`, and the reader is then done. `Ok` when the file ended cleanly.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use etw_classic::EtlReader;
    ///
    /// let mut reader = EtlReader::open("trace.etl")?;
    /// let mut per_processor = std::collections::BTreeMap::<u16, u64>::new();
    /// reader.for_each_event(|buffer, _event| {
    ///     *per_processor.entry(buffer.processor).or_default() += 1;
    /// })?;
    /// println!("{} buffers, events per processor: {per_processor:?}", reader.buffers_read());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The first error of [`next_buffer`](Self::next_buffer) or of a buffer's events.
    pub fn for_each_event<F>(&mut self, mut event: F) -> Result<(), EtlReaderError>
    where
        F: FnMut(&ReaderBuffer<'_>, Event<'_>),
    {
        let result = self.walk_events(&mut event);
        if result.is_err() {
            self.done = true;
        }
        result
    }

    /// [`for_each_event`](Self::for_each_event) without the fuse.
    fn walk_events<F>(&mut self, event: &mut F) -> Result<(), EtlReaderError>
    where
        F: FnMut(&ReaderBuffer<'_>, Event<'_>),
    {
        while let Some(buffer) = self.next_buffer() {
            let buffer = buffer?;
            for item in buffer.events() {
                event(&buffer, item.map_err(EtlReaderError::Read)?);
            }
        }
        Ok(())
    }
}

/// Makes `scratch` long enough to decode `stored` ([`StoredBuffer::decode`]) with the file's
/// `buffer_size`: nothing for an uncompressed buffer; for a compressed one, the length its
/// `Offset` says it decompresses to (`Offset` - 0x48), or the whole `buffer_size` when `Offset`
/// is out of that range (so that the error names the same bounds as scratch of `buffer_size`
/// would). The scratch only grows, to at most `buffer_size` (at most [`MAX_BUFFER_SIZE`], as
/// [`EtlFile::parse`] checked), and the memory is asked for: a refusal is
/// [`EtlReaderError::OutOfMemory`], not an abort.
fn grow_scratch(
    scratch: &mut Vec<u8>,
    stored: &StoredBuffer,
    buffer_size: usize,
) -> Result<(), EtlReaderError> {
    if !stored.header.is_compressed() {
        return Ok(());
    }
    let needed = usize::try_from(stored.header.offset)
        .ok()
        .and_then(|offset| offset.checked_sub(WmiBufferHeader::LEN))
        .filter(|&len| len <= buffer_size)
        .unwrap_or(buffer_size);
    if let Some(more) = needed.checked_sub(scratch.len()).filter(|&more| more > 0) {
        scratch
            .try_reserve_exact(more)
            .map_err(|_| EtlReaderError::OutOfMemory {
                buffer: Some(stored.position()),
                bytes: needed,
            })?;
        scratch.resize(needed, 0);
    }
    Ok(())
}

/// Bytes asked for at a time, at least, while a buffer is read.
const READ_STEP: usize = 64 << 10;

/// Why [`read_up_to`] stopped short.
enum ReadUpToError {
    Io(io::Error),
    /// The memory for this many bytes in all was refused.
    OutOfMemory(usize),
}

/// Reads up to `len` bytes from `source` onto the end of `bytes`, fewer only where the stream
/// ends; returns how many. The vector grows with the bytes that come, not with `len`: by
/// steps of at least [`READ_STEP`], doubling what has come, never past `len`; each step's
/// memory is asked for ([`Vec::try_reserve_exact`]), so a refusal is an error, not an abort.
fn read_up_to<R: Read>(
    source: &mut R,
    bytes: &mut Vec<u8>,
    len: usize,
) -> Result<usize, ReadUpToError> {
    let start = bytes.len();
    let end = start
        .checked_add(len)
        .ok_or(ReadUpToError::OutOfMemory(usize::MAX))?;
    let mut filled = start;
    let result = loop {
        if filled == end {
            break Ok(());
        }
        if filled == bytes.len() {
            let came = filled.saturating_sub(start);
            let step = came.max(READ_STEP);
            let target = filled.saturating_add(step).min(end);
            let more = target.saturating_sub(bytes.len());
            if bytes.try_reserve_exact(more).is_err() {
                break Err(ReadUpToError::OutOfMemory(target));
            }
            bytes.resize(target, 0);
        }
        let Some(room) = bytes.get_mut(filled..) else {
            break Ok(());
        };
        match source.read(room) {
            Ok(0) => break Ok(()),
            Ok(got) => filled = filled.saturating_add(got),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => break Err(ReadUpToError::Io(error)),
        }
    };
    bytes.truncate(filled);
    result.map(|()| filled.saturating_sub(start))
}

/// Reads the buffer at `position` from `source` into `into`: its header, then, once its
/// `BufferSize` is within limits, the rest. `Ok(false)` when the stream has no byte left.
pub(crate) fn read_stored<R: Read>(
    source: &mut R,
    into: &mut StoredBuffer,
    position: BufferPosition,
) -> Result<bool, EtlReaderError> {
    let at = |kind: ReadErrorKind| EtlReaderError::Read(ReadError::new(Some(position), kind));
    let io = |error: ReadUpToError| match error {
        ReadUpToError::Io(error) => EtlReaderError::Io {
            buffer: Some(position),
            error,
        },
        ReadUpToError::OutOfMemory(bytes) => EtlReaderError::OutOfMemory {
            buffer: Some(position),
            bytes,
        },
    };
    into.bytes.clear();
    into.index = position.index;
    into.file_offset = position.file_offset;
    into.header = WmiBufferHeader::default();
    let got = read_up_to(source, &mut into.bytes, WmiBufferHeader::LEN).map_err(io)?;
    if got == 0 {
        return Ok(false);
    }
    let Some(header) = into.bytes.first_chunk::<{ WmiBufferHeader::LEN }>() else {
        return Err(at(ReadErrorKind::BufferHeaderTruncated {
            needed: WmiBufferHeader::LEN,
            available: got,
        }));
    };
    let header = WmiBufferHeader::from_bytes(header);
    let Some(rest) = Some(usize_from_u32(header.buffer_size))
        .filter(|size| (WmiBufferHeader::LEN..=MAX_BUFFER_SIZE).contains(size))
        .and_then(|size| size.checked_sub(WmiBufferHeader::LEN))
    else {
        return Err(at(ReadErrorKind::BufferSizeBeyondLimits {
            buffer_size: header.buffer_size,
            min: WmiBufferHeader::LEN,
            max: MAX_BUFFER_SIZE,
        }));
    };
    let got = read_up_to(source, &mut into.bytes, rest).map_err(io)?;
    if got < rest {
        // What `EtlBuffers` says of a buffer that runs past the end of the file.
        return Err(at(ReadErrorKind::BufferSizeOutOfRange {
            buffer_size: header.buffer_size,
            min: WmiBufferHeader::LEN,
            max: into.bytes.len(),
        }));
    }
    into.header = header;
    Ok(true)
}

/// The processor whose buffer this is: `ETW_BUFFER_CONTEXT.ProcessorIndex` (u16 at 0x28) when
/// `BufferFlag` has `ETW_BUFFER_FLAG_PROC_INDEX` (0x20), else `ProcessorNumber` (byte 0x28)
/// (EVENT-HEADERS.md section 7: evntcons.h `GetEventProcessorIndex`; every data buffer of the
/// PerfView traces has the flag).
fn processor(header: &WmiBufferHeader) -> u16 {
    if header.buffer_flag.contains(BufferFlags::PROC_INDEX) {
        header.client_context.processor_index()
    } else {
        u16::from(header.client_context.processor_number())
    }
}

/// One buffer of an .etl file as stored, read by [`EtlReader::read_stored_buffer`]: its header
/// and its `BufferSize` bytes, compressed or not, owned so that it can be decoded on another
/// thread ([`decode`](Self::decode)).
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredBuffer {
    index: usize,
    file_offset: usize,
    header: WmiBufferHeader,
    bytes: Vec<u8>,
}

impl StoredBuffer {
    /// An empty buffer to read into (it holds no buffer of a file until then).
    pub fn new() -> Self {
        Self::default()
    }

    /// Where the buffer lies in the file.
    pub const fn position(&self) -> BufferPosition {
        BufferPosition {
            index: self.index,
            file_offset: self.file_offset,
        }
    }

    /// The buffer's header.
    pub const fn header(&self) -> WmiBufferHeader {
        self.header
    }

    /// The whole buffer as stored, header included: `BufferSize` bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The processor the buffer belongs to: `ProcessorIndex` when `BufferFlag` has
    /// `ETW_BUFFER_FLAG_PROC_INDEX` (0x20), else `ProcessorNumber`.
    pub fn processor(&self) -> u16 {
        processor(&self.header)
    }

    /// The buffer as [`EtlFile::buffers`] gives it.
    pub fn as_etl_buffer(&self) -> EtlBuffer<'_> {
        EtlBuffer {
            index: self.index,
            file_offset: self.file_offset,
            header: self.header,
            bytes: &self.bytes,
        }
    }

    /// The buffer's events, ready to walk: in place when it is not compressed, else
    /// decompressed into `scratch` ([`EtlBuffer::trace_buffer`]); `scratch` of the file's
    /// [`EtlReader::buffer_size`] is enough for any buffer of the file. A pure function of the
    /// buffer: buffers can be decoded on several threads, each with its own scratch.
    ///
    /// # Errors
    /// Those of [`EtlBuffer::trace_buffer`], naming this buffer.
    pub fn decode<'s>(&'s self, scratch: &'s mut [u8]) -> Result<ReaderBuffer<'s>, ReadError> {
        let trace_buffer = self.as_etl_buffer().trace_buffer(scratch)?;
        Ok(self.with_events(trace_buffer))
    }

    /// This buffer's place, processor and stored length, with `trace_buffer`: its events.
    fn with_events<'s>(&self, trace_buffer: TraceBuffer<'s>) -> ReaderBuffer<'s> {
        ReaderBuffer {
            position: self.position(),
            processor: self.processor(),
            stored_len: self.bytes.len(),
            trace_buffer,
        }
    }

    /// [`decode`](Self::decode) into `scratch` grown (never shrunk) to what this buffer needs
    /// with the file's `buffer_size` ([`EtlReader::buffer_size`]): nothing for an uncompressed
    /// buffer; for a compressed one the length its `Offset` says it decompresses to, or
    /// `buffer_size` when `Offset` says more. The memory is asked for
    /// ([`Vec::try_reserve_exact`]), so the scratch of a file whose buffers decompress to little
    /// stays small whatever its header's `BufferSize`, and a refusal is an error, not an abort.
    ///
    /// # Errors
    /// [`EtlReaderError::OutOfMemory`] naming this buffer when the memory is refused; those
    /// of [`decode`](Self::decode) as [`EtlReaderError::Read`].
    pub fn decode_growing<'s>(
        &'s self,
        scratch: &'s mut Vec<u8>,
        buffer_size: usize,
    ) -> Result<ReaderBuffer<'s>, EtlReaderError> {
        grow_scratch(scratch, self, buffer_size)?;
        self.decode(scratch).map_err(EtlReaderError::Read)
    }

    /// [`decode_growing`](Self::decode_growing) into `scratch`, kept with the buffer: a buffer
    /// decompressed on one thread and walked on another, without decompressing it twice.
    /// [`DecodedBuffer::into_parts`] gives both back, to be used again.
    ///
    /// # Errors
    /// Those of [`decode_growing`](Self::decode_growing).
    pub fn into_decoded(
        self,
        mut scratch: Vec<u8>,
        buffer_size: usize,
    ) -> Result<DecodedBuffer, EtlReaderError> {
        let events = self
            .decode_growing(&mut scratch, buffer_size)?
            .trace_buffer
            .event_bytes()
            .len();
        Ok(DecodedBuffer {
            stored: self,
            decompressed: scratch,
            events,
        })
    }
}

/// A [`StoredBuffer`] with its events made ready to walk ([`StoredBuffer::into_decoded`]):
/// decompressed into memory it owns for a compressed buffer, in place for the others. It can
/// be sent to another thread, which walks it with [`buffer`](Self::buffer).
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedBuffer {
    stored: StoredBuffer,
    /// The decompressed events of a compressed buffer at its start; unused for the others.
    decompressed: Vec<u8>,
    /// How many bytes of events the buffer holds (decompressed or in place).
    events: usize,
}

impl DecodedBuffer {
    /// The buffer as stored.
    pub const fn stored(&self) -> &StoredBuffer {
        &self.stored
    }

    /// The buffer as stored and the scratch memory, to be read and decoded into again.
    pub fn into_parts(self) -> (StoredBuffer, Vec<u8>) {
        (self.stored, self.decompressed)
    }

    /// The buffer with its events, as [`StoredBuffer::decode`] gave it, without decoding it
    /// again.
    pub fn buffer(&self) -> ReaderBuffer<'_> {
        let header = self.stored.header;
        let events = if header.is_compressed() {
            self.decompressed.get(..self.events)
        } else {
            // In place: from the end of the header, `events` bytes (as `decode` found them).
            WmiBufferHeader::LEN
                .checked_add(self.events)
                .and_then(|end| self.stored.bytes.get(WmiBufferHeader::LEN..end))
        };
        self.stored.with_events(
            TraceBuffer::from_parts(header, events.unwrap_or_default())
                .in_buffer(self.stored.position()),
        )
    }
}

/// One buffer of an .etl file with its events ready to walk ([`EtlReader::next_buffer`],
/// [`StoredBuffer::decode`]).
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReaderBuffer<'a> {
    /// The buffer's index in the file and the file offset of its header.
    pub position: BufferPosition,
    /// The processor whose buffer it is (see [`StoredBuffer::processor`]).
    pub processor: u16,
    /// The bytes the buffer takes in the file: its `BufferSize` (shorter than the logfile
    /// header's `BufferSize` for a compressed buffer).
    pub stored_len: usize,
    /// The header and the events' bytes (decompressed for a compressed buffer).
    pub trace_buffer: TraceBuffer<'a>,
}

impl<'a> ReaderBuffer<'a> {
    /// The buffer's header.
    pub const fn header(&self) -> WmiBufferHeader {
        self.trace_buffer.header
    }

    /// The buffer's events, in order; [`Event::offset`] counts from the end of the 0x48-byte
    /// header, in the decompressed events of a compressed buffer. Their errors name the buffer.
    pub const fn events(&self) -> Events<'a> {
        self.trace_buffer.events()
    }
}

/// An error of [`EtlReader`]: the file is not an .etl file, a buffer or event of it is
/// malformed or cut short, or reading failed.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Debug)]
#[non_exhaustive]
pub enum EtlReaderError {
    /// The first buffer is not the header buffer of an .etl file.
    NotAnEtl {
        /// The file's first bytes (zero after the first `len`).
        first_bytes: [u8; 8],
        /// How many bytes of `first_bytes` the file has: fewer than 8 for a shorter file.
        len: usize,
        /// The check of the header buffer that failed, naming buffer 0 at file offset 0.
        error: ReadError,
    },
    /// A buffer or one of its events is malformed, or the file ends within a buffer.
    Read(ReadError),
    /// Reading failed (a stream that ends is not an I/O error: see
    /// [`Read`](Self::Read)).
    Io {
        /// The buffer being read, when the file was open.
        buffer: Option<BufferPosition>,
        /// What the reader said.
        error: io::Error,
    },
    /// The memory a buffer needs was refused: the reader asks for what the file sizes (a
    /// buffer's bytes, its decompressed events, the names; each at most
    /// [`MAX_BUFFER_SIZE`]) with `try_reserve`, so that a refusal is this error, not an abort.
    OutOfMemory {
        /// The buffer being read, when the file was open.
        buffer: Option<BufferPosition>,
        /// The bytes asked for.
        bytes: usize,
    },
    /// The time-ordered walk ([`EtlReader::for_each_event_in_time_order`]) would hold more
    /// bytes of decoded events at once than its limit
    /// ([`EtlReader::set_time_order_memory`]) to take this buffer's events in: they are left
    /// out of the merge, as those of a buffer that does not decode.
    TimeOrderMemory {
        /// The buffer whose events did not fit.
        buffer: BufferPosition,
        /// The bytes of its decoded events.
        needed: usize,
        /// The bytes of decoded events held for the other processors at that point.
        held: usize,
        /// The limit.
        limit: usize,
    },
}

impl EtlReaderError {
    /// [`NotAnEtl`](Self::NotAnEtl) for a file whose bytes start with `bytes`.
    fn not_an_etl(bytes: &[u8], error: ReadError) -> Self {
        let mut first_bytes = [0u8; 8];
        for (slot, byte) in first_bytes.iter_mut().zip(bytes) {
            *slot = *byte;
        }
        let len = bytes.len().min(first_bytes.len());
        Self::NotAnEtl {
            first_bytes,
            len,
            error,
        }
    }

    /// Where in the file the error is, when known.
    pub const fn buffer(&self) -> Option<BufferPosition> {
        match self {
            Self::NotAnEtl { error, .. } | Self::Read(error) => error.buffer,
            Self::Io { buffer, .. } | Self::OutOfMemory { buffer, .. } => *buffer,
            Self::TimeOrderMemory { buffer, .. } => Some(*buffer),
        }
    }
}

impl core::fmt::Display for EtlReaderError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotAnEtl {
                first_bytes,
                len,
                error,
            } => {
                f.write_str("not an .etl file: ")?;
                match *len {
                    0 => f.write_str("it is empty")?,
                    8 => f.write_str("its first 8 bytes are")?,
                    len => write!(f, "it holds only {len} bytes:")?,
                }
                for byte in first_bytes.iter().take(*len) {
                    write!(f, " {byte:02x}")?;
                }
                write!(
                    f,
                    "; expected a WMI_BUFFER_HEADER whose BufferSize (u32 at 0) is {:#x} to \
                     {MAX_BUFFER_SIZE:#x}, then the logfile header event (a SYSTEM32 or SYSTEM64 \
                     header with HookId 0 and a TRACE_LOGFILE_HEADER): {error}",
                    WmiBufferHeader::LEN
                )
            }
            Self::Read(error) => core::fmt::Display::fmt(error, f),
            Self::Io { buffer, error } => {
                if let Some(BufferPosition { index, file_offset }) = buffer {
                    write!(f, "buffer {index} at file offset {file_offset:#x}: ")?;
                }
                write!(f, "cannot read: {error}")
            }
            Self::OutOfMemory { buffer, bytes } => {
                if let Some(BufferPosition { index, file_offset }) = buffer {
                    write!(f, "buffer {index} at file offset {file_offset:#x}: ")?;
                }
                write!(f, "cannot allocate {bytes} bytes")
            }
            Self::TimeOrderMemory {
                buffer: BufferPosition { index, file_offset },
                needed,
                held,
                limit,
            } => write!(
                f,
                "buffer {index} at file offset {file_offset:#x}: its {needed} bytes of events \
                 are left out of the time order, which holds at most {limit} bytes of decoded \
                 events at once ({held} held for the other processors)"
            ),
        }
    }
}

impl core::error::Error for EtlReaderError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::NotAnEtl { error, .. } => Some(error),
            Self::Read(error) => core::error::Error::source(error),
            Self::Io { error, .. } => Some(error),
            Self::OutOfMemory { .. } | Self::TimeOrderMemory { .. } => None,
        }
    }
}

impl From<ReadError> for EtlReaderError {
    fn from(error: ReadError) -> Self {
        Self::Read(error)
    }
}
