//! `image-traced` without the library: the same start-up, semihosting and file writes (two
//! 512-byte buffers from the stack), no trace and no static. The baseline of the library's
//! flash and RAM in `tools/firmware-costs/costs.py`.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use etw_classic_firmware_qemu::{exit, HostFile};

const BUFFER_SIZE: usize = 512;

fn run(file: &mut HostFile) -> Option<()> {
    let buffer = black_box([0x42u8; BUFFER_SIZE]);
    file.seek(BUFFER_SIZE).ok()?;
    file.write(&buffer).ok()?;
    let first = black_box([0u8; BUFFER_SIZE]);
    file.seek(0).ok()?;
    file.write(&first).ok()
}

#[entry]
fn main() -> ! {
    let Ok(mut file) = HostFile::create("image.etl\0") else {
        exit(false)
    };
    let done = run(&mut file);
    exit(done.is_some() && file.close().is_ok())
}
