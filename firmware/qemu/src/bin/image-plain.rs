//! `image-traced` without the library: the same start-up, semihosting and file writes (two
//! 512-byte buffers, the second from a `static`), no trace. The baseline of the library's flash
//! and RAM in `tools/firmware-costs/costs.py`.
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use etw_classic_firmware_qemu::{exit, HostFile};

const BUFFER_SIZE: usize = 512;

fn run(buffer: &[u8; BUFFER_SIZE], file: &mut HostFile) -> Option<()> {
    file.seek(BUFFER_SIZE).ok()?;
    file.write(black_box(buffer)).ok()?;
    let first = black_box([0u8; BUFFER_SIZE]);
    file.seek(0).ok()?;
    file.write(&first).ok()
}

#[entry]
fn main() -> ! {
    static mut BUFFER: [u8; BUFFER_SIZE] = [0; BUFFER_SIZE];
    let Ok(mut file) = HostFile::create("image.etl\0") else {
        exit(false)
    };
    let done = run(BUFFER, &mut file);
    exit(done.is_some() && file.close().is_ok())
}
