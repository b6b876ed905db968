#!/usr/bin/env python3
"""Extract the logfile header event of each PerfView test trace, with dissect.etl's fields.

The first event of every .etl file, right after the first buffer's 0x48-byte
WMI_BUFFER_HEADER, is a SYSTEM32/SYSTEM64 event whose data is a
TRACE_LOGFILE_HEADER followed by the logger name and the log file name
(NUL-terminated UTF-16). For each trace this script keeps the raw bytes of that
event and the field values dissect.etl decodes from it, and writes them to
tests/data/perfview-logfile-headers.json.

Usage:
    python3 tools/perfview-vectors/logfile_headers.py [PERFVIEW_DIR] [--output FILE]

PERFVIEW_DIR defaults to $ETW_PERFVIEW_DIR, else ../shared/data/perfview
relative to the repository root. Dependencies: dissect.etl and the standard
library. See README.md next to this file.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import uuid
from pathlib import Path

from dissect.etl.etl import ETL

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR_RELATIVE = "../shared/data/perfview"
DEFAULT_OUTPUT_RELATIVE = "tests/data/perfview-logfile-headers.json"

BUFFER_HEADER_LEN = 0x48
SYSTEM_HEADER_LEN = 0x20
COMPRESSED = 0x40  # ETW_BUFFER_FLAG_COMPRESSED


def to_i64(value: int) -> int:
    """Reinterpret an unsigned 64-bit integer as two's-complement signed."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value & (1 << 63) else value


def to_i32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & (1 << 31) else value


def name_units(text: str) -> list[int]:
    """dissect.etl reads WCHAR[32] as a 32-character string, NULs included."""
    raw = text.encode("utf-16-le", "surrogatepass")
    if len(raw) != 64:
        raise ValueError(f"expected a 32-unit name, got {len(raw) // 2} units")
    return [int.from_bytes(raw[i:i + 2], "little") for i in range(0, 64, 2)]


def system_time(st) -> dict:
    return {
        "year": st.wYear,
        "month": st.wMonth,
        "day_of_week": st.wDayOfWeek,
        "day": st.wDay,
        "hour": st.wHour,
        "minute": st.wMinute,
        "second": st.wSecond,
        "milliseconds": st.wMilliseconds,
    }


def system_header_fields(header) -> dict:
    """dissect.etl's SystemHeader cstruct: Version u16, Marker u16 (HeaderType,
    Flags), Size, OpCode, Group, ThreadId, ProcessId, TimeDelta u64,
    ProcessorTime u64 (KernelTime, UserTime)."""
    st = header.header
    return {
        "version": st.Version,
        "header_type": st.Marker & 0xFF,
        "flags": st.Marker >> 8,
        "size": header.size,
        "hook_id": header.hook_id,  # Group << 8 | OpCode
        "thread_id": st.ThreadId,
        "process_id": st.ProcessId,
        "system_time": to_i64(st.TimeDelta),
        "kernel_time": st.ProcessorTime & 0xFFFFFFFF,
        "user_time": st.ProcessorTime >> 32,
    }


def logfile_header_fields(h) -> dict:
    """dissect.etl's TraceLogfileHeader cstruct, every member and union view."""
    tz = h.TimeZone
    return {
        "buffer_size": h.BufferSize,
        "version": h.Version,
        "major_version": h.MajorVersion,
        "minor_version": h.MinorVersion,
        "sub_version": h.SubVersion,
        "sub_minor_version": h.SubMinorVersion,
        "provider_version": h.ProviderVersion,
        "number_of_processors": h.NumberOfProcessors,
        "end_time": to_i64(h.EndTime),
        "timer_resolution": h.TimerResolution,
        "maximum_file_size": h.MaximumFileSize,
        "log_file_mode": h.LogFileMode,
        "buffers_written": h.BuffersWritten,
        "log_instance_guid": str(uuid.UUID(bytes_le=bytes(h.LogInstanceGuid))),
        "start_buffers": h.StartBuffers,
        "pointer_size": h.PointerSize,
        "events_lost": h.EventsLost,
        "cpu_speed_in_mhz": h.CpuSpeedInMHz,
        "logger_name": h.LoggerName,
        "log_file_name": h.LogFileName,
        "time_zone": {
            "bias": to_i32(tz.Bias),
            "standard_name": name_units(tz.StandardName),
            "standard_date": system_time(tz.StandardDate),
            "standard_bias": to_i32(tz.StandardBias),
            "daylight_name": name_units(tz.DaylightName),
            "daylight_date": system_time(tz.DaylightDate),
            "daylight_bias": to_i32(tz.DaylightBias),
        },
        "boot_time": to_i64(h.BootTime),
        "perf_freq": to_i64(h.PerfFreq),
        "start_time": to_i64(h.StartTime),
        "reserved_flags": h.ReservedFlags,
        "buffers_lost": h.BufferLost,
    }


def extract(path: Path) -> dict:
    raw = path.read_bytes()
    buffer_flag = int.from_bytes(raw[0x34:0x36], "little")
    if buffer_flag & COMPRESSED:
        raise SystemExit(f"error: {path.name}: the first buffer is compressed")
    with path.open("rb") as fh:
        etl = ETL(fh)
        logfile = etl.logfile_header
        system = logfile.system_header
        size = system.size
        struct_len = logfile.minimal_size  # 0x118 for a 64-bit logger, else 0x110
        event = raw[BUFFER_HEADER_LEN:BUFFER_HEADER_LEN + size]
        # dissect.etl read the same bytes as the file holds at that place.
        if bytes(system.data[:size]) != event:
            raise SystemExit(f"error: {path.name}: dissect.etl's event bytes differ from the file")
        struct_end = SYSTEM_HEADER_LEN + struct_len
        return {
            "file": path.name,
            "hex": event.hex(),
            "system_header": {
                "layout": "system-header",
                "fields": system_header_fields(system),
            },
            "logfile_header": {
                "layout": f"logfile-header{64 if struct_len == 0x118 else 32}",
                "fields": logfile_header_fields(logfile.header),
                "padding": bytes(logfile.header.padding.to_bytes(4, "little")).hex(),
            },
            "names": {
                "logger_name": logfile.logger_name,
                "log_file_name": logfile.log_filename,
                "bytes": size - struct_end,
            },
        }


def default_dir() -> Path:
    env = os.environ.get("ETW_PERFVIEW_DIR")
    if env:
        return Path(env)
    return REPO_ROOT / DEFAULT_DIR_RELATIVE


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("perfview_dir", nargs="?", type=Path, default=None,
                    help="folder with the PerfView .etl traces")
    ap.add_argument("--output", type=Path, default=REPO_ROOT / DEFAULT_OUTPUT_RELATIVE)
    args = ap.parse_args()

    folder = args.perfview_dir or default_dir()
    traces = sorted(folder.glob("*.etl")) if folder.is_dir() else []
    if not traces:
        print(f"error: no .etl file in {folder}", file=sys.stderr)
        return 2

    doc = {
        "source": "PerfView test traces (see ../shared/data/perfview/PROVENANCE.md)",
        "parser": f"dissect.etl {importlib.metadata.version('dissect.etl')}",
        "events": [extract(path) for path in traces],
    }
    args.output.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}: {len(doc['events'])} logfile header events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
