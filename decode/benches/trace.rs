//! What decoding every field of a real trace costs, next to reading its events, with criterion:
//! `summary`, `walk` and `decode_every_field` of `support/trace_work.rs` on
//! `net.4.5.2.x64.etl` (skipped when missing).
//!
//! The ratios of the last to the first two are the cost of meaning. `cargo bench -p
//! etw-classic-decode --bench trace`; nothing is asserted. Criterion measures each benchmark
//! after the other, so a machine whose speed drifts moves the ratios; `cargo run --release -p
//! etw-classic-decode --example decode_cost` times the three in turns instead.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "support/trace_work.rs"]
mod trace_work;

use trace_work::{decode_every_field, learned, summary, trace, walk};

fn trace_benches(c: &mut Criterion) {
    let Some(bytes) = trace() else {
        return;
    };
    let registry = learned(&bytes);
    let mut group = c.benchmark_group("net.4.5.2.x64");
    group.sample_size(10);
    group.throughput(Throughput::Elements(walk(&bytes) as u64));
    group.bench_function("summary", |b| b.iter(|| summary(&bytes)));
    group.bench_function("walk", |b| b.iter(|| walk(&bytes)));
    group.bench_function("decode_every_field", |b| {
        b.iter(|| decode_every_field(&bytes, &registry))
    });
    group.finish();
}

criterion_group!(benches, trace_benches);
criterion_main!(benches);
