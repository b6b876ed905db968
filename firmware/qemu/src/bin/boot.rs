//! Traces the boot in every mode and writes each mode's .etl file into QEMU's working
//! directory through semihosting, then exits with status 0 (1 if anything failed). The host
//! build of the same trace (`cargo run -p etw-classic-firmware --example boot_etl`) must write
//! the same bytes; `.ci/run` checks that on a Cortex-M0, M3 and M4.
#![no_std]
#![no_main]

use cortex_m_rt::{entry, exception, ExceptionFrame};
use etw_classic_firmware::{boot_trace, Mode};
use etw_classic_firmware_qemu::{exit, println, HostFile};

/// `Mode::file_name` with the NUL semihosting wants.
fn c_name(mode: Mode, buffer: &mut [u8; 32]) -> Option<&str> {
    let name = mode.file_name().as_bytes();
    let with_nul = buffer.get_mut(..name.len() + 1)?;
    let (text, nul) = with_nul.split_at_mut(name.len());
    text.copy_from_slice(name);
    nul.fill(0);
    core::str::from_utf8(with_nul).ok()
}

fn trace(mode: Mode) -> bool {
    let mut name = [0; 32];
    let Some(name) = c_name(mode, &mut name) else {
        return false;
    };
    let mut file = match HostFile::create(name) {
        Ok(file) => file,
        Err(error) => {
            println!("{}: {error:?}", mode.file_name());
            return false;
        }
    };
    let traced = boot_trace(mode, &mut file);
    let closed = file.close();
    match (traced, closed) {
        (Ok(summary), Ok(())) => {
            println!("{}: {summary:?}", mode.file_name());
            true
        }
        (traced, closed) => {
            println!("{}: {traced:?} {closed:?}", mode.file_name());
            false
        }
    }
}

#[entry]
fn main() -> ! {
    let mut success = true;
    for mode in Mode::ALL {
        success &= trace(mode);
    }
    exit(success)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    println!("hard fault at {:#x}", frame.pc());
    exit(false)
}
