//! Decoding an event's fields with its schema in hand, with criterion: the events of
//! `examples/common/payload_events.rs`, each walked whole with `PayloadDecoder` (its `for_each`,
//! the walk the outputs take), every item handed to `black_box`, what a sink must do at least.
//! The schema is loaded beforehand, with its `last_reference` worked out once, as the registry
//! does. `cargo bench --bench payload`; nothing is asserted.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use etw_classic::payload::{last_reference, PayloadDecoder};
use etw_classic::Bitness;

#[path = "../examples/common/payload_events.rs"]
mod payload_events;

use payload_events::{events, walk};

fn payload(c: &mut Criterion) {
    let mut group = c.benchmark_group("payload");
    for event in events() {
        let (fields, data) = (&event.fields, &event.data);
        // Every item decodes and every byte is a field's.
        let mut decoder = PayloadDecoder::new(fields, data, Bitness::Bits64);
        assert_eq!(decoder.by_ref().filter(Result::is_ok).count(), event.items);
        assert!(!decoder.failed() && decoder.rest().is_empty());
        // Worked out once for the schema, as the registry does when a schema is added.
        let last_reference = last_reference(fields);
        group.throughput(Throughput::Elements(1));
        group.bench_function(event.name, |b| {
            b.iter(|| walk(fields, data, last_reference));
        });
    }
    group.finish();
}

criterion_group!(benches, payload);
criterion_main!(benches);
