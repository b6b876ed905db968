#!/usr/bin/env python3
"""Makes the crafted-input table: .etl files made from the PerfView traces by changing a few
fields or cutting them short, each built to push one limit of a reader.

    make.py --perfview DIR --out DIR [--list]

writes into --out one file per row of TABLE below and `table.json`, which names each file,
the trace it was made from, what was done to it and why it is in the table. `cli/tests/
crafted_inputs.rs` runs this script and then the built `etwc` on every file under a memory
limit; `tools/etl-memory/measure.py --crafted` measures the peak memory on them.

The fields changed, at the offsets of ../../../shared/reference/LAYOUTS.md and EVENT-HEADERS.md:
- WMI_BUFFER_HEADER (0x48 bytes at the start of each buffer): BufferSize u32 @0x00 (the
  buffer's length in the file), SequenceNumber i64 @0x18, ClientContext.ProcessorIndex u16
  @0x28 (the processor when BufferFlag u16 @0x34 has PROC_INDEX 0x20, which every data buffer
  of the traces has), Offset u32 @0x30, BufferFlag u16 @0x34 (COMPRESSED 0x40);
- TRACE_LOGFILE_HEADER, the data of the first buffer's first event (after the 0x48-byte buffer
  header and a 0x20-byte SYSTEM_TRACE_HEADER, whose HeaderType byte @2 is 1 for SYSTEM32, 2 for
  SYSTEM64): BufferSize u32 @0x00, NumberOfProcessors u32 @0x0C, PerfFreq i64 @0xF8 (32-bit) /
  @0x100 (64-bit), ReservedFlags (the clock type) u32 @0x108 / @0x110.

Standard library only; deterministic (the same traces make the same bytes).
"""

import argparse
import json
import struct
import sys
from pathlib import Path

BUFFER_HEADER = 0x48
SYSTEM_HEADER = 0x20
LOGFILE_AT = BUFFER_HEADER + SYSTEM_HEADER
PROC_INDEX = 0x20
COMPRESSED = 0x40
SIXTEEN_MIB = 16 << 20


def buffers(data):
    """(file offset, BufferSize) of each whole buffer, in file order."""
    found, offset = [], 0
    while offset + BUFFER_HEADER <= len(data):
        size = struct.unpack_from("<I", data, offset)[0]
        if size < BUFFER_HEADER or offset + size > len(data):
            break
        found.append((offset, size))
        offset += size
    return found


def is_64(data):
    """Whether the logfile header is in the 64-bit layout (SYSTEM64 header type)."""
    return data[BUFFER_HEADER + 2] == 2


def logfile_field(data, name):
    """The file offset of a TRACE_LOGFILE_HEADER member."""
    wide = is_64(data)
    relative = {
        "BufferSize": 0x00,
        "NumberOfProcessors": 0x0C,
        "PerfFreq": 0x100 if wide else 0xF8,
        "ReservedFlags": 0x110 if wide else 0x108,
    }[name]
    return LOGFILE_AT + relative


def set_u16(data, at, value):
    struct.pack_into("<H", data, at, value)


def set_u32(data, at, value):
    struct.pack_into("<I", data, at, value)


def set_i64(data, at, value):
    struct.pack_into("<q", data, at, value)


def distinct_processors(data):
    """Data buffer i (i >= 1) gets ProcessorIndex i: one chain per buffer in time order."""
    for index, (offset, _) in enumerate(buffers(data)):
        if index == 0:
            continue
        flag = struct.unpack_from("<H", data, offset + 0x34)[0]
        assert flag & PROC_INDEX, f"buffer {index} has no PROC_INDEX flag"
        set_u16(data, offset + 0x28, index)


def plain_lz77_repeat(pattern, length):
    """An MS-XCA Plain LZ77 stream (section 2.4) that decodes to `pattern` repeated to exactly
    `length` bytes: the pattern as literals, then one match at distance len(pattern).

    The items go by 32 behind a little-endian flag word, one bit per item from the most
    significant, 1 for a match; the bits after the last item are 1 (the decoder stops at a
    match bit when the input has ended). A match is the u16 (distance - 1) << 3 | L, L =
    min(length - 3, 7); when L is 7 the length goes on in the low half of a new byte (up to 15
    more), then a byte (up to 254 more), then, after a byte 255, the whole length - 3 as a u16,
    or as a u16 0 and a u32 when it does not fit (the decoding rules of section 2.4.4)."""
    assert length > len(pattern) + 3
    match_length = length - len(pattern)
    rest = match_length - 3
    token = bytearray(struct.pack("<H", ((len(pattern) - 1) << 3) | min(rest, 7)))
    if rest >= 7:
        token.append(min(rest - 7, 15))
        if rest - 7 >= 15:
            if rest - 22 < 255:
                token.append(rest - 22)
            else:
                token.append(255)
                if rest < 1 << 16:
                    token += struct.pack("<H", rest)
                else:
                    token += struct.pack("<HI", 0, rest)
    items = [(0, bytes([byte])) for byte in pattern] + [(1, bytes(token))]
    out = bytearray()
    for start in range(0, len(items), 32):
        group = items[start:start + 32]
        flags = 0
        for bit, _ in group:
            flags = (flags << 1) | bit
        flags = (flags << (32 - len(group))) | ((1 << (32 - len(group))) - 1)
        out += struct.pack("<I", flags)
        for _, item in group:
            out += item
    return bytes(out)


def expanding_buffers(data, count):
    """The header buffer of `data` (its logfile header's BufferSize 16 MiB, NumberOfProcessors
    2048, BuffersWritten the buffers written), then `count` compressed buffers, each of its own
    processor, whose few dozen bytes decode to almost 16 MiB of FULL_HEADER64 events: an
    EVENT_TRACE_HEADER of 0x30 bytes (Size 0x30, HeaderType 0x14, MarkerFlags 0xC0, a
    TimeStamp @0x10), repeated."""
    first_offset, first_size = buffers(data)[0]
    out = bytearray(data[first_offset:first_offset + first_size])
    set_u32(out, logfile_field(out, "BufferSize"), SIXTEEN_MIB)
    set_u32(out, logfile_field(out, "NumberOfProcessors"), 2048)
    set_u32(out, LOGFILE_AT + 0x24, count + 1)  # BuffersWritten
    event = bytearray(0x30)
    set_u16(event, 0, 0x30)
    event[2] = 0x14
    event[3] = 0xC0
    set_i64(event, 0x10, 0x01D0_0000_0000_0000)
    decoded = SIXTEEN_MIB - BUFFER_HEADER
    decoded -= decoded % len(event)
    stream = plain_lz77_repeat(event, decoded)
    for index in range(1, count + 1):
        header = bytearray(BUFFER_HEADER)
        set_u32(header, 0x00, BUFFER_HEADER + len(stream))  # BufferSize: the stored length
        set_u32(header, 0x04, BUFFER_HEADER + decoded)  # SavedOffset
        set_i64(header, 0x18, index)  # SequenceNumber
        set_u16(header, 0x28, index)  # ProcessorIndex
        set_u32(header, 0x2C, 3)  # State: flushed, as in the traces
        set_u32(header, 0x30, BUFFER_HEADER + decoded)  # Offset
        set_u16(header, 0x34, PROC_INDEX | COMPRESSED)
        out += header + stream
    return out


def cut(data, length):
    return bytearray(data[:length])


def table(perfview):
    """(name, source trace, what was done, why, bytes) for every crafted file."""
    x64 = bytearray((perfview / "net.4.5.2.x64.etl").read_bytes())
    x86 = bytearray((perfview / "net.4.5.2.x86.etl").read_bytes())
    gcevents = bytearray((perfview / "gcevents.etl").read_bytes())
    rows = []

    def row(name, source, what, why, data):
        rows.append((name, source, what, why, bytes(data)))

    data = bytearray(x64)
    distinct_processors(data)
    row("distinct-processors.etl", "net.4.5.2.x64.etl",
        "each data buffer's ProcessorIndex set to its index (1 to 359)",
        "359 processors where the logfile header counts 8", data)

    data = bytearray(x64)
    set_u32(data, logfile_field(data, "BufferSize"), SIXTEEN_MIB)
    row("huge-buffer-size.etl", "net.4.5.2.x64.etl", "logfile header BufferSize 16 MiB",
        "scratch space sized by the header: 16 MiB, the most the reader allows", data)

    data = bytearray(x64)
    distinct_processors(data)
    set_u32(data, logfile_field(data, "BufferSize"), SIXTEEN_MIB)
    row("distinct-processors-huge-buffer-size.etl", "net.4.5.2.x64.etl",
        "both of the above",
        "one chain per buffer, each of which used to take a 16 MiB scratch", data)

    data = bytearray(x64)
    distinct_processors(data)
    set_u32(data, logfile_field(data, "BufferSize"), SIXTEEN_MIB)
    set_u32(data, logfile_field(data, "NumberOfProcessors"), 2048)
    row("distinct-processors-huge-buffer-size-2048.etl", "net.4.5.2.x64.etl",
        "both of the above, and NumberOfProcessors 2048",
        "359 chains the header allows, each holding its buffer's events", data)

    data = bytearray(x86)
    distinct_processors(data)
    set_u32(data, logfile_field(data, "BufferSize"), SIXTEEN_MIB)
    row("x86-distinct-processors-huge-buffer-size.etl", "net.4.5.2.x86.etl",
        "each data buffer's ProcessorIndex its index, logfile header BufferSize 16 MiB",
        "the same on the 32-bit layout", data)

    row("expanding-buffers.etl", "net.4.5.2.x64.etl",
        "its header buffer (logfile header BufferSize 16 MiB, NumberOfProcessors 2048), then 3 "
        "compressed buffers of processors 1 to 3 whose few dozen bytes each decode to 16 MiB "
        "of FULL_HEADER64 events",
        "decoded events of the largest size, held per processor in time order",
        expanding_buffers(x64, 3))

    data = bytearray(x64)
    set_i64(data, logfile_field(data, "PerfFreq"), 0)
    set_u32(data, logfile_field(data, "ReservedFlags"), 0)
    row("zero-clock.etl", "net.4.5.2.x64.etl", "PerfFreq and ReservedFlags 0",
        "no clock to date the events with", data)

    layout = buffers(x64)
    third_end = layout[3][0]
    logfile_event = LOGFILE_AT + 0x118
    row("cut-empty.etl", "net.4.5.2.x64.etl", "no byte", "an empty file", cut(x64, 0))
    row("cut-in-first-buffer-header.etl", "net.4.5.2.x64.etl", "cut after 0x20 bytes",
        "inside the first WMI_BUFFER_HEADER", cut(x64, 0x20))
    row("cut-in-logfile-header.etl", "net.4.5.2.x64.etl",
        f"cut after {LOGFILE_AT + 0x80:#x} bytes", "inside the TRACE_LOGFILE_HEADER",
        cut(x64, LOGFILE_AT + 0x80))
    row("cut-in-first-buffer.etl", "net.4.5.2.x64.etl",
        f"cut after {logfile_event + 0x10:#x} bytes",
        "after the logfile header, inside the header buffer", cut(x64, logfile_event + 0x10))
    row("cut-between-buffers.etl", "net.4.5.2.x64.etl", f"cut after {third_end:#x} bytes",
        "between buffers 2 and 3 (BuffersWritten counts 360)", cut(x64, third_end))
    row("cut-in-buffer-header.etl", "net.4.5.2.x64.etl",
        f"cut after {third_end + 0x20:#x} bytes", "inside buffer 3's WMI_BUFFER_HEADER",
        cut(x64, third_end + 0x20))
    row("cut-in-compressed-buffer.etl", "net.4.5.2.x64.etl",
        f"cut after {third_end + BUFFER_HEADER + 100:#x} bytes",
        "inside buffer 3's compressed events", cut(x64, third_end + BUFFER_HEADER + 100))
    # For etwc assemble, which looks for a buffer header at every byte of a dump: one that
    # passes its checks every 8 bytes (BufferSize 0x50, Offset 0x50, SequenceNumber 0x50, the
    # rest 0), each torn by the next.
    row("dump-torn-every-8-bytes.bin", "(none: the WMI_BUFFER_HEADER layout)",
        "1 MiB of the 8 bytes 50 00 00 00 00 00 00 00",
        "131072 torn buffers for etwc assemble to find and report", bytes([0x50] + [0] * 7) * (1 << 17))
    gc_second = buffers(gcevents)[1][0]
    row("cut-in-event.etl", "gcevents.etl",
        f"cut after {gc_second + BUFFER_HEADER + 0x10:#x} bytes",
        "inside the first event of buffer 1 (uncompressed)",
        cut(gcevents, gc_second + BUFFER_HEADER + 0x10))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--perfview", required=True, type=Path,
                        help="the folder of the PerfView traces")
    parser.add_argument("--out", required=True, type=Path, help="where the files go")
    parser.add_argument("--list", action="store_true", help="print the table")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, source, what, why, data in table(args.perfview):
        (args.out / name).write_bytes(data)
        manifest.append({"file": name, "from": source, "what": what, "why": why,
                         "bytes": len(data)})
        if args.list:
            print(f"{name:<46} {len(data):>9}  {what}")
    (args.out / "table.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
