#!/usr/bin/env bash
# The Python module's checks: builds the abi3 wheel with maturin, installs it with pytest into a
# fresh virtual environment, and runs python/tests there, which compare every event with
# `etwc etl --json` on the PerfView traces (../shared/data/perfview beside the repository, or
# $ETW_PERFVIEW_DIR; the schema files in ../shared/data/schemas, or $ETW_SCHEMAS_DIR;
# ETW_REQUIRE_TRACES=1 makes a missing trace or schema file fail the tests, not skip them).
#
# The Rust builds use the repository's target directory ($CARGO_TARGET_DIR when set): the
# library and the command-line crates compiled there for etwc are reused, nothing is built twice
# in a directory of its own. PYTHON names the interpreter (python3 by default, 3.9 or later).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# etwc, which the tests compare with.
cargo build --quiet --release -p etw-classic-cli

# The wheel, built by maturin from a virtual environment of its own.
"$python" -m venv "$work/build"
"$work/build/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9.4,<2"
"$work/build/bin/maturin" build --release -m python/Cargo.toml --interpreter "$python" \
    --out "$work/wheels"
wheel=$(ls "$work"/wheels/etw_classic-*-abi3-*.whl)
echo "built $(basename "$wheel")"

# A fresh environment with the wheel, pytest, and pyarrow, polars and pandas for read_arrow.
"$python" -m venv "$work/test"
"$work/test/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" "pytest>=7" \
    pyarrow==26.0.1 polars==2.1.0 pandas
ETWC="$CARGO_TARGET_DIR/release/etwc" \
    "$work/test/bin/python" -m pytest -p no:cacheprovider python/tests
