//! The boot firmware of `boot.rs` on a big-endian Cortex-R5 (armebv7r-none-eabi, BE8), with
//! its own start-up code instead of cortex-m-rt's: the exception vectors, data accesses switched
//! to big-endian, a stack for the supervisor call handler and one for the boot (in System
//! mode), `.bss` zeroed, the trace run. `firmware/qemu/lanes.sh` loads the raw image at 0 on
//! QEMU's empty machine and starts it there.
//!
//! In `Mode::Interrupts` the timer ticks are traced by the handler of a supervisor call
//! (`SVC #1`): QEMU's machine has no interrupt controller to raise an IRQ with, and a
//! supervisor call is an exception taken at once, on its own stack, like a pended PendSV on a
//! Cortex-M. (`SVC #0x123456` is the semihosting call, which QEMU handles itself.)
#![no_std]
#![no_main]

// The vectors, at address 0 (memory/cortex-r5.x puts `.text.start` first), then the reset code.
// The core comes out of reset in Supervisor mode with little-endian data accesses; `SETEND BE`
// makes them big-endian, as the BE8 image's data is, before anything reads it. Exceptions are
// taken with the data byte order of SCTLR.EE (little-endian here), so the SVC handler sets it
// again; `MOVS PC, LR` restores the caller's CPSR (its byte order included) from SPSR_svc.
core::arch::global_asm!(
    ".section .text.start, \"ax\"",
    ".global _start",
    ".arm",
    "_start:",
    "    b 1f",                 // 0x00 reset
    "    b .",                  // 0x04 undefined instruction
    "    b 3f",                 // 0x08 supervisor call
    "    b .",                  // 0x0C prefetch abort
    "    b .",                  // 0x10 data abort
    "    b .",                  // 0x14 (reserved)
    "    b .",                  // 0x18 IRQ
    "    b .",                  // 0x1C FIQ
    "1:  setend be",
    "    ldr sp, =_stack_top",  // Supervisor mode's stack: the handler's, 4 KiB
    "    cps #0x1f",            // System mode for the boot, with the stack below
    "    ldr r0, =_stack_top",
    "    sub sp, r0, #0x1000",
    "    ldr r0, =__bss_start",
    "    ldr r1, =__bss_end",
    "    mov r2, #0",
    "2:  cmp r0, r1",
    "    strlo r2, [r0], #4",
    "    blo 2b",
    "    bl {main}",
    "4:  b 4b",
    "3:  setend be",
    "    push {{r0-r3, r12, lr}}", // 24 bytes: the stack stays 8-byte aligned
    "    bl {handler}",
    "    pop {{r0-r3, r12, lr}}",
    "    movs pc, lr",
    ".ltorg",
    main = sym main,
    handler = sym supervisor_call,
);

use core::hint::black_box;

use etw_classic_firmware::{on_interrupt, Interrupt};
use etw_classic_firmware_qemu::{exit, println, trace_boot_and_exit};

/// Stored as the bytes 00 00 00 01 in the BE8 image: reads as 1 only with big-endian data
/// accesses.
static ONE: u32 = 1;

/// CPSR.M of Supervisor mode, the mode a supervisor call is taken in (the boot runs in System
/// mode, 0x1F).
const SUPERVISOR_MODE: u32 = 0x13;

/// The handler of `SVC #1`.
extern "C" fn supervisor_call() {
    let cpsr: u32;
    // SAFETY: reads CPSR.
    unsafe { core::arch::asm!("mrs {}, cpsr", out(reg) cpsr, options(nomem, nostack)) };
    if cpsr & 0x1F != SUPERVISOR_MODE {
        println!(
            "the supervisor call's handler runs in mode {:#x}",
            cpsr & 0x1F
        );
        exit(false)
    }
    on_interrupt();
}

/// Raises the supervisor call.
struct SupervisorCall;

impl Interrupt for SupervisorCall {
    fn raise(&mut self) {
        // SAFETY: the handler saves the registers the AAPCS lets it change and returns to the
        // next instruction; it reads and writes memory (the shared session), so the call is a
        // compiler barrier (not `nomem`).
        unsafe { core::arch::asm!("svc #1", options(nostack)) };
    }
}

extern "C" fn main() -> ! {
    let one = *black_box(&ONE);
    if one != 1 {
        println!("data accesses are not big-endian: 1 reads as {one:#x}");
        exit(false)
    }
    trace_boot_and_exit(&mut SupervisorCall)
}
