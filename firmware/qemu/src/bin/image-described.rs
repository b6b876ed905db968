//! `image-session` with its trace described in-band: before the events, the session writes the
//! `MetaData/EventInfo` event of one typed event type (the four-field event of the cost
//! measurement: u32, u16, pointer, string), whose `TRACE_EVENT_INFO` is a constant built when
//! the firmware is built. `tools/firmware-costs/costs.py` compares its sections with
//! `image-session`: the difference is the flash one described event type costs (its bytes and
//! the code that writes them); the RAM is the same.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use etw_classic::describe::{trace_event_infos, Pointer, ProviderDescription};
use etw_classic::{Bitness, Guid, Level, Provider, Session, SteppingContext};
use etw_classic_firmware_qemu::{
    exit, image_trace, HostFile, ImageSession, IMAGE_BUFFER_SIZE as BUFFER_SIZE,
};

etw_classic::event_class! {
    /// The class of the described event type.
    const STAGE = (Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 1]), "Stage", version 1);
    /// Four fields, as in the cost measurement.
    struct Four<'a> = (1, "Start") {
        stage: u32 => "Stage",
        flags: u16 => "Flags",
        entry: Pointer => "Entry",
        name: &'a str => "Name",
    }
}

const PROVIDER: ProviderDescription = ProviderDescription::new(
    Guid::from_fields(0x6b0f_0a11, 0x2c4e, 0x4b8d, [0x9a, 0x31, 0, 0, 0, 0, 0, 3]),
    "Boot",
    &[STAGE],
);

/// In flash.
const DESCRIPTIONS: [&[u8]; 1] = [etw_classic::event_info!(PROVIDER, Four<'static>)];

fn run(session: &mut ImageSession, file: &mut HostFile) -> Option<()> {
    session.set_enable_level(Level::VERBOSE);
    let provider = Provider::<1>::new(Bitness::Bits32);
    let mut clock = SteppingContext {
        now: black_box(500),
        ..SteppingContext::default()
    };
    let written = trace_event_infos(&provider, session, black_box(&DESCRIPTIONS), &mut clock);
    black_box(written.ok()?);
    image_trace(session, file)?;
    let first = black_box([0u8; BUFFER_SIZE]);
    file.seek(0).ok()?;
    file.write(&first).ok()
}

#[entry]
fn main() -> ! {
    // All zeros: `.bss`, RAM only.
    static mut SESSION: ImageSession = Session::disabled();
    let Ok(mut file) = HostFile::create("image.etl\0") else {
        exit(false)
    };
    let done = run(SESSION, &mut file);
    exit(done.is_some() && file.close().is_ok())
}
