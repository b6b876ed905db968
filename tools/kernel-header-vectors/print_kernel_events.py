#!/usr/bin/env python3
"""Print the SYSTEM and PERFINFO events of the PerfView test traces as dissect.etl decodes them.

dissect.etl is an ETL parser written independently of this crate; it also undoes the MS-XCA
plain LZ77 compression of the buffers. For every trace this script prints:

- the first two events of each version-first header type (SYSTEM32, SYSTEM64, COMPACT32/64,
  PERFINFO32/64) and any event given with --at, one line each: buffer index (file order), event
  offset after the 0x48-byte buffer header, header type, Version, Flags (marker byte 3), Size,
  HookId, Group, Type, ThreadId, ProcessId, SystemTime, KernelTime, UserTime (SYSTEM only), the
  length of the data after the header (and after any PEBS/PMC words, which dissect.etl reads
  for all three types) and its first eight bytes as hex;
- per trace and header type: the number of events and sums over all of them of Size, HookId,
  ThreadId, ProcessId, the data lengths, and SystemTime (wrapping at 2^64), so that a decoder of
  every event can be compared with dissect.etl field by field in aggregate.

tests/kernel_headers.rs holds values copied from this output, each with a comment naming this
script. Usage:

    python3 tools/kernel-header-vectors/print_kernel_events.py [PERFVIEW_DIR] [--at FILE:BUFFER:OFFSET ...]

PERFVIEW_DIR defaults to $ETW_PERFVIEW_DIR, else ../shared/data/perfview relative to the
repository root. Needs dissect.etl 3.14 (pip install dissect.etl==3.14).
"""

import argparse
import os
import sys
from pathlib import Path

from dissect.etl.etl import ETL

ROOT = Path(__file__).resolve().parents[2]
VERSION_FIRST = {0x01: "SYSTEM32", 0x02: "SYSTEM64", 0x03: "COMPACT32", 0x04: "COMPACT64",
                 0x10: "PERFINFO32", 0x11: "PERFINFO64"}
SYSTEM = {0x01, 0x02}
FIRST_PER_TYPE = 2
U64 = 1 << 64


def describe(index, offset, header_type, header):
    """One line of the fields dissect.etl decodes for a version-first event."""
    fields = [
        f"buffer {index}", f"offset {offset:#x}", VERSION_FIRST[header_type],
        f"version {header.version}", f"flags {header.marker >> 24:#x}", f"size {header.size}",
        f"hook_id {header.hook_id:#06x}", f"group {header.group:#x}", f"type {header.opcode}",
    ]
    if header_type not in (0x10, 0x11):
        fields += [f"thread_id {header.thread_id}", f"process_id {header.process_id}"]
    fields.append(f"system_time {header.time_delta}")
    if header_type in SYSTEM:
        processor_time = header.processor_time
        fields += [f"kernel_time {processor_time & 0xFFFFFFFF}", f"user_time {processor_time >> 32}"]
    payload = bytes(header.payload)
    fields += [f"data_len {len(payload)}", f"data[..8] {payload[:8].hex()}"]
    return ", ".join(fields)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("perfview", nargs="?", default=os.environ.get(
        "ETW_PERFVIEW_DIR", ROOT.parent / "shared/data/perfview"))
    parser.add_argument("--at", action="append", default=[],
                        help="FILE:BUFFER:OFFSET (offset in hex) of an event to print")
    args = parser.parse_args()
    traces = sorted(Path(args.perfview).glob("*.etl"))
    if not traces:
        print(f"no .etl file in {args.perfview}", file=sys.stderr)
        return 2
    wanted = set()
    for at in args.at:
        name, buffer, offset = at.split(":")
        wanted.add((name, int(buffer), int(offset, 16)))

    for trace in traces:
        print(f"== {trace.name}")
        printed, sums = {}, {}
        with open(trace, "rb") as fh:
            etl = ETL(fh)
            for index in range(etl.logfile_header.buffers_written):
                offset = 0
                for record in etl.buffer(index):
                    header = record.header
                    header_type = (header.marker >> 16) & 0xFF
                    if header.marker >> 24 == 0xC0 and header_type in VERSION_FIRST:
                        shown = printed.get(header_type, 0)
                        if shown < FIRST_PER_TYPE or (trace.name, index, offset) in wanted:
                            print("  " + describe(index, offset, header_type, header))
                            printed[header_type] = shown + 1
                        total = sums.setdefault(header_type, [0] * 7)
                        tid = getattr(header, "thread_id", 0) if header_type not in (0x10, 0x11) else 0
                        pid = getattr(header, "process_id", 0) if header_type not in (0x10, 0x11) else 0
                        for i, value in enumerate((1, header.size, header.hook_id, tid, pid,
                                                   len(bytes(header.payload)))):
                            total[i] += value
                        total[6] = (total[6] + header.time_delta) % U64
                    offset += record.aligned_size
        for header_type, (count, size, hook, tid, pid, data, time) in sorted(sums.items()):
            print(f"  totals {VERSION_FIRST[header_type]}: count {count}, size {size}, "
                  f"hook_id {hook}, thread_id {tid}, process_id {pid}, data_len {data}, "
                  f"system_time {time} (mod 2^64)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
