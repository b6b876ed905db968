//! The work the trace benchmark (`benches/trace.rs`) measures and `examples/decode_cost.rs`
//! times in turns, on every event of `net.4.5.2.x64.etl` from memory, one thread:
//! - [`summary`]: every buffer decompressed and every event counted by its header type, the
//!   work `etwc etl --summary` does with each event;
//! - [`walk`]: the same, reading each event's header into [`Facts`] ([`Facts::of`]) instead:
//!   what every output that names events starts from;
//! - [`decode_every_field`]: the walk, then each event's schema found
//!   ([`Registry::identify`], the registry learned beforehand from the trace) and every field
//!   of its data decoded ([`Identified::walk`](etw_classic_decode::registry::Identified::walk)),
//!   each value handed to `black_box`.

use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;

use etw_classic::payload::ItemKind;
use etw_classic::{EtlReader, Event};
use etw_classic_decode::facts::Facts;
use etw_classic_decode::Registry;

/// The trace: `net.4.5.2.x64.etl` in `$ETW_PERFVIEW_DIR`, else in `../shared/data/perfview`;
/// `None`, said on standard error, when it cannot be read.
pub fn trace() -> Option<Vec<u8>> {
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
pub fn each_event(bytes: &[u8], mut visit: impl FnMut(&Event<'_>)) -> usize {
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

/// The registry learned from every event of `bytes` (the stream's manifests, `EventInfo`,
/// process names), as `etwc` learns it before decoding.
pub fn learned(bytes: &[u8]) -> Registry {
    let mut registry = Registry::new();
    each_event(bytes, |event| {
        registry.learn(&Facts::of(event), String::new);
    });
    registry
}

/// Every event counted by its header type.
pub fn summary(bytes: &[u8]) -> [u64; 256] {
    let mut counts = [0u64; 256];
    each_event(black_box(bytes), |event| {
        if let Some(count) = counts.get_mut(usize::from(event.header_type.0)) {
            *count += 1;
        }
    });
    counts
}

/// Every event's header read into [`Facts`]; returns how many events.
pub fn walk(bytes: &[u8]) -> usize {
    each_event(black_box(bytes), |event| {
        black_box(Facts::of(event).payload);
    })
}

/// Every field of every event decoded with `registry`; returns how many events.
pub fn decode_every_field(bytes: &[u8], registry: &Registry) -> usize {
    each_event(black_box(bytes), |event| {
        let facts = Facts::of(event);
        // Matched where it lies, as `Registry::identify` advises.
        if let Ok(identified) = &registry.identify(&facts) {
            let _ = identified.walk(&facts, |name: &str, item: &ItemKind<'_>| {
                black_box((name, item));
            });
        }
    })
}
