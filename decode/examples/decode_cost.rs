//! What decoding every field of `net.4.5.2.x64.etl` costs against `--summary`'s work and
//! against the walk over the headers, the three timed in turns so that a machine whose speed
//! drifts moves them together: `cargo run --release -p etw-classic-decode --example
//! decode_cost [ROUNDS]` (40 rounds unless told). The work is the trace benchmark's
//! (`benches/support/trace_work.rs`); the trace is read from `$ETW_PERFVIEW_DIR`, else
//! `../shared/data/perfview`.
//!
//! Prints, for each, the best and the median time of a round, then the ratios of
//! `decode_every_field` to the other two: of the best times, and the median of each round's
//! ratio.
//!
//! `decode_cost --only WORK PASSES` runs only WORK (`summary`, `walk` or
//! `decode_every_field`), PASSES times, after the registry is learned, for counting its
//! instructions: under cachegrind, the difference between a run of 2 passes and a run of 1 is
//! one pass alone (reading the file and learning the registry cancel out):
//!
//! ```sh
//! cargo build --release -p etw-classic-decode --example decode_cost
//! for passes in 1 2; do
//!     valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!         target/release/examples/decode_cost --only decode_every_field $passes
//! done
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "../benches/support/trace_work.rs"]
mod trace_work;

use trace_work::{decode_every_field, learned, summary, trace, walk};

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn milliseconds(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Runs `work` alone, `passes` times, for counting its instructions.
fn only(work: &str, passes: &str) -> ExitCode {
    let Ok(passes) = passes.parse::<u32>() else {
        eprintln!("decode_cost: PASSES must be a whole number");
        return ExitCode::FAILURE;
    };
    if !["summary", "walk", "decode_every_field"].contains(&work) {
        eprintln!("decode_cost: WORK is summary, walk or decode_every_field, not {work}");
        return ExitCode::FAILURE;
    }
    let Some(bytes) = trace() else {
        return ExitCode::FAILURE;
    };
    let registry = learned(&bytes);
    for _ in 0..passes {
        match work {
            "summary" => drop(black_box(summary(&bytes))),
            "walk" => drop(black_box(walk(&bytes))),
            _ => drop(black_box(decode_every_field(&bytes, &registry))),
        }
    }
    println!("{work}: {passes} passes over net.4.5.2.x64.etl");
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = match args.as_slice() {
        [] => 40,
        [only_flag, work, passes] if only_flag == "--only" => return only(work, passes),
        [rounds] => match rounds.parse() {
            Ok(rounds) if rounds > 0 => rounds,
            _ => {
                eprintln!("decode_cost: ROUNDS must be a whole number above 0");
                return ExitCode::FAILURE;
            }
        },
        _ => {
            eprintln!("usage: decode_cost [ROUNDS] | decode_cost --only WORK PASSES");
            return ExitCode::FAILURE;
        }
    };
    let Some(bytes) = trace() else {
        return ExitCode::FAILURE;
    };
    let registry = learned(&bytes);
    let events = walk(&bytes);
    // Each round: summary, walk, decode_every_field, each run once, in that order.
    let mut times: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds {
        for (which, spent) in times.iter_mut().enumerate() {
            let start = Instant::now();
            match which {
                0 => drop(black_box(summary(&bytes))),
                1 => drop(black_box(walk(&bytes))),
                _ => drop(black_box(decode_every_field(&bytes, &registry))),
            }
            spent.push(milliseconds(start.elapsed()));
        }
    }
    let [summaries, walks, decodes] = &times;
    let best = |values: &[f64]| values.iter().copied().fold(f64::INFINITY, f64::min);
    println!("net.4.5.2.x64.etl, {events} events, {rounds} rounds taking turns:");
    for (name, values) in [
        ("summary", summaries),
        ("walk", walks),
        ("decode_every_field", decodes),
    ] {
        println!(
            "  {name:<20} best {:>7.2} ms   median {:>7.2} ms",
            best(values),
            median(values.clone())
        );
    }
    for (name, values) in [("summary", summaries), ("walk", walks)] {
        let per_round = decodes.iter().zip(values).map(|(d, v)| d / v).collect();
        println!(
            "  decode_every_field / {name:<8} best {:.3}   median of the rounds {:.3}",
            best(decodes) / best(values),
            median(per_round)
        );
    }
    ExitCode::SUCCESS
}
