//! What the integration tests that read the real traces share.
//!
//! The PerfView test traces are not part of the repository. They are read from the folder named
//! by the environment variable `ETW_PERFVIEW_DIR`, or else from `../shared/data/perfview` beside
//! the repository. What happens when a trace cannot be read depends on `ETW_REQUIRE_TRACES`:
//!
//! - unset (or any value but `1`): the check that needed it prints a line starting with
//!   `SKIPPED:` on stderr and passes without checking anything, so that the rest of the suite
//!   runs on a machine without the traces;
//! - `ETW_REQUIRE_TRACES=1`: the test panics with the path it tried and the reason, so a run that
//!   is meant to cover the real traces cannot pass without them.
//!
//! Every test that reads a trace goes through [`trace`]; none reads the folder by itself.

use std::path::PathBuf;

/// The environment variable that turns a missing trace into a failure when set to `1`.
pub const REQUIRE_TRACES: &str = "ETW_REQUIRE_TRACES";

/// Whether `ETW_REQUIRE_TRACES=1` is set: a check that cannot run must then fail.
pub fn traces_required() -> bool {
    std::env::var_os(REQUIRE_TRACES).is_some_and(|value| value == "1")
}

/// The bytes of the PerfView test trace `name`, from `ETW_PERFVIEW_DIR` or else
/// `../shared/data/perfview` beside the repository.
///
/// When the trace cannot be read: `None`, with a `SKIPPED:` message on stderr; or, with
/// `ETW_REQUIRE_TRACES=1`, a panic naming the path and the error.
///
/// Under Miri (`cargo +nightly miri test`) only the traces of at most
/// [`MIRI_TRACE_LIMIT`] bytes are read: megabytes of decompression there take hours. The others
/// give `None` with a `SKIPPED under Miri:` message, whatever `ETW_REQUIRE_TRACES` says.
pub fn trace(name: &str) -> Option<Vec<u8>> {
    let bytes = trace_any_size(name)?;
    if cfg!(miri) && bytes.len() > MIRI_TRACE_LIMIT {
        eprintln!("SKIPPED under Miri: {name} is {} bytes", bytes.len());
        return None;
    }
    Some(bytes)
}

/// The largest trace [`trace`] reads under Miri.
pub const MIRI_TRACE_LIMIT: usize = 100_000;

fn trace_any_size(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("ETW_PERFVIEW_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perfview"),
        PathBuf::from,
    );
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) if traces_required() => panic!(
            "{REQUIRE_TRACES}=1, but the PerfView trace {} cannot be read ({error}); set \
             ETW_PERFVIEW_DIR to the folder holding the PerfView test traces",
            path.display()
        ),
        Err(error) => {
            eprintln!(
                "SKIPPED: cannot read the PerfView trace {} ({error}); set ETW_PERFVIEW_DIR to the \
                 folder holding the PerfView test traces to run this check (and \
                 {REQUIRE_TRACES}=1 to make a missing trace fail the test)",
                path.display()
            );
            None
        }
    }
}
