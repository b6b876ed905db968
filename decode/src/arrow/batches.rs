//! The events of an .etl file as [`EventColumns`] record batches, in file order, decoded on
//! several threads: the one pipeline behind `etwc etl --format parquet` and the Python
//! module's `read_arrow` (file order), so that both read, decode, filter, order and limit the
//! events alike and report the same errors.
//!
//! It is a module of its own beside [`EventColumns`] (which only turns events into columns)
//! because it is the part that reads: the buffers of the file as stored, then threads that
//! decompress and decode them. It uses scoped standard threads and channels rather than a
//! thread pool, so that this crate depends on none and the caller keeps its thread for what it
//! does with each batch (writing it, while the next ones are decoded).
//!
//! The threads:
//! - one reads the stored buffers (compressed as stored, [`EtlReader::read_stored_buffer`]) in
//!   chunks of at most [`CHUNK_BUFFERS`], numbered in file order; at most two chunks per
//!   decoding thread wait, so that the reading runs no further ahead;
//! - `threads` decompress and decode each chunk ([`StoredBuffer::decode_growing`]), keep the
//!   events that pass the filter and turn them into record batches of at most [`BATCH_ROWS`]
//!   rows; at most one decoded chunk per decoding thread waits for the caller, so that the
//!   decoding runs no further ahead of what the caller does with the batches (writing them)
//!   and memory stays bounded however fast the decoding is;
//! - the caller's thread puts the chunks back in file order and hands out their batches and
//!   errors in that order, the last batch cut at the limit.
//!
//! As every output of `etwc etl` does: an error reading the file ends the reading (the reader
//! returns nothing after it); a buffer that cannot be decompressed or whose header is wrong is
//! reported and skipped; an event that cannot be read ends its buffer. The errors are those met
//! before the limit is reached, in file order, each naming its buffer and file offset.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;

use arrow_array::RecordBatch;
use etw_classic::read::{StoredBuffer, TraceClock};
use etw_classic::EtlReader;

use super::EventColumns;
use crate::event::{filetime_of, DecodedEvent};
use crate::filter::Filter;
use crate::registry::Registry;

/// The stored buffers handed to a decoding thread at a time (fewer at first under a limit).
pub const CHUNK_BUFFERS: usize = 16;

/// The rows of one record batch, at most: memory stays bounded by a batch's builders
/// whatever the trace's length.
pub const BATCH_ROWS: usize = 64 * 1024;

/// What a chunk of buffers gives, in file order.
enum Piece {
    Batch(RecordBatch),
    Problem(String),
}

/// A chunk of buffers as read: each buffer, or the error that ended the reading.
type Chunk = Vec<Result<StoredBuffer, String>>;

/// Reads the events of `reader` (after its logfile header) that pass `filter`, at most `limit`
/// of them, as [`EventColumns`] record batches in file order, decoded on `threads` threads
/// (at least one); see the [module](self) documentation.
///
/// `on_batch` takes each batch (never an empty one) on the caller's thread, in file order;
/// returning `false` stops the reading. `on_problem` takes each error met before the limit,
/// in file order with the batches: what `etwc etl` reports for it.
#[allow(clippy::too_many_arguments)]
pub fn record_batches<R: Read + Send>(
    reader: &mut EtlReader<R>,
    registry: &Registry,
    filter: &Filter,
    clock: Option<TraceClock>,
    limit: Option<u64>,
    threads: usize,
    mut on_batch: impl FnMut(RecordBatch) -> bool,
    mut on_problem: impl FnMut(String),
) {
    if limit == Some(0) {
        return;
    }
    let threads = threads.max(1);
    let buffer_size = reader.buffer_size();
    let stop = AtomicBool::new(false);
    let (chunks, to_decode) = sync_channel::<(usize, Chunk)>(threads.saturating_mul(2));
    let to_decode = Mutex::new(to_decode);
    // At most `threads` decoded chunks wait for the caller: a thread that decodes faster than
    // the caller takes the batches (writing them) waits, rather than holding more batches.
    let (results, decoded) = sync_channel::<(usize, Vec<Piece>)>(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (to_decode, results, stop) = (&to_decode, results.clone(), &stop);
            scope.spawn(move || {
                let mut columns = EventColumns::new();
                let mut scratch = Vec::new();
                loop {
                    let next = match to_decode.lock() {
                        Ok(receiver) => receiver.recv(),
                        Err(_) => break,
                    };
                    let Ok((number, chunk)) = next else { break };
                    if stop.load(Ordering::Relaxed) {
                        // Drain the queue, so that the reading thread is not left waiting.
                        continue;
                    }
                    let pieces = decode_chunk(
                        chunk,
                        &mut scratch,
                        &mut columns,
                        buffer_size,
                        registry,
                        filter,
                        clock,
                        limit,
                    );
                    // Once the caller has stopped nobody receives: the loop goes on draining
                    // the queue until the reading thread ends it.
                    let _ = results.send((number, pieces));
                }
            });
        }
        drop(results);
        let stop_reading = &stop;
        scope.spawn(move || {
            // Under a limit, chunks of 1, 2, 4... buffers: a small limit reads little.
            let mut size = if limit.is_some() { 1 } else { CHUNK_BUFFERS };
            let mut number = 0usize;
            let mut ended = false;
            while !ended && !stop_reading.load(Ordering::Relaxed) {
                let mut chunk: Chunk = Vec::with_capacity(size);
                while chunk.len() < size {
                    let mut stored = StoredBuffer::new();
                    match reader.read_stored_buffer(&mut stored) {
                        None => {
                            ended = true;
                            break;
                        }
                        Some(Ok(())) => chunk.push(Ok(stored)),
                        Some(Err(error)) => {
                            chunk.push(Err(error.to_string()));
                            ended = true;
                            break;
                        }
                    }
                }
                if chunk.is_empty() || chunks.send((number, chunk)).is_err() {
                    break;
                }
                number = number.saturating_add(1);
                size = size.saturating_mul(2).min(CHUNK_BUFFERS);
            }
            // Dropping `chunks` ends the decoding threads once they have emptied the queue.
        });
        let mut waiting = BTreeMap::new();
        let mut next = 0usize;
        let mut left = limit;
        'results: for (number, pieces) in decoded.iter() {
            waiting.insert(number, pieces);
            while let Some(pieces) = waiting.remove(&next) {
                next = next.saturating_add(1);
                for piece in pieces {
                    match piece {
                        Piece::Problem(problem) => on_problem(problem),
                        Piece::Batch(batch) => {
                            let rows = u64::try_from(batch.num_rows()).unwrap_or(u64::MAX);
                            let (batch, full) = match left {
                                Some(left) if rows >= left => (
                                    batch.slice(0, usize::try_from(left).unwrap_or(usize::MAX)),
                                    true,
                                ),
                                _ => (batch, false),
                            };
                            if let Some(left) = &mut left {
                                *left = left.saturating_sub(rows);
                            }
                            if !on_batch(batch) || full {
                                break 'results;
                            }
                        }
                    }
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        drop(decoded);
    });
}

/// The events of `chunk` that pass `filter`, at most `limit` of them, as record batches of at
/// most [`BATCH_ROWS`] rows, with the errors met, in file order.
#[allow(clippy::too_many_arguments)]
fn decode_chunk(
    chunk: Chunk,
    scratch: &mut Vec<u8>,
    columns: &mut EventColumns,
    buffer_size: usize,
    registry: &Registry,
    filter: &Filter,
    clock: Option<TraceClock>,
    limit: Option<u64>,
) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut left = limit.unwrap_or(u64::MAX);
    'buffers: for stored in chunk {
        let stored = match stored {
            Ok(stored) => stored,
            Err(problem) => {
                flush(columns, &mut pieces);
                pieces.push(Piece::Problem(problem));
                break;
            }
        };
        let buffer = match stored.decode_growing(scratch, buffer_size) {
            Ok(buffer) => buffer,
            Err(error) => {
                flush(columns, &mut pieces);
                pieces.push(Piece::Problem(error.to_string()));
                continue;
            }
        };
        let index = buffer.position.index;
        for event in buffer.events() {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    flush(columns, &mut pieces);
                    pieces.push(Piece::Problem(error.to_string()));
                    break;
                }
            };
            let filetime = filetime_of(&event, clock);
            let decoded = DecodedEvent::new(index, buffer.processor, event, filetime, registry);
            if !filter.matches(&decoded) {
                continue;
            }
            columns.push(&decoded);
            left = left.saturating_sub(1);
            if left == 0 {
                break 'buffers;
            }
            if columns.len() >= BATCH_ROWS {
                flush(columns, &mut pieces);
            }
        }
    }
    flush(columns, &mut pieces);
    pieces
}

/// The rows of `columns`, if any, as the next batch of `pieces`, or why they could not be
/// made into one.
fn flush(columns: &mut EventColumns, pieces: &mut Vec<Piece>) {
    if !columns.is_empty() {
        let rows = columns.len();
        pieces.push(match columns.try_finish() {
            Ok(batch) => Piece::Batch(batch),
            Err(error) => Piece::Problem(format!(
                "cannot make a record batch of {rows} events: {error}"
            )),
        });
    }
}
