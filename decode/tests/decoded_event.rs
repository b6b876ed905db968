//! The decoded event's description, given to the two sinks of this crate, on every event of
//! three PerfView traces (every header kind they hold, TraceLogging, EventSource and kernel
//! fields): the JSON text `JsonWriter` writes is what `serde_json` writes for the value
//! `ValueBuilder` builds from the same calls, byte for byte, which is also what `etwc etl --json`
//! printed when it built a map per event. The traces are read from `../shared/data/perfview`
//! unless `ETW_REQUIRE_TRACES=1` (see `shared_files/mod.rs`).

mod shared_files;

use etw_classic::EtlReader;
use etw_classic_decode::event::filetime_of;
use etw_classic_decode::sink::ValueBuilder;
use etw_classic_decode::{DecodedEvent, Registry};

/// Checks every event of the trace `name`; returns how many there were and how many had
/// fields.
fn check_trace(name: &str) -> Option<(usize, usize)> {
    let path = shared_files::trace_path(name)?;
    let path = path.to_str().expect("the trace's path is UTF-8");
    let no_files: &[&str] = &[];
    let registry = Registry::for_trace(no_files, no_files, Some(path)).expect("no schema files");
    let mut reader = EtlReader::open(path).expect("the trace opens");
    let clock = reader.clock().ok();
    let (mut events, mut with_fields) = (0, 0);
    let mut line = Vec::new();
    while let Some(buffer) = reader.next_buffer() {
        let buffer = buffer.expect("every buffer decodes");
        for event in buffer.events() {
            let event = event.expect("every event reads");
            let filetime = filetime_of(&event, clock);
            let decoded = DecodedEvent::new(
                buffer.position.index,
                buffer.processor,
                event,
                filetime,
                &registry,
            );
            line.clear();
            decoded.write_json(&mut line);
            let mut built = ValueBuilder::new();
            decoded.describe(&mut built);
            let built = built.finish();
            assert_eq!(
                std::str::from_utf8(&line).expect("UTF-8"),
                built.to_string(),
                "{name}: buffer {} event offset {:#x}",
                buffer.position.index,
                event.offset
            );
            // The keys every line has, in their order, around the header's.
            let object = built.as_object().expect("an object");
            let keys: Vec<&str> = object.keys().map(String::as_str).collect();
            assert_eq!(keys[..3], ["buffer", "offset", "kind"]);
            assert!(keys.contains(&"processor") && keys.contains(&"time"));
            events += 1;
            with_fields += usize::from(object.get("fields").is_some_and(|f| f.is_object()));
        }
    }
    Some((events, with_fields))
}

#[test]
fn json_writer_and_value_builder_agree_on_every_event() {
    // The events after the logfile header, as dissect.etl's record walk counts them
    // (tools/etl-crosscheck/crosscheck.py holds etwc's counts to dissect.etl's in CI).
    for (name, expected_events) in [
        ("SelfDescribingSingleEvent.etl", 23),
        ("gcevents.etl", 71),
        ("primitive-types.etl", 7),
    ] {
        let Some((events, with_fields)) = check_trace(name) else {
            continue;
        };
        assert_eq!(events, expected_events, "{name}");
        assert!(with_fields > 0, "{name}: no event has fields");
    }
}
