//! The buffers of an .etl file decompressed on several threads and handed out in file order:
//! the reading that a pass over a whole file shares ([`Registry::learn_reader`]'s first pass,
//! `etwc schemas`' count), when what is done with each buffer's events must follow the file's
//! order but decompressing them need not.
//!
//! [`for_each_decoded_buffer`] reads the stored buffers on the caller's thread and hands them
//! to `threads` threads, which decompress each and run `work` over it; the caller's thread puts
//! them back in file order and hands each to `take`. The buffers go in groups of
//! [`GROUP_BUFFERS`]; at most [`GROUPS_PER_THREAD`] groups per thread are read and not yet
//! taken, and their memory is used again, whatever the file's length.
//!
//! [`Registry::learn_reader`]: crate::registry::Registry::learn_reader

use std::collections::BTreeMap;
use std::io::Read;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::Mutex;

use etw_classic::read::{DecodedBuffer, ReaderBuffer, StoredBuffer};
use etw_classic::{EtlReader, EtlReaderError};

/// The buffers a thread is handed at a time: a few, so that handing them over costs little
/// beside decompressing them.
pub const GROUP_BUFFERS: usize = 4;

/// The groups read and not yet taken, at most, for each decoding thread.
pub const GROUPS_PER_THREAD: usize = 2;

/// The threads a pass uses: as many as the machine runs at once.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// Decompresses the buffers of `reader` (after its logfile header) on `threads` threads (at
/// least one), runs `work` on each there, and hands each with what `work` made of it to `take`
/// on the caller's thread, in file order (see the [module](self) documentation).
///
/// As [`EtlReader::next_buffer`] does: an error reading the file is handed to `take` and ends
/// the reading; a buffer that cannot be decoded is handed to `take` as its error, and the
/// buffers after it follow. `take` returning `false` stops the pass.
pub fn for_each_decoded_buffer<R: Read, T: Send>(
    reader: &mut EtlReader<R>,
    threads: usize,
    work: impl Fn(&ReaderBuffer<'_>) -> T + Sync,
    mut take: impl FnMut(Result<(ReaderBuffer<'_>, T), EtlReaderError>) -> bool,
) {
    let threads = threads.max(1);
    let in_flight = threads.saturating_mul(GROUPS_PER_THREAD);
    let buffer_size = reader.buffer_size();
    let stop = AtomicBool::new(false);
    let (jobs, to_decode) = sync_channel::<(usize, Vec<Stored>)>(in_flight);
    let to_decode = Mutex::new(to_decode);
    let (results, decoded) = channel::<(usize, std::thread::Result<Vec<Decoded<T>>>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (to_decode, results, stop, work) = (&to_decode, results.clone(), &stop, &work);
            scope.spawn(move || loop {
                let next = match to_decode.lock() {
                    Ok(receiver) => receiver.recv(),
                    Err(_) => break,
                };
                let Ok((number, group)) = next else {
                    break;
                };
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                // A panic of `work` goes to the caller's thread, which raises it again.
                let group = catch_unwind(AssertUnwindSafe(|| {
                    group
                        .into_iter()
                        .map(|(stored, scratch)| decode(stored, scratch, buffer_size, work))
                        .collect()
                }));
                let _ = results.send((number, group));
            });
        }
        drop(results);
        // The groups decoded ahead of the next one to take, by number; the memory to read into.
        let mut waiting = BTreeMap::new();
        let mut spare: Vec<(StoredBuffer, Vec<u8>)> = Vec::new();
        let (mut sent, mut taken) = (0usize, 0usize);
        let mut ended = false;
        'groups: loop {
            // Read while fewer than `in_flight` groups are out, then take what has come back.
            while !ended && sent.saturating_sub(taken) < in_flight {
                let group = read_group(reader, &mut spare, &mut ended);
                if group.is_empty() || jobs.send((sent, group)).is_err() {
                    ended = true;
                    break;
                }
                sent = sent.saturating_add(1);
            }
            if taken == sent {
                break;
            }
            let Ok((number, group)) = decoded.recv() else {
                break;
            };
            match group {
                Ok(group) => waiting.insert(number, group),
                Err(panic) => resume_unwind(panic),
            };
            while let Some(group) = waiting.remove(&taken) {
                taken = taken.saturating_add(1);
                for buffer in group {
                    let go_on = match buffer {
                        Ok((buffer, made)) => {
                            let go_on = take(Ok((buffer.buffer(), made)));
                            spare.push(buffer.into_parts());
                            go_on
                        }
                        Err(error) => take(Err(error)),
                    };
                    if !go_on {
                        stop.store(true, Ordering::Relaxed);
                        break 'groups;
                    }
                }
            }
        }
        // Dropping the queue ends the threads once they have emptied it.
        drop(jobs);
    });
}

/// The next [`GROUP_BUFFERS`] stored buffers at most, each read into memory from `spare` while
/// it has some; the error that ends the reading last (`ended` is set then, or at the end of the
/// file).
fn read_group<R: Read>(
    reader: &mut EtlReader<R>,
    spare: &mut Vec<(StoredBuffer, Vec<u8>)>,
    ended: &mut bool,
) -> Vec<Stored> {
    let mut group = Vec::with_capacity(GROUP_BUFFERS);
    while !*ended && group.len() < GROUP_BUFFERS {
        let (mut stored, scratch) = spare.pop().unwrap_or_default();
        match reader.read_stored_buffer(&mut stored) {
            None => *ended = true,
            Some(Ok(())) => group.push((Ok(stored), scratch)),
            Some(Err(error)) => {
                *ended = true;
                group.push((Err(error), scratch));
            }
        }
    }
    group
}

/// A buffer decoded, with what `work` made of it; or why it could not be read or decoded.
type Decoded<T> = Result<(DecodedBuffer, T), EtlReaderError>;

/// A stored buffer as read, with the memory to decompress it into.
type Stored = (Result<StoredBuffer, EtlReaderError>, Vec<u8>);

/// A stored buffer decoded into `scratch`, with what `work` makes of it.
fn decode<T>(
    stored: Result<StoredBuffer, EtlReaderError>,
    scratch: Vec<u8>,
    buffer_size: usize,
    work: &impl Fn(&ReaderBuffer<'_>) -> T,
) -> Decoded<T> {
    let decoded = stored?.into_decoded(scratch, buffer_size)?;
    let made = work(&decoded.buffer());
    Ok((decoded, made))
}
