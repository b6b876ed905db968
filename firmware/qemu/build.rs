//! Puts the memory map of the board each Cortex-M target runs on under QEMU (`memory/BOARD.x`)
//! where cortex-m-rt's `link.x` includes it from, as `memory.x`, and links the binaries with
//! `link.x`; links the big-endian Cortex-R5 binary with `memory/cortex-r5.x`, BE8.

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
    println!("cargo:rerun-if-changed=build.rs");
    if target == "armebv7r-none-eabi" {
        // The Cortex-R5 binary: its own linker script, and BE8 (big-endian data, little-endian
        // instructions), the image a v7 core runs with big-endian data.
        let script = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
            .join("memory")
            .join("cortex-r5.x");
        println!("cargo:rustc-link-arg-bins=-T{}", script.display());
        println!("cargo:rustc-link-arg-bins=--be8");
        println!("cargo:rerun-if-changed={}", script.display());
        return;
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let source = PathBuf::from("memory").join(format!("{}.x", board(&target)));
    fs::copy(&source, out.join("memory.x")).expect("the board's memory map is there");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed={}", source.display());
}
