//! The boot firmware of `boot.rs` on a big-endian Cortex-R5 (armebv7r-none-eabi, BE8), with
//! its own start-up code instead of cortex-m-rt's: switch data accesses to big-endian, set the
//! stack pointer, zero `.bss`, run the trace. `firmware/qemu/lanes.sh` loads the raw image at 0
//! on QEMU's empty machine and starts it there.
#![no_std]
#![no_main]

// The reset code, at address 0 (memory/cortex-r5.x puts `.text.start` first). The core comes
// out of reset with little-endian data accesses; `SETEND BE` makes them big-endian, as the
// BE8 image's data is, before anything reads it.
core::arch::global_asm!(
    ".section .text.start, \"ax\"",
    ".global _start",
    ".arm",
    "_start:",
    "    setend be",
    "    ldr sp, =_stack_top",
    "    ldr r0, =__bss_start",
    "    ldr r1, =__bss_end",
    "    mov r2, #0",
    "1:  cmp r0, r1",
    "    strlo r2, [r0], #4",
    "    blo 1b",
    "    bl {main}",
    "2:  b 2b",
    ".ltorg",
    main = sym main,
);

use core::hint::black_box;

use etw_classic_firmware_qemu::{exit, println, trace_boot_and_exit};

/// Stored as the bytes 00 00 00 01 in the BE8 image: reads as 1 only with big-endian data
/// accesses.
static ONE: u32 = 1;

extern "C" fn main() -> ! {
    let one = *black_box(&ONE);
    if one != 1 {
        println!("data accesses are not big-endian: 1 reads as {one:#x}");
        exit(false)
    }
    trace_boot_and_exit()
}
