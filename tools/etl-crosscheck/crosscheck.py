#!/usr/bin/env python3
"""Compare `etwc etl --json` with dissect.etl, an independent ETL parser, on the same files.

Two checks:

1. Reading. For every PerfView trace (../shared/data/perfview, or $ETW_PERFVIEW_DIR), both
   parsers walk every buffer (compressed ones included). The number of events of each header
   type must be equal, and every event of the kinds below must be at the same buffer and
   offset with the same header members, the same data, and the same FILETIME (`filetime` of
   etwc's line; dissect's `ETL.get_filetime_for_event` of its raw timestamp, exact for the
   10 MHz clocks of these traces):
   - FULL_HEADER32/64 (and INSTANCE32/64): Guid, Class Type/Level/Version, ThreadId,
     ProcessId, TimeStamp, KernelTime, UserTime (and InstanceId, ParentInstanceId, ParentGuid).
   - EVENT_HEADER32/64: Size, Flags, EventProperty, ThreadId, ProcessId, TimeStamp, ProviderId
     (read little-endian from dissect's header bytes: dissect's own `provider_id` builds it
     big-endian, EVENT-HEADERS.md section 2), the EVENT_DESCRIPTOR (Id, Version, Channel, Level,
     Opcode, Task, Keyword), KernelTime, UserTime, ActivityId and the user data. In events whose
     Flags have EXTENDED_INFO also every extended item's size, type, Linkage bit, DataSize and
     data, up to the item whose Linkage bit is 0 (dissect parses items in every event and ignores
     Linkage: it invents items in unflagged events, and reads on after the last one; the run
     says in how many flagged events its own count differs).
   - SYSTEM32/64, COMPACT32/64, PERFINFO32/64: Version, HeaderType, Size, HookId (Group and
     Type), ThreadId and ProcessId (SYSTEM, COMPACT), SystemTime, KernelTime and UserTime
     (SYSTEM), and the data after the extra PEBS/PMC words.
   - MESSAGE: Size, MessageNumber, OptionFlags, Sequence, message GUID, TimeStamp, ThreadId,
     ProcessId and the arguments (no PerfView trace has one).
   Every event of every trace is compared (about a minute and a half on two cores for the two
   net.4.5.2 traces); `EVERY` can restrict a trace to every Nth buffer if that grows too long.
   The run prints per trace how many events of each kind were compared.

2. Writing. `firmware_trace --etl` writes an .etl file from its session buffers; dissect.etl
   must read it with every instance event's Guid, Type, Level, Version, InstanceId,
   ParentInstanceId, ParentGuid and payload equal to what etwc reads, and the same for the
   full-header and system events (no FILETIME: its clock is not one dissect converts exactly).

It also times both parsers reading the largest trace end to end and prints the ratio.

Usage: crosscheck.py [--etwc PATH] [--firmware-trace PATH] [--perfview DIR]
The binaries default to target/release/etwc and target/release/examples/firmware_trace; build
them first with `cargo build --release --workspace --bins --examples`. Exits 1 on any difference, 2 when something is missing.
Needs dissect.etl (pip install dissect.etl==3.14).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from uuid import UUID

try:
    from dissect.etl.etl import ETL
except ImportError:
    print("crosscheck: dissect.etl is not installed (pip install dissect.etl==3.14)", file=sys.stderr)
    sys.exit(2)

ROOT = Path(__file__).resolve().parents[2]
# Traces compared on every EVERY-th buffer only (buffers 0, N, 2N, ...), to keep the run short;
# the others event by event. The counts by kind always cover every event.
EVERY = {}
FULL = {0x0A: "FULL_HEADER32", 0x14: "FULL_HEADER64"}
INSTANCE = {0x0B: "INSTANCE32", 0x15: "INSTANCE64"}
NAMES = {
    0x01: "SYSTEM32", 0x02: "SYSTEM64", 0x03: "COMPACT32", 0x04: "COMPACT64", 0x0A: "FULL_HEADER32",
    0x0B: "INSTANCE32", 0x0C: "TIMED", 0x0D: "ERROR", 0x0E: "WNODE_HEADER", 0x0F: "MESSAGE",
    0x10: "PERFINFO32", 0x11: "PERFINFO64", 0x12: "EVENT_HEADER32", 0x13: "EVENT_HEADER64",
    0x14: "FULL_HEADER64", 0x15: "INSTANCE64",
}


def signed64(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


EXTENDED_INFO = 0x0001  # EVENT_HEADER_FLAG_EXTENDED_INFO
EVENT_HEADER = {0x12: "EVENT_HEADER32", 0x13: "EVENT_HEADER64"}
KERNEL = {0x01: "SYSTEM32", 0x02: "SYSTEM64", 0x03: "COMPACT32", 0x04: "COMPACT64",
          0x10: "PERFINFO32", 0x11: "PERFINFO64"}
MESSAGE = {0x0F: "MESSAGE"}
# Message OptionFlags (TRACE_MESSAGE_*), as dissect.etl reads them.
MESSAGE_SEQUENCE, MESSAGE_GUID, MESSAGE_COMPONENT_ID = 0x01, 0x02, 0x04
MESSAGE_TIMESTAMP, MESSAGE_SYSTEMINFO = 0x08, 0x20


def classic_fields(header, header_type, name):
    """A FULL_HEADER or INSTANCE event's members, from dissect.etl's header struct."""
    raw = header.header
    version = raw.Version
    fields = {
        "kind": name,
        "guid": str(header.provider_id),
        "class_type": version & 0xFF,
        "class_level": (version >> 8) & 0xFF,
        "class_version": version >> 16,
        "thread_id": raw.ThreadId,
        "process_id": raw.ProcessId,
        "timestamp": signed64(raw.TimeDelta),
        "data": bytes(header.payload).hex(),
    }
    if header_type in FULL:
        fields["kernel_time"] = raw.KernelTime
        fields["user_time"] = raw.UserTime
    else:
        fields["kernel_time"] = raw.event_metadata.cpu_time.KernelTime
        fields["user_time"] = raw.event_metadata.cpu_time.UserTime
        fields["instance_id"] = raw.InstanceId
        fields["parent_instance_id"] = raw.ParentInstanceId
        fields["parent_guid"] = str(UUID(bytes_le=bytes(raw.ParentGuid)))
    return fields


def event_header_fields(header, name, notes):
    """An EVENT_HEADER event's members from dissect.etl's header struct and payload.

    dissect's `provider_id` builds the GUID big-endian (UUID(bytes=...)); the GUID is read here
    little-endian from the same 16 header bytes. dissect parses extended items in every event,
    flagged or not, and ignores the Linkage bit (EVENT-HEADERS.md section 2): its items are
    compared only in events whose Flags have EXTENDED_INFO, up to the first item whose Linkage
    bit (dissect's `reserved1`) is 0; the user data follows them. An event where dissect's list
    ends before that item (its 13-item limit or an item it rejects) is noted in `notes` and its
    items and user data are not compared.
    """
    raw = header.header
    processor_time = raw.ProcessorTime
    fields = {
        "kind": name,
        "size": raw.Size,
        "flags": raw.Flags,
        "event_property": raw.EventProperty,
        "thread_id": raw.ThreadId,
        "process_id": raw.ProcessId,
        "timestamp": signed64(raw.TimeDelta),
        "provider_id": str(UUID(bytes_le=bytes(raw.ProviderId))),
        "event_descriptor": {"id": raw.Id, "version": raw.Version, "channel": raw.Channel,
                             "level": raw.Level, "opcode": raw.OpCode, "task": raw.Task,
                             "keyword": raw.Keywords},
        "kernel_time": processor_time & 0xFFFFFFFF,
        "user_time": processor_time >> 32,
        "activity_id": str(header.activity_id),
    }
    payload = bytes(header.payload)
    if not raw.Flags & EXTENDED_INFO:
        fields["extended_data"] = []
        fields["data"] = payload.hex()
        return fields
    items, used = [], 0
    parsed = header.header_extensions
    for item in parsed:
        items.append({"ext_type": int(item.ext_type), "item_size": item.size,
                      "linkage": item.reserved1 & 1, "data_size": item.data_size,
                      "data": bytes(item.raw_data).hex()})
        used += item.size
        if not item.reserved1 & 1:
            break
    else:
        notes["flagged_cut_short"] = notes.get("flagged_cut_short", 0) + 1
        return fields
    if len(parsed) != len(items):
        notes["flagged_count_differs"] = notes.get("flagged_count_differs", 0) + 1
    notes["flagged"] = notes.get("flagged", 0) + 1
    fields["extended_data"] = items
    fields["data"] = payload[used:].hex()
    return fields


def kernel_fields(header, header_type, name):
    """A SYSTEM, COMPACT or PERFINFO event's members, from dissect.etl's header struct."""
    raw = header.header
    fields = {
        "kind": name,
        "version": raw.Version,
        "header_type": header_type,
        "size": header.size,
        "hook_id": header.hook_id,
        "type": raw.OpCode,
        "group": raw.Group,
        "system_time": signed64(raw.TimeDelta),
        "data": bytes(header.payload).hex(),
    }
    if header_type in (0x01, 0x02, 0x03, 0x04):
        fields["thread_id"] = raw.ThreadId
        fields["process_id"] = raw.ProcessId
    if header_type in (0x01, 0x02):
        fields["kernel_time"] = raw.ProcessorTime & 0xFFFFFFFF
        fields["user_time"] = raw.ProcessorTime >> 32
    return fields


def message_fields(header, name):
    """A MESSAGE event's members, from dissect.etl's parse of its optional fields (the
    arguments follow the fields dissect read)."""
    flags = header.event_property
    guid = header.provider_id
    used = ((4 if header.sequence_number is not None else 0) + (16 if guid is not None else 0)
            + (8 if header.time_delta is not None else 0)
            + (8 if header.thread_id is not None else 0))
    return {
        "kind": name,
        "size": header.size,
        "message_number": header.id,
        "option_flags": flags,
        "sequence": header.sequence_number,
        "message_guid": None if guid is None else str(guid),
        "timestamp": None if header.time_delta is None else signed64(header.time_delta),
        "thread_id": header.thread_id,
        "process_id": header.process_id,
        "data": bytes(header.payload)[used:].hex(),
    }


def dissect_walk(path, every=1, filetimes=True):
    """dissect.etl's view: (counts by header-type name of every event, {(buffer, offset): fields}
    of the events compared field by field, notes on what dissect could not give).

    Fields are taken from every event of every `every`-th buffer (0, every, 2 every, ...); with
    `filetimes`, each of those events also gets `filetime`: dissect's
    `ETL.get_filetime_for_event` of its raw timestamp, None when dissect reads none.
    """
    counts, compared, notes = {}, {}, {}
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            buffer = etl.buffer(index)
            offset = 0
            sampled = index % every == 0
            for record in buffer:
                header = record.header
                header_type = (header.marker >> 16) & 0xFF
                if (header.marker >> 24) == 0x90:
                    header_type = 0x0F
                name = NAMES.get(header_type, f"0x{header_type:02X}")
                counts[name] = counts.get(name, 0) + 1
                if sampled:
                    fields = None
                    if header_type in FULL or header_type in INSTANCE:
                        fields = classic_fields(header, header_type, name)
                    elif header_type in EVENT_HEADER:
                        fields = event_header_fields(header, name, notes)
                    elif header_type in KERNEL:
                        fields = kernel_fields(header, header_type, name)
                    elif header_type in MESSAGE:
                        fields = message_fields(header, name)
                    if fields is not None:
                        if filetimes:
                            time_delta = header.time_delta
                            fields["filetime"] = (None if time_delta is None
                                                  else etl.get_filetime_for_event(time_delta))
                        compared[(index, offset)] = fields
                offset += record.aligned_size
    return counts, compared, notes


def best_of(runs, action):
    """The shortest wall time of `runs` calls of `action`, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def dissect_count(path):
    """Walk every event of the file with dissect.etl, as `etwc etl --summary` does."""
    events = 0
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            for record in etl.buffer(index):
                record.header.marker
                events += 1
    return events


CLASSIC_KEYS = ("kind", "guid", "class_type", "class_level", "class_version", "thread_id",
                "process_id", "timestamp", "data", "kernel_time", "user_time")
EVENT_HEADER_KEYS = ("kind", "size", "flags", "event_property", "thread_id", "process_id",
                     "timestamp", "provider_id", "event_descriptor", "kernel_time", "user_time",
                     "activity_id")
ITEM_KEYS = ("ext_type", "item_size", "linkage", "data_size", "data")
KERNEL_KEYS = ("kind", "version", "header_type", "size", "hook_id", "type", "group",
               "system_time", "data")
MESSAGE_KEYS = ("kind", "size", "message_number", "option_flags", "sequence", "message_guid",
                "timestamp", "thread_id", "process_id", "data")


def etwc_walk(etwc, path, every=1, filetimes=True):
    """The same, from etwc's JSON lines: the members dissect.etl gives (see dissect_walk) of every
    event of every `every`-th buffer; `theirs` says which EVENT_HEADER events dissect gives
    extended items and user data for."""
    output = subprocess.run([etwc, "etl", str(path), "--json"], check=True,
                            capture_output=True, text=True).stdout
    counts, compared = {}, {}
    for line in output.splitlines()[1:]:  # the first line is the logfile header
        event = json.loads(line)
        kind = event["kind"]
        counts[kind] = counts.get(kind, 0) + 1
        if event["buffer"] % every:
            continue
        if kind in FULL.values() or kind in INSTANCE.values():
            fields = {key: event[key] for key in CLASSIC_KEYS}
            if kind in INSTANCE.values():
                for key in ("instance_id", "parent_instance_id", "parent_guid"):
                    fields[key] = event[key]
        elif kind in EVENT_HEADER.values():
            fields = {key: event[key] for key in EVENT_HEADER_KEYS}
            fields["extended_data"] = [{key: item[key] for key in ITEM_KEYS}
                                       for item in event["extended_data"]]
            fields["data"] = event["data"]
        elif kind in KERNEL.values():
            fields = {key: event[key] for key in KERNEL_KEYS}
            if kind.startswith(("SYSTEM", "COMPACT")):
                fields["thread_id"] = event["thread_id"]
                fields["process_id"] = event["process_id"]
            if kind.startswith("SYSTEM"):
                fields["kernel_time"] = event["kernel_time"]
                fields["user_time"] = event["user_time"]
        elif kind in MESSAGE.values():
            fields = {key: event[key] for key in MESSAGE_KEYS}
        else:
            continue
        if filetimes:
            fields["filetime"] = event["filetime"]
        compared[(event["buffer"], event["offset"])] = fields
    return counts, compared


def compare(name, ours, theirs):
    """Differences between the two walks, as printable lines."""
    problems = []
    if ours[0] != theirs[0]:
        problems.append(f"{name}: counts differ: etwc {ours[0]} dissect.etl {theirs[0]}")
    for key in sorted(set(ours[1]) | set(theirs[1])):
        a, b = ours[1].get(key), theirs[1].get(key)
        if a is not None and b is not None and "extended_data" in a and "extended_data" not in b:
            # An EVENT_HEADER event whose items dissect.etl does not give (see dissect_walk).
            a = {k: v for k, v in a.items() if k not in ("extended_data", "data")}
        if a != b:
            diff = {k: (a.get(k) if a else None, b.get(k) if b else None)
                    for k in set(a or {}) | set(b or {}) if (a or {}).get(k) != (b or {}).get(k)}
            problems.append(f"{name}: buffer {key[0]} offset {key[1]:#x}: {diff}")
            if len(problems) > 20:
                problems.append(f"{name}: (more differences not shown)")
                break
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--etwc", default=ROOT / "target/release/etwc")
    parser.add_argument("--firmware-trace", default=ROOT / "target/release/examples/firmware_trace")
    parser.add_argument("--perfview", default=os.environ.get(
        "ETW_PERFVIEW_DIR", ROOT.parent / "shared/data/perfview"))
    args = parser.parse_args()
    for binary in (args.etwc, args.firmware_trace):
        if not Path(binary).is_file():
            print(f"crosscheck: {binary} is missing; run "
                  "`cargo build --release --workspace --bins --examples`",
                  file=sys.stderr)
            return 2

    problems = []
    traces = sorted(Path(args.perfview).glob("*.etl"))
    if not traces:
        print(f"crosscheck: no .etl file in {args.perfview}", file=sys.stderr)
        return 2
    for trace in traces:
        every = EVERY.get(trace.name, 1)
        started = time.perf_counter()
        ours = etwc_walk(args.etwc, trace, every)
        theirs = dissect_walk(trace, every)
        problems += compare(trace.name, ours, theirs[:2])
        by_kind = {}
        for fields in ours[1].values():
            by_kind[fields["kind"]] = by_kind.get(fields["kind"], 0) + 1
        timed = sum(1 for fields in theirs[1].values() if fields["filetime"] is not None)
        sample = "every event" if every == 1 else f"every event of every {every}th buffer"
        print(f"{trace.name}: {sum(ours[0].values())} events, kinds {dict(sorted(ours[0].items()))}; "
              f"compared field by field ({sample}): {dict(sorted(by_kind.items()))}, "
              f"{timed} FILETIMEs; {time.perf_counter() - started:.1f} s")
        notes = theirs[2]
        if notes.get("flagged"):
            print(f"{trace.name}: {notes['flagged']} EVENT_HEADER events with EXTENDED_INFO: items "
                  f"and user data compared up to the item whose Linkage bit is 0; in "
                  f"{notes.get('flagged_count_differs', 0)} of them dissect.etl's own item count "
                  f"differs (it ignores Linkage and reads on)")
        if notes.get("flagged_cut_short"):
            problems.append(f"{trace.name}: in {notes['flagged_cut_short']} EVENT_HEADER events "
                            f"with EXTENDED_INFO dissect.etl's items end before the Linkage "
                            f"chain does (its 13-item limit or an item it rejects)")

    with tempfile.TemporaryDirectory() as scratch:
        written = Path(scratch) / "firmware_trace.etl"
        subprocess.run([args.firmware_trace, "--etl", str(written)], check=True,
                       capture_output=True)
        # Its clock is not the 10 MHz one on which dissect's float conversion is exact: no
        # FILETIME comparison here.
        ours = etwc_walk(args.etwc, written, filetimes=False)
        theirs = dissect_walk(written, filetimes=False)[:2]
        problems += compare("firmware_trace.etl", ours, theirs)
        instances = sum(1 for fields in theirs[1].values() if fields["kind"] in INSTANCE.values())
        if instances == 0:
            problems.append("firmware_trace.etl: dissect.etl found no instance event")
        print(f"firmware_trace.etl: {sum(ours[0].values())} events, {instances} instance events "
              f"with InstanceId/ParentInstanceId/ParentGuid/payload, kinds {dict(sorted(ours[0].items()))}")

    # Speed: the largest trace read end to end (every buffer decompressed, every event walked)
    # by etwc and by dissect.etl, each the best of several runs: ten of etwc, whose run of
    # a few hundredths of a second a busy machine easily doubles, and three of dissect.etl, whose
    # seconds it does not. Reported, not asserted.
    largest = max(traces, key=lambda trace: trace.stat().st_size)
    ours_s = best_of(10, lambda: subprocess.run(
        [args.etwc, "etl", str(largest), "--summary"], check=True, capture_output=True))
    theirs_s = best_of(3, lambda: dissect_count(largest))
    print(f"speed on {largest.name} ({largest.stat().st_size} bytes): etwc {ours_s:.3f} s, "
          f"dissect.etl {theirs_s:.2f} s, {theirs_s / ours_s:.0f}x")

    for problem in problems:
        print(problem, file=sys.stderr)
    print("crosscheck: " + ("FAILED" if problems else "etwc and dissect.etl agree on every event"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
