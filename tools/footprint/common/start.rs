//! What every footprint binary shares: the reset vector, the entry point and the panic handler.
//! The including crate defines `fn run()`, the code it measures; the empty binary's `run` does
//! nothing, so its size is this file's.

/// The reset vector, after the initial stack pointer that `link.x` writes.
#[link_section = ".vector_table.reset_vector"]
#[no_mangle]
pub static RESET_VECTOR: extern "C" fn() -> ! = reset;

/// The entry point: runs the case once, then waits.
#[no_mangle]
pub extern "C" fn reset() -> ! {
    super::run();
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
