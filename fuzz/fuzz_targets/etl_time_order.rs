//! .etl files built from the input to reach every path of the time-ordered walk
//! (`EtlReader::for_each_event_in_time_order`): many processors, some beyond the logfile
//! header's `NumberOfProcessors`, buffers whose `SequenceNumber` order is not file order,
//! compressed buffers, buffers a few dozen bytes long that decode to most of `BufferSize`, a
//! memory limit that leaves some out.
//!
//! Input: a control byte (bit 0: a 64-bit logger; bit 1: each processor's timestamps sorted
//! along its buffers' `SequenceNumber` order; bit 2: a memory limit, the `u32` of bytes 3..7;
//! bit 3: processors as `ProcessorIndex`, with `ETW_BUFFER_FLAG_PROC_INDEX`, else as
//! `ProcessorNumber`), `NumberOfProcessors` (a byte), `BufferSize` in KiB (1 + the byte % 64),
//! the limit, then one group per buffer (at most 64): its processor, its `SequenceNumber` (an
//! `i8`), its number of events (the byte % 16), how it is stored (bit 0: compressed, as
//! literals; bit 1: compressed, one event repeated to (the byte >> 2) + 1 KiB; bit 2: an
//! `Offset` beyond `BufferSize`), then a `u16` timestamp (or step) per event. Missing bytes
//! read as zeros.
//!
//! The events are `EVENT_TRACE_HEADER`s of 0x30 bytes (FULL_HEADER32 0x13 or FULL_HEADER64
//! 0x14, `MarkerFlags` 0xC0, `TimeStamp` @0x10: LAYOUTS.md); a compressed buffer is an MS-XCA
//! Plain LZ77 stream (section 2.4: flag words of 32 bits, 1 for a match, literals, a match's
//! `(distance - 1) << 3 | length - 3` and its longer length fields); the header buffer is the
//! library's own (`EtlHeader::write_first_buffer`), which the `etl_reader` target checks.
//!
//! Laws: the file-order walk (`EtlReader::next_buffer`, which `etl_stream` checks against
//! `EtlFile`) gives every event built, in every buffer built to decode; and the time-ordered
//! walk gives what `etw_classic_fuzz::time_order` says from that walk (processors beyond the
//! count and buffers past the limit named and left out, every other event and error once, each
//! processor's events in its chain's order, merged by timestamp when the chains are sorted,
//! memory within the documented bound).
#![no_main]

use std::collections::BTreeMap;
use std::io::Cursor;

use etw_classic::{Bitness, EtlHeader, EtlReader, EtlReaderError};
use etw_classic_fuzz::time_order::{self, CountingAllocator, Walked, WalkedBuffer, WalkedEvent};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const BUFFER_HEADER: usize = 0x48;
const EVENT_LEN: usize = 0x30;
const PROC_INDEX: u16 = 0x20;
const COMPRESSED: u16 = 0x40;

/// The input's bytes, zeros after its end.
struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let byte = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn left(&self) -> bool {
        self.at < self.bytes.len()
    }
}

/// One data buffer as built.
struct Planned {
    processor: u8,
    sequence_number: i64,
    steps: Vec<u16>,
    how: u8,
    /// The events' timestamps, once assigned.
    timestamps: Vec<i64>,
}

/// An `EVENT_TRACE_HEADER` of 0x30 bytes with `timestamp`.
fn event(bitness: Bitness, timestamp: i64) -> [u8; EVENT_LEN] {
    let mut event = [0u8; EVENT_LEN];
    event[0..2].copy_from_slice(&(EVENT_LEN as u16).to_le_bytes());
    event[2] = if bitness == Bitness::Bits64 {
        0x14
    } else {
        0x13
    };
    event[3] = 0xC0;
    event[0x10..0x18].copy_from_slice(&timestamp.to_le_bytes());
    event
}

/// A Plain LZ77 stream of `items`: a literal byte, or a match (distance, length).
fn plain_lz77(items: &[Result<u8, (usize, usize)>]) -> Vec<u8> {
    let mut out = Vec::new();
    for group in items.chunks(32) {
        let mut flags = 0u32;
        for (bit, item) in group.iter().enumerate() {
            if item.is_err() {
                flags |= 1 << (31 - bit);
            }
        }
        // The bits after the last item: matches, where the decoder stops at the input's end.
        for bit in group.len()..32 {
            flags |= 1 << (31 - bit);
        }
        out.extend_from_slice(&flags.to_le_bytes());
        for item in group {
            match *item {
                Ok(byte) => out.push(byte),
                Err((distance, length)) => {
                    let rest = length - 3;
                    let token = ((distance - 1) << 3 | rest.min(7)) as u16;
                    out.extend_from_slice(&token.to_le_bytes());
                    if rest >= 7 {
                        out.push((rest - 7).min(15) as u8);
                        if rest - 7 >= 15 {
                            if rest - 22 < 255 {
                                out.push((rest - 22) as u8);
                            } else {
                                out.push(255);
                                if rest < 1 << 16 {
                                    out.extend_from_slice(&(rest as u16).to_le_bytes());
                                } else {
                                    out.extend_from_slice(&0u16.to_le_bytes());
                                    out.extend_from_slice(&(rest as u32).to_le_bytes());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input { bytes: data, at: 0 };
    let control = input.byte();
    let bitness = if control & 1 != 0 {
        Bitness::Bits64
    } else {
        Bitness::Bits32
    };
    let sorted = control & 2 != 0;
    let proc_index = control & 8 != 0;
    let number_of_processors = u32::from(input.byte());
    let buffer_size = 1024 * (1 + usize::from(input.byte() % 64));
    let limit = input.u32();
    let limit = (control & 4 != 0).then_some(limit as usize);

    let mut planned = Vec::new();
    while input.left() && planned.len() < 64 {
        let processor = input.byte();
        let sequence_number = i64::from(input.byte() as i8);
        let count = input.byte() % 16;
        let how = input.byte();
        let steps = (0..count).map(|_| input.u16()).collect();
        planned.push(Planned {
            processor,
            sequence_number,
            steps,
            how,
            timestamps: Vec::new(),
        });
    }
    // Timestamps: the steps summed along each processor's chain (SequenceNumber, then file
    // order) when sorted; else the values themselves.
    let mut chains = BTreeMap::<u8, Vec<usize>>::new();
    for (index, buffer) in planned.iter().enumerate() {
        chains.entry(buffer.processor).or_default().push(index);
    }
    for chain in chains.values_mut() {
        chain.sort_by_key(|&index| (planned[index].sequence_number, index));
        let mut time = 0i64;
        for &index in chain.iter() {
            let buffer = &mut planned[index];
            buffer.timestamps = buffer
                .steps
                .iter()
                .map(|&step| {
                    if sorted {
                        time += i64::from(step);
                        time
                    } else {
                        i64::from(step)
                    }
                })
                .collect();
        }
    }

    // The file.
    let mut header = EtlHeader::new(bitness, buffer_size as u32);
    header.number_of_processors = number_of_processors;
    header.buffers_written = 1 + planned.len() as u32;
    header.cpu_speed_in_mhz = 1;
    let mut file = vec![0u8; buffer_size];
    header.write_first_buffer(&mut file).unwrap();
    // What each buffer's events must be: `None` for one built not to decode.
    let mut built: Vec<Option<Vec<u8>>> = vec![None];
    let mut first_events = file[BUFFER_HEADER..].to_vec();
    first_events.truncate(
        u32::from_le_bytes(file[0x30..0x34].try_into().unwrap()) as usize - BUFFER_HEADER,
    );
    built[0] = Some(first_events);
    for buffer in &planned {
        let mut events: Vec<u8> = buffer
            .timestamps
            .iter()
            .flat_map(|&timestamp| event(bitness, timestamp))
            .collect();
        let (payload, flag) = if buffer.how & 2 != 0 {
            // One event repeated: a match at its own length.
            let one = event(bitness, buffer.timestamps.first().copied().unwrap_or(0));
            let len = (((usize::from(buffer.how >> 2) + 1) * 1024) / EVENT_LEN) * EVENT_LEN;
            let mut items: Vec<Result<u8, (usize, usize)>> = one.iter().map(|&b| Ok(b)).collect();
            items.push(Err((EVENT_LEN, len - EVENT_LEN)));
            events = one.iter().copied().cycle().take(len).collect();
            (plain_lz77(&items), COMPRESSED)
        } else if buffer.how & 1 != 0 {
            let items: Vec<Result<u8, (usize, usize)>> = events.iter().map(|&b| Ok(b)).collect();
            (plain_lz77(&items), COMPRESSED)
        } else {
            (events.clone(), 0)
        };
        let mut offset = BUFFER_HEADER + events.len();
        if buffer.how & 4 != 0 {
            offset = BUFFER_HEADER + buffer_size + 8;
        }
        let decodes =
            flag == 0 && buffer.how & 4 == 0 || flag != 0 && offset - BUFFER_HEADER <= buffer_size;
        // A compressed buffer is stored as its header and stream alone (EVENT-HEADERS.md
        // section 8: BufferSize = 0x48 + the compressed length); a plain one up to a multiple
        // of 8.
        let stored_len = if flag == 0 {
            (BUFFER_HEADER + payload.len()).next_multiple_of(8)
        } else {
            BUFFER_HEADER + payload.len()
        };
        let decodes = decodes && (flag != 0 || offset <= stored_len);
        let mut bytes = vec![0u8; stored_len];
        bytes[0..4].copy_from_slice(&(stored_len as u32).to_le_bytes());
        bytes[4..8].copy_from_slice(&(offset as u32).to_le_bytes());
        bytes[0x18..0x20].copy_from_slice(&buffer.sequence_number.to_le_bytes());
        if proc_index {
            bytes[0x28..0x2A].copy_from_slice(&u16::from(buffer.processor).to_le_bytes());
        } else {
            bytes[0x28] = buffer.processor;
        }
        bytes[0x2C..0x30].copy_from_slice(&3u32.to_le_bytes());
        bytes[0x30..0x34].copy_from_slice(&(offset as u32).to_le_bytes());
        let flags = flag | if proc_index { PROC_INDEX } else { 0 };
        bytes[0x34..0x36].copy_from_slice(&flags.to_le_bytes());
        bytes[BUFFER_HEADER..BUFFER_HEADER + payload.len()].copy_from_slice(&payload);
        file.extend_from_slice(&bytes);
        built.push(decodes.then_some(events));
    }

    // The file-order walk, and what was built.
    let mut reader = EtlReader::new(Cursor::new(&file)).expect("a header buffer of the writer");
    let mut walked = Walked {
        buffer_size: reader.buffer_size(),
        ..Walked::default()
    };
    let mut stored_offset = 0;
    let mut index = 0;
    while let Some(buffer) = reader.next_buffer() {
        let stored_len =
            u32::from_le_bytes(file[stored_offset..stored_offset + 4].try_into().unwrap()) as usize;
        match buffer {
            Ok(buffer) => {
                assert_eq!(buffer.position.index, index);
                assert_eq!(buffer.position.file_offset, stored_offset);
                let events = buffer.trace_buffer.event_bytes();
                assert_eq!(
                    Some(events),
                    built[index].as_deref(),
                    "buffer {index}: not the events built"
                );
                walked.buffers.push(WalkedBuffer {
                    position: buffer.position,
                    stored_len,
                    decoded_len: Some(events.len()),
                });
                for event in buffer.events() {
                    match event {
                        Ok(event) => walked.events.push(WalkedEvent {
                            index,
                            offset: event.offset,
                            bytes: event.bytes.to_vec(),
                            timestamp: event.timestamp(),
                        }),
                        Err(error) => walked.errors.push(error),
                    }
                }
            }
            Err(EtlReaderError::Read(error)) => {
                assert!(
                    built[index].is_none(),
                    "buffer {index} built to decode: {error}"
                );
                let position = error.buffer.unwrap();
                assert_eq!(
                    (position.index, position.file_offset),
                    (index, stored_offset)
                );
                walked.buffers.push(WalkedBuffer {
                    position,
                    stored_len,
                    decoded_len: None,
                });
                walked.errors.push(error);
            }
            Err(other) => panic!("buffer {index}: {other}"),
        }
        stored_offset += stored_len;
        index += 1;
    }
    assert_eq!(index, built.len(), "every buffer built is read");
    time_order::check_time_order(&file, &walked, limit);
});
