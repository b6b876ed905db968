//! The streaming reader (`EtlReader`, feature `std`) against the in-memory reader (`EtlFile`):
//! the same buffers and events on every PerfView trace, every event before a truncation or a
//! corrupt buffer size and then one error, files that are not .etl files named by their first
//! bytes, a `BuffersWritten` of 0, and flat memory for a hostile `BufferSize`.
//!
//! Traces are read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`; a missing trace is
//! reported and skipped, or fails the test with `ETW_REQUIRE_TRACES=1` (see
//! `tests/common/mod.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Cursor, Read};

use etw_classic::{
    read::{BufferPosition, StoredBuffer, MAX_BUFFER_SIZE},
    EtlFile, EtlReader, EtlReaderError, ReadError, ReadErrorKind,
};

mod common;

/// The PerfView traces, smallest first.
const TRACES: [&str; 5] = [
    "SelfDescribingSingleEvent.etl",
    "primitive-types.etl",
    "gcevents.etl",
    "net.4.5.2.x86.etl",
    "net.4.5.2.x64.etl",
];

/// Where `BuffersWritten` lies in an .etl file: after the first buffer's 0x48-byte header, the
/// logfile header event's 0x20-byte `SYSTEM_TRACE_HEADER`, at 0x24 of `TRACE_LOGFILE_HEADER`.
const BUFFERS_WRITTEN_AT: usize = 0x48 + 0x20 + 0x24;

/// One event as both readers name it: buffer index, the buffer's file offset, the event's
/// offset in the buffer's events, and its bytes.
type Seen = (usize, usize, usize, Vec<u8>);

/// Every event `EtlFile` finds in `bytes`, and the errors it meets on the way (the buffer walk
/// goes on after an error inside a buffer, as the streaming reader does).
fn in_memory(bytes: &[u8]) -> Result<(Vec<Seen>, Vec<ReadError>), ReadError> {
    let file = EtlFile::parse(bytes)?;
    let mut scratch = vec![0u8; file.buffer_size()];
    let (mut seen, mut errors) = (Vec::new(), Vec::new());
    for buffer in file.buffers() {
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(error) => {
                errors.push(error);
                break;
            }
        };
        let events = match buffer.trace_buffer(&mut scratch) {
            Ok(events) => events,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        for event in events.events() {
            match event {
                Ok(event) => seen.push((
                    buffer.index,
                    buffer.file_offset,
                    event.offset,
                    event.bytes.to_vec(),
                )),
                Err(error) => {
                    errors.push(error);
                    break;
                }
            }
        }
    }
    Ok((seen, errors))
}

/// Walks `EtlFile` over `bytes` and the streaming reader side by side: the same buffers at the
/// same positions, with the same events and the same errors, in the same order. Returns the
/// number of events, and the error the reader adds once `EtlFile` has ended, if any.
fn lockstep<R: Read>(bytes: &[u8], reader: &mut EtlReader<R>) -> (usize, Option<EtlReaderError>) {
    let file = EtlFile::parse(bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut events = 0;
    for buffer in file.buffers() {
        let streamed = reader.next_buffer().expect("a buffer EtlFile finds");
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(error) => {
                assert_eq!(read_error(&streamed.unwrap_err()), error);
                break;
            }
        };
        match (buffer.trace_buffer(&mut scratch), streamed) {
            (Ok(expected), Ok(streamed)) => {
                assert_eq!(streamed.position, buffer.position());
                assert_eq!(streamed.header(), buffer.header);
                assert!(streamed.events().eq(expected.events()));
                events += expected.events().filter(Result::is_ok).count();
            }
            (Err(expected), Err(streamed)) => assert_eq!(read_error(&streamed), expected),
            (expected, streamed) => panic!("EtlFile: {expected:?}, EtlReader: {streamed:?}"),
        }
    }
    let last = reader
        .next_buffer()
        .map(|item| item.map(|_| ()).unwrap_err());
    assert!(reader.is_done());
    assert!(reader.next_buffer().is_none(), "an item after the end");
    (events, last)
}

/// Every event the streaming reader finds, and its errors; checks that it is done (and stays
/// done) after its last item.
fn streamed<R: Read>(reader: &mut EtlReader<R>) -> (Vec<Seen>, Vec<EtlReaderError>) {
    let (mut seen, mut errors) = (Vec::new(), Vec::new());
    while let Some(buffer) = reader.next_buffer() {
        let buffer = match buffer {
            Ok(buffer) => buffer,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let BufferPosition { index, file_offset } = buffer.position;
        for event in buffer.events() {
            match event {
                Ok(event) => seen.push((index, file_offset, event.offset, event.bytes.to_vec())),
                Err(error) => {
                    errors.push(EtlReaderError::Read(error));
                    break;
                }
            }
        }
    }
    assert!(reader.is_done());
    assert!(reader.next_buffer().is_none(), "an item after the end");
    assert!(reader.next_buffer().is_none(), "an item after the end");
    (seen, errors)
}

/// The reader's error as a `ReadError`; panics for the other kinds.
fn read_error(error: &EtlReaderError) -> ReadError {
    match error {
        EtlReaderError::Read(error) => *error,
        other => panic!("a ReadError expected, found {other:?}"),
    }
}

#[test]
fn every_trace_streams_the_events_of_the_whole_file() {
    for name in TRACES {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(reader.first_buffer(), file.first_buffer, "{name}");
        assert_eq!(reader.system_header(), file.system_header, "{name}");
        assert_eq!(reader.logfile_header(), file.logfile_header, "{name}");
        assert_eq!(reader.names(), file.names, "{name}");
        assert_eq!(reader.bitness(), file.bitness(), "{name}");
        assert_eq!(reader.buffer_size(), file.buffer_size(), "{name}");
        assert!(!reader.buffers_written_was_zero(), "{name}");
        assert_eq!(reader.buffers_read(), 0);
        let (events, last) = lockstep(&bytes, &mut reader);
        assert!(last.is_none(), "{name}: {last:?}");
        assert!(events > 0);
        // Every buffer, and every byte of the file, read once.
        let buffers = file.buffers().count();
        assert_eq!(reader.buffers_read(), buffers, "{name}");
        assert_eq!(
            u32::try_from(buffers).unwrap(),
            file.logfile_header.buffers_written()
        );
        assert_eq!(reader.bytes_read(), bytes.len(), "{name}");
    }
}

#[test]
fn stored_buffers_decode_on_their_own_to_the_same_events() {
    // The three small traces: compressed buffers, uncompressed ones, and a circular file.
    for name in &TRACES[..3] {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let mut stored = StoredBuffer::new();
        let mut scratch = vec![0u8; reader.buffer_size()];
        let mut in_memory = vec![0u8; file.buffer_size()];
        let mut from_file = file.buffers();
        while let Some(read) = reader.read_stored_buffer(&mut stored) {
            read.unwrap();
            let buffer = from_file.next().unwrap().unwrap();
            assert_eq!(stored.as_etl_buffer(), buffer, "{name}");
            assert_eq!(stored.bytes(), buffer.bytes);
            assert_eq!(stored.position(), buffer.position());
            let decoded = stored.decode(&mut scratch).unwrap();
            assert_eq!(decoded.stored_len, buffer.bytes.len());
            let expected = buffer.trace_buffer(&mut in_memory).unwrap();
            assert!(decoded.events().eq(expected.events()), "{name}");
        }
        assert!(from_file.next().is_none(), "{name}: buffers left");
    }
}

#[test]
fn the_processor_of_each_buffer_is_the_one_dissect_etl_reads() {
    // dissect.etl 3.14's `BufferHeader.ProcessorIndex` of each buffer, in file order (every
    // buffer of these two files has ETW_BUFFER_FLAG_PROC_INDEX).
    let expected: [(&str, &[u16]); 2] = [
        ("gcevents.etl", &[0, 7, 6, 2, 4]),
        ("primitive-types.etl", &[0, 2]),
    ];
    for (name, processors) in expected {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let mut found = Vec::new();
        reader
            .for_each_event(|buffer, event| {
                if event.offset == 0 {
                    found.push(buffer.processor);
                }
            })
            .unwrap();
        assert_eq!(found, processors, "{name}");
    }
}

#[test]
fn open_reads_a_file_from_its_path() {
    let Some(bytes) = common::trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("etl-reader-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("copy.etl");
    std::fs::write(&path, &bytes).unwrap();
    let mut reader = EtlReader::open(&path).unwrap();
    let mut events = 0;
    reader.for_each_event(|_, _| events += 1).unwrap();
    assert_eq!(events, 23);
    assert_eq!(reader.buffers_read(), 3);

    let text = dir.join("notes.txt");
    std::fs::write(&text, "Hello, this is not a trace.\n").unwrap();
    let error = EtlReader::open(&text).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("not an .etl file: its first 8 bytes are 48 65 6c 6c 6f 2c 20 74; "),
        "{error}"
    );
    let missing = EtlReader::open(dir.join("missing.etl")).unwrap_err();
    assert!(
        matches!(missing, EtlReaderError::Io { buffer: None, ref error } if error.kind() == std::io::ErrorKind::NotFound),
        "{missing:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `EtlReader::new` over `bytes`, which must fail as not an .etl file: its first bytes and the
/// error under it.
fn not_an_etl(bytes: &[u8]) -> (Vec<u8>, ReadError, String) {
    match EtlReader::new(Cursor::new(bytes)) {
        Err(
            ref error @ EtlReaderError::NotAnEtl {
                first_bytes,
                len,
                error: under,
            },
        ) => (first_bytes[..len].to_vec(), under, error.to_string()),
        other => panic!("NotAnEtl expected, found {other:?}"),
    }
}

/// A fixed pseudo-random byte sequence (xorshift64).
fn random_bytes(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn files_that_are_not_etl_files_are_named_by_their_first_bytes() {
    let buffer_0 = Some(BufferPosition {
        index: 0,
        file_offset: 0,
    });
    let expected_rule = "; expected a WMI_BUFFER_HEADER whose BufferSize (u32 at 0) is 0x48 to \
                         0x1000000, then the logfile header event (a SYSTEM32 or SYSTEM64 header \
                         with HookId 0 and a TRACE_LOGFILE_HEADER): ";

    let (first, error, text) = not_an_etl(&[0; 4096]);
    assert_eq!(first, [0; 8]);
    assert_eq!(
        error,
        ReadError::new(
            buffer_0,
            ReadErrorKind::BufferSizeBeyondLimits {
                buffer_size: 0,
                min: 0x48,
                max: MAX_BUFFER_SIZE
            }
        )
    );
    assert_eq!(
        text,
        format!(
            "not an .etl file: its first 8 bytes are 00 00 00 00 00 00 00 00{expected_rule}\
             buffer 0 at file offset 0x0: WMI_BUFFER_HEADER.BufferSize: expected between 0x48 \
             and 0x1000000 (MAX_BUFFER_SIZE), found 0x0"
        )
    );

    let random = random_bytes(100_000, 0x9E37_79B9_7F4A_7C15);
    let (first, error, text) = not_an_etl(&random);
    assert_eq!(first, random[..8]);
    let claimed = u32::from_le_bytes(random[..4].try_into().unwrap());
    assert!(claimed as usize > MAX_BUFFER_SIZE, "the seed's first u32");
    assert_eq!(
        error.kind,
        ReadErrorKind::BufferSizeBeyondLimits {
            buffer_size: claimed,
            min: 0x48,
            max: MAX_BUFFER_SIZE
        }
    );
    let hex: Vec<String> = random[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert!(text.starts_with(&format!(
        "not an .etl file: its first 8 bytes are {}{expected_rule}",
        hex.join(" ")
    )));

    let (first, error, text) = not_an_etl(b"# A text file\nwith two lines\n");
    assert_eq!(first, b"# A text");
    assert_eq!(error.buffer, buffer_0);
    assert!(text.starts_with("not an .etl file: its first 8 bytes are 23 20 41 20 74 65 78 74; "));

    let (first, error, text) = not_an_etl(&[]);
    assert!(first.is_empty());
    assert_eq!(
        error,
        ReadError::new(
            buffer_0,
            ReadErrorKind::BufferHeaderTruncated {
                needed: 0x48,
                available: 0
            }
        )
    );
    assert!(text.starts_with(&format!("not an .etl file: it is empty{expected_rule}")));

    let (first, error, text) = not_an_etl(b"ETL");
    assert_eq!(first, b"ETL");
    assert_eq!(
        error.kind,
        ReadErrorKind::BufferHeaderTruncated {
            needed: 0x48,
            available: 3
        }
    );
    assert!(text.starts_with("not an .etl file: it holds only 3 bytes: 45 54 4c; "));

    // A buffer header that holds, over events that are not a logfile header: the error of
    // EtlFile::parse.
    let mut buffer = vec![0u8; 0x200];
    buffer[..4].copy_from_slice(&0x200u32.to_le_bytes());
    buffer[0x30..0x34].copy_from_slice(&0x200u32.to_le_bytes());
    let (_, error, _) = not_an_etl(&buffer);
    assert_eq!(error, EtlFile::parse(&buffer).unwrap_err());
    assert!(matches!(
        error.kind,
        ReadErrorKind::NotAnEventHeader { offset: 0, .. }
    ));
}

#[test]
fn an_endless_stream_of_junk_ends_with_one_error() {
    // Like /dev/zero and a junk file of any size: the first header says it all.
    for byte in [0x00, 0x41, 0xFF] {
        let error = EtlReader::new(std::io::repeat(byte)).unwrap_err();
        assert!(matches!(
            error,
            EtlReaderError::NotAnEtl {
                first_bytes,
                len: 8,
                ..
            } if first_bytes == [byte; 8]
        ));
    }
}

/// The events of a file cut to its first `len` bytes: those of the buffers that end within
/// `len`, as the whole file has them.
fn events_before<'a>(whole: &'a [Seen], buffer_ends: &[usize], len: usize) -> &'a [Seen] {
    let complete = buffer_ends.iter().take_while(|end| **end <= len).count();
    &whole[..whole.partition_point(|(index, ..)| *index < complete)]
}

/// Reads `bytes[..len]` with both readers and checks them against the whole file and each
/// other: every event of the complete buffers, then the same errors from `EtlFile` and the
/// streaming reader (one answer for one file): exactly one, naming the buffer the cut falls in
/// (or, at a buffer boundary, where the next buffer should have started: the file holds fewer
/// buffers than `BuffersWritten`), or none for a cut at the end of the file.
fn check_cut(name: &str, bytes: &[u8], whole: &[Seen], buffer_ends: &[usize], len: usize) {
    let cut = &bytes[..len];
    let first_end = buffer_ends[0];
    if len < first_end {
        let (_, error, _) = not_an_etl(cut);
        assert_eq!(
            Err(error),
            EtlFile::parse(cut).map(|_| ()),
            "{name} cut at {len}"
        );
        return;
    }
    let mut reader = EtlReader::new(Cursor::new(cut)).unwrap();
    let (seen, errors) = streamed(&mut reader);
    let errors: Vec<ReadError> = errors.iter().map(read_error).collect();
    assert!(
        seen[..] == *events_before(whole, buffer_ends, len),
        "{name} cut at {len}: the events differ"
    );
    let (in_memory_seen, in_memory_errors) = in_memory(cut).unwrap();
    assert!(
        in_memory_seen == seen,
        "{name} cut at {len}: EtlFile's events differ"
    );
    assert_eq!(
        in_memory_errors, errors,
        "{name} cut at {len}: EtlFile and EtlReader disagree"
    );
    let circular = reader.logfile_header().log_file_mode() & 2 != 0;
    let complete = buffer_ends.iter().take_while(|end| **end <= len).count();
    if buffer_ends.contains(&len) {
        if len == *buffer_ends.last().unwrap() || circular {
            assert!(errors.is_empty(), "{name} cut at {len}: {errors:?}");
        } else {
            assert_eq!(
                errors,
                [ReadError::new(
                    Some(BufferPosition {
                        index: complete,
                        file_offset: len
                    }),
                    ReadErrorKind::FileEndsBeforeBuffersWritten {
                        buffers: complete,
                        buffers_written: u32::try_from(buffer_ends.len()).unwrap(),
                    }
                )],
                "{name} cut at {len}"
            );
        }
    } else {
        assert_eq!(errors.len(), 1, "{name} cut at {len}: {errors:?}");
        assert_eq!(
            errors[0].buffer,
            Some(BufferPosition {
                index: complete,
                file_offset: buffer_ends[complete - 1]
            })
        );
    }
}

#[test]
fn a_truncated_trace_yields_every_event_before_the_cut_then_the_same_error_from_both_readers() {
    for name in TRACES {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        let buffer_ends: Vec<usize> = file
            .buffers()
            .map(|buffer| {
                let buffer = buffer.unwrap();
                buffer.file_offset + buffer.bytes.len()
            })
            .collect();
        assert_eq!(
            buffer_ends.len(),
            usize::try_from(file.logfile_header.buffers_written()).unwrap(),
            "{name}: BuffersWritten counts every buffer"
        );
        // Around the start and in the middle of every buffer, and every 61st length, of the
        // small traces; of the large ones, where reading the rest again for each cut would
        // take minutes unoptimised, the same around the first four buffers and eight more
        // spread over the file (the cut at a buffer's start is the end of the one before).
        let small = bytes.len() <= 20_000;
        let count = buffer_ends.len();
        let sampled: Vec<usize> = if small {
            (0..count).collect()
        } else {
            let step = (count / 4).max(1);
            (0..count)
                .filter(|index| *index < 4 || index % step == 0 || *index == count - 1)
                .collect()
        };
        let starts: Vec<usize> = std::iter::once(0).chain(buffer_ends.clone()).collect();
        let mut cuts: Vec<usize> = if small {
            (0..bytes.len()).step_by(61).collect()
        } else {
            Vec::new()
        };
        for &index in &sampled {
            let (start, len) = (starts[index], buffer_ends[index] - starts[index]);
            let places: &[usize] = if index < 4 {
                &[0, 1, 0x47, 0x48, 0x49, len / 2, len - 1, len]
            } else {
                &[len / 2, len]
            };
            cuts.extend(places.iter().map(|at| start + at));
        }
        // The events of the buffers the cuts reach, as the whole file has them.
        let reached = *sampled.last().unwrap();
        let (whole, _) = in_memory(&bytes[..buffer_ends[reached]]).unwrap();
        for len in cuts {
            check_cut(name, &bytes, &whole, &buffer_ends, len);
        }
    }
}

#[test]
fn for_each_event_stops_at_the_first_error_and_is_done_after_it() {
    let Some(bytes) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    let (whole, _) = in_memory(&bytes).unwrap();
    let file = EtlFile::parse(&bytes).unwrap();
    let fifth = file.buffers().nth(5).unwrap().unwrap();
    let cut = &bytes[..fifth.file_offset + 100];
    let mut reader = EtlReader::new(Cursor::new(cut)).unwrap();
    let mut seen = Vec::new();
    let error = reader
        .for_each_event(|buffer, event| {
            seen.push((
                buffer.position.index,
                buffer.position.file_offset,
                event.offset,
                event.bytes.to_vec(),
            ))
        })
        .unwrap_err();
    let expected: Vec<Seen> = whole.into_iter().filter(|seen| seen.0 < 5).collect();
    assert!(seen == expected);
    assert_eq!(
        error.buffer(),
        Some(BufferPosition {
            index: 5,
            file_offset: fifth.file_offset
        })
    );
    assert!(error.to_string().starts_with(&format!(
        "buffer 5 at file offset {:#x}: ",
        fifth.file_offset
    )));
    assert!(reader.is_done());
    reader
        .for_each_event(|_, _| panic!("an event after the error"))
        .unwrap();
}

#[test]
fn a_corrupt_compressed_buffer_is_its_own_error_and_the_next_buffer_is_read() {
    let Some(mut bytes) = common::trace("SelfDescribingSingleEvent.etl") else {
        return;
    };
    let file = EtlFile::parse(&bytes).unwrap();
    let second = file.buffers().nth(1).unwrap().unwrap();
    assert!(second.is_compressed());
    // Offset (u32 at 0x30) one past what decompresses.
    let at = second.file_offset + 0x30;
    let offset = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&(offset + 8).to_le_bytes());
    let (_, expected_errors) = in_memory(&bytes).unwrap();
    assert_eq!(expected_errors.len(), 1);
    let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    let (_, last) = lockstep(&bytes, &mut reader);
    assert!(last.is_none());
    assert_eq!(reader.buffers_read(), 3, "the buffer after it is read");
}

#[test]
fn buffers_written_zero_is_read_to_the_end_and_reported() {
    for name in &TRACES[..3] {
        let Some(mut bytes) = common::trace(name) else {
            continue;
        };
        bytes[BUFFERS_WRITTEN_AT..BUFFERS_WRITTEN_AT + 4].fill(0);
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(reader.logfile_header().buffers_written(), 0);
        assert!(reader.buffers_written_was_zero(), "{name}");
        let (_, last) = lockstep(&bytes, &mut reader);
        assert!(last.is_none(), "{name}: {last:?}");
        assert_eq!(reader.bytes_read(), bytes.len());

        // Cut at a buffer boundary, the file still ends cleanly: nothing says more was due.
        let file = EtlFile::parse(&bytes).unwrap();
        let second = file.buffers().nth(1).unwrap().unwrap();
        let cut = &bytes[..second.file_offset + second.bytes.len()];
        let mut reader = EtlReader::new(Cursor::new(cut)).unwrap();
        let (_, errors) = streamed(&mut reader);
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(reader.buffers_read(), 2);
    }
}

// --- memory -----------------------------------------------------------------------------------

/// Counts the bytes each thread has allocated and the most it held at once, so that a test
/// can bound what one call allocates (tests run on several threads at once).
struct CountingAllocator;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn add_held(size: usize) {
    let held = HELD.with(|held| {
        held.set(held.get() + size);
        held.get()
    });
    PEAK.with(|peak| peak.set(peak.get().max(held)));
}

fn remove_held(size: usize) {
    HELD.with(|held| held.set(held.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only read the
// layouts.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        remove_held(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        remove_held(layout.size());
        add_held(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The most `run` held allocated at once on this thread, beyond what was held before.
fn peak_allocation(run: impl FnOnce()) -> usize {
    let before = HELD.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    run();
    PEAK.with(Cell::get) - before
}

#[test]
fn a_hostile_buffer_size_allocates_nothing_it_claims() {
    let Some(trace) = common::trace("primitive-types.etl") else {
        return;
    };
    // 8 KiB buffers: the first at 0, the second at 0x2000.
    for claimed in [u32::MAX, 0x7FFF_FFFF, MAX_BUFFER_SIZE as u32 + 1] {
        let mut bytes = trace.clone();
        bytes[0x2000..0x2004].copy_from_slice(&claimed.to_le_bytes());
        let peak = peak_allocation(|| {
            let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
            let (_, errors) = streamed(&mut reader);
            assert_eq!(
                read_error(&errors[0]),
                ReadError::new(
                    Some(BufferPosition {
                        index: 1,
                        file_offset: 0x2000
                    }),
                    ReadErrorKind::BufferSizeBeyondLimits {
                        buffer_size: claimed,
                        min: 0x48,
                        max: MAX_BUFFER_SIZE
                    }
                )
            );
        });
        assert!(peak < 256 << 10, "{claimed:#x}: {peak} bytes allocated");
    }
    // Within the limit but past the end of the file: what is there is read, no more.
    let mut bytes = trace.clone();
    bytes[0x2000..0x2004].copy_from_slice(&(MAX_BUFFER_SIZE as u32).to_le_bytes());
    let peak = peak_allocation(|| {
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let (_, errors) = streamed(&mut reader);
        assert_eq!(
            read_error(&errors[0]).kind,
            ReadErrorKind::BufferSizeOutOfRange {
                buffer_size: MAX_BUFFER_SIZE as u32,
                min: 0x48,
                max: 0x2000
            }
        );
    });
    assert!(peak < 256 << 10, "{peak} bytes allocated");
    // Endless junk, as /dev/zero or a 10 GB file of it.
    for byte in [0x00, 0x41, 0xFF] {
        let peak = peak_allocation(|| {
            EtlReader::new(std::io::repeat(byte)).unwrap_err();
        });
        assert!(peak < 4 << 10, "{byte:#x}: {peak} bytes allocated");
    }
}

#[test]
fn a_trace_streams_in_memory_of_one_buffer() {
    let Some(bytes) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    let peak = peak_allocation(|| {
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let mut events = 0u64;
        reader.for_each_event(|_, _| events += 1).unwrap();
        assert_eq!(events, 179_474);
    });
    // The 64 KiB scratch, one stored buffer (at most 64 KiB), the names: far below the
    // file's 4.9 MB.
    assert!(peak < 256 << 10, "{peak} bytes allocated");
}

/// One event of a time-ordered walk: buffer index, offset in the buffer's events, processor,
/// timestamp.
type Ordered = (usize, usize, u16, Option<i64>);

/// Every event of `reader`'s remaining buffers in time order, the errors, each with how many
/// events came before it, and the buffers read.
fn time_ordered<R: Read + std::io::Seek>(
    reader: &mut EtlReader<R>,
) -> (Vec<Ordered>, Vec<(usize, String)>, usize) {
    let mut events = Vec::new();
    let mut errors = Vec::new();
    let buffers = reader
        .for_each_event_in_time_order(|item| {
            match item {
                Ok(item) => events.push((
                    item.position.index,
                    item.event.offset,
                    item.processor,
                    item.event.timestamp(),
                )),
                Err(error) => errors.push((events.len(), error.to_string())),
            }
            Ok::<(), ()>(())
        })
        .unwrap();
    (events, errors, buffers)
}

#[test]
fn time_order_yields_every_event_once_by_timestamp() {
    let mut total = 0;
    for name in TRACES {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let mut in_file_order = Vec::new();
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        reader
            .for_each_event(|buffer, event| {
                in_file_order.push((
                    buffer.position.index,
                    event.offset,
                    buffer.processor,
                    event.timestamp(),
                ));
            })
            .unwrap();
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let (in_time_order, errors, buffers) = time_ordered(&mut reader);
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(
            buffers,
            EtlFile::parse(&bytes).unwrap().buffers().count(),
            "{name}"
        );
        assert!(reader.is_done());
        // Each processor's events keep their file order, and the timestamps never go back.
        let mut last = i64::MIN;
        for &(_, _, _, timestamp) in &in_time_order {
            if let Some(timestamp) = timestamp {
                assert!(timestamp >= last, "{name}: {timestamp} after {last}");
                last = timestamp;
            }
        }
        // Within a processor: buffers by SequenceNumber, which in these files is file order,
        // so its events come in file order.
        let by_processor = |events: &[Ordered]| {
            let mut chains = std::collections::BTreeMap::<u16, Vec<(usize, usize)>>::new();
            for event in events {
                chains.entry(event.2).or_default().push((event.0, event.1));
            }
            chains
        };
        assert_eq!(
            by_processor(&in_time_order),
            by_processor(&in_file_order),
            "{name}"
        );
        total += in_time_order.len();
        let mut sorted = in_time_order.clone();
        sorted.sort_unstable();
        in_file_order.sort_unstable();
        assert_eq!(sorted, in_file_order, "{name}: every event exactly once");
    }
    if common::traces_required() {
        assert_eq!(total, 347_873);
    }
}

#[test]
fn time_order_of_a_cut_file_gives_the_whole_buffers_then_the_error() {
    let Some(bytes) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    let cut = &bytes[..3_000_000];
    // File order: the events before the damage, then the error.
    let mut reader = EtlReader::new(Cursor::new(cut)).unwrap();
    let mut in_file_order = Vec::new();
    let file_error = reader
        .for_each_event(|buffer, event| in_file_order.push((buffer.position.index, event.offset)))
        .unwrap_err();
    let mut reader = EtlReader::new(Cursor::new(cut)).unwrap();
    let (in_time_order, errors, buffers) = time_ordered(&mut reader);
    assert_eq!(buffers, 251);
    assert_eq!(in_time_order.len(), 152_965);
    // The error that ended the listing comes once, after every event.
    assert_eq!(errors, [(in_time_order.len(), file_error.to_string())]);
    assert!(file_error
        .to_string()
        .starts_with("buffer 251 at file offset 0x2db916: WMI_BUFFER_HEADER.BufferSize"));
    let mut sorted: Vec<(usize, usize)> = in_time_order.iter().map(|e| (e.0, e.1)).collect();
    sorted.sort_unstable();
    in_file_order.sort_unstable();
    assert_eq!(sorted, in_file_order);
}

#[test]
fn time_order_reads_a_file_that_starts_inside_its_source() {
    let Some(bytes) = common::trace("gcevents.etl") else {
        return;
    };
    let mut expected = Vec::new();
    let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    let _ = time_ordered(&mut reader);
    reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    let (events, errors, _) = time_ordered(&mut reader);
    expected.extend(events);
    assert!(errors.is_empty());

    let mut source = vec![0xA5; 1000];
    source.extend_from_slice(&bytes);
    let mut cursor = Cursor::new(source);
    cursor.set_position(1000);
    let mut reader = EtlReader::new(cursor).unwrap();
    // A buffer read first is not read again.
    let first = reader.next_buffer().unwrap().unwrap().events().count();
    let (events, errors, buffers) = time_ordered(&mut reader);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        buffers,
        EtlFile::parse(&bytes).unwrap().buffers().count() - 1
    );
    assert_eq!(events.len() + first, expected.len());
    let rest: Vec<_> = expected.into_iter().filter(|event| event.0 != 0).collect();
    assert_eq!(events, rest);
}

#[test]
fn the_streaming_readers_clock_is_the_files() {
    for name in TRACES {
        let Some(bytes) = common::trace(name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).unwrap();
        let reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(
            reader.clock(),
            etw_classic::read::TraceClock::from_etl(&file),
            "{name}"
        );
        assert!(reader.clock().is_ok(), "{name}");
    }
}

/// Each buffer of `bytes` as the layout places it: its file offset, its stored length
/// (`BufferSize` u32 @0x00 of its `WMI_BUFFER_HEADER`), the processor it names
/// (`ProcessorIndex` u16 @0x28, every buffer of the PerfView traces having `PROC_INDEX`) and
/// the length its events take decoded (`Offset` u32 @0x30, less the 0x48-byte header).
fn buffer_layout(bytes: &[u8]) -> Vec<(usize, usize, u16, usize)> {
    let mut layout = Vec::new();
    let mut offset = 0;
    while offset + 0x48 <= bytes.len() {
        let at = |field: usize, len: usize| &bytes[offset + field..offset + field + len];
        let size = u32::from_le_bytes(at(0, 4).try_into().unwrap()) as usize;
        let processor = u16::from_le_bytes(at(0x28, 2).try_into().unwrap());
        let events = u32::from_le_bytes(at(0x30, 4).try_into().unwrap()) as usize - 0x48;
        layout.push((offset, size, processor, events));
        offset += size;
    }
    layout
}

/// Where the logfile header's `BufferSize` and `NumberOfProcessors` lie: after the first
/// buffer's 0x48-byte header and the 0x20-byte `SYSTEM_TRACE_HEADER`, at 0x00 and 0x0C of
/// `TRACE_LOGFILE_HEADER`.
const LOGFILE_BUFFER_SIZE_AT: usize = 0x48 + 0x20;
const NUMBER_OF_PROCESSORS_AT: usize = 0x48 + 0x20 + 0x0C;

/// net.4.5.2.x64.etl with each data buffer's `ProcessorIndex` set to its index, the logfile
/// header's `BufferSize` to 16 MiB and its `NumberOfProcessors` to `processors`: the file that
/// took one 16 MiB scratch per buffer in time order (5.9 GB for 4.9 MB).
fn one_processor_per_buffer(trace: &[u8], processors: u32) -> Vec<u8> {
    let mut bytes = trace.to_vec();
    for (index, (offset, ..)) in buffer_layout(trace).into_iter().enumerate().skip(1) {
        bytes[offset + 0x28..offset + 0x2A].copy_from_slice(&(index as u16).to_le_bytes());
    }
    bytes[LOGFILE_BUFFER_SIZE_AT..LOGFILE_BUFFER_SIZE_AT + 4]
        .copy_from_slice(&(MAX_BUFFER_SIZE as u32).to_le_bytes());
    bytes[NUMBER_OF_PROCESSORS_AT..NUMBER_OF_PROCESSORS_AT + 4]
        .copy_from_slice(&processors.to_le_bytes());
    bytes
}

/// The most the time-ordered walk may hold, as its documentation states it, for a file whose
/// buffers `layout` describes, of which those of `merged` processors are merged: the decoded
/// events of one buffer per merged processor (its largest), one stored buffer and one scratch
/// (the largest of each), 32 bytes per buffer listed (twice, as a vector grows), and 4 KiB per
/// processor and 64 KiB in all for the walk's own small pieces.
fn time_order_bound(layout: &[(usize, usize, u16, usize)], merged: impl Fn(u16) -> bool) -> usize {
    let mut largest = std::collections::BTreeMap::<u16, usize>::new();
    for &(_, _, processor, events) in layout.iter().filter(|buffer| merged(buffer.2)) {
        let entry = largest.entry(processor).or_default();
        *entry = (*entry).max(events);
    }
    let held: usize = largest.values().sum();
    let stored = layout.iter().map(|buffer| buffer.1).max().unwrap_or(0);
    let scratch = layout.iter().map(|buffer| buffer.3).max().unwrap_or(0);
    held + stored + scratch + 2 * 32 * layout.len() + 4096 * largest.len() + (64 << 10)
}

#[test]
fn time_order_names_each_buffer_whose_processor_the_header_does_not_count() {
    let Some(trace) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    let bytes = one_processor_per_buffer(&trace, 8);
    let layout = buffer_layout(&bytes);
    assert_eq!(layout.len(), 360);
    let mut errors = Vec::new();
    let mut events = 0usize;
    let peak = peak_allocation(|| {
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        let buffers = reader
            .for_each_event_in_time_order(|item| {
                match item {
                    Ok(item) => {
                        assert!(item.processor < 8);
                        events += 1;
                    }
                    Err(EtlReaderError::Read(error)) if errors.len() < layout.len() => {
                        errors.push(error);
                    }
                    Err(other) => panic!("{other}"),
                }
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(buffers, 360);
    });
    // Buffers 8 to 359 name processors 8 to 359; the logfile header counts 8.
    let expected: Vec<ReadError> = layout
        .iter()
        .enumerate()
        .skip(8)
        .map(|(index, &(file_offset, ..))| {
            ReadError::new(
                Some(BufferPosition { index, file_offset }),
                ReadErrorKind::ProcessorBeyondCount {
                    processor: index as u16,
                    proc_index: true,
                    number_of_processors: 8,
                },
            )
        })
        .collect();
    assert_eq!(errors, expected);
    assert_eq!(
        errors[0].to_string(),
        "buffer 8 at file offset 0x1be8a: WMI_BUFFER_HEADER.ClientContext.ProcessorIndex (u16 \
         at 0x28; BufferFlag has PROC_INDEX 0x20): expected below the logfile header's \
         NumberOfProcessors, 8, found 8"
    );
    // The events of buffers 0 to 7, those of the processors counted.
    let mut in_file_order = 0;
    let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    while let Some(buffer) = reader.next_buffer() {
        let buffer = buffer.unwrap();
        if buffer.position.index < 8 {
            in_file_order += buffer.events().count();
        }
    }
    assert_eq!(events, in_file_order);
    let bound = time_order_bound(&layout, |processor| processor < 8);
    assert!(
        peak <= bound,
        "{peak} bytes allocated, above the bound {bound}"
    );
    assert!(peak < 2 << 20, "{peak} bytes allocated");
}

#[test]
fn time_order_holds_one_buffer_per_processor_whatever_the_buffer_size_says() {
    let Some(trace) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    // 359 processors, each buffer its own; the header counts 2048.
    let bytes = one_processor_per_buffer(&trace, 2048);
    let layout = buffer_layout(&bytes);
    let mut events = Vec::new();
    let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    reader
        .for_each_event(|buffer, event| events.push((buffer.position.index, event.offset)))
        .unwrap();
    events.sort_unstable();
    let mut in_time_order = Vec::with_capacity(events.len());
    let peak = peak_allocation(|| {
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        reader
            .for_each_event_in_time_order(|item| {
                let item = item.map_err(|error| error.to_string())?;
                in_time_order.push((item.position.index, item.event.offset));
                Ok::<(), String>(())
            })
            .unwrap();
    });
    in_time_order.sort_unstable();
    assert_eq!(in_time_order, events, "every event exactly once");
    let bound = time_order_bound(&layout, |_| true);
    // About 23 MB: the 359 buffers' events, 64 KiB at most each; not 359 x 16 MiB.
    assert!(
        peak <= bound,
        "{peak} bytes allocated, above the bound {bound}"
    );
    assert!(bound < 32 << 20, "{bound}");
}

#[test]
fn time_order_leaves_out_the_buffers_that_pass_its_memory_limit() {
    let Some(bytes) = common::trace("net.4.5.2.x64.etl") else {
        return;
    };
    let layout = buffer_layout(&bytes);
    let limit = 200_000;
    let mut left_out = Vec::new();
    let mut merged = Vec::new();
    let peak = peak_allocation(|| {
        let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(reader.time_order_memory(), etw_classic::TIME_ORDER_MEMORY);
        assert_eq!(etw_classic::TIME_ORDER_MEMORY, 256 << 20);
        reader.set_time_order_memory(limit);
        reader
            .for_each_event_in_time_order(|item| {
                match item {
                    Ok(item) => merged.push((item.position.index, item.event.offset)),
                    Err(EtlReaderError::TimeOrderMemory {
                        buffer,
                        needed,
                        held,
                        limit: said,
                    }) => left_out.push((buffer, needed, held, said)),
                    Err(other) => panic!("{other}"),
                }
                Ok::<(), ()>(())
            })
            .unwrap();
    });
    assert!(!left_out.is_empty());
    for &(buffer, needed, held, said) in &left_out {
        let (file_offset, _, _, events) = layout[buffer.index];
        assert_eq!(buffer.file_offset, file_offset);
        assert_eq!(needed, events, "the buffer's Offset - 0x48");
        assert_eq!(said, limit);
        assert!(held + needed > limit && held <= limit);
    }
    // Every event of the other buffers, exactly once.
    let mut expected = Vec::new();
    let mut reader = EtlReader::new(Cursor::new(&bytes)).unwrap();
    reader
        .for_each_event(|buffer, event| {
            if !left_out.iter().any(|out| out.0 == buffer.position) {
                expected.push((buffer.position.index, event.offset));
            }
        })
        .unwrap();
    merged.sort_unstable();
    expected.sort_unstable();
    assert_eq!(merged, expected);
    let stored = layout.iter().map(|buffer| buffer.1).max().unwrap();
    let scratch = layout.iter().map(|buffer| buffer.3).max().unwrap();
    let bound = limit + stored + scratch + 2 * 32 * layout.len() + 8 * 4096 + (64 << 10);
    assert!(
        peak <= bound + merged.capacity() * 16,
        "{peak} above {bound}"
    );
}
