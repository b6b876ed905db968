//! Nanoseconds per operation of the codec, next to a plain copy of the same number of bytes.
//!
//! `cargo bench --bench codec` measures each operation for a fixed number of iterations after a
//! warm-up, keeps the best of several rounds and prints a table. The last column divides by the
//! raw array copy of the same size, the least any decoder or encoder of that struct could do.
//! Nothing is asserted about the timings.
//!
//! Run without `--bench` (as `cargo test --benches` does), every operation runs only a few times,
//! which checks that the benchmark works without spending time on it.

use std::hint::black_box;
use std::time::Instant;

use etw_classic::{
    Bitness, BufferContext, Class, EventInstanceGuidHeader, EventTrace, EventTraceHeader,
    EventType, Guid, GuidOrPtr, HeaderType, Level, MarkerFlags, TimesOrFlags,
};

/// How long the measurement runs.
#[derive(Clone, Copy)]
struct Plan {
    warm_up: u32,
    iterations: u32,
    rounds: u32,
}

/// `cargo bench`: about a second in all.
const FULL: Plan = Plan {
    warm_up: 200_000,
    iterations: 1_000_000,
    rounds: 15,
};

/// Without `--bench`: just enough to run every operation.
const SMOKE: Plan = Plan {
    warm_up: 1,
    iterations: 10,
    rounds: 1,
};

/// Bytes of event data after the instance header in the `parse` input.
const EVENT_DATA_LEN: usize = 24;

/// The best nanoseconds per call of `op` over the plan's rounds.
fn best_ns_per_op(plan: Plan, mut op: impl FnMut()) -> f64 {
    for _ in 0..plan.warm_up {
        op();
    }
    let mut best = f64::INFINITY;
    for _ in 0..plan.rounds {
        let start = Instant::now();
        for _ in 0..plan.iterations {
            op();
        }
        let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(plan.iterations);
        best = best.min(ns);
    }
    best
}

/// A plain copy of `N` bytes: read through an opaque reference, handed on as a value.
fn raw_copy<const N: usize>(plan: Plan, bytes: &[u8; N]) -> f64 {
    best_ns_per_op(plan, || {
        let copy: [u8; N] = *black_box(bytes);
        black_box(copy);
    })
}

/// One line of the table.
struct Row {
    operation: String,
    bytes: usize,
    ns: f64,
}

/// The rows measured for one struct size: the raw copy first, then the codec's operations.
struct Group {
    bytes: usize,
    rows: Vec<Row>,
}

impl Group {
    fn new<const N: usize>(plan: Plan, bytes: &[u8; N]) -> Self {
        let mut group = Self {
            bytes: N,
            rows: Vec::new(),
        };
        group.add(format!("raw copy [u8; {N:#x}]"), raw_copy(plan, bytes));
        group
    }

    fn add(&mut self, operation: String, ns: f64) {
        self.rows.push(Row {
            operation,
            bytes: self.bytes,
            ns,
        });
    }
}

/// A header as a 64-bit provider's `TraceEvent` writes it, with every member non-zero.
fn sample_trace_header(size: u16, header_type: HeaderType) -> EventTraceHeader {
    EventTraceHeader {
        size,
        header_type,
        marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
        class: Class::new(EventType::START, Level::INFORMATION, 2),
        thread_id: 0x1234,
        process_id: 0x42,
        timestamp: 133_000_000_000_000_000,
        guid: GuidOrPtr::from_guid(Guid::from_fields(
            0x3d6f_a8d0,
            0xfe05,
            0x11d0,
            [0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c],
        )),
        times: TimesOrFlags::from_times(3, 5),
    }
}

fn sample_instance_header() -> EventInstanceGuidHeader {
    let size = EventInstanceGuidHeader::LEN + EVENT_DATA_LEN;
    EventInstanceGuidHeader {
        header: sample_trace_header(
            u16::try_from(size).expect("event fits a u16 Size"),
            HeaderType::INSTANCE64,
        ),
        instance_id: 7,
        parent_instance_id: 3,
        parent_guid: Guid::from_fields(
            0x9b79_ee91,
            0xb5fd,
            0x41c0,
            [0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0],
        ),
    }
}

fn measure(plan: Plan) -> Vec<Group> {
    let mut groups = Vec::new();

    // EVENT_TRACE_HEADER, 0x30 bytes.
    let trace_header = sample_trace_header(0x30 + 4, HeaderType::FULL_HEADER64);
    let bytes = trace_header.to_bytes();
    let mut group = Group::new(plan, &bytes);
    group.add(
        "EventTraceHeader::from_bytes".into(),
        best_ns_per_op(plan, || {
            black_box(EventTraceHeader::from_bytes(black_box(&bytes)));
        }),
    );
    group.add(
        "EventTraceHeader::to_bytes".into(),
        best_ns_per_op(plan, || {
            black_box(black_box(&trace_header).to_bytes());
        }),
    );
    groups.push(group);

    // EVENT_INSTANCE_GUID_HEADER, 0x48 bytes.
    let instance = sample_instance_header();
    let bytes = instance.to_bytes();
    let mut event = [0u8; EventInstanceGuidHeader::LEN + EVENT_DATA_LEN];
    let data = instance.emit(&mut event).expect("room for the header");
    data.fill(0x5A);
    let mut group = Group::new(plan, &bytes);
    group.add(
        "EventInstanceGuidHeader::from_bytes".into(),
        best_ns_per_op(plan, || {
            black_box(EventInstanceGuidHeader::from_bytes(black_box(&bytes)));
        }),
    );
    group.add(
        "EventInstanceGuidHeader::to_bytes".into(),
        best_ns_per_op(plan, || {
            black_box(black_box(&instance).to_bytes());
        }),
    );
    group.add(
        "EventInstanceGuidHeader::parse (slice)".into(),
        best_ns_per_op(plan, || {
            let _ = black_box(EventInstanceGuidHeader::parse(black_box(&event[..])));
        }),
    );
    groups.push(group);

    // EVENT_TRACE, 0x58 bytes, in both layouts.
    let mut traces = Vec::new();
    for bitness in [Bitness::Bits32, Bitness::Bits64] {
        let trace = EventTrace::new(
            bitness,
            instance,
            0x0012_3400,
            u32::try_from(EVENT_DATA_LEN).expect("small length"),
            BufferContext::default(),
        )
        .expect("the MofData value fits both pointer widths");
        traces.push((bitness, trace, trace.to_bytes()));
    }
    let mut group = Group::new(plan, &traces[0].2);
    for (bitness, _, bytes) in &traces {
        let bitness = *bitness;
        group.add(
            format!("EventTrace::from_bytes ({bitness})"),
            best_ns_per_op(plan, || {
                black_box(EventTrace::from_bytes(black_box(bytes), black_box(bitness)));
            }),
        );
    }
    for (bitness, trace, _) in &traces {
        group.add(
            format!("EventTrace::to_bytes ({bitness})"),
            best_ns_per_op(plan, || {
                black_box(black_box(trace).to_bytes());
            }),
        );
    }
    groups.push(group);

    groups
}

fn print_table(groups: &[Group], plan: Plan) {
    let width = groups
        .iter()
        .flat_map(|group| &group.rows)
        .map(|row| row.operation.len())
        .max()
        .unwrap_or(0);
    println!(
        "best of {} rounds of {} iterations, after {} warm-up iterations",
        plan.rounds, plan.iterations, plan.warm_up
    );
    println!();
    println!(
        "{:<width$}  {:>5}  {:>8}  {:>10}",
        "operation", "bytes", "ns/op", "vs copy"
    );
    println!("{}", "-".repeat(width + 31));
    for group in groups {
        let baseline = group.rows.first().map_or(f64::NAN, |row| row.ns);
        for row in &group.rows {
            println!(
                "{:<width$}  {:>#5x}  {:>8.2}  {:>9.2}x",
                row.operation,
                row.bytes,
                row.ns,
                row.ns / baseline
            );
        }
    }
}

fn main() {
    let plan = if std::env::args().any(|arg| arg == "--bench") {
        FULL
    } else {
        SMOKE
    };
    let groups = measure(plan);
    print_table(&groups, plan);
}
