"""What the tests of the etw_classic module share: the PerfView traces, the schema files and
the etwc binary.

The traces are in $ETW_PERFVIEW_DIR, or else in shared/data/perfview beside the repository; the
schema files (the .NET runtime's ClrEtwAll.man) in $ETW_SCHEMAS_DIR, or else in
shared/data/schemas. A missing trace or schema file skips the tests that need it, with a
message; with ETW_REQUIRE_TRACES=1 it fails them instead. The etwc binary the events are compared with is $ETWC, or else the release (then
the debug) build in the repository's target directory ($CARGO_TARGET_DIR when set).
"""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def perfview_dir():
    return Path(os.environ.get("ETW_PERFVIEW_DIR") or REPO.parent / "shared" / "data" / "perfview")


def schemas_dir():
    return Path(os.environ.get("ETW_SCHEMAS_DIR") or REPO.parent / "shared" / "data" / "schemas")


def required(path, what, variable):
    """`path` when it is a file; skips (or fails, see above) when it is missing."""
    if path.is_file():
        return path
    problem = f"cannot find the {what} {path}; set {variable} to the folder holding it"
    if os.environ.get("ETW_REQUIRE_TRACES") == "1":
        pytest.fail(f"{problem} (ETW_REQUIRE_TRACES=1 requires every trace and schema file)")
    pytest.skip(f"{problem} to run this check")


def trace(name):
    """The path of the PerfView trace `name`; skips (or fails, see above) when it is missing."""
    return required(perfview_dir() / name, "PerfView trace", "ETW_PERFVIEW_DIR")


def schema(name):
    """The path of the schema file `name`; skips (or fails, see above) when it is missing."""
    return required(schemas_dir() / name, "schema file", "ETW_SCHEMAS_DIR")


def etwc_path():
    given = os.environ.get("ETWC")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    for profile in ("release", "debug"):
        path = target / profile / "etwc"
        if path.is_file():
            return path
    pytest.fail(f"cannot find etwc in {target}/release or {target}/debug: build it with "
                f"`cargo build --release -p etw-classic-cli`, or set ETWC to its path")


def etwc(*args):
    """etwc's run with `args`: (exit status, standard output, standard error)."""
    done = subprocess.run([str(etwc_path()), *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def etwc_lines(*args):
    """etwc's standard output, line by line as it comes (the process ends with the generator)."""
    process = subprocess.Popen([str(etwc_path()), *map(str, args)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        yield from process.stdout
    finally:
        process.stdout.close()
        process.kill()
        process.wait()
