//! Traces the boot in every mode and writes each mode's .etl file into QEMU's working
//! directory through semihosting, then exits with status 0 (1 if anything failed). The host
//! build of the same trace (`cargo run -p etw-classic-firmware --example boot_etl`) must write
//! the same bytes; `firmware/qemu/lanes.sh` checks that on a Cortex-M0, M3 and M4.
#![no_std]
#![no_main]

use cortex_m_rt::{entry, exception, ExceptionFrame};
use etw_classic_firmware_qemu::{exit, println, trace_boot_and_exit};

#[entry]
fn main() -> ! {
    trace_boot_and_exit()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    println!("hard fault at {:#x}", frame.pc());
    exit(false)
}
