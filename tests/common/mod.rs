//! What the integration tests that read the real traces share.

use std::path::PathBuf;

/// The bytes of the PerfView test trace `name`, from `ETW_PERFVIEW_DIR` or else
/// `../shared/data/perfview` beside the repository; `None`, with a message saying the check is
/// skipped, when it cannot be read.
pub fn trace(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("ETW_PERFVIEW_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perfview"),
        PathBuf::from,
    );
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            eprintln!(
                "SKIPPED: cannot read the PerfView trace {} ({error}); set ETW_PERFVIEW_DIR to the \
                 folder holding the PerfView test traces to run this check",
                path.display()
            );
            None
        }
    }
}
