//! Measures the library's public calls on the core it runs on: instructions per call, read from
//! SysTick under QEMU's `-icount` (which makes the virtual clock, and so SysTick, advance by a
//! fixed amount per instruction), and stack high-water per call, by painting the stack.
//!
//! For each case it prints one line, `case <name> <ticks> <stack bytes>`: `ticks` is how far
//! SysTick (clocked by the core, counting down) moved between two reads around the call, and
//! `stack` how many bytes below the caller's stack pointer the call wrote. It first prints
//! `case empty ...` (the same measurement around a call that does nothing: the overhead) and
//! `case nops ...` (around 10 000 `NOP`s: the ticks per instruction). `tools/firmware-costs/
//! costs.py` runs it and turns ticks into instructions. With `-append crosscheck` it measures
//! only `empty` and `instance-16-parent`, once each, for the comparison with QEMU's execution
//! log.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::sync::atomic::{compiler_fence, Ordering};

use cortex_m::peripheral::{syst::SystClkSource, SYST};
use cortex_m_rt::{entry, exception, ExceptionFrame};
use etw_classic::describe::{Pointer, TypedEvent};
use etw_classic::{
    wire::VersionDetail,
    write::{SharedSession, WhenFull},
    Bitness, Class, EtlHeader, EventData, EventInstanceHeader, EventInstanceInfo, EventTraceHeader,
    EventType, Guid, GuidOrPtr, Level, Provider, Session, SteppingContext, TimesOrFlags,
    TraceError, Traced, WnodeFlags,
};
use etw_classic_firmware_qemu::{command_line, exit, println};

/// The measured session's buffers: 512 bytes, two of them.
const BUFFER_SIZE: usize = 512;
type BenchSession = Session<BUFFER_SIZE, 2>;

/// The same session shared with interrupt handlers, for the cost of the critical section
/// (cortex-m's single-core one: PRIMASK saved, `CPSID I`, restored). All zeros: in `.bss`.
static SHARED: SharedSession<BUFFER_SIZE, 2> = SharedSession::new(Session::disabled());

const CLASS: Guid = Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 1]);
const PARENT_CLASS: Guid =
    Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 2]);

etw_classic::event_class! {
    /// The class of the typed event measured.
    const STAGE = (CLASS, "Stage", version 1);
    /// Four fields: 4 + 2 + 4 (a 32-bit provider's pointer) + 9 (8 characters and the NUL)
    /// bytes of data.
    struct Four<'a> = (1, "Start") {
        stage: u32 => "Stage",
        flags: u16 => "Flags",
        entry: Pointer => "Entry",
        name: &'a str => "Name",
    }
}

/// The event data, in flash.
static PAYLOAD: [u8; 256] = [0x42; 256];

/// The word painted below the stack pointer before a call.
const PAINT: u32 = 0x5AA5_C33C;
/// How far below the measuring function's stack pointer the paint goes.
const PAINT_DEPTH: usize = 8 * 1024;

/// Everything a measured call reads, so that every call site is the same: one pointer.
struct Bench {
    session: &'static mut BenchSession,
    provider: Provider<2>,
    clock: SteppingContext,
    instance_header: EventInstanceHeader,
    plain_header: EventTraceHeader,
    data: &'static [u8],
    instance: EventInstanceInfo,
    parent: Option<EventInstanceInfo>,
    class: u64,
    first_buffer: [u8; BUFFER_SIZE],
    typed: Four<'static>,
}

/// Whether a trace call succeeded, as the wrapper's result: what a caller that goes on after
/// the call (`let _ =`, `?`, `.is_ok()`) reads of it, and no more (a conversion of the error to
/// a number would add about 10 instructions to every figure that are not the library's).
#[inline(always)]
fn outcome(traced: Result<Traced, TraceError>) -> u32 {
    u32::from(traced.is_ok())
}

// The measured calls: each `#[inline(never)]`, taking the bench by reference.

#[inline(never)]
fn empty(bench: &mut Bench) -> u32 {
    bench.class as u32
}

#[inline(never)]
fn nops(bench: &mut Bench) -> u32 {
    // SAFETY: ten thousand `NOP`s: no memory, no registers, no flags.
    unsafe {
        core::arch::asm!(
            ".rept 10000",
            "nop",
            ".endr",
            options(nomem, nostack, preserves_flags)
        );
    }
    bench.class as u32
}

#[inline(never)]
fn trace_event_instance(bench: &mut Bench) -> u32 {
    outcome(bench.provider.trace_event_instance(
        bench.session,
        &bench.instance_header,
        EventData::Inline(bench.data),
        &bench.instance,
        bench.parent.as_ref(),
        &mut bench.clock,
    ))
}

#[inline(never)]
fn shared_trace_event_instance(bench: &mut Bench) -> u32 {
    outcome(SHARED.trace_event_instance(
        &bench.provider,
        &bench.instance_header,
        EventData::Inline(bench.data),
        &bench.instance,
        bench.parent.as_ref(),
        &mut bench.clock,
    ))
}

#[inline(never)]
fn shared_with(_bench: &mut Bench) -> u32 {
    match SHARED.with(|session| session.full_count()) {
        Ok(full) => full as u32,
        Err(error) => error.win32_code().0,
    }
}

#[inline(never)]
fn trace_event(bench: &mut Bench) -> u32 {
    outcome(bench.provider.trace_event(
        bench.session,
        &bench.plain_header,
        EventData::Inline(bench.data),
        &mut bench.clock,
    ))
}

#[inline(never)]
fn typed_four(bench: &mut Bench) -> u32 {
    u32::from(
        bench
            .typed
            .trace(
                &bench.provider,
                bench.session,
                Level::INFORMATION,
                &mut bench.clock,
            )
            .is_ok(),
    )
}

#[inline(never)]
fn flush(bench: &mut Bench) -> u32 {
    u32::from(bench.session.flush(bench.clock.now))
}

#[inline(never)]
fn drain(bench: &mut Bench) -> u32 {
    match bench.session.drain(|buffer| {
        black_box(buffer);
        Ok::<(), ()>(())
    }) {
        Ok(stored) => stored as u32,
        Err(()) => 0,
    }
}

#[inline(never)]
fn create_instance_id(bench: &mut Bench) -> u32 {
    match bench.provider.create_instance_id(bench.class) {
        Ok(info) => info.instance_id(),
        Err(error) => error.win32_code().0,
    }
}

#[inline(never)]
fn write_first_buffer(bench: &mut Bench) -> u32 {
    let mut header = EtlHeader::new(Bitness::Bits32, BUFFER_SIZE as u32);
    header.buffers_written = 3;
    header.start_time = bench.clock.now;
    header.end_time = bench.clock.now;
    header.version = VersionDetail {
        major_version: 10,
        minor_version: 0,
        sub_version: 0,
        sub_minor_version: 0,
    };
    header.logger_name = "boot";
    header.log_file_name = "boot.etl";
    match header.write_first_buffer(&mut bench.first_buffer) {
        Ok(written) => written as u32,
        Err(_) => 0,
    }
}

/// SysTick's current value (it counts down); one volatile load.
#[inline(never)]
#[no_mangle]
fn systick_now() -> u32 {
    SYST::get_current()
}

/// SysTick ticks between the reads around `call(bench)`.
#[inline(never)]
fn ticks(bench: &mut Bench, call: fn(&mut Bench) -> u32) -> u32 {
    compiler_fence(Ordering::SeqCst);
    let start = systick_now();
    compiler_fence(Ordering::SeqCst);
    let result = call(bench);
    compiler_fence(Ordering::SeqCst);
    let end = systick_now();
    compiler_fence(Ordering::SeqCst);
    black_box(result);
    start.wrapping_sub(end) & 0x00FF_FFFF
}

/// Bytes just below the measuring function's stack pointer left unpainted: `paint`'s own frame
/// (a push of two registers) goes there. A call that writes no deeper is reported as using at
/// most this much.
const UNPAINTED: usize = 32;

/// Paints the stack from `bottom` up to `top`.
#[inline(never)]
fn paint(bottom: usize, top: usize) {
    let mut address = bottom;
    while address < top {
        // SAFETY: `bottom..top` is RAM below the measuring function's frame and below this
        // function's (`UNPAINTED` bytes are left for it): no live data is there.
        unsafe { core::ptr::write_volatile(address as *mut u32, PAINT) };
        address += 4;
    }
}

/// The lowest address at or above `bottom` whose word is no longer the paint, `top` if none.
#[inline(never)]
fn lowest_written(bottom: usize, top: usize) -> usize {
    let mut address = bottom;
    while address < top {
        // SAFETY: reads the RAM `paint` painted; nothing holds a reference to it.
        if unsafe { core::ptr::read_volatile(address as *const u32) } != PAINT {
            return address;
        }
        address += 4;
    }
    top
}

/// Bytes of stack `call(bench)` writes below the caller's stack pointer.
#[inline(never)]
fn stack(bench: &mut Bench, call: fn(&mut Bench) -> u32) -> usize {
    let sp = cortex_m::register::msp::read() as usize;
    let bottom = sp - PAINT_DEPTH;
    let top = sp - UNPAINTED;
    paint(bottom, top);
    compiler_fence(Ordering::SeqCst);
    black_box(call(bench));
    compiler_fence(Ordering::SeqCst);
    sp - lowest_written(bottom, top)
}

/// `session` emptied and enabled as a firmware enables its `static` at start-up.
fn reset(session: &mut BenchSession, when_full: WhenFull) {
    *session = Session::disabled();
    session.set_logger_id(1);
    session.set_when_full(when_full);
    session.set_enable_level(Level::VERBOSE);
}

/// A fresh session holding one 16-byte event with a parent, so the next event goes to a
/// buffer that is already current and has room.
fn warm(bench: &mut Bench) {
    reset(bench.session, WhenFull::DropNewest);
    set_instance(bench, 16, true, Level::INFORMATION);
    trace_event_instance(bench);
}

/// Four 16-byte events and one without data after the one `warm` writes leave 16 bytes of the
/// 512: the next 16-byte event seals the buffer (16 bytes of 0xFF fill) and starts another.
fn fill_to_16_bytes_left(bench: &mut Bench) {
    for _ in 0..3 {
        trace_event_instance(bench);
    }
    set_instance(bench, 0, true, Level::INFORMATION);
    trace_event_instance(bench);
    set_instance(bench, 16, true, Level::INFORMATION);
}

/// A flight recorder whose two buffers are used: the first full (five events), the second
/// current with 16 bytes left, so the next 16-byte event seals it and overwrites the first.
fn full_flight_recorder(bench: &mut Bench) {
    warm(bench);
    bench.session.set_when_full(WhenFull::OverwriteOldest);
    fill_to_16_bytes_left(bench);
    trace_event_instance(bench);
    fill_to_16_bytes_left(bench);
}

/// The shared session holding one 16-byte event with a parent, as `warm` leaves the other.
fn warm_shared(bench: &mut Bench) {
    let _ = SHARED.with(|session| reset(session, WhenFull::DropNewest));
    set_instance(bench, 16, true, Level::INFORMATION);
    shared_trace_event_instance(bench);
}

/// Sets the instance event the next `trace_event_instance` writes.
fn set_instance(bench: &mut Bench, payload: usize, with_parent: bool, level: Level) {
    let data = black_box(&PAYLOAD[..payload]);
    bench.data = data;
    bench.parent = if with_parent {
        bench.provider.create_instance_id(2).ok()
    } else {
        None
    };
    bench.instance_header = EventInstanceHeader {
        size: (EventInstanceHeader::LEN + data.len()) as u16,
        class: Class::new(EventType::CHECKPOINT, level, 1),
        reg_handle: bench.class,
        parent_reg_handle: bench.parent.map_or(0, |parent| parent.reg_handle()),
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
}

/// Measures `call` after `setup`, twice: once for the ticks, once for the stack.
fn case(name: &str, bench: &mut Bench, setup: fn(&mut Bench), call: fn(&mut Bench) -> u32) {
    setup(bench);
    let ticks = ticks(bench, call);
    setup(bench);
    let stack = stack(bench, call);
    println!("case {name} {ticks} {stack}");
}

fn instance_case(bench: &mut Bench, payload: usize, with_parent: bool) {
    warm(bench);
    set_instance(bench, payload, with_parent, Level::INFORMATION);
}

#[entry]
fn main() -> ! {
    // All zeros: `.bss`, RAM only; `warm` enables it.
    static mut SESSION: BenchSession = Session::disabled();
    let Some(mut peripherals) = cortex_m::Peripherals::take() else {
        exit(false)
    };
    let systick = &mut peripherals.SYST;
    systick.set_clock_source(SystClkSource::Core);
    systick.set_reload(0x00FF_FFFF);
    systick.clear_current();
    systick.enable_counter();

    let mut provider = Provider::<2>::new(Bitness::Bits32);
    let (Ok(class), Ok(_parent_class)) =
        (provider.register(CLASS), provider.register(PARENT_CLASS))
    else {
        exit(false)
    };
    let Ok(instance) = provider.create_instance_id(class) else {
        exit(false)
    };
    let mut bench = Bench {
        session: SESSION,
        provider,
        clock: SteppingContext {
            now: 1_000,
            step: 10,
            thread_id: 1,
            ..SteppingContext::default()
        },
        instance_header: EventInstanceHeader::default(),
        plain_header: EventTraceHeader {
            size: (EventTraceHeader::LEN + 16) as u16,
            class: Class::new(EventType::INFO, Level::INFORMATION, 1),
            guid: GuidOrPtr::from_guid(CLASS),
            times: TimesOrFlags::from_client_context(0, WnodeFlags::TRACED_GUID),
            ..Default::default()
        },
        data: &[],
        instance,
        parent: None,
        class,
        first_buffer: [0; BUFFER_SIZE],
        typed: Four {
            stage: 0,
            flags: 0,
            entry: Pointer(0),
            name: "",
        },
    };
    let bench = &mut bench;

    let mut arguments = [0u8; 64];
    if command_line(&mut arguments).contains("crosscheck") {
        instance_case(bench, 16, true);
        let empty_ticks = ticks(bench, empty);
        let call_ticks = ticks(bench, trace_event_instance);
        println!("crosscheck {empty_ticks} {call_ticks}");
        exit(true)
    }

    case("empty", bench, |_| {}, empty);
    case("nops", bench, |_| {}, nops);
    case(
        "instance-0",
        bench,
        |b| instance_case(b, 0, false),
        trace_event_instance,
    );
    case(
        "instance-16",
        bench,
        |b| instance_case(b, 16, false),
        trace_event_instance,
    );
    case(
        "instance-64",
        bench,
        |b| instance_case(b, 64, false),
        trace_event_instance,
    );
    case(
        "instance-256",
        bench,
        |b| instance_case(b, 256, false),
        trace_event_instance,
    );
    case(
        "instance-0-parent",
        bench,
        |b| instance_case(b, 0, true),
        trace_event_instance,
    );
    case(
        "instance-16-parent",
        bench,
        |b| instance_case(b, 16, true),
        trace_event_instance,
    );
    case(
        "instance-64-parent",
        bench,
        |b| instance_case(b, 64, true),
        trace_event_instance,
    );
    case(
        "instance-256-parent",
        bench,
        |b| instance_case(b, 256, true),
        trace_event_instance,
    );
    case(
        "filtered-out",
        bench,
        |b| {
            warm(b);
            set_instance(b, 16, true, Level(6));
        },
        trace_event_instance,
    );
    case(
        "trace-event-16",
        bench,
        |b| {
            warm(b);
            b.data = black_box(&PAYLOAD[..16]);
        },
        trace_event,
    );
    case(
        "typed-four",
        bench,
        |b| {
            warm(b);
            b.typed = Four {
                stage: black_box(3),
                flags: black_box(0x0101),
                entry: Pointer(black_box(0x0800_1234)),
                name: black_box("firmware"),
            };
        },
        typed_four,
    );
    case(
        "seal",
        bench,
        |b| {
            warm(b);
            fill_to_16_bytes_left(b);
        },
        trace_event_instance,
    );
    case(
        "overwrite",
        bench,
        full_flight_recorder,
        trace_event_instance,
    );
    if bench.session.stats().buffers_overwritten != 1 {
        println!("the overwrite case overwrote no buffer");
        exit(false)
    }
    case(
        "shared-instance-16-parent",
        bench,
        warm_shared,
        shared_trace_event_instance,
    );
    case("shared-with", bench, warm_shared, shared_with);
    // One 16-byte event in the buffer: the flush writes the header and 352 bytes of fill.
    case("flush", bench, warm, flush);
    case(
        "drain-1",
        bench,
        |b| {
            warm(b);
            flush(b);
        },
        drain,
    );
    case("create-instance-id", bench, |_| {}, create_instance_id);
    case("write-first-buffer", bench, |_| {}, write_first_buffer);
    exit(true)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    println!("hard fault at {:#x}", frame.pc());
    exit(false)
}
