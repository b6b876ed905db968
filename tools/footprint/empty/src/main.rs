//! The baseline: the shared start-up code and nothing else.
#![no_std]
#![no_main]

#[path = "../../common/start.rs"]
mod start;

fn run() {}
