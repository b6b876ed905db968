#!/usr/bin/env python3
"""Check `etwc assemble` on the raw trace buffers a firmware dumped against the .etl file the
same firmware wrote itself.

1. `etwc assemble DUMP` with no option but the output: it must exit 0. dissect.etl must read
   the assembled file with every event: the same number of events of each header type as
   `etwc etl --json` reads, and every classic event (FULL_HEADER32/64, INSTANCE32/64) at the same
   buffer and offset with the same Guid, Class, ThreadId, ProcessId, TimeStamp, CPU times and
   data, and for instance events the same InstanceId, ParentInstanceId and ParentGuid.
2. The assembled file's events must be the firmware file's, as `etwc etl --json` reads both
   (counts by header type, and every classic event's fields at the same buffer and offset).
   The logfile headers differ only in what the buffers cannot tell; the members that differ
   are printed, each with why.
3. `etwc assemble DUMP` told those members (taken from the firmware's logfile header) must
   write the firmware's file byte for byte.

Usage: assembled.py DUMP FIRMWARE.etl [--etwc PATH] [--brief]
(--brief: one line when all is well, instead of the notes, the header differences and the
options.)
Exits 1 on any difference, 2 when something is missing. Needs dissect.etl
(pip install dissect.etl==3.14).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crosscheck import FULL, INSTANCE, compare, dissect_walk, etwc_walk  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# Why a logfile header member of the assembled file (no option given) may differ from the one
# the firmware wrote: the dump holds the trace buffers only.
EXPLAINED = {
    "end_time": "the clock ran on after the last buffer was sealed (events lost later); "
                "assemble takes the latest timestamp in the buffers",
    "boot_time": "not in the buffers; assemble writes 0 unless --boot-time",
    "cpu_speed_in_mhz": "not in the buffers; assemble writes 1 unless --cpu-mhz",
    "events_lost": "the buffers only flag lost events; assemble writes 0 unless --events-lost",
    "log_instance_guid": "the union of StartBuffers, PointerSize, EventsLost and CpuSpeedInMHz",
    "names.logger_name": "not in the buffers; assemble writes none unless --logger-name",
    "names.log_file_name": "not in the buffers; assemble writes its output path unless "
                           "--log-file-name",
    "system_header.size": "the names after the logfile header differ in length",
    "system_header.header": "the names after the logfile header differ in length",
    "start_time": "assemble takes the earliest event's timestamp unless --start-time",
    "system_header.system_time": "the anchor of the clock is StartTime",
}


def logfile_header(etwc, path):
    """The LOGFILE_HEADER line of `etwc etl --json`, flattened to dotted keys."""
    output = subprocess.run([etwc, "etl", str(path), "--json"], check=True,
                            capture_output=True, text=True).stdout
    line = json.loads(output.splitlines()[0])
    flat = {}

    def walk(prefix, value):
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}{key}.", inner)
        else:
            flat[prefix[:-1]] = value

    walk("", line["logfile_header"])
    walk("system_header.", line["system_header"])
    for key in ("logger_name", "log_file_name"):
        flat[f"names.{key}"] = line[key]
    return flat


def assemble(etwc, dump, output, options=()):
    """Runs `etwc assemble`; returns its stderr, or None (after printing why) if it failed."""
    run = subprocess.run([etwc, "assemble", str(dump), "-o", str(output), *options],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"assembled: etwc assemble {' '.join(options)} exited with {run.returncode}: "
              f"{run.stderr.strip()}", file=sys.stderr)
        return None
    return run.stderr


def trace_buffers_only(walk):
    """A walk (counts, {(buffer, offset): fields}) without the events of buffer 0, the logfile
    header's."""
    counts, events = walk
    return counts, {key: fields for key, fields in events.items() if key[0] != 0}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("firmware_etl", type=Path)
    parser.add_argument("--etwc", default=ROOT / "target/release/etwc")
    parser.add_argument("--brief", action="store_true")
    args = parser.parse_args()
    lines = []
    for path in (args.dump, args.firmware_etl, Path(args.etwc)):
        if not path.is_file():
            print(f"assembled: {path} is missing", file=sys.stderr)
            return 2

    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        assembled = Path(scratch) / "assembled.etl"
        notes = assemble(args.etwc, args.dump, assembled)
        if notes is None:
            return 1
        lines += [f"  {line}" for line in notes.splitlines()]

        # 1. dissect.etl reads the assembled file as etwc does.
        ours, theirs = etwc_walk(args.etwc, assembled), dissect_walk(assembled)
        problems += compare("assembled (etwc against dissect.etl)", ours, theirs)
        instances = sum(1 for fields in theirs[1].values() if fields["kind"] in INSTANCE.values())
        plain = sum(1 for fields in theirs[1].values() if fields["kind"] in FULL.values())

        # 2. The same events as the firmware's own file. The logfile header event (buffer 0)
        # holds the header and the names, which differ for the reasons checked member by member
        # below, so the events compared here are those of the trace buffers.
        firmware = etwc_walk(args.etwc, args.firmware_etl)
        problems += compare("assembled against the firmware's file (etwc)",
                            trace_buffers_only(ours), trace_buffers_only(firmware))
        # (The described trace has typed full-header events and no instance event.)
        if instances + plain == 0:
            problems.append("dissect.etl found no instance or full-header event in the "
                            "assembled file")
        read = (f"dissect.etl reads {sum(theirs[0].values())} events ({instances} instance "
                f"events, {plain} full-header events with every field), kinds "
                f"{dict(sorted(theirs[0].items()))}: the firmware file's, as etwc reads both")
        lines.append(f"  {read}")

        # The logfile header members that differ, and why.
        told = logfile_header(args.etwc, args.firmware_etl)
        found = logfile_header(args.etwc, assembled)
        differing = [key for key in sorted(set(told) | set(found))
                     if told.get(key) != found.get(key)]
        for key in differing:
            why = EXPLAINED.get(key)
            if why is None:
                problems.append(f"logfile header {key}: assembled {found.get(key)!r}, "
                                f"firmware {told.get(key)!r}, unexplained")
            else:
                lines.append(f"  header {key}: assembled {found.get(key)!r}, firmware "
                             f"{told.get(key)!r} ({why})")

        # 3. Told what the buffers cannot say, the same bytes.
        options = [
            "--start-time", str(told["start_time"]),
            "--end-time", str(told["end_time"]),
            "--boot-time", str(told["boot_time"]),
            "--cpu-mhz", str(told["cpu_speed_in_mhz"]),
            "--events-lost", str(told["events_lost"]),
            "--buffers-lost", str(told["buffers_lost"]),
            "--processors", str(told["number_of_processors"]),
            "--logger-name", told["names.logger_name"],
            "--log-file-name", told["names.log_file_name"],
        ]
        identical = Path(scratch) / "identical.etl"
        if assemble(args.etwc, args.dump, identical, options) is None:
            return 1
        if identical.read_bytes() != args.firmware_etl.read_bytes():
            problems.append("told the firmware's header members, etwc assemble wrote other "
                            "bytes than the firmware")
        else:
            lines.append(f"  told the header's members ({' '.join(options)}): byte-identical "
                         f"to {args.firmware_etl.name}")

    if args.brief and not problems:
        print(f"  {read}; header members that differ, each explained: {', '.join(differing)}; "
              f"told them, byte-identical to {args.firmware_etl.name}")
    else:
        print("\n".join(lines))
    for problem in problems:
        print(f"assembled: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
