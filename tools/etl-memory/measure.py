#!/usr/bin/env python3
"""Check that `etwc etl` reads an .etl file in memory that does not grow with the file.

Writes a 50 MB and a 500 MB .etl file with the library's own writer (the `write_big_etl`
example, which streams each sealed buffer to the file), then runs on each:

    etwc etl FILE --summary
    etwc etl FILE --json > /dev/null

and reports each run's peak resident set size (the child's own `ru_maxrss`, from `os.wait4`)
and its throughput in MB/s of file read (wall-clock time, so a machine busy with other work
reads slower). Exits 1 when a run on the 500 MB file peaks above the same run on the 50 MB file
by more than 10% + 8 MiB: the reader holds a batch of buffers, never the file.

Usage: measure.py [--dir DIR] [--keep] [--etwc PATH] [--writer PATH]
The binaries default to target/release/etwc and target/release/examples/write_big_etl; the
script builds them first (`cargo build --release`) unless given. The files (550 MB) go to a
temporary folder under DIR (default: the system's), removed at the end unless --keep.
Linux and macOS (ru_maxrss is in KiB on Linux, bytes on macOS).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES_MB = (50, 500)
MODES = (["--summary"], ["--json"])
# The 500 MB run may peak at most this much above the 50 MB one: 10% + 8 MiB.
MARGIN_RATIO = 1.10
MARGIN_BYTES = 8 << 20


def peak_rss_bytes(rusage):
    """`ru_maxrss` in bytes: KiB on Linux, bytes on macOS."""
    return rusage.ru_maxrss if sys.platform == "darwin" else rusage.ru_maxrss * 1024


def run(command, stdout):
    """Runs `command` to its end; returns (wall seconds, peak RSS bytes). Stops the script when
    it fails."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=stdout, stderr=errors)
        # The child's own rusage: RUSAGE_CHILDREN's ru_maxrss would be the largest of all.
        _, status, rusage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    if code != 0:
        print(f"{' '.join(map(str, command))} failed ({code}): {stderr}", file=sys.stderr)
        sys.exit(2)
    return elapsed, peak_rss_bytes(rusage)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default=None, help="where the temporary folder goes")
    parser.add_argument("--keep", action="store_true", help="keep the written files")
    parser.add_argument("--etwc", default=None)
    parser.add_argument("--writer", default=None)
    args = parser.parse_args()

    if args.etwc is None or args.writer is None:
        for target in (["-p", "etw-classic-cli", "--bin", "etwc"],
                       ["-p", "etw-classic", "--example", "write_big_etl"]):
            subprocess.run(["cargo", "build", "--quiet", "--release", *target],
                           cwd=ROOT, check=True)
    etwc = Path(args.etwc or ROOT / "target/release/etwc")
    writer = Path(args.writer or ROOT / "target/release/examples/write_big_etl")

    folder = Path(tempfile.mkdtemp(prefix="etl-memory-", dir=args.dir))
    peaks = {}
    print(f"{'file':>8} {'run':<22} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    try:
        for size in SIZES_MB:
            path = folder / f"{size}mb.etl"
            seconds, peak = run([writer, path, "--megabytes", str(size)], subprocess.DEVNULL)
            megabytes = path.stat().st_size / 1e6
            peaks[(size, "write_big_etl")] = peak
            print(f"{size:>6}MB {'write_big_etl':<22} {seconds:>8.2f} {megabytes / seconds:>8.0f} "
                  f"{peak / 2**20:>13.1f}")
            for mode in MODES:
                with open(os.devnull, "wb") as null:
                    seconds, peak = run([etwc, "etl", path, *mode], null)
                name = "etwc etl " + " ".join(mode)
                peaks[(size, name)] = peak
                print(f"{size:>6}MB {name:<22} {seconds:>8.2f} {megabytes / seconds:>8.0f} "
                      f"{peak / 2**20:>13.1f}")
    finally:
        if args.keep:
            print(f"files kept in {folder}")
        else:
            for written in folder.glob("*.etl"):
                written.unlink()
            folder.rmdir()

    small, large = SIZES_MB
    problems = []
    for (size, name), peak in peaks.items():
        if size != large:
            continue
        limit = peaks[(small, name)] * MARGIN_RATIO + MARGIN_BYTES
        if peak > limit:
            problems.append(f"{name}: {peak / 2**20:.1f} MiB on {large} MB, above "
                            f"{limit / 2**20:.1f} MiB ({small} MB run + 10% + 8 MiB)")
    for problem in problems:
        print(problem, file=sys.stderr)
    print("etl-memory: " + ("FAILED" if problems else
                            f"peak memory on {large} MB within 10% + 8 MiB of {small} MB"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
