//! The events of an .etl file in time order, read by [`EtlReader`] from a source it can seek
//! in, holding one decoded buffer per processor.
//!
//! "Events within a buffer are in non-decreasing timestamp order, and each buffer holds one
//! processor's events" (EVENT-HEADERS.md §7), and a processor's buffers sorted by
//! `SequenceNumber` continue that order, so the merge a real-time consumer sees needs one cursor
//! per processor, not one per buffer. The file is read twice: once to list its buffers (place,
//! stored length, processor and `SequenceNumber`; the bytes are not kept), then each
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

use core::cell::Cell;
use std::io::{Read, Seek, SeekFrom};
use std::vec::Vec;

use crate::read::error::{BufferPosition, ReadError};
use crate::read::etl_reader::{read_stored, EtlReader, EtlReaderError, StoredBuffer};
use crate::read::events::{Event, Events};
use crate::read::time_order::{BufferOrder, MergeCursor, ProcessorOrder, TimeOrder};

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

/// One buffer of the file as the listing saw it.
#[derive(Clone, Copy)]
struct Listed {
    position: BufferPosition,
    order: ProcessorOrder,
}

/// One processor's buffers in `SequenceNumber` order, and the one being merged, decoded.
struct Chain {
    buffers: Vec<Listed>,
    /// The next of `buffers` to decode.
    next: usize,
    /// The buffer whose events are in `events`; `None` once the chain has ended.
    current: Option<Listed>,
    stored: StoredBuffer,
    scratch: Vec<u8>,
    events: Vec<u8>,
    /// Where the cursor over `events` resumes, and the timestamp it is ordered by.
    resume_at: usize,
    timestamp: i64,
}

impl Chain {
    fn new() -> Self {
        Self {
            buffers: Vec::new(),
            next: 0,
            current: None,
            stored: StoredBuffer::new(),
            scratch: Vec::new(),
            events: Vec::new(),
            resume_at: 0,
            timestamp: i64::MIN,
        }
    }

    /// Decodes the chain's next buffer that has an event (or an error) to give, handing the
    /// errors of the buffers passed over to `problem`. `current` is `None` when no buffer is
    /// left. The timestamp carries over from the buffer before.
    fn advance<S: Read + Seek, E>(
        &mut self,
        source: &mut S,
        base: u64,
        buffer_size: usize,
        problem: &mut impl FnMut(EtlReaderError) -> Result<(), E>,
    ) -> Result<(), E> {
        self.current = None;
        while let Some(&listed) = self.buffers.get(self.next) {
            self.next = self.next.saturating_add(1);
            match self.decode(source, base, buffer_size, listed) {
                Ok(()) => {
                    let mut events = Events::in_buffer(&self.events, Some(listed.position));
                    if events.next().is_some() {
                        self.current = Some(listed);
                        self.resume_at = 0;
                        return Ok(());
                    }
                }
                Err(error) => problem(error)?,
            }
        }
        Ok(())
    }

    /// Reads `listed` again from `source` and puts its events' bytes (decompressed when
    /// compressed) in `events`.
    fn decode<S: Read + Seek>(
        &mut self,
        source: &mut S,
        base: u64,
        buffer_size: usize,
        listed: Listed,
    ) -> Result<(), EtlReaderError> {
        let position = listed.position;
        let io = |error| EtlReaderError::Io {
            buffer: Some(position),
            error,
        };
        let offset = u64::try_from(position.file_offset)
            .ok()
            .and_then(|offset| offset.checked_add(base))
            .ok_or_else(|| {
                io(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    "the buffer's file offset does not fit a u64",
                ))
            })?;
        source.seek(SeekFrom::Start(offset)).map_err(io)?;
        if !read_stored(source, &mut self.stored, position)? {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file ends where the first reading found the buffer",
            )));
        }
        if self.stored.header().is_compressed() && self.scratch.len() < buffer_size {
            self.scratch.resize(buffer_size, 0);
        }
        let buffer = self
            .stored
            .decode(&mut self.scratch)
            .map_err(EtlReaderError::Read)?;
        self.events.clear();
        self.events
            .extend_from_slice(buffer.trace_buffer.event_bytes());
        Ok(())
    }
}

/// A buffer's events that note where each item they are asked for starts, so that the walk
/// can resume there once the merge has read that item ahead and been dropped.
struct Noting<'a, 'c> {
    events: Events<'a>,
    item_at: &'c Cell<usize>,
}

impl<'a> Iterator for Noting<'a, '_> {
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
    /// - Memory: one decoded buffer per processor (its bytes as stored, the decompression
    ///   scratch and its events), whatever the length of the file.
    /// - Errors, each handed to `visit` once as an `Err`: a buffer that does not decode (its
    ///   events are not merged; its processor goes on with its next buffer), an event that
    ///   ends its buffer's walk (after the buffer's events before it), and the error that ended
    ///   the listing (a file cut short: after every event of the buffers before it). Nothing
    ///   is read twice and nothing is dropped. The reader is then done.
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
        let mut listed = Vec::new();
        let mut ended_by = None;
        let mut stored = StoredBuffer::new();
        while let Some(read) = self.read_stored_buffer(&mut stored) {
            match read {
                Ok(()) => {
                    let position = stored.position();
                    listed.push(Listed {
                        position,
                        order: ProcessorOrder {
                            processor: stored.processor(),
                            sequence_number: stored.header().sequence_number,
                            index: position.index,
                        },
                    });
                }
                Err(error) => {
                    ended_by = Some(error);
                    break;
                }
            }
        }
        drop(stored);
        let buffers = listed.len();
        listed.sort_unstable_by_key(|listed| listed.order);

        // One chain per processor, each starting at its first buffer with events.
        let mut chains: Vec<Chain> = Vec::new();
        for buffer in listed {
            match chains.last_mut() {
                Some(chain)
                    if chain.buffers.last().map(|last| last.order.processor)
                        == Some(buffer.order.processor) =>
                {
                    chain.buffers.push(buffer);
                }
                _ => {
                    let mut chain = Chain::new();
                    chain.buffers.push(buffer);
                    chains.push(chain);
                }
            }
        }
        let buffer_size = self.buffer_size();
        for chain in &mut chains {
            chain.advance(self.source_mut(), base, buffer_size, &mut |error| {
                visit(Err(error))
            })?;
        }

        let items_at: Vec<Cell<usize>> = chains.iter().map(|_| Cell::new(0)).collect();
        loop {
            // One round: the merge of every chain's current buffer until one of them runs out.
            let mut cursors: Vec<MergeCursor<'_, (BufferOrder, usize), Noting<'_, '_>>> = chains
                .iter()
                .zip(&items_at)
                .enumerate()
                .filter_map(|(at, (chain, item_at))| {
                    let listed = chain.current?;
                    let events =
                        Events::resume_at(&chain.events, Some(listed.position), chain.resume_at);
                    let order = BufferOrder {
                        sequence_number: listed.order.sequence_number,
                        index: listed.position.index,
                    };
                    Some(MergeCursor::continuing(
                        (order, at),
                        Noting { events, item_at },
                        chain.timestamp,
                    ))
                })
                .collect();
            if cursors.is_empty() {
                break;
            }
            let mut spent = None;
            {
                let mut merge = TimeOrder::new(&mut cursors);
                let live = merge.live_cursors();
                while let Some(((_, at), item)) = merge.next() {
                    let Some(listed) = chains.get(at).and_then(|chain| chain.current) else {
                        continue;
                    };
                    visit(
                        item.map(|event| TimeOrderedEvent {
                            position: listed.position,
                            processor: listed.order.processor,
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
            // Where each cursor stands, for the next round.
            let stands: Vec<(usize, usize, i64)> = cursors
                .iter()
                .map(|cursor| {
                    let at = cursor.id().1;
                    let resume_at = items_at.get(at).map_or(0, Cell::get);
                    (at, resume_at, cursor.timestamp())
                })
                .collect();
            drop(cursors);
            for (at, resume_at, timestamp) in stands {
                if let Some(chain) = chains.get_mut(at) {
                    chain.resume_at = resume_at;
                    chain.timestamp = timestamp;
                }
            }
            let Some(chain) = spent.and_then(|at| chains.get_mut(at)) else {
                break;
            };
            chain.advance(
                self.source_mut(),
                base,
                buffer_size,
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
