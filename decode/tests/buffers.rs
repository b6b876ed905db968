//! `for_each_decoded_buffer` hands out what `EtlReader::next_buffer` reads, in the same order,
//! whatever the number of threads: every buffer's position and events, every error where the
//! reader meets it (a buffer that does not decompress, a file cut short), and nothing after
//! `take` says stop. `net.4.5.2.x64.etl` (360 buffers, 359 of them compressed) is read from
//! the shared PerfView traces; the tests are skipped without them unless
//! `ETW_REQUIRE_TRACES=1` (see `shared_files/mod.rs`).

mod shared_files;

use std::io::Cursor;

use etw_classic::read::ReaderBuffer;
use etw_classic::EtlReader;
use etw_classic_decode::buffers::for_each_decoded_buffer;

/// What a buffer or an error looks like to a test: the buffer's index, file offset, processor,
/// event count and the bytes of its events; or the error's message.
type Seen = Result<(usize, usize, u16, usize, Vec<u8>), String>;

fn seen(buffer: &ReaderBuffer<'_>) -> (usize, usize, u16, usize, Vec<u8>) {
    (
        buffer.position.index,
        buffer.position.file_offset,
        buffer.processor,
        buffer.events().count(),
        buffer.trace_buffer.event_bytes().to_vec(),
    )
}

/// Every buffer of `bytes` as `EtlReader::next_buffer` reads them, one after the other.
fn one_by_one(bytes: &[u8]) -> Vec<Seen> {
    let mut reader = EtlReader::new(Cursor::new(bytes)).expect("the logfile header reads");
    let mut all = Vec::new();
    while let Some(buffer) = reader.next_buffer() {
        all.push(
            buffer
                .map(|buffer| seen(&buffer))
                .map_err(|e| e.to_string()),
        );
    }
    all
}

/// Every buffer of `bytes` as `for_each_decoded_buffer` hands them out on `threads` threads,
/// at most `most` of them; `work` counts the events on those threads.
fn in_parallel(bytes: &[u8], threads: usize, most: usize) -> Vec<Seen> {
    let mut reader = EtlReader::new(Cursor::new(bytes)).expect("the logfile header reads");
    let mut all = Vec::new();
    let count = |buffer: &ReaderBuffer<'_>| buffer.events().count();
    for_each_decoded_buffer(&mut reader, threads, count, |buffer| {
        all.push(match buffer {
            Ok((buffer, counted)) => {
                let seen = seen(&buffer);
                assert_eq!(counted, seen.3, "the work ran on this very buffer");
                Ok(seen)
            }
            Err(error) => Err(error.to_string()),
        });
        all.len() < most
    });
    all
}

fn net_x64() -> Option<Vec<u8>> {
    shared_files::trace("net.4.5.2.x64.etl")
}

#[test]
fn every_buffer_in_file_order_on_any_number_of_threads() {
    let Some(bytes) = net_x64() else { return };
    let expected = one_by_one(&bytes);
    // dissect.etl counts the same (tools/etl-crosscheck): 360 buffers, 179,474 events.
    assert_eq!(expected.len(), 360);
    assert_eq!(
        expected
            .iter()
            .map(|seen| seen.as_ref().map_or(0, |seen| seen.3))
            .sum::<usize>(),
        179_474
    );
    for threads in [1, 2, 3, 8] {
        assert!(
            in_parallel(&bytes, threads, usize::MAX) == expected,
            "{threads} threads"
        );
    }
}

#[test]
fn take_stops_the_pass() {
    let Some(bytes) = net_x64() else { return };
    let expected = one_by_one(&bytes);
    for most in [1, 5, 33] {
        assert!(in_parallel(&bytes, 2, most) == expected[..most]);
    }
}

#[test]
fn a_buffer_that_does_not_decompress_is_an_error_in_its_place() {
    let Some(mut bytes) = net_x64() else { return };
    // The third buffer's compressed stream, past its 0x48-byte header, made nonsense.
    let good = one_by_one(&bytes);
    let Ok((_, third, ..)) = good[3] else {
        panic!("buffer 3 reads")
    };
    bytes[third + 0x48..third + 0x200].fill(0xff);
    let expected = one_by_one(&bytes);
    assert!(
        expected[3].is_err(),
        "the reader refuses buffer 3: {:?}",
        expected[3]
    );
    assert!(expected[4].is_ok(), "and goes on to buffer 4");
    assert!(in_parallel(&bytes, 2, usize::MAX) == expected);
}

#[test]
fn a_file_cut_short_ends_with_its_error() {
    let Some(bytes) = net_x64() else { return };
    let good = one_by_one(&bytes);
    let Ok((_, tenth, ..)) = good[10] else {
        panic!("buffer 10 reads")
    };
    let cut = &bytes[..tenth + 100];
    let expected = one_by_one(cut);
    assert_eq!(expected.len(), 11);
    assert!(expected[10].is_err(), "{:?}", expected[10]);
    assert!(in_parallel(cut, 2, usize::MAX) == expected);
}
