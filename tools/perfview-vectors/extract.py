#!/usr/bin/env python3
"""Extract real EVENT_TRACE_HEADER golden vectors from the PerfView test traces.

The .etl files are read with dissect.etl, an ETL parser that is independent of
this crate (it also decompresses the MS-XCA LZ77 buffers). For every classic
FULL_HEADER32 (HeaderType 0x0A) and FULL_HEADER64 (0x14) event it sees, the
script keeps the raw 0x30 header bytes; a few of them per file and header type
are written, with the field values dissect.etl decodes, to
tests/data/perfview-full-headers.json.

Usage:
    python3 tools/perfview-vectors/extract.py [PERFVIEW_DIR] [--output FILE]

PERFVIEW_DIR defaults to $ETW_PERFVIEW_DIR, else ../shared/data/perfview
relative to the repository root. Dependencies: dissect.etl and the standard
library. See README.md next to this file.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import struct
import sys
import uuid
from pathlib import Path

from dissect.etl.etl import ETL

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR_RELATIVE = "../shared/data/perfview"
DEFAULT_OUTPUT_RELATIVE = "tests/data/perfview-full-headers.json"

HEADER_LEN = 0x30
FULL_HEADER32 = 0x0A
FULL_HEADER64 = 0x14
PER_FILE_PER_TYPE = 6

# Header type names as used in ntwmi.h (TRACE_HEADER_TYPE_*).
HEADER_TYPE_NAMES = {
    0x01: "SYSTEM32",
    0x02: "SYSTEM64",
    0x03: "COMPACT32",
    0x04: "COMPACT64",
    0x0A: "FULL_HEADER32",
    0x0B: "INSTANCE32",
    0x0C: "TIMED",
    0x0D: "ERROR",
    0x0E: "WNODE_HEADER",
    0x0F: "MESSAGE",
    0x10: "PERFINFO32",
    0x11: "PERFINFO64",
    0x12: "EVENT_HEADER32",
    0x13: "EVENT_HEADER64",
    0x14: "FULL_HEADER64",
    0x15: "INSTANCE64",
}


def header_type_name(header_type: int) -> str:
    return HEADER_TYPE_NAMES.get(header_type, f"0x{header_type:02X}")


def to_i64(value: int) -> int:
    """Reinterpret an unsigned 64-bit integer as two's-complement signed."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value & (1 << 63) else value


def fields_from_dissect(hdr) -> dict:
    """Field values as dissect.etl decodes them (see README for what is derived)."""
    st = hdr.header  # dissect's cstruct EventTraceHeader
    marker = hdr.marker  # first u32 of the event, little-endian
    version = st.Version  # dissect exposes the Class roll-up only as one u32
    return {
        "size": hdr.size,
        "header_type": (marker >> 16) & 0xFF,
        "marker_flags": (marker >> 24) & 0xFF,
        "class_type": version & 0xFF,
        "class_level": (version >> 8) & 0xFF,
        "class_version": (version >> 16) & 0xFFFF,
        "thread_id": hdr.thread_id,
        "process_id": hdr.process_id,
        "timestamp": to_i64(st.TimeDelta),  # dissect reads it as u64
        "guid": str(hdr.provider_id).lower(),
        "kernel_time": st.KernelTime,
        "user_time": st.UserTime,
    }


def fields_from_bytes(raw: bytes) -> dict:
    """Decode the 0x30 bytes directly, offsets as in LAYOUTS.md (cross-check)."""
    if len(raw) != HEADER_LEN:
        raise ValueError(f"expected {HEADER_LEN} bytes, got {len(raw)}")
    (size, header_type, marker_flags, class_type, class_level, class_version,
     thread_id, process_id, timestamp) = struct.unpack_from("<HBBBBHIIq", raw, 0)
    d1, d2, d3 = struct.unpack_from("<IHH", raw, 0x18)
    d4 = raw[0x20:0x28]
    guid = f"{d1:08x}-{d2:04x}-{d3:04x}-{d4[:2].hex()}-{d4[2:].hex()}"
    kernel_time, user_time = struct.unpack_from("<II", raw, 0x28)
    return {
        "size": size,
        "header_type": header_type,
        "marker_flags": marker_flags,
        "class_type": class_type,
        "class_level": class_level,
        "class_version": class_version,
        "thread_id": thread_id,
        "process_id": process_id,
        "timestamp": timestamp,
        "guid": guid,
        "kernel_time": kernel_time,
        "user_time": user_time,
    }


class OffsetMismatch(Exception):
    pass


def scan_file(path: Path):
    """Walk every event dissect.etl yields.

    Returns (counts by header type, FULL_HEADER candidates, errors). A candidate
    is (buffer index, offset, raw header bytes, dissect field values).
    """
    counts: dict[int, int] = {}
    candidates = []
    errors = []
    with path.open("rb") as fh:
        try:
            etl = ETL(fh)
            n_buffers = etl.logfile_header.buffers_written
        except Exception as exc:  # noqa: BLE001 - recorded, not fatal
            errors.append({"file": path.name, "error": f"{type(exc).__name__}: {exc}"})
            return counts, candidates, errors

        for index in range(n_buffers):
            offset = 0
            try:
                buf = etl.buffer(index)
                data = buf.data  # decompressed when BufferFlag has 0x40
            except Exception as exc:  # noqa: BLE001 - recorded, not fatal
                # Buffers are located one after the other, so a buffer that
                # cannot be loaded ends the walk of this file.
                errors.append({
                    "file": path.name,
                    "buffer": index,
                    "error": f"{type(exc).__name__}: {exc}",
                    "buffers_not_read": n_buffers - index,
                })
                break
            try:
                # Buffer.__iter__ reads each record at `offset` and then
                # advances by the record's 8-byte aligned size; mirror that to
                # know where each record starts.
                for record in buf:
                    hdr = record.header
                    header_type = (hdr.marker >> 16) & 0xFF
                    if (hdr.marker >> 24) == 0x90:
                        header_type = 0x0F  # MESSAGE marker, as dissect.etl maps it
                    counts[header_type] = counts.get(header_type, 0) + 1
                    if header_type in (FULL_HEADER32, FULL_HEADER64):
                        raw = bytes(hdr.data[:HEADER_LEN])
                        if raw != bytes(data[offset:offset + HEADER_LEN]):
                            raise OffsetMismatch(f"{path.name} buffer {index}: offset bookkeeping is off at 0x{offset:x}")
                        candidates.append((index, offset, raw, fields_from_dissect(hdr)))
                    offset += record.aligned_size
            except OffsetMismatch:
                raise  # a bug in this script, not a property of the trace
            except Exception as exc:  # noqa: BLE001 - recorded, not fatal
                errors.append({
                    "file": path.name,
                    "buffer": index,
                    "offset": offset,
                    "error": f"{type(exc).__name__}: {exc}",
                })
    return counts, candidates, errors


def features(fields: dict) -> dict:
    """Properties a selection should cover, each mapped to a weight."""
    g = fields["guid"]
    return {
        ("guid", g): 8,
        ("guid-type", g, fields["class_type"]): 4,
        ("level", fields["class_level"]): 2,
        ("version", fields["class_version"]): 2,
        ("cpu", fields["kernel_time"] != 0, fields["user_time"] != 0): 2,
        ("size-mod-8", fields["size"] % 8 != 0): 1,
    }


def select(candidates: list, limit: int) -> list:
    """Greedy, deterministic: each pick covers the most not-yet-covered weight;
    ties go to the earliest event in the file (buffer, offset)."""
    chosen = []
    covered = set()
    remaining = list(candidates)  # already in file order
    while remaining and len(chosen) < limit:
        best_i, best_score = 0, -1
        for i, (_, _, _, fields) in enumerate(remaining):
            score = sum(w for key, w in features(fields).items() if key not in covered)
            if score > best_score:
                best_i, best_score = i, score
        pick = remaining.pop(best_i)
        covered.update(features(pick[3]))
        chosen.append(pick)
    chosen.sort(key=lambda c: (c[0], c[1]))
    return chosen


def default_dir() -> Path:
    env = os.environ.get("ETW_PERFVIEW_DIR")
    if env:
        return Path(env)
    return REPO_ROOT / DEFAULT_DIR_RELATIVE


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("perfview_dir", nargs="?", type=Path,
                    help="folder with the PerfView .etl files "
                         "(default: $ETW_PERFVIEW_DIR or ../shared/data/perfview)")
    ap.add_argument("--output", type=Path, default=REPO_ROOT / DEFAULT_OUTPUT_RELATIVE,
                    help=f"JSON file to write (default: {DEFAULT_OUTPUT_RELATIVE})")
    args = ap.parse_args()

    src = args.perfview_dir or default_dir()
    if not src.is_dir():
        print(f"error: PerfView trace folder not found: {src}\n"
              f"pass it as an argument or set ETW_PERFVIEW_DIR", file=sys.stderr)
        return 2
    files = sorted(p for p in src.iterdir() if p.suffix.lower() == ".etl" and p.is_file())
    if not files:
        print(f"error: no .etl files in {src}", file=sys.stderr)
        return 2

    vectors, counts, errors = [], {}, []
    for path in files:
        file_counts, candidates, file_errors = scan_file(path)
        counts[path.name] = {header_type_name(t): n for t, n in sorted(file_counts.items())}
        errors.extend(file_errors)
        for header_type in (FULL_HEADER32, FULL_HEADER64):
            of_type = [c for c in candidates if c[3]["header_type"] == header_type]
            for index, offset, raw, fields in select(of_type, PER_FILE_PER_TYPE):
                independent = fields_from_bytes(raw)
                if independent != fields:
                    diff = {k: (fields[k], independent[k]) for k in fields if fields[k] != independent[k]}
                    raise SystemExit(f"{path.name} buffer {index} offset 0x{offset:x}: "
                                     f"dissect.etl and struct decoding disagree: {diff}")
                vectors.append({
                    "name": f"{path.name} buffer {index} offset 0x{offset:x} {header_type_name(header_type)}",
                    "file": path.name,
                    "buffer": index,
                    "offset": offset,
                    "layout": "trace-header",
                    "hex": raw.hex(),
                    "fields": fields,
                })

    out = {
        "source": "PerfView test traces (see ../shared/data/perfview/PROVENANCE.md)",
        "parser": f"dissect.etl {importlib.metadata.version('dissect.etl')}",
        "vectors": vectors,
        "counts": counts,
        "errors": errors,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with args.output.open("w", encoding="utf-8", newline="\n") as fh:
        json.dump(out, fh, indent=2)
        fh.write("\n")

    per = {}
    for v in vectors:
        key = (v["file"], v["name"].rsplit(" ", 1)[1])
        per[key] = per.get(key, 0) + 1
    for (name, kind), n in per.items():
        print(f"{name}: {n} {kind}")
    print(f"{len(vectors)} vectors, {len(errors)} errors -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
