#!/usr/bin/env python3
"""Write the FILETIME dissect.etl computes for a sample of events of every PerfView trace.

For each trace (../shared/data/perfview, or $ETW_PERFVIEW_DIR, or the folder given), dissect.etl
(an ETL parser written independently of this crate) walks every buffer, compressed ones
included, and for the first FIRST_EVENTS events of each buffer records:

- the buffer's index and the event's offset from the end of the 0x48-byte buffer header
  (the running sum of dissect's `record.aligned_size`, as tools/etl-crosscheck/crosscheck.py
  counts it);
- the event's raw timestamp, dissect's `header.time_delta` (the u64 `TimeDelta` of its header
  struct) read as a signed 64-bit value;
- the FILETIME dissect converts it to, `ETL.get_filetime_for_event(time_delta)`: dissect's own
  conversion from the logfile header (`LogfileHeader.timestamp_base` + int(timestamp_scale *
  time_delta), headers/logfile.py), before it becomes a `datetime`.

Events whose header dissect gives no time_delta (None) are written with null raw and filetime.
Also written per trace: the logfile header's StartTime, PerfFreq, ReservedFlags and the logfile
header event's raw timestamp, and dissect's timestamp_base and timestamp_scale.

The output, tests/data/dissect-filetimes.json by default, is what tests/time.rs compares
`TraceClock::to_filetime` and `Event::timestamp` with. Run from anywhere:

    python3 tools/etl-crosscheck/filetimes.py [PERFVIEW_DIR] [--output FILE]

Needs dissect.etl (pip install dissect.etl==3.14). Exits 2 when it or the traces are missing.
"""

import argparse
import json
import os
import sys
from pathlib import Path

try:
    from dissect.etl.etl import ETL
except ImportError:
    print("filetimes: dissect.etl is not installed (pip install dissect.etl==3.14)", file=sys.stderr)
    sys.exit(2)

ROOT = Path(__file__).resolve().parents[2]
FIRST_EVENTS = 10


def signed64(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def trace_filetimes(path):
    """The sample of one trace, as a JSON-ready dict."""
    with open(path, "rb") as fh:
        etl = ETL(fh)
        logfile = etl.logfile_header
        buffers = []
        for index in range(logfile.buffers_written):
            offset = 0
            events = []
            for record in etl.buffer(index):
                if len(events) == FIRST_EVENTS:
                    break
                time_delta = record.header.time_delta
                if time_delta is None:
                    events.append([offset, None, None])
                else:
                    raw = signed64(time_delta)
                    events.append([offset, raw, etl.get_filetime_for_event(time_delta)])
                offset += record.aligned_size
            buffers.append({"buffer": index, "events": events})
        return {
            "file": path.name,
            "start_time": logfile.start_time,
            "perf_freq": logfile.perf_freq,
            "reserved_flags": logfile.header.ReservedFlags,
            "header_event_raw": signed64(logfile.system_header.time_delta),
            "dissect_timestamp_base": logfile.timestamp_base,
            "dissect_timestamp_scale": logfile.timestamp_scale,
            "buffers": buffers,
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_dir = os.environ.get("ETW_PERFVIEW_DIR") or ROOT.parent / "shared" / "data" / "perfview"
    parser.add_argument("perfview", nargs="?", default=default_dir, type=Path)
    parser.add_argument("--output", default=ROOT / "tests" / "data" / "dissect-filetimes.json", type=Path)
    args = parser.parse_args()
    traces = sorted(Path(args.perfview).glob("*.etl"))
    if not traces:
        print(f"filetimes: no .etl file in {args.perfview}", file=sys.stderr)
        sys.exit(2)
    result = {
        "source": "PerfView test traces (see ../shared/data/perfview/PROVENANCE.md)",
        "parser": "dissect.etl 3.14, ETL.get_filetime_for_event",
        "script": "tools/etl-crosscheck/filetimes.py",
        "first_events_per_buffer": FIRST_EVENTS,
        "traces": [trace_filetimes(path) for path in traces],
    }
    # One line per buffer, so that the file stays readable and diffs stay small.
    lines = ["{"]
    for key in ("source", "parser", "script", "first_events_per_buffer"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(result[key])},")
    lines.append('  "traces": [')
    for t, trace in enumerate(result["traces"]):
        lines.append("    {")
        for key in ("file", "start_time", "perf_freq", "reserved_flags", "header_event_raw",
                    "dissect_timestamp_base", "dissect_timestamp_scale"):
            lines.append(f"      {json.dumps(key)}: {json.dumps(trace[key])},")
        lines.append('      "buffers": [')
        for b, buffer in enumerate(trace["buffers"]):
            comma = "," if b + 1 < len(trace["buffers"]) else ""
            lines.append(f"        {json.dumps(buffer, separators=(',', ':'))}{comma}")
        lines.append("      ]")
        lines.append("    }" + ("," if t + 1 < len(result["traces"]) else ""))
    lines.append("  ]")
    lines.append("}")
    args.output.write_text("\n".join(lines) + "\n")
    count = sum(len(b["events"]) for t in result["traces"] for b in t["buffers"])
    print(f"filetimes: {count} events of {len(traces)} traces written to {args.output}")


if __name__ == "__main__":
    main()
