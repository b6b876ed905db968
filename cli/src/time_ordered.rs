//! `etwc etl --order time`: the events of every buffer in time order, as a real-time consumer
//! receives them, through the library's [`TimeOrder`] merge.
//!
//! Each buffer holds one processor's events in non-decreasing timestamp order, and a
//! processor's buffers sorted by `SequenceNumber` continue that order (EVENT-HEADERS.md §7), so
//! the merge needs one cursor per processor, not one per buffer. The file is read twice: once
//! through the [`EtlReader`] to list its buffers (position, stored length, processor and
//! `SequenceNumber`; the bytes are not kept), then each processor's buffers are read back by
//! file offset in [`ProcessorOrder`] when its cursor reaches them.
//!
//! Memory: one decoded buffer per processor (with its stored bytes and decompression scratch),
//! whatever the size of the file; `--order file` needs none of this.
//!
//! An [`Event`] borrows the buffer it was read from, so a cursor cannot replace its buffer while
//! the merge runs. The merge therefore runs in rounds: a [`TimeOrder`] over the current buffer
//! of every processor, until one of them runs out (or gives an error, which ends its buffer's
//! walk). Then the merge is dropped, that processor's next buffer is decoded in place of the
//! spent one, and a new round resumes every other cursor where it stopped
//! ([`Events::resume_at`]), with the timestamp it had ([`MergeCursor::continuing`]). The
//! events come out as from one merge over per-processor chains of buffers. Ties between
//! processors go to the buffer with the lower `SequenceNumber`, then the earlier one in the file
//! ([`BufferOrder`]).

use std::cell::Cell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use etw_classic::read::{
    BufferOrder, BufferPosition, EtlBuffer, EtlReader, Events, MergeCursor, ProcessorOrder,
    ReadError, StoredBuffer, TimeOrder,
};
use etw_classic::Event;

use crate::etl::{Printer, Tally};

/// One buffer of the file as the listing saw it.
#[derive(Clone, Copy)]
struct Listed {
    position: BufferPosition,
    stored_len: usize,
    order: ProcessorOrder,
}

/// One processor's buffers in `SequenceNumber` order, and the one being merged, decoded.
struct Chain {
    buffers: Vec<Listed>,
    /// The next of `buffers` to decode.
    next: usize,
    /// The buffer whose events are in `events`; `None` once the chain has ended.
    current: Option<Listed>,
    stored: Vec<u8>,
    scratch: Vec<u8>,
    events: Vec<u8>,
    /// Where the cursor over `events` resumes, and the timestamp it is ordered by.
    resume_at: usize,
    timestamp: i64,
}

impl Chain {
    fn new(buffer_size: usize) -> Self {
        Self {
            buffers: Vec::new(),
            next: 0,
            current: None,
            stored: Vec::new(),
            scratch: vec![0; buffer_size],
            events: Vec::new(),
            resume_at: 0,
            timestamp: i64::MIN,
        }
    }

    /// Decodes the chain's next buffer that has an event (or an error) to give; the buffers
    /// passed over are counted in `tally`, with their errors. `current` is `None` when no
    /// buffer is left. The timestamp carries over from the buffer before.
    fn advance(&mut self, file: &mut File, tally: &mut Tally) {
        self.current = None;
        while let Some(&listed) = self.buffers.get(self.next) {
            self.next += 1;
            tally.buffers += 1;
            match self.decode(file, listed) {
                Ok(()) => {
                    let mut events = Events::in_buffer(&self.events, Some(listed.position));
                    if events.next().is_some() {
                        self.current = Some(listed);
                        self.resume_at = 0;
                        return;
                    }
                }
                Err(problem) => tally.problems.push(problem),
            }
        }
    }

    /// Reads `listed` from the file and puts its events' bytes (decompressed when compressed)
    /// in `events`.
    fn decode(&mut self, file: &mut File, listed: Listed) -> Result<(), String> {
        let BufferPosition { index, file_offset } = listed.position;
        self.stored.resize(listed.stored_len, 0);
        file.seek(SeekFrom::Start(file_offset as u64))
            .and_then(|_| file.read_exact(&mut self.stored))
            .map_err(|error| {
                format!("buffer {index} at file offset {file_offset:#x}: cannot read it: {error}")
            })?;
        let buffer = EtlBuffer::parse(&self.stored, index, file_offset).map_err(as_text)?;
        let trace_buffer = buffer.trace_buffer(&mut self.scratch).map_err(as_text)?;
        self.events.clear();
        self.events.extend_from_slice(trace_buffer.event_bytes());
        Ok(())
    }
}

fn as_text(error: ReadError) -> String {
    error.to_string()
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

/// Prints the events of the file at `path`, whose `reader` has read its logfile header, in
/// time order (see the module documentation) and says what it read.
pub fn print<R: Read>(
    path: &str,
    reader: &mut EtlReader<R>,
    printer: Printer,
    out: &mut impl Write,
) -> Result<Tally, String> {
    let write_error = |error: std::io::Error| format!("cannot write the output: {error}");
    let mut tally = Tally::default();

    // The listing: every buffer's place and order, in file order.
    let mut listed = Vec::new();
    let mut stored = StoredBuffer::new();
    while let Some(read) = reader.read_stored_buffer(&mut stored) {
        match read {
            Ok(()) => {
                let position = stored.position();
                listed.push(Listed {
                    position,
                    stored_len: stored.bytes().len(),
                    order: ProcessorOrder {
                        processor: stored.processor(),
                        sequence_number: stored.header().sequence_number,
                        index: position.index,
                    },
                });
            }
            Err(error) => {
                tally.problems.push(error.to_string());
                break;
            }
        }
    }
    drop(stored);
    listed.sort_unstable_by_key(|listed| listed.order);

    // One chain per processor, each starting at its first buffer with events.
    let buffer_size = reader.buffer_size();
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
                let mut chain = Chain::new(buffer_size);
                chain.buffers.push(buffer);
                chains.push(chain);
            }
        }
    }
    let mut file = File::open(path).map_err(|error| format!("cannot read {path}: {error}"))?;
    for chain in &mut chains {
        chain.advance(&mut file, &mut tally);
    }

    let items_at: Vec<Cell<usize>> = chains.iter().map(|_| Cell::new(0)).collect();
    let mut line = Vec::new();
    loop {
        // One round: the merge of every chain's current buffer until one of them runs out.
        let spent = {
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
            // The merge borrows the cursors until the end of this block.
            let spent = {
                let mut merge = TimeOrder::new(&mut cursors);
                let live = merge.live_cursors();
                let mut spent = None;
                while let Some(((order, at), item)) = merge.next() {
                    match item {
                        Ok(event) => {
                            tally.counts_by_type[usize::from(event.header_type.0)] += 1;
                            let processor = chains[at].buffers[0].order.processor;
                            printer.print(&mut line, order.index, processor, &event);
                            out.write_all(&line).map_err(write_error)?;
                            line.clear();
                        }
                        Err(error) => tally.problems.push(error.to_string()),
                    }
                    // Only the cursor just taken from can have ended.
                    if merge.live_cursors() < live {
                        spent = Some(at);
                        break;
                    }
                }
                spent
            };
            // Where each cursor stands, for the next round.
            let stands: Vec<(usize, usize, i64)> = cursors
                .iter()
                .map(|cursor| {
                    let at = cursor.id().1;
                    (at, items_at[at].get(), cursor.timestamp())
                })
                .collect();
            drop(cursors);
            for (at, resume_at, timestamp) in stands {
                chains[at].resume_at = resume_at;
                chains[at].timestamp = timestamp;
            }
            spent
        };
        match spent {
            Some(at) => chains[at].advance(&mut file, &mut tally),
            None => break,
        }
    }
    Ok(tally)
}
