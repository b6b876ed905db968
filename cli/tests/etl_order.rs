//! `etwc etl --order time`: every event of the file exactly once, in non-decreasing time, the
//! order the library's `TimeOrder` gives over every buffer of the file at once.

mod common;

use common::{run, trace};
use etw_classic::read::{BufferOrder, EtlFile, MergeCursor, TimeOrder};
use serde_json::Value;

/// `(buffer, offset, filetime)` of every event line of `etl PATH --json --order ORDER`.
fn events(path: &str, order: &str) -> Vec<(u64, u64, Option<i64>)> {
    run(&["etl", path, "--json", "--order", order])
        .lines()
        .skip(1)
        .map(|line| {
            let event: Value = serde_json::from_str(line).unwrap();
            (
                event["buffer"].as_u64().unwrap(),
                event["offset"].as_u64().unwrap(),
                event["filetime"].as_i64(),
            )
        })
        .collect()
}

/// `(buffer, offset)` of every event, merged by the library over one cursor per buffer (the
/// whole file decoded at once), ties by `BufferOrder`.
fn library_order(bytes: &[u8]) -> Vec<(u64, u64)> {
    let file = EtlFile::parse(bytes).unwrap();
    let buffers: Vec<_> = file.buffers().map(Result::unwrap).collect();
    let mut scratch: Vec<Vec<u8>> = buffers
        .iter()
        .map(|_| vec![0; file.buffer_size()])
        .collect();
    let mut cursors: Vec<MergeCursor<'_, BufferOrder>> = buffers
        .iter()
        .zip(scratch.iter_mut())
        .map(|(buffer, scratch)| {
            let trace_buffer = buffer.trace_buffer(scratch).unwrap();
            MergeCursor::new(BufferOrder::of(buffer), trace_buffer.events())
        })
        .collect();
    TimeOrder::new(&mut cursors)
        .map(|(order, event)| (order.index as u64, event.unwrap().offset as u64))
        .collect()
}

fn check(name: &str, must_differ_from_file_order: bool) {
    let Some(path) = trace(name) else {
        return;
    };
    let path = path.to_str().unwrap();
    let in_file_order = events(path, "file");
    let in_time_order = events(path, "time");

    // Every event once: the same (buffer, offset) pairs as file order, none twice.
    let mut file_keys: Vec<(u64, u64)> = in_file_order.iter().map(|e| (e.0, e.1)).collect();
    let time_keys: Vec<(u64, u64)> = in_time_order.iter().map(|e| (e.0, e.1)).collect();
    let mut sorted_time_keys = time_keys.clone();
    file_keys.sort_unstable();
    sorted_time_keys.sort_unstable();
    assert_eq!(sorted_time_keys, file_keys, "{name}");
    sorted_time_keys.dedup();
    assert_eq!(sorted_time_keys.len(), in_time_order.len(), "{name}");

    // Times never decrease (every event of these traces has one).
    let times: Vec<i64> = in_time_order.iter().map(|e| e.2.unwrap()).collect();
    assert!(times.windows(2).all(|pair| pair[0] <= pair[1]), "{name}");
    if must_differ_from_file_order {
        let file_times: Vec<i64> = in_file_order.iter().map(|e| e.2.unwrap()).collect();
        assert!(
            file_times.windows(2).any(|pair| pair[0] > pair[1]),
            "{name}"
        );
    }

    // One decoded buffer per processor gives what one cursor per buffer gives.
    assert_eq!(
        time_keys,
        library_order(&std::fs::read(path).unwrap()),
        "{name}"
    );
}

/// gcevents.etl stores its SequenceNumber 1 buffer last: its file order goes back in time.
#[test]
fn gcevents_in_time_order() {
    check("gcevents.etl", true);
}

#[test]
fn self_describing_single_event_in_time_order() {
    check("SelfDescribingSingleEvent.etl", true);
}

#[test]
fn primitive_types_in_time_order() {
    check("primitive-types.etl", false);
}
