#!/usr/bin/env python3
"""Compare the kernel events' fields decoded with etw-classic's built-in kernel tables with
dissect.etl's decoding of the same events, on the PerfView traces.

For every trace, `examples/kernel_fields` (built with `cargo build --release --example
kernel_fields`) prints the fields of the first N events (`--per-key`, 25 by default) of every
(class, event type, version) the tables hold; dissect.etl walks the same file and decodes the
events at the same buffer and offset with its own kernel templates. Every field dissect decodes
is compared with ours by name:

- integers, pointers and IPv4 addresses as the numbers stored (ports too: both keep the stored
  bytes, big-endian in the data, as a little-endian u16), text as text, IPv6 addresses and other
  binary as hex, SIDs in their text form, fixed arrays element by element;
- a field dissect names that we do not have, or the other way round, is listed.

Where the two disagree, the bytes decide, and the script says which reading they support: our
decoding of every event compared ends exactly at the end of its data (`examples/kernel_fields`
reports any error or byte left over, and the run fails on one). When dissect's struct covers
fewer or more bytes than the event holds, it read another layout than the data's (its templates
give some `extension("SizeT")` and `PointerType` fields 4 bytes on a 64-bit logger, or read one
stack frame where the data holds many): the disagreement is counted as dissect's, with the
event's bytes shown once per kind. A disagreement on an event whose every byte dissect's struct
covers is not explained by that, and fails the run.

dissect.etl 3.14 with dissect.cstruct 4 cannot build `event_values()` (its `_values` is gone);
the script reads the struct's fields directly. Events dissect cannot decode at all (its
SystemConfig templates raise `KeyError: 'AnsiString'`; no template for some types; its
StackWalk/Stack template reads past the end) are counted by reason.

Usage: kernel_payloads.py [--example PATH] [--perfview DIR] [--per-key N]
Exits 1 on a disagreement the bytes do not explain or on an event we do not decode to its last
byte, 2 when something is missing. Needs dissect.etl (pip install dissect.etl==3.14).
"""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

try:
    from dissect.etl.etl import ETL
except ImportError:
    print("kernel_payloads: dissect.etl is not installed (pip install dissect.etl==3.14)", file=sys.stderr)
    sys.exit(2)

from payload_oracle import TRACES, Tally, find_field, normalise

ROOT = Path(__file__).resolve().parents[2]


def ours(example, path, per_key):
    """{(buffer, offset): line} of examples/kernel_fields."""
    output = subprocess.run([example, str(path), "--per-key", str(per_key)], check=True,
                            capture_output=True, text=True).stdout
    events = {}
    for line in output.splitlines():
        event = json.loads(line)
        events[(event["buffer"], event["offset"])] = event
    return events


def our_value(fields, name):
    """Our value of dissect's field `name`: the same name (or the same but for case, dissect
    spelling `Key` as `key`), or element n - 1 of our `Stack` array for dissect's `Stackn` (the
    MOF's 32 separate frames, which the tables hold as one array of the frames the data has)."""
    known, value = find_field(fields, name)
    if known:
        return known, value
    frame = re.fullmatch(r"Stack(\d+)", name)
    if frame and isinstance(fields.get("Stack"), list):
        index = int(frame.group(1)) - 1
        if index < len(fields["Stack"]):
            return True, fields["Stack"][index]
    return False, None


def dissect_events(path, wanted):
    """{(buffer, offset): (fields, struct_len, problem)} for the events of `wanted`."""
    found = {}
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            offset = 0
            for record in etl.buffer(index):
                key = (index, offset)
                offset += record.aligned_size
                if key not in wanted:
                    continue
                try:
                    struct = record.event._struct
                except Exception as error:  # dissect's own failures, counted by reason
                    found[key] = (None, None, f"{type(error).__name__}: {error}")
                    continue
                if struct is None:
                    found[key] = (None, None, "no template")
                    continue
                fields = {name: normalise(getattr(struct, name)) for name in type(struct).fields}
                found[key] = (fields, len(struct.dumps()), None)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", default=str(ROOT / "target/release/examples/kernel_fields"))
    parser.add_argument("--perfview", default=os.environ.get(
        "ETW_PERFVIEW_DIR", str(ROOT.parent / "shared/data/perfview")))
    parser.add_argument("--per-key", type=int, default=25)
    args = parser.parse_args()
    if not Path(args.example).exists():
        print(f"kernel_payloads: {args.example} is missing (cargo build --release --example kernel_fields)",
              file=sys.stderr)
        return 2
    failures = []
    for name in TRACES:
        path = Path(args.perfview) / name
        if not path.exists():
            print(f"kernel_payloads: {path} is missing", file=sys.stderr)
            return 2
        mine = ours(args.example, path, args.per_key)
        theirs = dissect_events(path, set(mine))
        tally = Tally()
        for key, event in sorted(mine.items()):
            label = f"{event['event']} v{event['version']}"
            if "error" in event or "rest" in event:
                failures.append(f"{name} {key}: {label} does not decode to its last byte: "
                                f"{event.get('error') or 'rest ' + event['rest']}")
                continue
            fields, struct_len, problem = theirs.get(key, (None, None, "not found by dissect"))
            if problem:
                tally.cannot_decode(f"{label}: {problem[:70]}")
                continue
            tally.fields(label, event["fields"], fields, struct_len, event["data"], failures,
                         f"{name} {key}", lookup=our_value)
        print(f"{name}: {len(mine)} kernel events, {tally.compared} fields dissect decodes, "
              f"{tally.agreeing} agree")
        tally.print()
    for failure in failures:
        print(f"DIFFERENCE {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
