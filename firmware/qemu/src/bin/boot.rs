//! Traces the boot in every mode and writes each mode's .etl file into QEMU's working
//! directory through semihosting, then exits with status 0 (1 if anything failed). The host
//! build of the same trace (`cargo run -p etw-classic-firmware --example boot_etl`) must write
//! the same bytes; `firmware/qemu/lanes.sh` checks that on a Cortex-M0, M3 and M4.
//!
//! In `Mode::Interrupts` the timer ticks are traced by the PendSV exception handler, which the
//! boot pends through the SCB's `ICSR.PENDSVSET`: thread mode runs with interrupts enabled, so
//! the exception is taken at once, and its handler traces into the shared session.
#![no_std]
#![no_main]

use cortex_m::peripheral::scb::{Exception, VectActive};
use cortex_m::peripheral::SCB;
use cortex_m_rt::{entry, exception, ExceptionFrame};
use etw_classic_firmware::{on_interrupt, Interrupt};
use etw_classic_firmware_qemu::{exit, println, trace_boot_and_exit};

/// Raises PendSV.
struct PendSv;

impl Interrupt for PendSv {
    fn raise(&mut self) {
        SCB::set_pendsv();
        // The write to ICSR completes, then the exception is taken before the next
        // instruction.
        cortex_m::asm::dsb();
        cortex_m::asm::isb();
    }
}

#[entry]
fn main() -> ! {
    trace_boot_and_exit(&mut PendSv)
}

#[exception]
fn PendSV() {
    // The trace is made in handler mode, PendSV active (ICSR.VECTACTIVE).
    if SCB::vect_active() != VectActive::Exception(Exception::PendSV) {
        println!("PendSV's handler runs outside PendSV");
        exit(false)
    }
    on_interrupt();
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    println!("hard fault at {:#x}", frame.pc());
    exit(false)
}
