//! `EtlWriter` (library feature `std`) given arbitrary trace buffers, some of the wrong size,
//! then the file it wrote read back by `EtlFile`: every buffer it took is there, byte for byte,
//! in the order given, with the events it was built with; every buffer it refused was refused
//! with the documented error and left no trace in the file.
//!
//! The input is a program: a control byte (bit 0: a 32-bit logger; bits 1-2: `BufferSize`
//! 512, 1024, 2048 or 4096; bit 3: the QPC clock rather than system time), then steps, each an
//! opcode byte and what it takes:
//! - 0, 1: a buffer of events: an event count (up to 7), then per event a header type byte
//!   (bit 0: FULL_HEADER64, else FULL_HEADER32) and a data length, and the data; the buffer's
//!   `SequenceNumber` and `TimeStamp` from the next bytes; its unused bytes filled with 0xFF;
//! - 2: a buffer of the wrong length, or whose header says another `BufferSize` (refused);
//! - 3: a buffer of whatever bytes come next, of the right length, whose first four bytes say
//!   `BufferSize` (taken unchanged: the writer does not walk the events).
//!
//! The buffers are laid out from the published layouts (LAYOUTS.md: `WMI_BUFFER_HEADER`'s
//! `BufferSize` at 0x00, `TimeStamp` at 0x10, `SequenceNumber` at 0x18, `Offset` at 0x30; an
//! `EVENT_TRACE_HEADER` of 0x30 bytes, `Size` at 0x00, `HeaderType` at 0x02, `MarkerFlags` 0xC0
//! at 0x03, `TimeStamp` at 0x10; events 8-byte aligned), with the target's own byte writes.
#![no_main]

use std::io::Cursor;

use etw_classic::{
    Bitness, ClockType, EtlFile, EtlHeader, EtlWriter, EtlWriterError, EventKind, TraceBuffer,
};
use libfuzzer_sys::fuzz_target;

/// The bytes of the program, read one by one; zero once it is over.
struct Program<'a>(&'a [u8]);

impl Program<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let (taken, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        let mut bytes = taken.to_vec();
        bytes.resize(n, 0);
        bytes
    }

    fn i64(&mut self) -> i64 {
        i64::from_le_bytes(self.bytes(8).try_into().unwrap())
    }

    fn is_over(&self) -> bool {
        self.0.is_empty()
    }
}

/// An event the target put in a buffer.
#[derive(Debug, PartialEq)]
struct Built {
    /// From the start of the events (0x48 into the buffer).
    offset: usize,
    header_type: u8,
    size: u16,
    data: Vec<u8>,
}

/// A buffer the writer took: its bytes, and its events when the target built them.
struct Taken {
    bytes: Vec<u8>,
    events: Option<Vec<Built>>,
    timestamp: i64,
}

const HEADER_LEN: usize = 0x48;
const EVENT_HEADER_LEN: usize = 0x30;

fn buffer_header(bytes: &mut [u8], size: u32, timestamp: i64, sequence: i64, offset: u32) {
    bytes[0x00..0x04].copy_from_slice(&size.to_le_bytes());
    bytes[0x10..0x18].copy_from_slice(&timestamp.to_le_bytes());
    bytes[0x18..0x20].copy_from_slice(&sequence.to_le_bytes());
    bytes[0x30..0x34].copy_from_slice(&offset.to_le_bytes());
}

fuzz_target!(|input: &[u8]| {
    let mut program = Program(input);
    let control = program.byte();
    let bitness = if control & 1 == 1 {
        Bitness::Bits32
    } else {
        Bitness::Bits64
    };
    let size: usize = [512, 1024, 2048, 4096][usize::from((control >> 1) & 3)];
    let size_u32 = u32::try_from(size).unwrap();
    let mut header = EtlHeader::new(bitness, size_u32);
    if control & 8 != 0 {
        header.clock_type = ClockType::QUERY_PERFORMANCE_COUNTER;
        header.perf_freq = 10_000_000;
    }
    let qpc = control & 8 != 0;
    let mut writer = EtlWriter::new(Cursor::new(Vec::new()), header).unwrap();
    let mut taken: Vec<Taken> = Vec::new();

    while !program.is_over() {
        match program.byte() % 4 {
            0 | 1 => {
                let mut bytes = vec![0xFF; size];
                let mut events = Vec::new();
                let mut at = HEADER_LEN;
                for _ in 0..program.byte() % 8 {
                    let full64 = program.byte() & 1 == 1;
                    let data_len = usize::from(program.byte());
                    let data = program.bytes(data_len);
                    let event_size = EVENT_HEADER_LEN + data.len();
                    let padded = event_size.div_ceil(8) * 8;
                    if at + padded > size {
                        break;
                    }
                    let header_type = if full64 { 0x14 } else { 0x0A };
                    let event = &mut bytes[at..at + padded];
                    event.fill(0);
                    let size16 = u16::try_from(event_size).unwrap();
                    event[0x00..0x02].copy_from_slice(&size16.to_le_bytes());
                    event[0x02] = header_type;
                    event[0x03] = 0xC0;
                    event[0x10..0x18].copy_from_slice(&i64::from(size16).to_le_bytes());
                    event[EVENT_HEADER_LEN..event_size].copy_from_slice(&data);
                    events.push(Built {
                        offset: at - HEADER_LEN,
                        header_type,
                        size: size16,
                        data,
                    });
                    at += padded;
                }
                let (timestamp, sequence) = (program.i64(), program.i64());
                bytes[..HEADER_LEN].fill(0);
                buffer_header(
                    &mut bytes,
                    size_u32,
                    timestamp,
                    sequence,
                    u32::try_from(at).unwrap(),
                );
                writer.write_buffer(&bytes).unwrap();
                taken.push(Taken {
                    bytes,
                    events: Some(events),
                    timestamp,
                });
            }
            2 => {
                let wrong_length = program.byte() & 1 == 1;
                let mut claimed = size_u32;
                let length = if wrong_length {
                    let delta = usize::from(program.byte()) + 1;
                    if program.byte() & 1 == 1 {
                        size + delta
                    } else {
                        size.saturating_sub(delta)
                    }
                } else {
                    claimed = u32::from(program.byte()) * 8 + 80;
                    if claimed == size_u32 {
                        claimed += 8;
                    }
                    size
                };
                let mut bytes = program.bytes(length);
                if bytes.len() >= 4 {
                    bytes[..4].copy_from_slice(&claimed.to_le_bytes());
                }
                let before = writer.get_ref().get_ref().len();
                match writer.write_buffer(&bytes) {
                    Err(EtlWriterError::BufferSizeMismatch {
                        index,
                        buffer_size,
                        length: reported,
                        header_buffer_size,
                    }) => {
                        assert_eq!(index, u32::try_from(taken.len()).unwrap() + 1);
                        assert_eq!(buffer_size, size_u32);
                        assert_eq!(reported, bytes.len());
                        let header = (bytes.len() >= HEADER_LEN).then_some(claimed);
                        assert_eq!(header_buffer_size, header);
                    }
                    other => panic!("a buffer of {length} bytes claiming {claimed}: {other:?}"),
                }
                assert_eq!(writer.get_ref().get_ref().len(), before, "nothing written");
            }
            _ => {
                let mut bytes = program.bytes(size);
                bytes[..4].copy_from_slice(&size_u32.to_le_bytes());
                writer.write_buffer(&bytes).unwrap();
                let timestamp = i64::from_le_bytes(bytes[0x10..0x18].try_into().unwrap());
                taken.push(Taken {
                    bytes,
                    events: None,
                    timestamp,
                });
            }
        }
        assert_eq!(writer.trace_buffers(), u32::try_from(taken.len()).unwrap());
    }

    let file = writer.finish().unwrap().into_inner();
    assert_eq!(file.len(), size * (taken.len() + 1));
    let etl = EtlFile::parse(&file).unwrap();
    let logfile = etl.logfile_header;
    assert_eq!(logfile.buffer_size(), size_u32);
    assert_eq!(
        logfile.buffers_written(),
        u32::try_from(taken.len()).unwrap() + 1
    );
    assert_eq!(etl.bitness(), bitness);
    // "EndTime, when left 0 with the SYSTEM_TIME clock: the latest TimeStamp of the buffers
    // written" (EtlWriter::finish).
    let latest = taken.iter().map(|buffer| buffer.timestamp).max();
    let end_time = if qpc { 0 } else { latest.unwrap_or(0) };
    assert_eq!(logfile.end_time(), end_time);

    let mut read = 0;
    for (buffer, written) in etl.buffers().skip(1).zip(&taken) {
        let buffer = buffer.unwrap();
        read += 1;
        assert_eq!(buffer.index, read);
        assert_eq!(buffer.file_offset, read * size);
        assert_eq!(buffer.bytes, written.bytes.as_slice());
        let Some(events) = &written.events else {
            continue;
        };
        let trace_buffer = TraceBuffer::parse(buffer.bytes).unwrap();
        let mut walked = Vec::new();
        for event in trace_buffer.events() {
            let event = event.unwrap();
            let EventKind::Full { header, data } = event.kind() else {
                panic!("event at {}: {:?}", event.offset, event.kind());
            };
            assert_eq!(header.timestamp, i64::from(event.size));
            walked.push(Built {
                offset: event.offset,
                header_type: event.header_type.0,
                size: event.size,
                data: data.to_vec(),
            });
        }
        assert_eq!(&walked, events);
    }
    assert_eq!(read, taken.len(), "every buffer read back");
    assert!(etl.buffers().nth(taken.len() + 1).is_none());
});
