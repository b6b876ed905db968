//! The files outside the repository that the schema tests read: the PerfView test traces and
//! the schema files of `../shared/data/schemas` (the .NET runtime's `ClrEtwAll.man`, PerfView's
//! `kerneltraceeventparser.mof`), with the rule of the library's `tests/common`:
//!
//! - unset `ETW_REQUIRE_TRACES` (or any value but `1`): a check whose file cannot be read prints
//!   a line starting with `SKIPPED:` on stderr and passes without checking anything;
//! - `ETW_REQUIRE_TRACES=1`: the test panics with the path it tried and the reason.
//!
//! The traces are looked for in `ETW_PERFVIEW_DIR`, else `../shared/data/perfview` beside the
//! repository; the schema files in `ETW_SCHEMAS_DIR`, else `../shared/data/schemas`. Nothing is
//! copied into the repository.

#![allow(dead_code)]

use std::path::PathBuf;

/// The environment variable that turns a missing file into a failure when set to `1`.
pub const REQUIRE_TRACES: &str = "ETW_REQUIRE_TRACES";

/// Whether `ETW_REQUIRE_TRACES=1` is set: a check that cannot run must then fail.
pub fn traces_required() -> bool {
    std::env::var_os(REQUIRE_TRACES).is_some_and(|value| value == "1")
}

/// The folder beside the repository that holds the shared test data.
fn shared_data(variable: &str, folder: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/data")
                .join(folder)
        },
        PathBuf::from,
    )
}

fn read(path: PathBuf, what: &str, variable: &str) -> Option<Vec<u8>> {
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) if traces_required() => panic!(
            "{REQUIRE_TRACES}=1, but the {what} {} cannot be read ({error}); set {variable} to \
             the folder holding it",
            path.display()
        ),
        Err(error) => {
            eprintln!(
                "SKIPPED: cannot read the {what} {} ({error}); set {variable} to the folder \
                 holding it to run this check (and {REQUIRE_TRACES}=1 to make a missing file \
                 fail the test)",
                path.display()
            );
            None
        }
    }
}

/// The bytes of the PerfView test trace `name`.
pub fn trace(name: &str) -> Option<Vec<u8>> {
    let dir = shared_data("ETW_PERFVIEW_DIR", "perfview");
    read(dir.join(name), "PerfView trace", "ETW_PERFVIEW_DIR")
}

/// The text of the schema file `name` (`ClrEtwAll.man`, `kerneltraceeventparser.mof`).
pub fn schema_file(name: &str) -> Option<String> {
    let dir = shared_data("ETW_SCHEMAS_DIR", "schemas");
    let bytes = read(dir.join(name), "schema file", "ETW_SCHEMAS_DIR")?;
    Some(String::from_utf8(bytes).expect("the schema files are UTF-8"))
}

/// The path of the PerfView test trace `name`, if it can be read (see [`trace`]).
pub fn trace_path(name: &str) -> Option<PathBuf> {
    let path = shared_data("ETW_PERFVIEW_DIR", "perfview").join(name);
    read(path.clone(), "PerfView trace", "ETW_PERFVIEW_DIR").map(|_| path)
}
