//! The codec next to two baselines measured in the same run, with criterion.
//!
//! For each header (`EventTraceHeader`, `EventInstanceHeader`, `EventInstanceGuidHeader`,
//! `EventTrace32`, `EventTrace64`), decode (`from_bytes`) and encode (`to_bytes`) are measured
//! next to:
//! - `raw_copy`: the same bytes copied into (or out of) a `#[repr(C)]` struct of the same size
//!   with `zerocopy::transmute!`, a plain copy and the least any decoder or encoder can do;
//! - `byteorder_cursor`: what one writes by hand, a `std::io::Cursor` read field by field with
//!   `byteorder::ReadBytesExt` into such a struct (or written with `WriteBytesExt`).
//!
//! Then the event walker: a 1 MiB buffer of `INSTANCE64` events (0x48-byte headers, data sizes
//! of 0 to 256 bytes from a fixed pseudo-random sequence, each event 8-byte aligned) walked by
//! `Events`, once touching each event's header type and size and once also decoding each header
//! with `Event::kind`, next to a `memcpy` of the same 1 MiB.
//!
//! Then Plain LZ77 decompression (`lz77_<trace>`): every compressed buffer of the PerfView traces
//! `net.4.5.2.x64.etl` and `net.4.5.2.x86.etl` (read from `$ETW_PERFVIEW_DIR`, else
//! `../shared/data/perfview`; skipped when missing) decompressed by `plain_lz77::decompress` into
//! one scratch buffer, next to a `memcpy` of the same decompressed bytes; throughput is counted in
//! bytes of output. `cargo bench --bench codec -- lz77` runs only these.
//!
//! Then LZNT1 and LZ77+Huffman decompression (`lznt1_log_lines`, `xpress_huffman_log_lines`):
//! 68 KiB of log lines from `tests/data/compression-vectors.json`, compressed by independent
//! compressors, decompressed by `lznt1::decompress` and `xpress_huffman::decompress`.
//!
//! Every input is read through `black_box` and every output handed to `black_box`, the same way
//! for the codec and for its baselines. After criterion's own report, a table of ratios is
//! printed from criterion's estimates (the median time per iteration of each benchmark, read
//! from `target/criterion`). Nothing is asserted about the timings.
//!
//! `cargo bench --bench codec` runs it all (about two minutes); `cargo bench --bench codec --
//! EventTraceHeader` runs the benchmarks whose name contains a filter. Without `--bench` (as
//! `cargo test --benches` runs it), each benchmark runs once, to check that it works.

use std::hint::black_box;
use std::io::{self, Cursor, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use byteorder::{LittleEndian, ReadBytesExt, WriteBytesExt};
use criterion::{Criterion, Throughput};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use etw_classic::xpress_huffman;
use etw_classic::{
    lznt1, plain_lz77,
    wire::{EventTrace32, EventTrace64, DEFAULT_TRACE_ALIGNMENT},
    Bitness, BufferContext, Class, EtlFile, Event, EventInstanceGuidHeader, EventInstanceHeader,
    EventTrace, EventTraceHeader, EventType, Events, Guid, GuidOrPtr, HeaderType, Level,
    MarkerFlags, TimesOrFlags,
};

// ---------------------------------------------------------------------------------------------
// The baselines' structs: the C layouts as host structs, little-endian hosts assumed.

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawGuid {
    data1: u32,
    data2: u16,
    data3: u16,
    data4: [u8; 8],
}

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawTraceHeader {
    size: u16,
    header_type: u8,
    marker_flags: u8,
    version: u32,
    thread_id: u32,
    process_id: u32,
    timestamp: i64,
    guid: RawGuid,
    times: [u8; 8],
}

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawInstanceHeader {
    size: u16,
    header_type: u8,
    marker_flags: u8,
    version: u32,
    thread_id: u32,
    process_id: u32,
    timestamp: i64,
    reg_handle: u64,
    instance_id: u32,
    parent_instance_id: u32,
    times: [u8; 8],
    parent_reg_handle: u64,
}

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawInstanceGuidHeader {
    header: RawTraceHeader,
    instance_id: u32,
    parent_instance_id: u32,
    parent_guid: RawGuid,
}

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawEventTrace32 {
    instance: RawInstanceGuidHeader,
    mof_data: u32,
    mof_length: u32,
    buffer_context: [u8; 4],
    tail_padding: [u8; 4],
}

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct RawEventTrace64 {
    instance: RawInstanceGuidHeader,
    mof_data: u64,
    mof_length: u32,
    buffer_context: [u8; 4],
}

const _: () = assert!(size_of::<RawTraceHeader>() == EventTraceHeader::LEN);
const _: () = assert!(size_of::<RawInstanceHeader>() == EventInstanceHeader::LEN);
const _: () = assert!(size_of::<RawInstanceGuidHeader>() == EventInstanceGuidHeader::LEN);
const _: () = assert!(size_of::<RawEventTrace32>() == EventTrace32::LEN);
const _: () = assert!(size_of::<RawEventTrace64>() == EventTrace64::LEN);

// ---------------------------------------------------------------------------------------------
// The hand-written byteorder codec: a cursor, one call per field.

type Le = LittleEndian;
/// The cursor a hand-written decoder reads from.
type In<'a> = Cursor<&'a [u8]>;
/// The cursor a hand-written encoder writes to.
type Out<'a> = Cursor<&'a mut [u8]>;

fn array<const N: usize>(cursor: &mut In<'_>) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    cursor.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_guid(cursor: &mut In<'_>) -> io::Result<RawGuid> {
    Ok(RawGuid {
        data1: cursor.read_u32::<Le>()?,
        data2: cursor.read_u16::<Le>()?,
        data3: cursor.read_u16::<Le>()?,
        data4: array(cursor)?,
    })
}

fn write_guid(cursor: &mut Out<'_>, guid: &RawGuid) -> io::Result<()> {
    cursor.write_u32::<Le>(guid.data1)?;
    cursor.write_u16::<Le>(guid.data2)?;
    cursor.write_u16::<Le>(guid.data3)?;
    cursor.write_all(&guid.data4)
}

fn read_trace_header(cursor: &mut In<'_>) -> io::Result<RawTraceHeader> {
    Ok(RawTraceHeader {
        size: cursor.read_u16::<Le>()?,
        header_type: cursor.read_u8()?,
        marker_flags: cursor.read_u8()?,
        version: cursor.read_u32::<Le>()?,
        thread_id: cursor.read_u32::<Le>()?,
        process_id: cursor.read_u32::<Le>()?,
        timestamp: cursor.read_i64::<Le>()?,
        guid: read_guid(cursor)?,
        times: array(cursor)?,
    })
}

fn write_trace_header(cursor: &mut Out<'_>, header: &RawTraceHeader) -> io::Result<()> {
    cursor.write_u16::<Le>(header.size)?;
    cursor.write_u8(header.header_type)?;
    cursor.write_u8(header.marker_flags)?;
    cursor.write_u32::<Le>(header.version)?;
    cursor.write_u32::<Le>(header.thread_id)?;
    cursor.write_u32::<Le>(header.process_id)?;
    cursor.write_i64::<Le>(header.timestamp)?;
    write_guid(cursor, &header.guid)?;
    cursor.write_all(&header.times)
}

fn read_instance_header(cursor: &mut In<'_>) -> io::Result<RawInstanceHeader> {
    Ok(RawInstanceHeader {
        size: cursor.read_u16::<Le>()?,
        header_type: cursor.read_u8()?,
        marker_flags: cursor.read_u8()?,
        version: cursor.read_u32::<Le>()?,
        thread_id: cursor.read_u32::<Le>()?,
        process_id: cursor.read_u32::<Le>()?,
        timestamp: cursor.read_i64::<Le>()?,
        reg_handle: cursor.read_u64::<Le>()?,
        instance_id: cursor.read_u32::<Le>()?,
        parent_instance_id: cursor.read_u32::<Le>()?,
        times: array(cursor)?,
        parent_reg_handle: cursor.read_u64::<Le>()?,
    })
}

fn write_instance_header(cursor: &mut Out<'_>, header: &RawInstanceHeader) -> io::Result<()> {
    cursor.write_u16::<Le>(header.size)?;
    cursor.write_u8(header.header_type)?;
    cursor.write_u8(header.marker_flags)?;
    cursor.write_u32::<Le>(header.version)?;
    cursor.write_u32::<Le>(header.thread_id)?;
    cursor.write_u32::<Le>(header.process_id)?;
    cursor.write_i64::<Le>(header.timestamp)?;
    cursor.write_u64::<Le>(header.reg_handle)?;
    cursor.write_u32::<Le>(header.instance_id)?;
    cursor.write_u32::<Le>(header.parent_instance_id)?;
    cursor.write_all(&header.times)?;
    cursor.write_u64::<Le>(header.parent_reg_handle)
}

fn read_instance_guid_header(cursor: &mut In<'_>) -> io::Result<RawInstanceGuidHeader> {
    Ok(RawInstanceGuidHeader {
        header: read_trace_header(cursor)?,
        instance_id: cursor.read_u32::<Le>()?,
        parent_instance_id: cursor.read_u32::<Le>()?,
        parent_guid: read_guid(cursor)?,
    })
}

fn write_instance_guid_header(
    cursor: &mut Out<'_>,
    header: &RawInstanceGuidHeader,
) -> io::Result<()> {
    write_trace_header(cursor, &header.header)?;
    cursor.write_u32::<Le>(header.instance_id)?;
    cursor.write_u32::<Le>(header.parent_instance_id)?;
    write_guid(cursor, &header.parent_guid)
}

fn read_event_trace32(cursor: &mut In<'_>) -> io::Result<RawEventTrace32> {
    Ok(RawEventTrace32 {
        instance: read_instance_guid_header(cursor)?,
        mof_data: cursor.read_u32::<Le>()?,
        mof_length: cursor.read_u32::<Le>()?,
        buffer_context: array(cursor)?,
        tail_padding: array(cursor)?,
    })
}

fn write_event_trace32(cursor: &mut Out<'_>, trace: &RawEventTrace32) -> io::Result<()> {
    write_instance_guid_header(cursor, &trace.instance)?;
    cursor.write_u32::<Le>(trace.mof_data)?;
    cursor.write_u32::<Le>(trace.mof_length)?;
    cursor.write_all(&trace.buffer_context)?;
    cursor.write_all(&trace.tail_padding)
}

fn read_event_trace64(cursor: &mut In<'_>) -> io::Result<RawEventTrace64> {
    Ok(RawEventTrace64 {
        instance: read_instance_guid_header(cursor)?,
        mof_data: cursor.read_u64::<Le>()?,
        mof_length: cursor.read_u32::<Le>()?,
        buffer_context: array(cursor)?,
    })
}

fn write_event_trace64(cursor: &mut Out<'_>, trace: &RawEventTrace64) -> io::Result<()> {
    write_instance_guid_header(cursor, &trace.instance)?;
    cursor.write_u64::<Le>(trace.mof_data)?;
    cursor.write_u32::<Le>(trace.mof_length)?;
    cursor.write_all(&trace.buffer_context)
}

/// Decodes `bytes` with `read` through a cursor, as a caller of `byteorder` would.
fn cursor_decode<T, const N: usize>(
    bytes: &[u8; N],
    read: impl Fn(&mut In<'_>) -> io::Result<T>,
) -> io::Result<T> {
    read(&mut Cursor::new(&bytes[..]))
}

/// Encodes `value` with `write` into a fresh array through a cursor.
fn cursor_encode<T, const N: usize>(
    value: &T,
    write: impl Fn(&mut Out<'_>, &T) -> io::Result<()>,
) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    write(&mut Cursor::new(&mut bytes[..]), value)?;
    Ok(bytes)
}

// ---------------------------------------------------------------------------------------------
// Sample values.

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

fn sample_instance_guid_header(size: u16) -> EventInstanceGuidHeader {
    EventInstanceGuidHeader {
        header: sample_trace_header(size, HeaderType::INSTANCE64),
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

fn sample_instance_header() -> EventInstanceHeader {
    let header = sample_trace_header(0x38 + 24, HeaderType(0));
    EventInstanceHeader {
        size: header.size,
        header_type: header.header_type,
        marker_flags: header.marker_flags,
        class: header.class,
        thread_id: header.thread_id,
        process_id: header.process_id,
        timestamp: header.timestamp,
        reg_handle: 0xffff_8000_1234_5678,
        instance_id: 7,
        parent_instance_id: 3,
        times: TimesOrFlags::from_times(11, 13),
        parent_reg_handle: 0xffff_8000_1234_9abc,
    }
}

fn sample_event_trace(bitness: Bitness) -> EventTrace {
    EventTrace::new(
        bitness,
        sample_instance_guid_header(0x48 + 24),
        0x0012_3400,
        24,
        BufferContext::default(),
    )
    .expect("the MofData value fits both pointer widths")
}

// ---------------------------------------------------------------------------------------------
// The fixed headers.

/// One struct's codec next to its two baselines: `raw_*` copy into and out of the `#[repr(C)]`
/// struct `R`, `cursor_*` read and write it field by field.
struct Contenders<T, const N: usize, Decode, Encode, RawDecode, RawEncode, CursorRead, CursorWrite>
{
    name: &'static str,
    value: T,
    from_bytes: Decode,
    to_bytes: Encode,
    raw_decode: RawDecode,
    raw_encode: RawEncode,
    cursor_read: CursorRead,
    cursor_write: CursorWrite,
}

fn bench_struct<T, R, const N: usize>(
    criterion: &mut Criterion,
    contenders: Contenders<
        T,
        N,
        impl Fn(&[u8; N]) -> T,
        impl Fn(&T) -> [u8; N],
        impl Fn(&[u8; N]) -> R,
        impl Fn(&R) -> [u8; N],
        impl Fn(&mut In<'_>) -> io::Result<R>,
        impl Fn(&mut Out<'_>, &R) -> io::Result<()>,
    >,
) {
    let bytes = (contenders.to_bytes)(&contenders.value);
    let raw = (contenders.raw_decode)(&bytes);
    assert_eq!(
        (contenders.raw_encode)(&raw),
        bytes,
        "{}: the baseline copies",
        contenders.name
    );
    let cursor_raw = cursor_decode(&bytes, &contenders.cursor_read).expect("whole struct");
    assert_eq!(
        cursor_encode::<R, N>(&cursor_raw, &contenders.cursor_write).expect("room"),
        bytes,
        "{}: the cursor codec",
        contenders.name
    );

    let mut group = criterion.benchmark_group(format!("{}_decode", contenders.name));
    group.throughput(Throughput::Bytes(N as u64));
    group.bench_function("raw_copy", |b| {
        b.iter(|| (contenders.raw_decode)(black_box(&bytes)))
    });
    group.bench_function("byteorder_cursor", |b| {
        b.iter(|| cursor_decode(black_box(&bytes), &contenders.cursor_read))
    });
    group.bench_function("etw_classic", |b| {
        b.iter(|| (contenders.from_bytes)(black_box(&bytes)))
    });
    group.finish();

    let mut group = criterion.benchmark_group(format!("{}_encode", contenders.name));
    group.throughput(Throughput::Bytes(N as u64));
    group.bench_function("raw_copy", |b| {
        b.iter(|| (contenders.raw_encode)(black_box(&raw)))
    });
    group.bench_function("byteorder_cursor", |b| {
        b.iter(|| cursor_encode::<R, N>(black_box(&raw), &contenders.cursor_write))
    });
    group.bench_function("etw_classic", |b| {
        b.iter(|| (contenders.to_bytes)(black_box(&contenders.value)))
    });
    group.finish();
}

fn fixed_headers(criterion: &mut Criterion) {
    bench_struct(
        criterion,
        Contenders {
            name: "EventTraceHeader",
            value: sample_trace_header(0x30 + 4, HeaderType::FULL_HEADER64),
            from_bytes: EventTraceHeader::from_bytes,
            to_bytes: EventTraceHeader::to_bytes,
            // `transmute!` needs both sizes at compile time, so each struct has its own copies.
            raw_decode: |bytes: &[u8; 0x30]| -> RawTraceHeader { zerocopy::transmute!(*bytes) },
            raw_encode: |raw: &RawTraceHeader| -> [u8; 0x30] { zerocopy::transmute!(*raw) },
            cursor_read: read_trace_header,
            cursor_write: write_trace_header,
        },
    );
    bench_struct(
        criterion,
        Contenders {
            name: "EventInstanceHeader",
            value: sample_instance_header(),
            from_bytes: EventInstanceHeader::from_bytes,
            to_bytes: EventInstanceHeader::to_bytes,
            // `transmute!` needs both sizes at compile time, so each struct has its own copies.
            raw_decode: |bytes: &[u8; 0x38]| -> RawInstanceHeader { zerocopy::transmute!(*bytes) },
            raw_encode: |raw: &RawInstanceHeader| -> [u8; 0x38] { zerocopy::transmute!(*raw) },
            cursor_read: read_instance_header,
            cursor_write: write_instance_header,
        },
    );
    bench_struct(
        criterion,
        Contenders {
            name: "EventInstanceGuidHeader",
            value: sample_instance_guid_header(0x48 + 24),
            from_bytes: EventInstanceGuidHeader::from_bytes,
            to_bytes: EventInstanceGuidHeader::to_bytes,
            // `transmute!` needs both sizes at compile time, so each struct has its own copies.
            raw_decode: |bytes: &[u8; 0x48]| -> RawInstanceGuidHeader {
                zerocopy::transmute!(*bytes)
            },
            raw_encode: |raw: &RawInstanceGuidHeader| -> [u8; 0x48] { zerocopy::transmute!(*raw) },
            cursor_read: read_instance_guid_header,
            cursor_write: write_instance_guid_header,
        },
    );
    let EventTrace::Bits32(trace32) = sample_event_trace(Bitness::Bits32) else {
        unreachable!("asked for the 32-bit layout")
    };
    bench_struct(
        criterion,
        Contenders {
            name: "EventTrace32",
            value: trace32,
            from_bytes: EventTrace32::from_bytes,
            to_bytes: EventTrace32::to_bytes,
            // `transmute!` needs both sizes at compile time, so each struct has its own copies.
            raw_decode: |bytes: &[u8; 0x58]| -> RawEventTrace32 { zerocopy::transmute!(*bytes) },
            raw_encode: |raw: &RawEventTrace32| -> [u8; 0x58] { zerocopy::transmute!(*raw) },
            cursor_read: read_event_trace32,
            cursor_write: write_event_trace32,
        },
    );
    let EventTrace::Bits64(trace64) = sample_event_trace(Bitness::Bits64) else {
        unreachable!("asked for the 64-bit layout")
    };
    bench_struct(
        criterion,
        Contenders {
            name: "EventTrace64",
            value: trace64,
            from_bytes: EventTrace64::from_bytes,
            to_bytes: EventTrace64::to_bytes,
            // `transmute!` needs both sizes at compile time, so each struct has its own copies.
            raw_decode: |bytes: &[u8; 0x58]| -> RawEventTrace64 { zerocopy::transmute!(*bytes) },
            raw_encode: |raw: &RawEventTrace64| -> [u8; 0x58] { zerocopy::transmute!(*raw) },
            cursor_read: read_event_trace64,
            cursor_write: write_event_trace64,
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Walking a buffer.

/// Bytes in the walked buffer.
const WALK_LEN: usize = 1 << 20;
/// The largest event data in the walked buffer.
const MAX_DATA_LEN: u64 = 256;

/// A 1 MiB buffer of `INSTANCE64` events with 0..=256 bytes of data each, padded to 8 bytes with
/// garbage, then the end mark and 0xFF fill. Returns the buffer and its number of events.
fn instance_buffer() -> (Vec<u8>, usize) {
    let mut buffer = vec![0xFF; WALK_LEN];
    // xorshift64*, fixed seed: the same buffer on every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let (mut at, mut count) = (0, 0);
    loop {
        let data_len = usize::try_from(next() % (MAX_DATA_LEN + 1)).expect("small");
        let size = EventInstanceGuidHeader::LEN + data_len;
        let step = size.next_multiple_of(DEFAULT_TRACE_ALIGNMENT);
        // Keep room for the end mark after the last event.
        if at + step + 4 > WALK_LEN {
            break;
        }
        let mut header = sample_instance_guid_header(u16::try_from(size).expect("fits"));
        header.instance_id = u32::try_from(count).expect("fits");
        header.header.timestamp += i64::try_from(count).expect("fits");
        let rest = header.emit(&mut buffer[at..]).expect("room");
        rest[..data_len].fill(0x5A);
        rest[data_len..step - EventInstanceGuidHeader::LEN].fill(0xAB);
        at += step;
        count += 1;
    }
    (buffer, count)
}

/// What the walk keeps of each event, so that none of the work can be left out.
fn touch(event: &Event<'_>) -> u64 {
    u64::from(event.size) ^ u64::from(event.header_type.0)
}

fn walk(criterion: &mut Criterion) {
    let (buffer, count) = instance_buffer();
    let walked = Events::new(&buffer)
        .inspect(|item| assert!(item.is_ok(), "a valid buffer: {item:?}"))
        .count();
    assert_eq!(walked, count, "the walk sees every event");

    let mut group = criterion.benchmark_group("walk_1MiB");
    group.throughput(Throughput::Bytes(WALK_LEN as u64));
    let mut copy = vec![0u8; WALK_LEN];
    group.bench_function("memcpy", |b| {
        b.iter(|| {
            copy.copy_from_slice(black_box(&buffer));
            black_box(&mut copy);
        })
    });
    group.bench_function("events", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for item in Events::new(black_box(&buffer)) {
                match item {
                    Ok(event) => sum = sum.wrapping_add(touch(&event)),
                    Err(error) => return Err(error),
                }
            }
            Ok(sum)
        })
    });
    group.bench_function("events_kind", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for item in Events::new(black_box(&buffer)) {
                match item {
                    Ok(event) => {
                        sum = sum.wrapping_add(touch(&event));
                        black_box(event.kind());
                    }
                    Err(error) => return Err(error),
                }
            }
            Ok(sum)
        })
    });
    group.finish();
    println!("walk_1MiB: {count} INSTANCE64 events in {WALK_LEN} bytes");
}

// ---------------------------------------------------------------------------------------------
// Plain LZ77 on the real compressed buffers.

/// The PerfView traces whose compressed buffers are decompressed, and their benchmark groups.
const LZ77_TRACES: [(&str, &str); 2] = [
    ("net.4.5.2.x64.etl", "lz77_net_x64"),
    ("net.4.5.2.x86.etl", "lz77_net_x86"),
];

/// The bytes of a PerfView trace, or `None` (with a message) when it cannot be read.
fn perfview_trace(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("ETW_PERFVIEW_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perfview"),
        PathBuf::from,
    );
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            println!("lz77: skipped, cannot read {} ({error})", path.display());
            None
        }
    }
}

fn lz77(criterion: &mut Criterion) {
    for (name, group_name) in LZ77_TRACES {
        let Some(bytes) = perfview_trace(name) else {
            continue;
        };
        let file = EtlFile::parse(&bytes).expect("a valid trace");
        let mut scratch = vec![0u8; file.buffer_size()];
        // Each compressed buffer's stream and its decompressed bytes (checked here, once).
        let mut streams: Vec<(&[u8], usize)> = Vec::new();
        let mut decompressed: Vec<Vec<u8>> = Vec::new();
        for buffer in file.buffers() {
            let buffer = buffer.expect("a valid buffer");
            if !buffer.is_compressed() {
                continue;
            }
            let expected = usize::try_from(buffer.header.offset).expect("fits") - 0x48;
            let stream = &buffer.bytes[0x48..];
            let written = plain_lz77::decompress(stream, &mut scratch).expect("decodes");
            assert_eq!(written, expected, "buffer {}", buffer.index);
            streams.push((stream, expected));
            decompressed.push(scratch[..written].to_vec());
        }
        let total: usize = streams.iter().map(|&(_, len)| len).sum();
        let compressed: usize = streams.iter().map(|&(stream, _)| stream.len()).sum();

        let mut group = criterion.benchmark_group(group_name);
        group.throughput(Throughput::Bytes(total as u64));
        group.bench_function("memcpy", |b| {
            b.iter(|| {
                for bytes in &decompressed {
                    scratch[..bytes.len()].copy_from_slice(black_box(bytes));
                    black_box(&mut scratch);
                }
            })
        });
        group.bench_function("decompress", |b| {
            b.iter(|| {
                let mut sum = 0usize;
                for &(stream, _) in &streams {
                    match plain_lz77::decompress(black_box(stream), &mut scratch) {
                        Ok(written) => sum = sum.wrapping_add(written),
                        Err(error) => return Err(error),
                    }
                    black_box(&mut scratch);
                }
                Ok(sum)
            })
        });
        group.finish();
        println!(
            "{group_name}: {} compressed buffers of {name}, {compressed} bytes -> {total} bytes",
            streams.len()
        );
    }
}

/// LZNT1 and LZ77+Huffman decompression (`lznt1_log_lines`, `xpress_huffman_log_lines`): the
/// 68 KiB of log lines of `tests/data/compression-vectors.json`, compressed by `lznt1` (PyPI)
/// and by `ntcompress`, decompressed into one scratch buffer.
fn other_formats(criterion: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/compression-vectors.json"
    );
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the vectors")).expect("JSON");
    let vectors = document["vectors"].as_array().expect("vectors");
    for (format, compressor, group_name) in [
        ("lznt1", "lznt1", "lznt1_log_lines"),
        ("xpress_huffman", "ntcompress", "xpress_huffman_log_lines"),
    ] {
        let vector = vectors
            .iter()
            .find(|vector| {
                vector["format"] == format
                    && vector["compressor"]
                        .as_str()
                        .is_some_and(|name| name.starts_with(compressor))
                    && vector["name"]
                        .as_str()
                        .is_some_and(|name| name.starts_with("log lines"))
            })
            .expect("the log lines vector");
        let text = vector["compressed"].as_str().expect("hex");
        let stream: Vec<u8> = (0..text.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&text[at..at + 2], 16).expect("hex"))
            .collect();
        let len =
            usize::try_from(vector["decompressed_len"].as_u64().expect("length")).expect("fits");
        let decode = |stream: &[u8], output: &mut [u8]| match format {
            "lznt1" => lznt1::decompress(stream, output).map_err(|_| ()),
            _ => xpress_huffman::decompress(stream, output).map_err(|_| ()),
        };
        let mut scratch = vec![0u8; len];
        assert_eq!(decode(&stream, &mut scratch), Ok(len));
        let mut group = criterion.benchmark_group(group_name);
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_function("decompress", |b| {
            b.iter(|| {
                let written = decode(black_box(&stream), &mut scratch);
                black_box(&mut scratch);
                written
            })
        });
        group.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// The summary.

/// Where criterion keeps its estimates, found as criterion finds it: `$CRITERION_HOME`, else
/// `criterion/` in `$CARGO_TARGET_DIR` or in the target directory the benchmark was built in.
fn criterion_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(home.into());
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .map(|dir| dir.join("criterion"))
        .find(|dir| dir.is_dir())
}

/// Criterion's median time per iteration, in nanoseconds, of `group/function`, if it was
/// measured since `since` (a filtered run leaves the other estimates from earlier runs).
fn median_ns(
    home: &std::path::Path,
    since: SystemTime,
    group: &str,
    function: &str,
) -> Option<f64> {
    let path = home.join(group).join(function).join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// The bytes per iteration criterion recorded for `group/function` (its `Throughput::Bytes`).
fn throughput_bytes(home: &std::path::Path, group: &str, function: &str) -> Option<f64> {
    let path = home.join(group).join(function).join("new/benchmark.json");
    let text = std::fs::read_to_string(path).ok()?;
    let benchmark: serde_json::Value = serde_json::from_str(&text).ok()?;
    benchmark["throughput"]["Bytes"].as_f64()
}

fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> String {
    match (numerator, denominator) {
        (Some(n), Some(d)) if d > 0.0 => format!("{:.2}x", n / d),
        _ => "-".into(),
    }
}

fn ns(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |value| format!("{value:.2}"))
}

fn print_summary(since: SystemTime) {
    let Some(home) = criterion_home() else {
        println!("no criterion estimates found; no summary");
        return;
    };
    println!();
    println!("Summary (criterion's median per iteration, this run):");
    println!();
    println!(
        "| {:<36} | {:>9} | {:>9} | {:>9} | {:>10} | {:>13} |",
        "operation", "ours ns", "copy ns", "cursor ns", "ours/copy", "ours/cursor"
    );
    println!(
        "|{:-<38}|{:->11}|{:->11}|{:->11}|{:->12}|{:->15}|",
        "", "", "", "", "", ""
    );
    for name in [
        "EventTraceHeader",
        "EventInstanceHeader",
        "EventInstanceGuidHeader",
        "EventTrace32",
        "EventTrace64",
    ] {
        for (operation, method) in [("decode", "from_bytes"), ("encode", "to_bytes")] {
            let group = format!("{name}_{operation}");
            let ours = median_ns(&home, since, &group, "etw_classic");
            let copy = median_ns(&home, since, &group, "raw_copy");
            let cursor = median_ns(&home, since, &group, "byteorder_cursor");
            println!(
                "| {:<36} | {:>9} | {:>9} | {:>9} | {:>10} | {:>13} |",
                format!("{name}::{method}"),
                ns(ours),
                ns(copy),
                ns(cursor),
                ratio(ours, copy),
                ratio(ours, cursor)
            );
        }
    }
    let memcpy = median_ns(&home, since, "walk_1MiB", "memcpy");
    println!();
    println!(
        "| {:<36} | {:>12} | {:>12} | {:>12} |",
        "walk of 1 MiB", "ours us", "memcpy us", "ours/memcpy"
    );
    println!("|{:-<38}|{:->14}|{:->14}|{:->14}|", "", "", "", "");
    for (label, function) in [
        ("Events (header_type, size)", "events"),
        ("Events + Event::kind", "events_kind"),
    ] {
        let ours = median_ns(&home, since, "walk_1MiB", function);
        println!(
            "| {:<36} | {:>12} | {:>12} | {:>12} |",
            label,
            ns(ours.map(|value| value / 1e3)),
            ns(memcpy.map(|value| value / 1e3)),
            ratio(ours, memcpy)
        );
    }
    println!();
    println!(
        "| {:<36} | {:>12} | {:>12} | {:>12} |",
        "Plain LZ77, MB/s of output", "ours", "memcpy", "ours/memcpy"
    );
    println!("|{:-<38}|{:->14}|{:->14}|{:->14}|", "", "", "", "");
    for (name, group) in LZ77_TRACES {
        let ours = median_ns(&home, since, group, "decompress");
        let memcpy = median_ns(&home, since, group, "memcpy");
        let bytes = throughput_bytes(&home, group, "decompress");
        // Bytes per nanosecond, times 1000: MB/s.
        let speed = |time: Option<f64>| match (bytes, time) {
            (Some(bytes), Some(time)) if time > 0.0 => format!("{:.0}", bytes / time * 1e3),
            _ => "-".into(),
        };
        println!(
            "| {:<36} | {:>12} | {:>12} | {:>12} |",
            name,
            speed(ours),
            speed(memcpy),
            ratio(memcpy, ours)
        );
    }
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(50)
        .configure_from_args();
    fixed_headers(&mut criterion);
    walk(&mut criterion);
    lz77(&mut criterion);
    other_formats(&mut criterion);
    criterion.final_summary();
    if std::env::args().any(|arg| arg == "--bench") {
        print_summary(started);
    }
}
