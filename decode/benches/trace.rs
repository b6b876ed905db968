//! What decoding every field of a real trace costs, next to reading its events, with criterion.
//!
//! On `net.4.5.2.x64.etl` (read from `$ETW_PERFVIEW_DIR`, else `../shared/data/perfview`;
//! skipped when missing), from memory, one thread:
//! - `summary`: every buffer decompressed and every event counted by its header type, the work
//!   `etwc etl --summary` does with each event, on one core;
//! - `walk`: the same, reading each event's header into [`Facts`] ([`Facts::of`]) instead: what
//!   every output that names events starts from;
//! - `decode_every_field`: the walk, then each event's schema found ([`Registry::identify`],
//!   with the registry learned beforehand from the trace) and every field of its data decoded
//!   ([`Identified::walk`]), each value handed to `black_box`.
//!
//! The ratios to the first two are the cost of meaning. `cargo bench -p etw-classic-decode
//! --bench trace`; nothing is asserted.

use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use etw_classic::payload::ItemKind;
use etw_classic::{EtlReader, Event};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::Registry;

fn trace() -> Option<Vec<u8>> {
    let dir = std::env::var_os("ETW_PERFVIEW_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/perfview"),
        PathBuf::from,
    );
    let path = dir.join("net.4.5.2.x64.etl");
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            eprintln!("SKIPPED: {} ({error})", path.display());
            None
        }
    }
}

/// Walks every event of `bytes`, handing each one to `visit`; returns how many.
fn each_event(bytes: &[u8], mut visit: impl FnMut(&Event<'_>)) -> usize {
    let mut count = 0;
    let Ok(mut reader) = EtlReader::new(Cursor::new(bytes)) else {
        return 0;
    };
    while let Some(buffer) = reader.next_buffer() {
        let Ok(buffer) = buffer else { continue };
        for event in buffer.events() {
            let Ok(event) = event else { break };
            visit(&event);
            count += 1;
        }
    }
    count
}

fn trace_benches(c: &mut Criterion) {
    let Some(bytes) = trace() else {
        return;
    };
    let mut registry = Registry::new();
    let events = each_event(&bytes, |event| {
        registry.learn(&Facts::of(event), String::new);
    });
    let mut group = c.benchmark_group("net.4.5.2.x64");
    group.sample_size(10);
    group.throughput(Throughput::Elements(events as u64));
    group.bench_function("summary", |b| {
        b.iter(|| {
            let mut counts = [0u64; 256];
            each_event(black_box(&bytes), |event| {
                if let Some(count) = counts.get_mut(usize::from(event.header_type.0)) {
                    *count += 1;
                }
            });
            black_box(counts)
        })
    });
    group.bench_function("walk", |b| {
        b.iter(|| {
            each_event(black_box(&bytes), |event| {
                black_box(Facts::of(event).payload);
            })
        })
    });
    group.bench_function("decode_every_field", |b| {
        b.iter(|| {
            each_event(black_box(&bytes), |event| {
                let facts = Facts::of(event);
                // Matched where it lies, as `Registry::identify` advises.
                if let Ok(identified) = &registry.identify(&facts) {
                    let _ = identified.walk(&facts, |name: &str, item: &ItemKind<'_>| {
                        black_box((name, item));
                    });
                }
            })
        })
    });
    group.finish();
}

criterion_group!(benches, trace_benches);
criterion_main!(benches);
