#!/usr/bin/env python3
"""Time whole commands from outside, start-up included, as docs/PERFORMANCE.md's figures for the
built tool are taken.

Each COMMAND is one shell command line (`sh -c`, so pipes and redirections work); its standard
input is empty and its standard output goes to /dev/null. It is run once unmeasured (the warm-up: the file in the page cache), then RUNS times; with several
commands the runs take turns (A B A B ...), so that a machine whose speed drifts slows them
alike. For each command, as min / median / max over its runs:

- wall: seconds on a monotonic clock read around the run;
- cpu: user + system seconds of the command and what it waited for, as GNU time
  (/usr/bin/time) accounts them;
- peak: the largest resident set of one process, in MiB (GNU time's %M; a process GNU time
  starts begins near 1 MiB, so this is the command's own memory).

Quote the median; a wide min-max says the machine was busy. Without GNU time the cpu and peak
columns are left out.

Usage: run.py [-n RUNS] [--warmup N] COMMAND [COMMAND ...]

Example, the "Reading .etl files" rows (from the repository's root, after
`cargo build --release -p etw-classic-cli`):

    python3 tools/timing/run.py -n 10 \\
        'target/release/etwc etl ../shared/data/perfview/net.4.5.2.x64.etl --summary' \\
        'target/release/etwc etl ../shared/data/perfview/net.4.5.2.x64.etl --json'
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GNU_TIME = "/usr/bin/time"


def run_once(command, gnu_time):
    """Runs `command`; returns (wall seconds, cpu seconds or None, peak MiB or None)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        argv = ["sh", "-c", command]
        if gnu_time:
            argv = [GNU_TIME, "-q", "-o", report.name, "-f", "%U %S %M"] + argv
        started = time.monotonic()
        finished = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - started
        if finished.returncode != 0:
            sys.exit(f"run.py: {command!r} exited with status {finished.returncode}")
        if not gnu_time:
            return wall, None, None
        fields = report.read().split()
        user, system, peak_kib = float(fields[-3]), float(fields[-2]), int(fields[-1])
        return wall, user + system, peak_kib / 1024


def spread(values, unit, digits):
    """min / median / max of `values` as text."""
    low, middle, high = min(values), statistics.median(values), max(values)
    return f"{middle:.{digits}f} {unit} (min {low:.{digits}f}, max {high:.{digits}f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=5, help="measured runs of each command")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs first")
    parser.add_argument("commands", nargs="+", metavar="COMMAND")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("run.py: --runs must be at least 1")
    gnu_time = os.access(GNU_TIME, os.X_OK) and shutil.which("sh") is not None
    if not gnu_time:
        print(f"note: no {GNU_TIME}: cpu and peak are not measured", file=sys.stderr)
    for command in args.commands:
        for _ in range(args.warmup):
            run_once(command, gnu_time)
    results = {command: [] for command in args.commands}
    for _ in range(args.runs):
        for command in args.commands:
            results[command].append(run_once(command, gnu_time))
    try:
        load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        load = "unknown"
    print(f"{args.runs} runs of each command, load average {load}, {os.cpu_count()} processors")
    for command, runs in results.items():
        print(f"\n{command}")
        print(f"  wall {spread([run[0] for run in runs], 's', 3)}")
        if gnu_time:
            print(f"  cpu  {spread([run[1] for run in runs], 's', 3)}")
            print(f"  peak {spread([run[2] for run in runs], 'MiB', 1)}")


if __name__ == "__main__":
    main()
