//! Case (b): a provider with one registered class traces one instance event, with data from
//! input the optimiser cannot see through, into a session with one 512-byte buffer, then
//! flushes the buffer and hands it over: what a firmware needs to produce a trace buffer.
//!
//! The session lives in a `static`, as firmware keeps such a buffer: in static RAM (`.bss`), not
//! on the stack. The library has no `unsafe`; this binary uses it once, to take the one `&mut` to the
//! static (what `cortex_m::singleton!` and cortex-m-rt's `static mut` in `#[entry]` do).
#![no_std]
#![no_main]

use core::hint::black_box;

use etw_classic::{
    Bitness, Class, EventData, EventInstanceHeader, EventType, Guid, Level, Provider, Session,
    SteppingContext, TimesOrFlags, WnodeFlags,
};

#[path = "../../common/start.rs"]
mod start;

/// The event data, in flash; `black_box` hides its contents and length from the optimiser.
static INPUT: [u8; 16] = [0; 16];

const CLASS: Guid = Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 1]);

/// The session, initialised at compile time with `Session::disabled()`, whose every byte is
/// zero: the static, buffer included, goes to `.bss`, which costs RAM but no flash (start-up
/// code zeroes it). `run` sets the logger id and the level. (`Session::new(1, Level::VERBOSE)`
/// is not all zeros, and puts the whole static in `.data`, whose initial image is stored in
/// flash too: 584 bytes of it here.)
static mut SESSION: Session<512, 1> = Session::disabled();

fn run() {
    // SAFETY: `run` runs once, from `reset`, and nothing else (no interrupt handler) uses
    // SESSION, so this is the only reference to it ever made.
    let session: &'static mut Session<512, 1> = unsafe { &mut *&raw mut SESSION };
    session.set_logger_id(1);
    session.set_enable_level(Level::VERBOSE);
    let mut provider = Provider::<1>::new(Bitness::Bits32);
    let mut clock = SteppingContext::default();
    let Ok(class) = provider.register(black_box(CLASS)) else {
        return;
    };
    let Ok(instance) = provider.create_instance_id(class) else {
        return;
    };
    let data: &[u8] = black_box(&INPUT[..]);
    let header = EventInstanceHeader {
        size: u16::try_from(EventInstanceHeader::LEN + data.len()).unwrap_or(u16::MAX),
        class: Class::new(EventType::START, Level::INFORMATION, 1),
        reg_handle: class,
        times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
        ..Default::default()
    };
    let traced = provider.trace_event_instance(
        session,
        black_box(&header),
        EventData::Inline(data),
        &instance,
        None,
        &mut clock,
    );
    black_box(traced.is_ok());
    session.flush(black_box(0));
    let _ = session.drain(|buffer| {
        black_box(buffer);
        Ok::<(), ()>(())
    });
}
