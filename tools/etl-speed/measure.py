#!/usr/bin/env python3
"""Time the outputs of `etwc etl FILE` (`--json`, `--format parquet -o TEMP`, `--summary`, output
to /dev/null), and the same with another build of etwc (`--compare OLD`), and, with
`--dissect`, dissect.etl's record walk of the same file as tools/etl-crosscheck/crosscheck.py
times it (every buffer of `BuffersWritten`, every record's `Marker`): all of them taking turns
run after run, so that a machine whose speed drifts slows them alike.

Each run is timed from outside: wall-clock time from the start of the process to its end, and
its CPU time (user + system, from `os.wait4`). The report gives, for each command, the best and
the median of the runs (the best is what the program can do; the median what a busy machine
gave), and the events a second the best wall time makes of the file's events (counted by
`--summary --json`); dissect.etl's walk is timed in this process (its CPU time too), and each
figure is then set beside it: how many times faster than dissect's median each median is.

Usage: measure.py [--etwc PATH] [--compare OLD] [--runs N] [--dissect] [FILE]
FILE defaults to ../shared/data/perfview/net.4.5.2.x64.etl beside the repository, PATH to
target/release/etwc (build it first: cargo build --release -p etw-classic-cli), N to 11.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
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


def dissect_once(path):
    """(wall seconds, CPU seconds) of dissect.etl's record walk of `path`, in this process."""
    sys.path.insert(0, str(REPO / "tools/etl-crosscheck"))
    from crosscheck import dissect_count  # needs dissect.etl (pip install dissect.etl==3.14)

    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    dissect_count(path)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?",
                        default=str(REPO.parent / "shared/data/perfview/net.4.5.2.x64.etl"))
    parser.add_argument("--etwc", default=str(REPO / "target/release/etwc"))
    parser.add_argument("--compare", help="another etwc, run in turn with the first")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--dissect", action="store_true",
                        help="time dissect.etl's record walk too (a few seconds a run)")
    args = parser.parse_args()
    parquet = Path(tempfile.mkdtemp()) / "events.parquet"

    summary = subprocess.run([args.etwc, "etl", args.file, "--summary", "--json"],
                             check=True, capture_output=True, text=True)
    events = json.loads(summary.stdout)["events"]
    builds = [("new", args.etwc)] + ([("old", args.compare)] if args.compare else [])
    outputs = [("--json", ["--json"]),
               ("parquet", ["--format", "parquet", "-o", str(parquet)]),
               ("--summary", ["--summary"])]
    runs = {(build, output): (lambda binary=binary, options=options:
                              run_once([binary, "etl", args.file, *options]))
            for output, options in outputs for build, binary in builds}
    if args.dissect:
        runs[("dissect", "walk")] = lambda: dissect_once(args.file)
    times = {key: [] for key in runs}
    for run in runs.values():  # one warm-up run each, not counted
        run()
    for _ in range(args.runs):
        for key, run in runs.items():
            times[key].append(run())
    parquet.unlink(missing_ok=True)
    parquet.parent.rmdir()

    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{args.file}: {events} events, {args.runs} runs of each, in turns; "
          f"load average {load} at the end")
    dissect = statistics.median(wall for wall, _ in times.get(("dissect", "walk"), [(0, 0)]))
    print(f"{'build':<8} {'output':<10} {'best wall':>10} {'median wall':>12} {'best cpu':>9} "
          f"{'median cpu':>11} {'events/s (median)':>18} {'dissect.etl / it':>17}")
    for (binary_name, output), runs in times.items():
        walls = [wall for wall, _ in runs]
        cpus = [cpu for _, cpu in runs]
        median = statistics.median(walls)
        versus = f"{dissect / median:>16.1f}x" if dissect else f"{'-':>17}"
        print(f"{binary_name:<8} {output:<10} {min(walls):>9.3f}s {median:>11.3f}s "
              f"{min(cpus):>8.3f}s {statistics.median(cpus):>10.3f}s "
              f"{events / median:>18,.0f} {versus}")


if __name__ == "__main__":
    main()
