#!/usr/bin/env python3
"""Record every compressed trace buffer of the PerfView test traces, decompressed by dissect.util.

For each .etl file, the buffers are walked in file order (each starts BufferSize bytes after the
previous one). For every buffer whose BufferFlag has ETW_BUFFER_FLAG_COMPRESSED (0x40), the bytes
after the 0x48-byte WMI_BUFFER_HEADER, up to BufferSize, are decompressed with
dissect.util.compression.lzxpress (an MS-XCA plain LZ77 decompressor written independently of
this crate), and the script writes the buffer's place and header fields, the decompressed length
and the SHA-256 of the decompressed bytes to tests/data/lz77-perfview.json. No trace bytes are
written.

The walk is cross-checked against dissect.etl's own: the same buffer offsets, and the same
decompressed bytes from its Buffer.data.

Usage:
    python3 tools/lz77-vectors/extract.py [PERFVIEW_DIR] [--output FILE]

PERFVIEW_DIR defaults to $ETW_PERFVIEW_DIR, else ../shared/data/perfview relative to the
repository root. See README.md next to this file.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import struct
import sys
from pathlib import Path

from dissect.etl.etl import ETL
from dissect.util.compression.lzxpress import decompress

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR_RELATIVE = "../shared/data/perfview"
DEFAULT_OUTPUT_RELATIVE = "tests/data/lz77-perfview.json"

HEADER_LEN = 0x48
COMPRESSED = 0x0040


def header_fields(data: bytes, start: int) -> dict:
    """The WMI_BUFFER_HEADER fields the test needs, read with struct at their offsets."""
    buffer_size, saved_offset = struct.unpack_from("<II", data, start + 0x00)
    (offset,) = struct.unpack_from("<I", data, start + 0x30)
    buffer_flag, buffer_type = struct.unpack_from("<HH", data, start + 0x34)
    return {
        "buffer_size": buffer_size,
        "saved_offset": saved_offset,
        "offset": offset,
        "buffer_flag": buffer_flag,
        "buffer_type": buffer_type,
    }


def walk(name: str, data: bytes) -> tuple[list[dict], int]:
    """Every compressed buffer of one trace, and the number of buffers in it."""
    records = []
    start = 0
    index = 0
    while start + HEADER_LEN <= len(data):
        fields = header_fields(data, start)
        size = fields["buffer_size"]
        if size < HEADER_LEN or start + size > len(data):
            sys.exit(f"{name}: buffer {index} at {start:#x} has BufferSize {size:#x}")
        if fields["buffer_flag"] & COMPRESSED:
            compressed = data[start + HEADER_LEN : start + size]
            decompressed = decompress(compressed)
            records.append(
                {
                    "file": name,
                    "buffer": index,
                    "file_offset": start,
                    "saved_offset": fields["saved_offset"],
                    "offset": fields["offset"],
                    "compressed_len": len(compressed),
                    "decompressed_len": len(decompressed),
                    "sha256": hashlib.sha256(decompressed).hexdigest(),
                    "_bytes": decompressed,
                }
            )
        start += size
        index += 1
    if start != len(data):
        sys.exit(f"{name}: {len(data) - start} bytes after the last buffer")
    return records, index


def cross_check(path: Path, records: list[dict], buffer_count: int) -> None:
    """dissect.etl must find the same buffers and decompress them to the same bytes."""
    with path.open("rb") as fh:
        etl = ETL(fh)
        if etl.logfile_header.buffers_written != buffer_count:
            sys.exit(
                f"{path.name}: dissect.etl counts {etl.logfile_header.buffers_written} buffers, "
                f"the walk {buffer_count}"
            )
        for record in records:
            buffer = etl.buffer(record["buffer"])
            if buffer.offset != record["file_offset"]:
                sys.exit(f"{path.name}: buffer {record['buffer']} is at {buffer.offset:#x} in dissect.etl")
            if bytes(buffer.data) != record["_bytes"]:
                sys.exit(f"{path.name}: buffer {record['buffer']} decompresses differently in dissect.etl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("perfview_dir", nargs="?", type=Path)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / DEFAULT_OUTPUT_RELATIVE)
    args = parser.parse_args()

    directory = args.perfview_dir or Path(
        os.environ.get("ETW_PERFVIEW_DIR", REPO_ROOT / DEFAULT_DIR_RELATIVE)
    )
    traces = sorted(directory.glob("*.etl")) if directory.is_dir() else []
    if not traces:
        print(f"no .etl file in {directory}", file=sys.stderr)
        sys.exit(2)

    files = {}
    buffers = []
    for path in traces:
        data = path.read_bytes()
        records, buffer_count = walk(path.name, data)
        cross_check(path, records, buffer_count)
        files[path.name] = {"buffers": buffer_count, "compressed": len(records)}
        for record in records:
            del record["_bytes"]
        buffers.extend(records)

    output = {
        "source": "PerfView test traces (see ../shared/data/perfview/PROVENANCE.md)",
        "decompressor": "dissect.util {} (dissect.util.compression.lzxpress), "
        "buffers cross-checked with dissect.etl {}".format(
            importlib.metadata.version("dissect.util"), importlib.metadata.version("dissect.etl")
        ),
        "files": files,
        "buffers": buffers,
    }
    # One buffer per line keeps the file readable and its diffs small.
    lines = [json.dumps(record) for record in buffers]
    text = json.dumps({k: v for k, v in output.items() if k != "buffers"}, indent=2)
    text = text[: text.rindex("}")].rstrip() + ',\n  "buffers": [\n    '
    text += ",\n    ".join(lines) + "\n  ]\n}\n"
    if json.loads(text) != output:
        sys.exit("internal error: the JSON written does not read back")
    args.output.write_text(text)
    print(f"{len(buffers)} compressed buffers in {len(traces)} traces -> {args.output}")


if __name__ == "__main__":
    main()
