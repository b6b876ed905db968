//! Puts the memory map of the board each target runs on under QEMU (`memory/BOARD.x`) where
//! cortex-m-rt's `link.x` includes it from, as `memory.x`, and links the binaries with `link.x`.

use std::{env, fs, path::PathBuf};

/// The QEMU board each target runs on, as `.ci/run` and `tools/firmware-costs/costs.py` start it.
fn board(target: &str) -> &'static str {
    match target {
        "thumbv7em-none-eabihf" | "thumbv7em-none-eabi" => "mps2-an386",
        "thumbv7m-none-eabi" => "lm3s6965evb",
        "thumbv6m-none-eabi" => "microbit",
        other => panic!("no QEMU board for target {other}"),
    }
}

fn main() {
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let source = PathBuf::from("memory").join(format!("{}.x", board(&target)));
    fs::copy(&source, out.join("memory.x")).expect("the board's memory map is there");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed={}", source.display());
    println!("cargo:rerun-if-changed=build.rs");
}
