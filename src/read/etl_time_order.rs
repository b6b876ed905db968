//! The events of an .etl file in time order, read by [`EtlReader`] from a source it can seek
//! in, holding one decoded buffer per processor.
//!
//! "Events within a buffer are in non-decreasing timestamp order, and each buffer holds one
//! processor's events" (EVENT-HEADERS.md §7), and a processor's buffers sorted by
//! `SequenceNumber` continue that order, so the merge a real-time consumer sees needs one cursor
//! per processor, not one per buffer. The file is read twice: once to list its buffers (place,
//! processor and `SequenceNumber`; the bytes are not kept), then each
//! processor's buffers are read back by file offset, in [`ProcessorOrder`], when its cursor
//! reaches them.
//!
//! An [`Event`] borrows the buffer it was read from, so a cursor cannot replace its buffer while
//! a merge runs. The merge therefore runs in rounds: a [`TimeOrder`] over the current buffer of
//! every processor, until one of them runs out. Then that processor's next buffer is decoded in
//! place of the spent one, and a new round resumes every other cursor where it stopped
//! ([`Events::resume_at`]) with the timestamp it had ([`MergeCursor::continuing`]). The events
//! come out as from one merge over per-processor chains of buffers; ties between processors go
//! to the buffer with the lower `SequenceNumber`, then the earlier one in the file
//! ([`BufferOrder`]).
//!
//! What a processor holds between rounds is its current buffer's decoded events alone (a copy
//! of exactly their length); the buffer read back as stored and the scratch space it is
//! decompressed into are one of each for the whole walk, since buffers are decoded one at a
//! time. A processor whose chain has ended gives its memory back. The processors are those
//! below the logfile header's `NumberOfProcessors`, and the events held are at most
//! [`TIME_ORDER_MEMORY`](crate::read::TIME_ORDER_MEMORY) (see [`EtlReader::for_each_event_in_time_order`] for the whole bound).

use core::cell::Cell;
use std::io::{Read, Seek, SeekFrom};
use std::vec::Vec;

use crate::read::error::{BufferPosition, ReadError, ReadErrorKind};
use crate::read::etl_reader::{read_stored, EtlReader, EtlReaderError, StoredBuffer};
use crate::read::events::{Event, Events};
use crate::read::time_order::{BufferOrder, MergeCursor, ProcessorOrder, TimeOrder};
use crate::wire::file::wmi_buffer_header::BufferFlags;

/// One event of [`EtlReader::for_each_event_in_time_order`], with the buffer that holds it.
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeOrderedEvent<'a> {
    /// The index and file offset of the buffer that holds the event.
    pub position: BufferPosition,
    /// The processor whose buffer it is (see [`StoredBuffer::processor`]).
    pub processor: u16,
    /// The event; its [`offset`](Event::offset) counts from the end of the buffer's header.
    pub event: Event<'a>,
}

/// One buffer of the file as the listing saw it: 32 bytes on a 64-bit target.
#[derive(Clone, Copy)]
struct Listed {
    position: BufferPosition,
    sequence_number: i64,
    processor: u16,
}

impl Listed {
    /// The order of a processor's chain: by processor, then `SequenceNumber`, then file order.
    const fn order(&self) -> ProcessorOrder {
        ProcessorOrder {
            processor: self.processor,
            sequence_number: self.sequence_number,
            index: self.position.index,
        }
    }

    /// The tie-break between buffers of different processors.
    const fn buffer_order(&self) -> BufferOrder {
        BufferOrder {
            sequence_number: self.sequence_number,
            index: self.position.index,
        }
    }
}

/// What the chains share: the listing, the one buffer read as stored and the one scratch space
/// it is decompressed into (a chain keeps a copy of the events alone), and the memory held.
struct Shared<'l> {
    /// Every listed buffer, sorted by [`Listed::order`]: each chain is a run of it.
    listed: &'l [Listed],
    stored: StoredBuffer,
    scratch: Vec<u8>,
    /// Where the file starts in the source.
    base: u64,
    /// The logfile header's `BufferSize`.
    buffer_size: usize,
    /// The bytes the chains' events take (their capacity), and the most they may.
    held: usize,
    limit: usize,
}

/// One processor's buffers in `SequenceNumber` order, and the one being merged, decoded.
struct Chain {
    /// The chain's buffers are `listed[..end]` from where it started; `next` is the next one
    /// to decode.
    next: usize,
    end: usize,
    /// The buffer whose events are in `events`; `None` once the chain has ended.
    current: Option<Listed>,
    /// The decoded events of `current`, copied out of the shared buffer or scratch.
    events: Vec<u8>,
    /// Where the cursor over `events` resumes, and the timestamp it is ordered by; set through
    /// the cursors that borrow the chains during a round.
    resume_at: Cell<usize>,
    timestamp: Cell<i64>,
}

impl Chain {
    /// The chain of `listed[start..end]`.
    const fn new(start: usize, end: usize) -> Self {
        Self {
            next: start,
            end,
            current: None,
            events: Vec::new(),
            resume_at: Cell::new(0),
            timestamp: Cell::new(i64::MIN),
        }
    }

    /// Decodes the chain's next buffer that has an event (or an error) to give, handing the
    /// errors of the buffers passed over to `problem`. `current` is `None` when no buffer is
    /// left, and the chain's memory is then given back. The timestamp carries over from the
    /// buffer before.
    fn advance<S: Read + Seek, E>(
        &mut self,
        source: &mut S,
        shared: &mut Shared<'_>,
        problem: &mut impl FnMut(EtlReaderError) -> Result<(), E>,
    ) -> Result<(), E> {
        self.current = None;
        while self.next < self.end {
            let Some(&listed) = shared.listed.get(self.next) else {
                break;
            };
            self.next = self.next.saturating_add(1);
            match self.decode(source, shared, listed) {
                Ok(()) => {
                    let mut events = Events::in_buffer(&self.events, Some(listed.position));
                    if events.next().is_some() {
                        self.current = Some(listed);
                        self.resume_at.set(0);
                        return Ok(());
                    }
                }
                Err(error) => problem(error)?,
            }
        }
        self.release(shared);
        Ok(())
    }

    /// Gives the chain's memory back.
    fn release(&mut self, shared: &mut Shared<'_>) {
        shared.held = shared.held.saturating_sub(self.events.capacity());
        self.events = Vec::new();
    }

    /// Reads `listed` again from the source into the shared buffer and puts its events' bytes
    /// (decompressed into the shared scratch when compressed) in `events`, within the limit of
    /// the bytes held.
    fn decode<S: Read + Seek>(
        &mut self,
        source: &mut S,
        shared: &mut Shared<'_>,
        listed: Listed,
    ) -> Result<(), EtlReaderError> {
        let position = listed.position;
        let io = |error| EtlReaderError::Io {
            buffer: Some(position),
            error,
        };
        let offset = u64::try_from(position.file_offset)
            .ok()
            .and_then(|offset| offset.checked_add(shared.base))
            .ok_or_else(|| {
                io(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    "the buffer's file offset does not fit a u64",
                ))
            })?;
        source.seek(SeekFrom::Start(offset)).map_err(io)?;
        if !read_stored(source, &mut shared.stored, position)? {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file ends where the first reading found the buffer",
            )));
        }
        let buffer = shared
            .stored
            .decode_growing(&mut shared.scratch, shared.buffer_size)?;
        let bytes = buffer.trace_buffer.event_bytes();
        let needed = bytes.len();
        self.events.clear();
        if needed > self.events.capacity() {
            // The chain's spent events go first; then this buffer's, if they fit the limit.
            shared.held = shared.held.saturating_sub(self.events.capacity());
            self.events = Vec::new();
            if shared.held.saturating_add(needed) > shared.limit {
                return Err(EtlReaderError::TimeOrderMemory {
                    buffer: position,
                    needed,
                    held: shared.held,
                    limit: shared.limit,
                });
            }
            self.events
                .try_reserve_exact(needed)
                .map_err(|_| EtlReaderError::OutOfMemory {
                    buffer: Some(position),
                    bytes: needed,
                })?;
            shared.held = shared.held.saturating_add(self.events.capacity());
        }
        self.events.extend_from_slice(bytes);
        Ok(())
    }
}

/// A buffer's events that note where each item they are asked for starts, so that the walk
/// can resume there once the merge has read that item ahead and been dropped.
struct Noting<'a> {
    events: Events<'a>,
    item_at: &'a Cell<usize>,
}

impl<'a> Iterator for Noting<'a> {
    type Item = Result<Event<'a>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(offset) = self.events.offset() {
            self.item_at.set(offset);
        }
        self.events.next()
    }
}

impl<R: Read + Seek> EtlReader<R> {
    /// Calls `visit` for every event of the buffers not read yet, in the order a real-time
    /// consumer receives them: all processors' events merged by raw timestamp (see the module
    /// documentation for the rule and its source), each with the buffer that holds it; an
    /// error in place of the events it cut off. Returns how many buffers it read, or the first
    /// error `visit` returned (which stops the walk).
    ///
    /// - What is read: the remaining buffers are listed first, in file order, keeping only
    ///   their place, processor and `SequenceNumber`; then each is read again by file offset
    ///   when its processor's cursor reaches it. The source's position at the start of the
    ///   call is taken as [`bytes_read`](Self::bytes_read) into the file.
    /// - Processors: a buffer's processor ([`StoredBuffer::processor`]) must be below the
    ///   logfile header's `NumberOfProcessors` (every buffer of the real traces is); a buffer
    ///   whose processor is not is [`ReadErrorKind::ProcessorBeyondCount`], naming the buffer
    ///   and its file offset, and its events are not merged.
    /// - Memory, whatever the file: the decoded events of one buffer per processor, at most
    ///   [`time_order_memory`](Self::time_order_memory) bytes in all
    ///   ([`TIME_ORDER_MEMORY`](crate::read::TIME_ORDER_MEMORY), 256 MiB, by default); one buffer as stored and one scratch
    ///   space to decompress it, shared by every processor (each at most the logfile header's
    ///   `BufferSize`, itself at most [`MAX_BUFFER_SIZE`](crate::read::MAX_BUFFER_SIZE),
    ///   16 MiB); and the listing, 32 bytes per buffer (on a 64-bit target: 0.05% of a file of
    ///   64 KiB buffers, at most 45% of one of empty 72-byte buffers). A buffer whose events
    ///   would pass the limit is [`EtlReaderError::TimeOrderMemory`]; memory refused by the
    ///   allocator is [`EtlReaderError::OutOfMemory`]; neither aborts.
    /// - Errors, each handed to `visit` once as an `Err`: a buffer whose processor is out of
    ///   range (while listing, before any event); a buffer that does not decode or does not
    ///   fit (its events are not merged; its processor goes on with its next buffer); an event
    ///   that ends its buffer's walk (after the buffer's events before it); and the error that
    ///   ended the listing (a file cut short: after every event of the buffers before it).
    ///   Nothing is read twice and nothing is dropped. The reader is then done.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use etw_classic::EtlReader;
    ///
    /// let mut reader = EtlReader::open("trace.etl")?;
    /// let mut last = i64::MIN;
    /// reader.for_each_event_in_time_order(|item| {
    ///     let item = item?;
    ///     if let Some(timestamp) = item.event.timestamp() {
    ///         assert!(timestamp >= last);
    ///         last = timestamp;
    ///     }
    ///     Ok::<(), etw_classic::EtlReaderError>(())
    /// })?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The first error `visit` returns; an error finding where the source stands is handed to
    /// `visit` first.
    pub fn for_each_event_in_time_order<E, F>(&mut self, mut visit: F) -> Result<usize, E>
    where
        F: FnMut(Result<TimeOrderedEvent<'_>, EtlReaderError>) -> Result<(), E>,
    {
        let base = match self.source_base() {
            Ok(base) => base,
            Err(error) => {
                self.finish();
                visit(Err(error))?;
                return Ok(0);
            }
        };

        // The listing: every remaining buffer's place and order, in file order.
        let number_of_processors = self.logfile_header().number_of_processors();
        let mut listed: Vec<Listed> = Vec::new();
        let mut buffers = 0usize;
        let mut ended_by = None;
        let mut stored = StoredBuffer::new();
        while let Some(read) = self.read_stored_buffer(&mut stored) {
            if let Err(error) = read {
                ended_by = Some(error);
                break;
            }
            buffers = buffers.saturating_add(1);
            let position = stored.position();
            let processor = stored.processor();
            if u32::from(processor) >= number_of_processors {
                let kind = ReadErrorKind::ProcessorBeyondCount {
                    processor,
                    proc_index: stored
                        .header()
                        .buffer_flag
                        .contains(BufferFlags::PROC_INDEX),
                    number_of_processors,
                };
                let error = EtlReaderError::Read(ReadError::new(Some(position), kind));
                if let Err(stop) = visit(Err(error)) {
                    self.finish();
                    return Err(stop);
                }
                continue;
            }
            if listed.try_reserve(1).is_err() {
                ended_by = Some(EtlReaderError::OutOfMemory {
                    buffer: Some(position),
                    bytes: listed
                        .len()
                        .saturating_add(1)
                        .saturating_mul(core::mem::size_of::<Listed>()),
                });
                self.finish();
                break;
            }
            listed.push(Listed {
                position,
                sequence_number: stored.header().sequence_number,
                processor,
            });
        }
        listed.sort_unstable_by_key(Listed::order);

        // One chain per processor: a run of the sorted listing.
        let same_processor = |a: &Listed, b: &Listed| a.processor == b.processor;
        let processors = listed.chunk_by(same_processor).count();
        let mut chains: Vec<Chain> = Vec::new();
        if chains.try_reserve_exact(processors).is_err() {
            visit(Err(EtlReaderError::OutOfMemory {
                buffer: None,
                bytes: processors.saturating_mul(core::mem::size_of::<Chain>()),
            }))?;
            return Ok(buffers);
        }
        let mut start = 0usize;
        for len in listed.chunk_by(same_processor).map(<[Listed]>::len) {
            let end = start.saturating_add(len);
            chains.push(Chain::new(start, end));
            start = end;
        }
        let mut shared = Shared {
            listed: &listed,
            stored,
            scratch: Vec::new(),
            base,
            buffer_size: self.buffer_size(),
            held: 0,
            limit: self.time_order_memory(),
        };
        for chain in &mut chains {
            chain.advance(self.source_mut(), &mut shared, &mut |error| {
                visit(Err(error))
            })?;
        }

        loop {
            // One round: the merge of every chain's current buffer until one of them runs out.
            let mut round: Vec<MergeCursor<'_, (BufferOrder, usize), Noting<'_>>> = Vec::new();
            if round.try_reserve_exact(chains.len()).is_err() {
                visit(Err(EtlReaderError::OutOfMemory {
                    buffer: None,
                    bytes: chains.len().saturating_mul(core::mem::size_of::<
                        MergeCursor<'_, (BufferOrder, usize), Noting<'_>>,
                    >()),
                }))?;
                return Ok(buffers);
            }
            round.extend(chains.iter().enumerate().filter_map(|(at, chain)| {
                let listed = chain.current?;
                let events =
                    Events::resume_at(&chain.events, Some(listed.position), chain.resume_at.get());
                Some(MergeCursor::continuing(
                    (listed.buffer_order(), at),
                    Noting {
                        events,
                        item_at: &chain.resume_at,
                    },
                    chain.timestamp.get(),
                ))
            }));
            if round.is_empty() {
                break;
            }
            let mut spent = None;
            {
                let mut merge = TimeOrder::new(&mut round);
                let live = merge.live_cursors();
                while let Some(((_, at), item)) = merge.next() {
                    let Some(listed) = chains.get(at).and_then(|chain| chain.current) else {
                        continue;
                    };
                    visit(
                        item.map(|event| TimeOrderedEvent {
                            position: listed.position,
                            processor: listed.processor,
                            event,
                        })
                        .map_err(EtlReaderError::Read),
                    )?;
                    // Only the cursor just taken from can have ended.
                    if merge.live_cursors() < live {
                        spent = Some(at);
                        break;
                    }
                }
            }
            // Where each cursor stands (its `resume_at` is noted already), for the next round.
            for cursor in &round {
                if let Some(chain) = chains.get(cursor.id().1) {
                    chain.timestamp.set(cursor.timestamp());
                }
            }
            drop(round);
            let Some(chain) = spent.and_then(|at| chains.get_mut(at)) else {
                break;
            };
            chain.advance(
                self.source_mut(),
                &mut shared,
                &mut |error: EtlReaderError| visit(Err(error)),
            )?;
        }
        if let Some(error) = ended_by {
            visit(Err(error))?;
        }
        Ok(buffers)
    }

    /// Where the file starts in the source: its position less the bytes read so far.
    fn source_base(&mut self) -> Result<u64, EtlReaderError> {
        let read = self.bytes_read();
        let io = |error| EtlReaderError::Io {
            buffer: None,
            error,
        };
        let position = self.source_mut().stream_position().map_err(io)?;
        u64::try_from(read)
            .ok()
            .and_then(|read| position.checked_sub(read))
            .ok_or_else(|| {
                io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the source stands before the bytes the reader has read",
                ))
            })
    }
}
