//! `image-traced` without the logfile header: the provider and the session alone (a session in
//! a `static` made with `Session::disabled`, one instance event with a parent, one plain event,
//! the buffer sealed and stored), and in place of the logfile header's buffer a buffer of zeros
//! from the stack, as `image-plain` writes. `tools/firmware-costs/costs.py` compares its
//! sections with `image-plain`: the difference is the flash and RAM of the provider and the
//! session.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use etw_classic::Session;
use etw_classic_firmware_qemu::{
    exit, image_trace, HostFile, ImageSession, IMAGE_BUFFER_SIZE as BUFFER_SIZE,
};

fn run(session: &mut ImageSession, file: &mut HostFile) -> Option<()> {
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
