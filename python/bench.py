#!/usr/bin/env python3
"""Time reading every event of an .etl file with etw_classic and with dissect.etl.

- etw_classic: `for event in etw_classic.open(path)`, each event a dict with every key of
  `etwc etl --json` (header members, extended items, times, data as bytes); file order, then
  time order (`order="time"`).
- etw_classic.read_arrow: the same events into a pyarrow.Table (one row per event, built in
  Rust, handed over through the Arrow C data interface); file order, then time order.
- dissect.etl: its record walk, as tools/etl-crosscheck/crosscheck.py times it: every buffer of
  the logfile header's BuffersWritten, every record of each, its header's Marker read (dissect
  parses a record's header when it is first touched); then the same walk reading each record's
  header members and payload too, the nearest dissect comes to a full event.

Each figure is the best of --runs runs, wall time and CPU time of the process. The default trace is the largest of the
PerfView traces (../shared/data/perfview beside the repository, or $ETW_PERFVIEW_DIR).

Usage: python bench.py [--trace PATH] [--runs N]
Needs etw_classic (python/ci.sh, or `pip install ./python`) and dissect.etl
(pip install dissect.etl==3.14).
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import etw_classic

try:
    from dissect.etl.etl import ETL
except ImportError:
    print("bench: dissect.etl is not installed (pip install dissect.etl==3.14)", file=sys.stderr)
    sys.exit(2)

REPO = Path(__file__).resolve().parents[1]


def ours(path, order="file"):
    events = 0
    with etw_classic.open(path, order=order) as reader:
        for _ in reader:
            events += 1
    return events


def arrow(path, order="file"):
    return etw_classic.read_arrow(path, order=order).num_rows


def dissect_walk(path):
    events = 0
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            for record in etl.buffer(index):
                record.header.marker
                events += 1
    return events


def dissect_full(path):
    events = 0
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            for record in etl.buffer(index):
                header = record.header
                try:
                    header.header  # the header struct, every member parsed
                    bytes(header.payload)
                except Exception:  # a kind dissect.etl has no struct for
                    pass
                events += 1
    return events


def best_of(runs, action):
    """The shortest wall time and the shortest CPU time (all threads) of `runs` calls of
    `action`, and what it returned."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    trace = args.trace
    if trace is None:
        folder = Path(os.environ.get("ETW_PERFVIEW_DIR") or REPO.parent / "shared/data/perfview")
        traces = sorted(folder.glob("*.etl"))
        if not traces:
            print(f"bench: no .etl file in {folder}; give --trace", file=sys.stderr)
            return 2
        trace = max(traces, key=lambda path: path.stat().st_size)

    print(f"{trace.name}: {trace.stat().st_size} bytes; Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; best of {args.runs}")
    rows = [
        ("etw_classic.read_arrow, file order (pyarrow.Table)", lambda: arrow(trace)),
        ("etw_classic.read_arrow, time order (pyarrow.Table)", lambda: arrow(trace, "time")),
        ("etw_classic, file order (dict per event)", lambda: ours(trace)),
        ("etw_classic, time order (dict per event)", lambda: ours(trace, "time")),
        ("dissect.etl record walk (Marker)", lambda: dissect_walk(trace)),
        ("dissect.etl record walk (header members, payload)", lambda: dissect_full(trace)),
    ]
    results = []
    for name, action in rows:
        seconds, cpu, events = best_of(args.runs, action)
        results.append(seconds)
        print(f"{name:<52} {events:>8} events {seconds:6.2f} s wall {cpu:6.2f} s CPU "
              f"{events / seconds / 1e3:6.1f} k events/s", flush=True)
    walk, full = results[4], results[5]
    print(f"dissect.etl record walk / etw_classic.read_arrow: {walk / results[0]:.1f}x "
          f"(time order {walk / results[1]:.1f}x); with header members and payload: "
          f"{full / results[0]:.1f}x")
    print(f"dissect.etl record walk / etw_classic file order: {walk / results[2]:.1f}x; "
          f"with header members and payload: {full / results[2]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
