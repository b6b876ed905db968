//! Walks one of the payload benchmark's events (`examples/common/payload_events.rs`) WALKS
//! times, as the benchmark does, and prints the time a walk took: for timing two builds in
//! turns, and for counting a walk's instructions. Under cachegrind, the difference between a run
//! of 2,000,000 walks and one of 1,000,000 is a million walks alone (building the events and
//! starting the process cancel out):
//!
//! ```sh
//! cargo build --release --example payload_walk
//! for walks in 1000000 2000000; do
//!     valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!         target/release/examples/payload_walk process_start_16_fields $walks
//! done
//! ```
//!
//! Instructions per walk: the difference of the two `I refs`, divided by 1,000,000. EVENT is
//! one of `process_start_16_fields`, `thread_start_10_fields`, `il_to_native_map_16_entries`.

use std::process::ExitCode;
use std::time::Instant;

use etw_classic::payload::last_reference;

#[path = "common/payload_events.rs"]
mod payload_events;

use payload_events::{events, walk};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(Ok(walks))) =
        (args.next(), args.next().map(|walks| walks.parse::<u32>()))
    else {
        eprintln!("usage: payload_walk EVENT WALKS");
        return ExitCode::from(2);
    };
    let Some(event) = events().into_iter().find(|event| event.name == name) else {
        let names: Vec<_> = events().iter().map(|event| event.name).collect();
        eprintln!(
            "payload_walk: no event {name}; the events: {}",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let last_reference = last_reference(&event.fields);
    let start = Instant::now();
    for _ in 0..walks {
        walk(&event.fields, &event.data, last_reference);
    }
    let spent = start.elapsed();
    println!(
        "{name}: {walks} walks, {:.2} ns a walk",
        spent.as_secs_f64() * 1e9 / f64::from(walks.max(1))
    );
    ExitCode::SUCCESS
}
