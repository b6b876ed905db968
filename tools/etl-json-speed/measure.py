#!/usr/bin/env python3
"""Time `etwc etl FILE --json > /dev/null` and `etwc etl FILE --summary > /dev/null`, and the
same with another build of etwc (`--compare OLD`), the two builds taking turns run after run so
that a machine whose speed drifts slows both alike.

Each run is timed from outside: wall-clock time from the start of the process to its end, and
its CPU time (user + system, from `os.wait4`). The report gives, for each command, the best and
the median of the runs (the best is what the program can do; the median what a busy machine
gave), and the events a second the best wall time makes of the file's events (counted by
`--summary --json`).

Usage: measure.py [--etwc PATH] [--compare OLD] [--runs N] [FILE]
FILE defaults to ../shared/data/perfview/net.4.5.2.x64.etl beside the repository, PATH to
target/release/etwc (build it first: cargo build --release -p etw-classic-cli), N to 11.
"""

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_once(command):
    """(wall seconds, CPU seconds) of one run of `command`, its output thrown away."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        err = process.stderr.read().decode(errors="replace")
        process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command))} failed ({process.returncode}): {err}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?",
                        default=str(REPO.parent / "shared/data/perfview/net.4.5.2.x64.etl"))
    parser.add_argument("--etwc", default=str(REPO / "target/release/etwc"))
    parser.add_argument("--compare", help="another etwc, run in turn with the first")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()

    summary = subprocess.run([args.etwc, "etl", args.file, "--summary", "--json"],
                             check=True, capture_output=True, text=True)
    events = json.loads(summary.stdout)["events"]
    builds = [("new", args.etwc)] + ([("old", args.compare)] if args.compare else [])
    outputs = [("--json", ["--json"]), ("--summary", ["--summary"])]
    times = {(build, output): [] for build, _ in builds for output, _ in outputs}
    for output, options in outputs:
        for binary_name, binary in builds:  # one warm-up run each, not counted
            run_once([binary, "etl", args.file, *options])
        for _ in range(args.runs):
            for binary_name, binary in builds:
                times[(binary_name, output)].append(run_once([binary, "etl", args.file, *options]))

    print(f"{args.file}: {events} events, {args.runs} runs of each command, in turns")
    print(f"{'build':<6} {'output':<10} {'best wall':>10} {'median wall':>12} {'best cpu':>9} "
          f"{'median cpu':>11} {'events/s (best)':>16}")
    for (binary_name, output), runs in times.items():
        walls = [wall for wall, _ in runs]
        cpus = [cpu for _, cpu in runs]
        best = min(walls)
        print(f"{binary_name:<6} {output:<10} {best:>9.3f}s {statistics.median(walls):>11.3f}s "
              f"{min(cpus):>8.3f}s {statistics.median(cpus):>10.3f}s {events / best:>16,.0f}")


if __name__ == "__main__":
    main()
