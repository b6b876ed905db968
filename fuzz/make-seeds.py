#!/usr/bin/env python3
"""Write the seed corpora under fuzz/corpus/<target>/seed-*.

The fixed_headers seeds are the golden vectors of tests/data (the C ABI vectors of both
bitnesses, the headers read from PerfView traces and their logfile header events), plus a few
built from them: whole events whose Size fits the input, instance headers a trace buffer would
accept, logfile header events of both layouts with bad HookIds, short Sizes and cut names, and
inputs one byte too short. The class_roll_up and guid_text seeds are small hand-picked values;
the session_write_read seeds are small programs of trace, flush and hand-out steps; the
plain_lz77 seeds are the MS-XCA examples and a few streams built by hand from its rules; the
lznt1 and xpress_huffman seeds are the MS-XCA examples of those formats and the small streams of
tests/data/compression-vectors.json, made by independent compressors.

The manifest_xml and mof_text seeds are small manifests and MOF texts that use every part their
parsers read, and copies of them with each fault the parsers report.
The event_info seeds are TRACE_EVENT_INFO and EVENT_MAP_INFO structures built from tdh.h's
layout (the DNS-Client description of ../shared/reference/PAYLOADS.md section 4 rebuilt from
its facts, a structure, a loop, a classic description, value, bit and pattern maps, cuts); the
event_source_reassembly seeds are sequences of ManifestData chunks (in and out of order, on two
streams, repeated, with a changed version, format or magic, past a small cap, not UTF-8).

The kernel_headers seeds are system, compact, perfinfo and message events built from
../shared/reference/EVENT-HEADERS.md, with and without room for the extra words and optional
fields their headers announce, and a buffer of all of them.

The trace_buffer_walk and etl_reader seeds (and etl_stream's and etl_python's, the same files,
with two more whose buffers name processors the logfile header does not count) are trace
buffers and small .etl files built here
from the layouts of ../shared/reference/LAYOUTS.md: events of every header family, instance
events that form a tree (with a missing parent, a loop and more instances than the targets'
trees hold), each error of the event walk, compressed buffers written by the MS-XCA Plain LZ77
compressor below, buffers in LZNT1 and LZ77+Huffman from tests/data/compression-vectors.json
(State 2 and 4), and files broken at each step of the reader. The etl_time_order seeds are
programs of that target (see its documentation): buffers of several processors, some beyond
the count, in and out of SequenceNumber order, stored plain, as literals or as one event
repeated, some with an Offset past BufferSize, and a memory limit that leaves some out.

Standard library only, and deterministic: every run writes the same files, and files named
seed-* that the run would not write are removed. Run from anywhere:

    python3 fuzz/make-seeds.py

With --perfview DIR (the PerfView traces, ../shared/data/perfview from the repository root) it
also writes seeds named perfview-* taken from the real traces: for trace_buffer_walk, the first
buffer of each kind of each trace, decompressed when compressed; for etl_reader, each trace's
first buffers up to the etl_reader max_len; for plain_lz77, each trace's first compressed
streams. Git ignores them; they are never committed, and the
run replaces the perfview-* files it no longer writes. With ETW_REQUIRE_TRACES=1 in the
environment, a run without --perfview, or with a DIR that holds no .etl file, is an error
instead of a run from the committed seeds alone.
"""

import argparse
import hashlib
import json
import os
import pathlib
import struct

FUZZ = pathlib.Path(__file__).resolve().parent
DATA = FUZZ.parent / "tests" / "data"
CORPUS = FUZZ / "corpus"

VECTOR_FILES = [
    "abi-vectors-i686.json",
    "abi-vectors-x86_64.json",
    "perfview-full-headers.json",
]

TRACE_HEADER_LEN = 0x30
INSTANCE_GUID_HEADER_LEN = 0x48
INSTANCE32 = 0x0B
INSTANCE64 = 0x15
EVENT_TRACE_MARKER = 0xC0
# Whole events are only built for headers whose Size is at most this, to keep seeds small.
MAX_EVENT_SEED = 0x200


def filler(length, salt):
    """Deterministic, non-constant event data."""
    return bytes((salt + 7 * i) & 0xFF for i in range(length))


def load_vectors():
    vectors = []
    for name in VECTOR_FILES:
        with open(DATA / name, encoding="utf-8") as handle:
            document = json.load(handle)
        for vector in document["vectors"]:
            vectors.append((vector["layout"], bytes.fromhex(vector["hex"])))
    return vectors


def with_size(header, size):
    return struct.pack("<H", size) + header[2:]


def fixed_headers_seeds():
    vectors = load_vectors()
    seeds = [raw for _, raw in vectors]

    # Whole events: the header followed by Size - 0x30 bytes of data and a few bytes of the
    # next event, so parse_event succeeds and leaves a rest.
    for index, (layout, raw) in enumerate(vectors):
        if layout != "trace-header":
            continue
        size = struct.unpack_from("<H", raw)[0]
        if raw[3] & EVENT_TRACE_MARKER == EVENT_TRACE_MARKER and size <= MAX_EVENT_SEED:
            seeds.append(raw + filler(size - TRACE_HEADER_LEN + 4, index))

    # Instance events as a trace buffer holds them: an ABI instance header given marker flags
    # 0xC0, an INSTANCE32/INSTANCE64 type and a Size covering some data.
    instance = [raw for layout, raw in vectors if layout == "instance-guid-header"]
    for index, (header_type, data_len) in enumerate([(INSTANCE32, 0), (INSTANCE64, 12)]):
        raw = instance[index % len(instance)]
        size = INSTANCE_GUID_HEADER_LEN + data_len
        header = with_size(raw, size)
        header = header[:2] + bytes([header_type, EVENT_TRACE_MARKER]) + header[4:]
        seeds.append(header + filler(data_len, index))
    # The same, with Size running past the end of the input, and with Size below the header.
    seeds.append(with_size(seeds[-1], 0xFFFF))
    seeds.append(with_size(seeds[-2], INSTANCE_GUID_HEADER_LEN - 1))

    # One byte short of each distinct length.
    for length in sorted({len(raw) for _, raw in vectors}):
        first = next(raw for _, raw in vectors if len(raw) == length)
        seeds.append(first[:-1])
    seeds.append(b"")
    return seeds + logfile_header_seeds()


def to_32_bit(event):
    """A 64-bit logfile header event rewritten in the 32-bit layout: SYSTEM32, and the two
    pointers 4 bytes each, so everything after them 8 bytes earlier."""
    system, data = event[:SYSTEM_HEADER_LEN], event[SYSTEM_HEADER_LEN:]
    narrow = data[:0x3C] + data[0x40:0x44] + data[0x48:]
    size = struct.unpack_from("<H", system, 4)[0] - 8
    return system[:2] + bytes([SYSTEM32]) + system[3:4] + struct.pack("<H", size) + system[6:] + narrow


def logfile_header_seeds():
    """Logfile header events (SYSTEM_TRACE_HEADER, TRACE_LOGFILE_HEADER, names): those of the
    PerfView traces, one of them in the 32-bit layout, and built ones of both layouts with a bad
    HookId, a Size that leaves too little for the layout, names cut inside or before their
    NULs, and a Size past the input; a WMI_BUFFER_HEADER with and without the compressed flag, a
    first buffer, and a TIME_ZONE_INFORMATION alone."""
    with open(DATA / "perfview-logfile-headers.json", encoding="utf-8") as handle:
        events = [bytes.fromhex(event["hex"]) for event in json.load(handle)["events"]]
    file_name_len = len(utf16z("C:\\seed.etl"))
    return events + [
        to_32_bit(events[0]),
        logfile_event(64),
        logfile_event(32, logger="", log_file=""),
        logfile_event(64, hook_id=0x0A01),
        logfile_event(32, size_delta=-(file_name_len + 0x30)),   # too short for the layout
        logfile_event(64, size_delta=-2),                         # second name without its NUL
        logfile_event(64, size_delta=-file_name_len - 3),         # odd cut in the first name
        logfile_event(32, size_delta=8),                          # Size past the input
        wmi_buffer_header(0x10000, 0x1B8, BUFFER_FLAG_FLUSH_MARKER, BUFFER_TYPE_HEADER, 0),
        wmi_buffer_header(0x3AA8, 0xFFB0, BUFFER_FLAG_FLUSH_MARKER | BUFFER_FLAG_COMPRESSED),
        logfile_buffer(logfile_event(64))[:0x200],
        time_zone(),
    ]


def class_roll_up_seeds():
    values = [
        0x0000_0000,
        0x0002_040A,  # type 10, INFORMATION, version 2
        0x0000_0001,  # START
        0x0001_0502,  # END, VERBOSE, version 1
        0xFFFF_FFFF,
        0x8000_0080,
        0x1234_5678,
    ]
    return [struct.pack("<I", value) for value in values]


def guid_text_seeds():
    texts = [
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",
        "{3D6FA8D0-FE05-11D0-9DDA-00C04FD7BA7C}",
        "9B79EE91-b5fd-41C0-a243-4248E266E9D0",
        "00000000-0000-0000-0000-000000000000",
        "{ffffffff-ffff-ffff-ffff-ffffffffffff}",
        "3d6fa8d0fe0511d09dda00c04fd7ba7c",  # no hyphens
        "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",  # unclosed brace
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}",  # stray closing brace
        "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}x",  # trailing byte
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7",  # one digit short
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7g",  # not a hex digit
        "3d6fa8d0-fe05-11d0-9dda_00c04fd7ba7c",  # wrong separator
        "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7\u00e9",  # non-ASCII
        "",
    ]
    return [text.encode("utf-8") for text in texts]


def session_write_read_seeds():
    """Programs for the session target: opcode, four field bytes (type, level, version, tweak),
    a data-length byte (length / 2) and the data."""

    def step(opcode, event_type=0, level=4, version=1, tweak=0, data=b""):
        return bytes([opcode, event_type, level, version, tweak, len(data) // 2]) + data

    boot = step(0, 1, 4, 1, 0, b"boot") + step(3, 2, 3, 1, 0, b"stage1") + step(1, 8, 5, 1, 0x41, b"x" * 40)
    many = b"".join(step(i % 4, i, i % 6, 1, i * 7 % 256, bytes(range(i * 4 % 200))) for i in range(40))
    churn = b"".join(step(op, 0, 2, 0, 0, b"ab" * 60) for op in (0, 0, 0, 5, 6, 0, 7, 4, 0, 5, 6))
    errors = step(0, 0, 1, 0, 0x83, b"bad") + step(2, 0, 1, 0, 0x82, b"size") + step(0, 0, 1, 0, 0x41, bytes(200))
    # The first byte: bit 0 the bitness, bit 1 the flight recorder (overwrite the oldest buffer).
    return [b"\x00" + boot, b"\x01" + many, b"\x00" + churn, b"\x01" + errors,
            b"\x02" + churn, b"\x03" + many]


def plain_lz77_seeds():
    """[MS-XCA] section 3.1's two Plain LZ77 examples, and streams built from section 2.4.4's
    rules, each after a little-endian u16 output capacity: the exact decoded length, one byte
    less, and more."""
    alphabet = bytes.fromhex("3f000000") + b"abcdefghijklmnopqrstuvwxyz"
    abc_300 = bytes.fromhex("ffffff1f 616263 1700 0f ff 2601")
    # "[literal: "a"][match: offset=1, length=5]", then three long matches: the first two share
    # one byte of 4-bit lengths (2, and 15 with a length byte), the third has a 32-bit length.
    six_a = bytes.fromhex("ffffff7f 61 0200")
    long_matches = bytes.fromhex("ffffff7f 61 0700 f2 0700 c8 0700 0f ff 0000 e8030000")
    streams = [
        (alphabet, [26, 25, 64]),
        (abc_300, [300, 299, 1024]),
        (six_a, [6, 5]),
        (long_matches, [1 + 12 + 225 + 1003, 1024]),
        (alphabet[:14], [10]),  # ends where a literal is due
        (abc_300[:12], [300]),  # ends inside the 16-bit length
    ]
    # A few kilobytes of records that repeat with changes, compressed: long enough for the
    # decompressor's bulk path (literal runs and matches of every length, long lengths of every
    # width), into exactly its length, one byte less and more.
    records = bytearray()
    for index in range(180):
        records += struct.pack("<IHH", 0xC0140000 | index % 7, index, index * 31 % 251)
        records += bytes((index * 7 + k) % 256 for k in range(index % 23))
        records += b"\0" * (index % 5 * 9)
    records += b"\x5a" * 700 + records[100:1500]
    packed = lz77_compress(bytes(records))
    streams.append((packed, [len(records), len(records) - 1, len(records) + 512]))
    return [struct.pack("<H", capacity) + stream for stream, capacities in streams
            for capacity in capacities]


def compression_vector_seeds(fmt, spec_streams):
    """The [MS-XCA] section 3 examples of a format, and the streams of
    tests/data/compression-vectors.json in that format (made by independent compressors) of at
    most 4 KiB, each after a little-endian u16 output capacity: the exact decoded length, one
    byte less, and more."""
    streams = list(spec_streams)
    document = json.loads((DATA / "compression-vectors.json").read_text())
    for vector in document["vectors"]:
        compressed = bytes.fromhex(vector["compressed"])
        length = vector["decompressed_len"]
        if vector["format"] == fmt and len(compressed) <= 4096 and length < 0xFFFF:
            streams.append((compressed, [length, max(length - 1, 0), min(length + 512, 0xFFFF)]))
    seeds = []
    for stream, capacities in streams:
        for capacity in dict.fromkeys(capacities):
            seeds.append(struct.pack("<H", capacity) + stream)
    return seeds


def lznt1_seeds():
    # Section 3.3: 142 bytes in one 59-byte chunk.
    tune = bytes.fromhex(
        "38b08846232000204720410010a24701a045204400084501507900c045200524"
        "138805b4024a44ef0358028c091601484500be009e000401189000")
    return compression_vector_seeds("lznt1", [(tune, [142, 141, 1024]), (tune[:30], [142])])


def xpress_huffman_seeds():
    # Section 3.2: "abcdefghijklmnopqrstuvwxyz" as literals, and 100 times "abc".
    alphabet = bytearray(256)
    alphabet[0x30:0x3E] = bytes.fromhex("5055555555555555555555454404")
    alphabet[0x80] = 0x04
    alphabet += bytes.fromhex("d8523ed794115be9195ff9d67cdf8d0400000000")
    abc = bytearray(256)
    abc[0x30], abc[0x31], abc[0x80], abc[0x8F] = 0x30, 0x23, 0x02, 0x20
    abc += bytes.fromhex("a8dc0000ff2601")
    return compression_vector_seeds("xpress_huffman", [
        (bytes(alphabet), [26, 25, 64]),
        (bytes(abc), [300, 299, 1024]),
        (bytes(abc[:262]), [300]),
    ])


# --- Trace buffers and .etl files (../shared/reference/LAYOUTS.md) ---------------------------

BUFFER_HEADER_LEN = 0x48
SYSTEM_HEADER_LEN = 0x20
ALIGNMENT = 8  # DEFAULT_TRACE_ALIGNMENT
END_MARK = b"\xff" * 4

FULL32, FULL64 = 0x0A, 0x14
SYSTEM32, SYSTEM64 = 0x01, 0x02
COMPACT64 = 0x04
TIMED = 0x0C
WNODE_HEADER = 0x0E
PERFINFO32, PERFINFO64 = 0x10, 0x11
# A header type no document names (the walk stops at it).
UNNAMED = 0x16
EVENT_HEADER64 = 0x13
TRACE_MESSAGE_MARKER = 0x90

BUFFER_FLAG_FLUSH_MARKER = 0x0001
BUFFER_FLAG_COMPRESSED = 0x0040
BUFFER_FLAG_PROC_INDEX = 0x0020
BUFFER_TYPE_GENERIC = 0
BUFFER_TYPE_HEADER = 4
BUFFER_STATE_FLUSH = 3
LOGGER_ID = 0x21
NIL_GUID = bytes(16)
# The logfile BufferSize and the stored size of the uncompressed buffers of the built files.
FILE_BUFFER_SIZE = 0x400


def guid(n):
    """A distinct, deterministic class GUID (16 bytes, little-endian fields)."""
    return struct.pack("<IHH8s", 0x5EED0000 + n, n, 0x11D0, bytes([0x9D, n, 0, 0xC0, 0x4F, 0xD7, 0xBA, 0x7C]))


def aligned(length):
    return -(-length // ALIGNMENT) * ALIGNMENT


def trace_header(size, header_type, class_guid, event_type=1, level=4, version=2, salt=0,
                 marker_flags=EVENT_TRACE_MARKER):
    """EVENT_TRACE_HEADER, 0x30 bytes."""
    return struct.pack(
        "<HBBBBHIIq16sII", size, header_type, marker_flags, event_type, level, version,
        0x1000 + salt, 0x40 + salt, 133_000_000_000_000_000 + salt, class_guid, salt, 2 * salt)


def full_event(header_type, data, salt=0, marker_flags=EVENT_TRACE_MARKER):
    header = trace_header(TRACE_HEADER_LEN + len(data), header_type, guid(salt % 4), salt=salt,
                          marker_flags=marker_flags)
    return header + data


def instance_event(header_type, class_n, instance_id, parent=None, data=b""):
    """EVENT_INSTANCE_GUID_HEADER + data; parent is (class_n, instance_id) or None."""
    parent_guid, parent_id = (guid(parent[0]), parent[1]) if parent else (NIL_GUID, 0)
    header = trace_header(INSTANCE_GUID_HEADER_LEN + len(data), header_type, guid(class_n),
                          salt=instance_id)
    return header + struct.pack("<II16s", instance_id, parent_id, parent_guid) + data


def version_first_event(header_type, header_len, data, hook_id=0x0A01, flags=EVENT_TRACE_MARKER):
    """A SYSTEM, COMPACT or PERFINFO header (Size at 4) of header_len bytes, then data."""
    size = header_len + len(data)
    head = struct.pack("<HBBHH", 2, header_type, flags, size, hook_id)
    return head + filler(header_len - 8, header_type) + data


def size_first_event(header_type, header_len, data, marker_flags=EVENT_TRACE_MARKER):
    """An EVENT_HEADER, MESSAGE or other size-first header of header_len bytes, then data."""
    size = header_len + len(data)
    return struct.pack("<HBB", size, header_type, marker_flags) + filler(header_len - 4, size) + data


def pack_events(events, pad=0xEE):
    """Events one after the other, each padded to 8 bytes with pad (real traces hold garbage
    there)."""
    out = bytearray()
    for event in events:
        out += event + bytes([pad]) * (aligned(len(event)) - len(event))
    return bytes(out)


def wmi_buffer_header(buffer_size, offset, flag=0, buffer_type=BUFFER_TYPE_GENERIC, sequence=1):
    """WMI_BUFFER_HEADER, 0x48 bytes."""
    context = struct.pack("<BBH", sequence % 2, 0, LOGGER_ID)
    return struct.pack(
        "<IIIiqqQ4sIIHH16s", buffer_size, offset, offset, 0, 133_000_000_000_000_000 + sequence,
        sequence, (10_000_000 << 3) | 1, context, BUFFER_STATE_FLUSH, offset, flag, buffer_type,
        bytes(16))


def trace_buffer(events, buffer_size=FILE_BUFFER_SIZE, flag=0, buffer_type=BUFFER_TYPE_GENERIC,
                 sequence=1, offset=None):
    """An uncompressed buffer: header, events up to Offset, then 0xFF up to buffer_size."""
    end = BUFFER_HEADER_LEN + len(events) if offset is None else offset
    assert offset is not None or end <= buffer_size, "the events do not fit the buffer"
    body = events + b"\xff" * max(0, buffer_size - BUFFER_HEADER_LEN - len(events))
    header = wmi_buffer_header(buffer_size, end, flag, buffer_type, sequence)
    return header + body[:buffer_size - BUFFER_HEADER_LEN]


def compressed_buffer(events, sequence=1, offset=None, stream=None):
    """A compressed buffer as an .etl file stores it: BufferSize is the stored length, Offset
    where the events end once decompressed."""
    if stream is None:
        stream = lz77_compress(events)
        assert lz77_decompress(stream) == events
    end = BUFFER_HEADER_LEN + len(events) if offset is None else offset
    header = wmi_buffer_header(BUFFER_HEADER_LEN + len(stream), end,
                               BUFFER_FLAG_FLUSH_MARKER | BUFFER_FLAG_COMPRESSED, sequence=sequence)
    return header + stream


def utf16z(text):
    return text.encode("utf-16-le") + b"\0\0"


def time_zone(bias=-60):
    """TIME_ZONE_INFORMATION, 0xAC bytes, with transition dates as a real trace has them."""
    def name(text):
        return text.encode("utf-16-le").ljust(64, b"\0")

    standard_date = struct.pack("<8H", 0, 10, 0, 5, 3, 0, 0, 0)
    daylight_date = struct.pack("<8H", 0, 3, 0, 5, 2, 0, 0, 0)
    return struct.pack("<i64s16si64s16si", bias, name("@tzres.dll,-322"), standard_date, 0,
                       name("@tzres.dll,-321"), daylight_date, -60)


def logfile_event(bitness, buffer_size=FILE_BUFFER_SIZE, buffers_written=3, logger="FuzzSeed",
                  log_file="C:\\seed.etl", hook_id=0, size_delta=0):
    """The first event of an .etl file: SYSTEM_TRACE_HEADER, TRACE_LOGFILE_HEADER of the given
    bitness (32 or 64), then the two names."""
    pointer = 4 if bitness == 32 else 8
    log_instance = struct.pack("<IIII", 1, pointer, 0, 2_400)
    common = struct.pack("<I4sIIqIIII16s", buffer_size, bytes([10, 0, 0, 0]), 19_045, 2,
                         133_000_000_900_000_000, 156_250, 0, 1, buffers_written, log_instance)
    pointers = struct.pack("<II" if bitness == 32 else "<QQ", 0, 0)
    tail = struct.pack("<4sqqqII", bytes(4), 132_999_000_000_000_000, 10_000_000,
                       133_000_000_000_000_000, 1, 0)
    header = common + pointers + time_zone() + tail
    assert len(header) == (0x110 if bitness == 32 else 0x118)
    data = header + utf16z(logger) + utf16z(log_file)
    size = SYSTEM_HEADER_LEN + len(data) + size_delta
    system = struct.pack("<HBBHHIIqII", 2, SYSTEM32 if bitness == 32 else SYSTEM64,
                         EVENT_TRACE_MARKER, size, hook_id, 0x1234, 0x42,
                         133_000_000_000_000_000, 0, 0)
    return system + data


def logfile_buffer(event, buffer_size=FILE_BUFFER_SIZE, flag=BUFFER_FLAG_FLUSH_MARKER):
    """The first buffer of an .etl file around its logfile header event."""
    return trace_buffer(pack_events([event], pad=0), buffer_size, flag, BUFFER_TYPE_HEADER, 0)


# --- MS-XCA Plain LZ77 (section 2.3 compressor, 2.4 decompressor) -----------------------------

def lz77_compress(data):
    """Greedy Plain LZ77: a match of at least 3 bytes within 8192 bytes back, else a literal."""
    out = bytearray(4)
    flags = flag_count = flag_position = 0
    nibble_position = None
    recent = {}
    position = 0

    def push_flag(bit):
        nonlocal flags, flag_count, flag_position
        flags = (flags << 1) | bit
        flag_count += 1
        if flag_count == 32:
            out[flag_position:flag_position + 4] = struct.pack("<I", flags)
            flags = flag_count = 0
            flag_position = len(out)
            out.extend(bytes(4))

    while position < len(data):
        best_length = best_distance = 0
        for candidate in reversed(recent.get(data[position:position + 3], [])[-16:]):
            distance = position - candidate
            if distance > 8192:
                break
            length = 0
            while position + length < len(data) and data[candidate + length] == data[position + length]:
                length += 1
            if length > best_length:
                best_length, best_distance = length, distance
        for index in range(position, position + max(1, best_length if best_length >= 3 else 1)):
            recent.setdefault(data[index:index + 3], []).append(index)
        if best_length < 3:
            out.append(data[position])
            position += 1
            push_flag(0)
            continue
        position += best_length
        length = best_length - 3
        token = (best_distance - 1) << 3
        if length < 7:
            out += struct.pack("<H", token | length)
        else:
            out += struct.pack("<H", token | 7)
            length -= 7
            if nibble_position is None:
                nibble_position = len(out)
                out.append(min(length, 15))
            else:
                out[nibble_position] |= min(length, 15) << 4
                nibble_position = None
            if length >= 15:
                length -= 15
                if length < 255:
                    out.append(length)
                else:
                    out.append(255)
                    length += 15 + 7
                    if length < 1 << 16:
                        out += struct.pack("<H", length)
                    else:
                        out += struct.pack("<HI", 0, length)
        push_flag(1)
    unused = 32 - flag_count
    flags = ((flags << unused) | ((1 << unused) - 1)) & 0xFFFF_FFFF
    out[flag_position:flag_position + 4] = struct.pack("<I", flags)
    return bytes(out)


def lz77_decompress(data):
    """Decodes a Plain LZ77 stream up to the end of the input."""
    out = bytearray()
    position = flags = flags_left = 0
    nibble_position = None
    while True:
        if flags_left == 0:
            if position + 4 > len(data):
                return bytes(out)
            flags = struct.unpack_from("<I", data, position)[0]
            position += 4
            flags_left = 32
        flags_left -= 1
        if not flags >> flags_left & 1:
            if position >= len(data):
                return bytes(out)
            out.append(data[position])
            position += 1
            continue
        if position >= len(data):
            return bytes(out)
        token = struct.unpack_from("<H", data, position)[0]
        position += 2
        distance, length = (token >> 3) + 1, token & 7
        if length == 7:
            if nibble_position is None:
                nibble_position = position
                length = data[position] & 15
                position += 1
            else:
                length = data[nibble_position] >> 4
                nibble_position = None
            if length == 15:
                length = data[position]
                position += 1
                if length == 255:
                    length = struct.unpack_from("<H", data, position)[0]
                    position += 2
                    if length == 0:
                        length = struct.unpack_from("<I", data, position)[0]
                        position += 4
                    length -= 15 + 7
                length += 15
            length += 7
        for _ in range(length + 3):
            out.append(out[-distance])


# --- kernel_headers ---------------------------------------------------------------------------

def with_version(event, version):
    """A version-first event with its Version u16 replaced."""
    return struct.pack("<H", version) + event[2:]


def message_event(option_flags, args, size_delta=0, version=TRACE_MESSAGE_MARKER):
    """A message header (Size at 0, byte 3 the Version 0x90), the optional fields option_flags
    announces (EVENT-HEADERS §4: sequence, component id else GUID, time stamp, thread and process
    ids, packed), then args; size_delta shortens or lengthens Size."""
    fields = b""
    if option_flags & 0x01:
        fields += struct.pack("<I", 7)
    if option_flags & 0x04:
        fields += struct.pack("<I", 0xC0FFEE)
    elif option_flags & 0x02:
        fields += filler(16, option_flags)
    if option_flags & 0x08:
        fields += struct.pack("<q", 132_000_000_000_000_000)
    if option_flags & 0x20:
        fields += struct.pack("<II", 0x1234, 0x42)
    body = fields + args
    size = 8 + len(body) + size_delta
    return struct.pack("<HBBHH", size, 0, version, 3, option_flags) + body


def kernel_headers_seeds():
    """The PERFINFO64 event of EVENT-HEADERS §3 (net.4.5.2.x64.etl, buffer 5, offset 0x58, its
    data from the filler), version-first events with PEBS and PMC words that fit and that do not,
    message events with several flag combinations (one Size too short for its fields, one Version
    byte 0xB0, one Size under 8), TIMED and WNODE_HEADER events, and all of them in one buffer."""
    worked = struct.pack("<HBBHHq", 2, PERFINFO64, 0xC0, 0xAA, 0x1403, 1942912437) + filler(154, 1)
    pebs_and_two = struct.pack("<QQQ", 0xABCD, 11, 22)
    events = [
        worked,
        version_first_event(SYSTEM64, 0x20, filler(12, 2), hook_id=0x0503),
        with_version(version_first_event(SYSTEM32, 0x20, pebs_and_two + b"data"), 0x8202),
        with_version(version_first_event(COMPACT64, 0x18, pebs_and_two[:8] + b"d"), 0x8002),
        with_version(version_first_event(PERFINFO32, 0x10, pebs_and_two), 0x0302),    # 3 > 2
        with_version(version_first_event(PERFINFO64, 0x10, bytes(8)), 0x8702),        # 64 > 8
        message_event(0x00, b"args"),
        message_event(0x01, b""),
        message_event(0x22, b"wpp"),
        message_event(0x2F, b"both ids"),
        message_event(0x3D, b"\x01\x02"),
        message_event(0xFF, b"all"),
        message_event(0x2B, b"", size_delta=-1),
        message_event(0x00, b"ulong32", version=0xB0),
        size_first_event(TIMED, 4, b"timed"),
        size_first_event(WNODE_HEADER, 4, b""),
    ]
    short_message = struct.pack("<HBBHH", 7, 0, TRACE_MESSAGE_MARKER, 0, 0)
    return events + [short_message, pack_events(events) + END_MARK]


# --- trace_buffer_walk and etl_reader ---------------------------------------------------------

def perfview_full_events():
    """The FULL_HEADER32/64 headers read from the PerfView traces, each made a whole event with
    data of the length its Size says (data from the filler, the header as read)."""
    with open(DATA / "perfview-full-headers.json", encoding="utf-8") as handle:
        vectors = json.load(handle)["vectors"]
    events = []
    for index, vector in enumerate(vectors[:6]):
        header = bytes.fromhex(vector["hex"])
        size = struct.unpack_from("<H", header)[0]
        if TRACE_HEADER_LEN <= size <= MAX_EVENT_SEED:
            events.append(header + filler(size - TRACE_HEADER_LEN, index))
    return events


def every_family():
    """One event of each header family the walk knows, classic ones included."""
    return [
        full_event(FULL64, b"full64 data!", salt=1),
        full_event(FULL32, filler(9, 2), salt=2),
        instance_event(INSTANCE64, 0, 1, data=filler(12, 3)),
        instance_event(INSTANCE32, 1, 2, parent=(0, 1), data=filler(3, 4)),
        version_first_event(SYSTEM64, 0x20, filler(20, 5)),
        version_first_event(SYSTEM32, 0x20, b""),
        version_first_event(COMPACT64, 0x18, filler(6, 6)),
        version_first_event(PERFINFO64, 0x10, filler(16, 7)),
        size_first_event(EVENT_HEADER64, 0x50, filler(10, 8)),
        size_first_event(0x00, 0x08, b"message", marker_flags=TRACE_MESSAGE_MARKER),
        # Marker flags 0x80 without TRACE_HEADER_EVENT_TRACE: walked, but parse_event refuses it.
        full_event(FULL64, b"", salt=3, marker_flags=0x80),
    ]


def instance_forest():
    """Instance events that make a tree three levels deep, an instance whose parent was never
    traced, a two-instance loop, an instance named with two different parents, and a
    FULL_HEADER event in between."""
    return [
        instance_event(INSTANCE64, 0, 1),                                  # root
        instance_event(INSTANCE64, 1, 10, parent=(0, 1), data=b"child"),   # child of the root
        instance_event(INSTANCE32, 2, 20, parent=(1, 10)),                 # grandchild
        instance_event(INSTANCE64, 1, 10, parent=(0, 1), data=b"again"),   # second event
        instance_event(INSTANCE64, 1, 10, parent=(3, 99)),                 # conflicting parent
        full_event(FULL64, b"between", salt=9),
        instance_event(INSTANCE64, 2, 21, parent=(3, 7)),                  # parent never seen
        instance_event(INSTANCE32, 3, 30, parent=(3, 31)),                 # a loop of two
        instance_event(INSTANCE32, 3, 31, parent=(3, 30)),
        instance_event(INSTANCE64, 3, 32, parent=(3, 32)),                 # its own parent
    ]


def many_instances(count):
    """count distinct instances, each the child of the one before."""
    return [instance_event(INSTANCE64 if i % 2 else INSTANCE32, i % 3, 100 + i,
                           parent=(((i - 1) % 3), 99 + i) if i else None, data=filler(i % 5, i))
            for i in range(count)]


def walk_errors():
    """Event bytes that end the walk with each of its errors, after one good event."""
    good = pack_events([full_event(FULL64, b"ok", salt=4)])
    too_big = size_first_event(FULL64, TRACE_HEADER_LEN, filler(8, 1))
    return [
        good + struct.pack("<HBB", 0x30, FULL64, 0x40) + bytes(12),        # NotAnEventHeader
        good + struct.pack("<HBB", 0x30, UNNAMED, 0xC0) + bytes(12),       # UnknownEventHeaderType
        good + struct.pack("<HBB", 2, SYSTEM64, 0xC0) + b"\x20",           # EventHeaderTruncated
        good + struct.pack("<HBB", 0x2F, FULL64, 0xC0) + bytes(0x40),      # EventSizeBelowHeader
        good + struct.pack("<HBB", 0, 0x0D, 0xC0) + bytes(4),              # Size 0 (ERROR type)
        good + too_big[:-1],                                               # EventSizeBeyondBuffer
        good + END_MARK + b"\x00" * 12,                                    # the end mark
        good + b"\x30\x00\x14",                                            # a 3-byte tail
    ]


def trace_buffer_walk_seeds():
    families = pack_events(every_family())
    forest = pack_events(instance_forest(), pad=0x00)
    seeds = [
        families,                                           # events alone, for Events::new
        trace_buffer(families, 0x400),
        trace_buffer(forest + END_MARK, 0x400, sequence=2),
        trace_buffer(pack_events(perfview_full_events()), sequence=3),
        trace_buffer(pack_events(many_instances(12)), 0x600, sequence=4),
        trace_buffer(b"", 0x48),                            # no events
        trace_buffer(families, 0x400, flag=BUFFER_FLAG_COMPRESSED),     # CompressedBuffer
        trace_buffer(families, 0x400, offset=0x47),                     # Offset below the header
        trace_buffer(families, 0x400, offset=0x401),                    # Offset past the end
        trace_buffer(b"", 0x48)[:-1],                                   # header cut short
        logfile_buffer(logfile_event(64)),
        logfile_buffer(logfile_event(32)),
    ]
    seeds += [trace_buffer(events, 0x48 + len(events)) for events in walk_errors()]
    return seeds


def etl_file(bitness, *buffers, **logfile):
    return logfile_buffer(logfile_event(bitness, **logfile)) + b"".join(buffers)


def etl_reader_seeds():
    families = pack_events(every_family())
    forest = pack_events(instance_forest(), pad=0x00)
    full = pack_events(perfview_full_events())
    lots = pack_events(many_instances(20))
    seeds = [
        etl_file(64, trace_buffer(families), compressed_buffer(forest, 2),
                 compressed_buffer(full, 3)),
        etl_file(32, compressed_buffer(families + END_MARK * 4), trace_buffer(forest, 0x400, sequence=2)),
        etl_file(64, compressed_buffer(lots), trace_buffer(forest + END_MARK, 0x500),
                 buffer_size=0x800),
        etl_file(64),                                      # the logfile buffer alone
    ]
    # The logfile header events of the PerfView traces, each in a first buffer.
    with open(DATA / "perfview-logfile-headers.json", encoding="utf-8") as handle:
        events = [bytes.fromhex(event["hex"]) for event in json.load(handle)["events"]]
    for event in events[:2]:
        seeds.append(logfile_buffer(event) + compressed_buffer(families))

    good = compressed_buffer(forest, 2)
    stream = good[BUFFER_HEADER_LEN:]
    broken = [
        # EtlBuffers: a tail shorter than a header, a BufferSize past the end or below 0x48.
        etl_file(64, trace_buffer(families), b"\x00" * 0x20),
        etl_file(64, trace_buffer(families)[:-1]),
        etl_file(64, wmi_buffer_header(0x40, 0x48) + b"\xff" * 0x40),
        # trace_buffer: Offset says more than the stream decodes to, less, below the header, and
        # beyond the 64 KiB scratch; a stream cut inside a match; a match reaching before the start.
        etl_file(64, compressed_buffer(forest, 2, offset=BUFFER_HEADER_LEN + len(forest) + 8)),
        etl_file(64, compressed_buffer(forest, 2, offset=BUFFER_HEADER_LEN + len(forest) - 8)),
        etl_file(64, compressed_buffer(forest, 2, offset=0x40)),
        etl_file(64, compressed_buffer(forest, 2, offset=BUFFER_HEADER_LEN + (64 << 10) + 1)),
        etl_file(64, compressed_buffer(forest, 2, offset=BUFFER_HEADER_LEN + len(forest),
                                       stream=stream[:-1])),
        etl_file(64, compressed_buffer(b"", 2, offset=BUFFER_HEADER_LEN + 8,
                                       stream=bytes.fromhex("ffffffff") + struct.pack("<H", 8 << 3))),
        # EtlFile::parse: a compressed first buffer, no logfile event, a first event that is not
        # one, a HookId other than 0, a Size too short for the layout, BufferSize out of range.
        compressed_buffer(pack_events([logfile_event(64)])) + trace_buffer(families),
        trace_buffer(END_MARK, 0x100, flag=BUFFER_FLAG_FLUSH_MARKER) + trace_buffer(families),
        trace_buffer(families, 0x400) + trace_buffer(forest),
        logfile_buffer(logfile_event(64, hook_id=1)) + trace_buffer(families),
        logfile_buffer(logfile_event(64, size_delta=-0x60)) + trace_buffer(families),
        etl_file(64, trace_buffer(families), buffer_size=0x47),
        etl_file(32, trace_buffer(families), buffer_size=(16 << 20) + 1),
        b"",
    ]
    return seeds + broken + other_format_etl_seeds()


def other_format_etl_seeds():
    """Files whose second buffer is the 40 FULL_HEADER64 events of
    tests/data/compression-vectors.json compressed by an independent compressor in LZNT1 or
    LZ77+Huffman, its State (0x2C) naming the format: whole, cut in the middle, and with an
    Offset 8 bytes past the events."""
    document = json.loads((DATA / "compression-vectors.json").read_text())
    seeds = []
    for vector in document["vectors"]:
        if vector["name"] != "40 FULL_HEADER64 events":
            continue
        events = bytes.fromhex(vector["decompressed"])
        stream = bytes.fromhex(vector["compressed"])
        state = 2 if vector["format"] == "lznt1" else 4
        for cut, extra in [(len(stream), 0), (len(stream) // 2, 0), (len(stream), 8)]:
            buffer = bytearray(compressed_buffer(
                events, 2, offset=BUFFER_HEADER_LEN + len(events) + extra, stream=stream[:cut]))
            buffer[0x2C:0x30] = struct.pack("<I", state)
            seeds.append(etl_file(64, bytes(buffer)))
    return seeds


# --- Seeds from the real traces (--perfview) ---------------------------------------------------

# The -max_len the targets run with (README.md, run-all.sh).
TRACE_BUFFER_WALK_MAX_LEN = 1 << 16
ETL_READER_MAX_LEN = 1 << 18
# Buffers of each trace in an etl_reader seed: the logfile buffer and a few more.
PERFVIEW_BUFFERS = 5
# Compressed streams of each trace among the plain_lz77 seeds.
PERFVIEW_STREAMS = 3


def etl_buffers(data):
    """(file offset, bytes) of each whole buffer of an .etl file."""
    buffers = []
    offset = 0
    while offset + BUFFER_HEADER_LEN <= len(data):
        size = struct.unpack_from("<I", data, offset)[0]
        if size < BUFFER_HEADER_LEN or offset + size > len(data):
            break
        buffers.append((offset, data[offset:offset + size]))
        offset += size
    return buffers


def uncompressed(buffer):
    """A buffer with its events in place, up to Offset: compressed ones decompressed, with the
    flag cleared and BufferSize the decompressed size."""
    end = struct.unpack_from("<I", buffer, 0x30)[0]
    flag = struct.unpack_from("<H", buffer, 0x34)[0]
    if flag & BUFFER_FLAG_COMPRESSED:
        events = lz77_decompress(buffer[BUFFER_HEADER_LEN:])
        assert len(events) == end - BUFFER_HEADER_LEN
        header = bytearray(buffer[:BUFFER_HEADER_LEN])
        struct.pack_into("<I", header, 0, end)
        struct.pack_into("<H", header, 0x34, flag & ~BUFFER_FLAG_COMPRESSED)
        return bytes(header) + events
    return buffer[:end]


EVENT_HEADER32 = 0x12
EVENT_HEADER64 = 0x13
EVENT_HEADER_LEN = 0x50
EXTENDED_INFO = 0x0001


def event_header(size, header_type=EVENT_HEADER64, flags=0, marker_flags=EVENT_TRACE_MARKER):
    """An EVENT_HEADER (../shared/reference/EVENT-HEADERS.md section 1): Size, type, marker,
    Flags, EventProperty 0, ThreadId, ProcessId, TimeStamp, ProviderId, EventDescriptor, the
    CPU times and ActivityId."""
    return (
        struct.pack("<HBBHHIIq", size, header_type, marker_flags, flags, 0, 0x5508, 0x84C0, 0x25E33AB9546)
        + guid(7)
        + struct.pack("<HBBBBHQII", 7, 1, 11, 4, 9, 6, 0xF00000000003, 0x6F, 0x3A)
        + guid(8)
    )


def extended_item(ext_type, data, more, item_size=None, data_size=None, pad=0):
    """An extended data item as stored (section 2): size (8 + DataSize rounded up to 8), ExtType,
    the Linkage word, DataSize, the data and its padding."""
    size = aligned(8 + len(data)) if item_size is None else item_size
    head = struct.pack("<HHHH", size, ext_type, 1 if more else 0,
                       len(data) if data_size is None else data_size)
    body = data + bytes([pad]) * max(0, size - 8 - len(data))
    return head + body


def event_header_event(items, user_data, header_type=EVENT_HEADER64, size=None):
    """A whole EVENT_HEADER event: header, items (EXTENDED_INFO when there are some), user data."""
    body = b"".join(items) + user_data
    total = EVENT_HEADER_LEN + len(body) if size is None else size
    return event_header(total, header_type, EXTENDED_INFO if items else 0) + body


def event_header_seeds():
    """Events of each item sequence seen in the PerfView traces, one item of every type, each
    fault of the item walk, and headers parse refuses."""
    traits = struct.pack("<H", 15) + b"solar_system\0"
    schema = struct.pack("<H", 0x17) + b"\0TestEvent\0a\0\x98" + bytes(8)
    stack = struct.pack("<Q", 0) + struct.pack("<3Q", 0x7F9D02F318B, 0x7FFE0000, 0x7776AC3C)
    sid = struct.pack("<BB", 1, 5) + bytes([0, 0, 0, 0, 0, 5]) + struct.pack("<5I", 21, 1, 2, 3, 1001)
    prov_traits_with_group = struct.pack("<H", 2 + 2 + 19) + b"P\0" + struct.pack("<HB", 19, 1) + guid(3)
    every_type = [
        (0x01, guid(1)), (0x02, sid), (0x03, struct.pack("<I", 1)),
        (0x04, struct.pack("<II", 9, 8) + guid(2)), (0x05, struct.pack("<QII", 0, 0x1000, 0x2000)),
        (0x06, stack), (0x07, struct.pack("<Q", 3)), (0x08, struct.pack("<2Q", 5, 6)),
        (0x09, struct.pack("<Q", 4)), (0x0A, struct.pack("<Q", 5)), (0x0B, schema),
        (0x0C, prov_traits_with_group), (0x0D, struct.pack("<Q", 6)), (0x0E, guid(4)),
        (0x0F, struct.pack("<Q", 7)), (0x10, guid(5)), (0x11, struct.pack("<QII", 1, 2, 0)),
        (0x12, struct.pack("<QQ", 1, 2)), (0x7777, b"raw"),
    ]
    seeds = [
        event_header_event([], b"\x08\x00"),
        event_header_event([extended_item(0x0C, traits, True), extended_item(0x0B, schema, False)],
                           b"Mercury\0"),
        event_header_event([extended_item(0x01, guid(6), True), extended_item(0x06, stack, False)],
                           bytes(20), header_type=EVENT_HEADER32),
        event_header_event([extended_item(0x06, stack, False)], b"\x01\x02"),
        event_header_event(
            [extended_item(t, d, i + 1 < len(every_type)) for i, (t, d) in enumerate(every_type)], b"u"),
        # Payloads that do not fit their types.
        event_header_event([extended_item(0x01, guid(1)[:12], True),
                            extended_item(0x02, sid[:12], True),
                            extended_item(0x06, stack[:12], True),
                            extended_item(0x0C, struct.pack("<H", 40) + b"x\0", False)], b""),
        # Faults: the last item still linked, an item size of 0, DataSize beyond the item, an
        # item beyond Size, no room for the first header.
        event_header_event([extended_item(0x03, b"\1\0\0\0", True)], b""),
        event_header_event([extended_item(0x03, b"", False, item_size=0)], b""),
        event_header_event([extended_item(0x03, b"\1\0\0\0", False, data_size=9)], b""),
        event_header_event([extended_item(0x03, b"\1\0\0\0", False, item_size=0x40)], b""),
        event_header(EVENT_HEADER_LEN + 4, flags=EXTENDED_INFO) + b"\x10\x00\x03\x00",
        # Headers parse refuses: a classic marker missing, another type, Size below the header,
        # Size beyond the input, too few bytes.
        event_header(0x50, marker_flags=0x80),
        event_header(0x50, header_type=0x14),
        event_header(0x4F),
        event_header(0x60),
        event_header(0x50)[:0x4F],
    ]
    return seeds


def perfview_event_header_seeds(traces):
    """For event_header, the EVENT_HEADER events of the traces with extended data items, the
    first of each item sequence and size, and the first few without items."""
    seeds, seen = [], set()
    for path in traces:
        for _, buffer in etl_buffers(path.read_bytes()):
            events = uncompressed(buffer)[BUFFER_HEADER_LEN:]
            at = 0
            while at + 4 <= len(events):
                size, header_type, marker = struct.unpack_from("<HBB", events, at)
                if size == 0xFFFF and header_type == 0xFF or size < 4:
                    break
                if marker & 0xF0 == 0xC0 and header_type in (EVENT_HEADER32, EVENT_HEADER64) \
                        and size >= EVENT_HEADER_LEN:
                    event = events[at:at + size]
                    flags = struct.unpack_from("<H", event, 4)[0]
                    kind = (flags & EXTENDED_INFO, event[0x52:0x54] if flags & EXTENDED_INFO else b"",
                            len(event) // 1024)
                    if kind not in seen and len(event) <= 4096:
                        seen.add(kind)
                        seeds.append(event)
                at += aligned(size)
    return seeds


def perfview_seeds(traces):
    """For trace_buffer_walk, the first buffer of each (BufferFlag, BufferType) of each trace and
    its second buffer, with events in place; for etl_reader, each trace's first buffers; for
    plain_lz77, each trace's first compressed streams after their decompressed length."""
    walk, files, streams = [], [], []
    for path in traces:
        data = path.read_bytes()
        buffers = etl_buffers(data)
        kinds = {}
        for index, (_, buffer) in enumerate(buffers):
            kind = struct.unpack_from("<HH", buffer, 0x34)
            if kind not in kinds or index == 1:
                kinds.setdefault(kind, buffer)
                if index == 1:
                    walk.append(uncompressed(buffer)[:TRACE_BUFFER_WALK_MAX_LEN])
        walk += [uncompressed(buffer)[:TRACE_BUFFER_WALK_MAX_LEN] for buffer in kinds.values()]
        prefix = b""
        for _, buffer in buffers[:PERFVIEW_BUFFERS]:
            if len(prefix) + len(buffer) > ETL_READER_MAX_LEN:
                break
            prefix += buffer
        files.append(prefix)
        compressed = [buffer for _, buffer in buffers
                      if struct.unpack_from("<H", buffer, 0x34)[0] & BUFFER_FLAG_COMPRESSED]
        for buffer in compressed[:PERFVIEW_STREAMS]:
            end = struct.unpack_from("<I", buffer, 0x30)[0]
            streams.append(struct.pack("<H", end - BUFFER_HEADER_LEN) + buffer[BUFFER_HEADER_LEN:])
    return walk, files, streams


# --- time_order -----------------------------------------------------------------------------

TIME_ORDER_MAX_LEN = (1 << 16) + 64


def timed_full(timestamp, salt=0):
    """A FULL_HEADER64 event whose TimeStamp (@0x10) is timestamp."""
    event = bytearray(full_event(FULL64, filler(salt % 9, salt), salt=salt))
    struct.pack_into("<q", event, 0x10, timestamp)
    return bytes(event)


def timed_message(option_flags, fields):
    """A message event (marker byte 3 = 0x90) with its OptionFlags and optional fields."""
    size = 8 + len(fields)
    return struct.pack("<HBBHH", size, 0, TRACE_MESSAGE_MARKER, 7, option_flags) + fields


def time_order_input(runs, sort=False, clock_type=1, frequency=10_000_000,
                     start_time=132_404_548_206_236_167, reference=5_000_000_000):
    """The time_order input: control byte, clock fields, the runs' lengths but the last's, then
    the runs' bytes one after the other."""
    assert 1 <= len(runs) <= 8
    control = (len(runs) - 1) | (8 if sort else 0) | (clock_type << 4)
    head = struct.pack("<BQqq", control, frequency, start_time, reference)
    cuts = b"".join(struct.pack("<H", len(run)) for run in runs[:-1])
    return head + cuts + b"".join(runs)


def time_order_seeds():
    sorted_runs = [
        pack_events([timed_full(t, salt=i) for i, t in enumerate(run)]) + END_MARK
        for run in ([10, 30, 30, 50], [20, 30, 40], [5, 30], [], [60])
    ]
    families = pack_events(every_family()) + END_MARK
    message = pack_events([
        timed_message(0x08, struct.pack("<q", 25)),
        timed_message(0x2B, struct.pack("<I", 1) + guid(1) + struct.pack("<q", 26) + bytes(8)),
        timed_message(0x0C, struct.pack("<Iq", 9, 27)),
        timed_message(0x0E, guid(2) + struct.pack("<q", 28)),
        timed_message(0x22, guid(3)),
    ]) + END_MARK
    errors = walk_errors()
    return [
        time_order_input(sorted_runs),
        time_order_input(sorted_runs[:3], sort=True, clock_type=3, frequency=3192),
        time_order_input([families, sorted_runs[0], message], clock_type=2),
        time_order_input([message, families], sort=True, clock_type=0, frequency=0),
        time_order_input(errors[:4] + sorted_runs[:2] + [message], frequency=3_579_545),
        time_order_input([families] * 8, sort=True, start_time=-1, reference=-(1 << 63)),
        time_order_input([b""], clock_type=1, frequency=1, start_time=(1 << 63) - 1),
    ]


def perfview_time_order_seeds(traces):
    """The events of up to four data buffers of each trace (decompressed), each cut to 16 KiB,
    one run per buffer."""
    seeds = []
    for path in traces:
        buffers = etl_buffers(path.read_bytes())[1:5]
        runs = [uncompressed(buffer)[BUFFER_HEADER_LEN:][:1 << 14] for _, buffer in buffers]
        if runs:
            seed = time_order_input(runs, clock_type=1)
            assert len(seed) <= TIME_ORDER_MAX_LEN
            seeds.append(seed)
    return seeds


SMALL_MANIFEST = """<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Small" guid="{01020304-0506-0708-090a-0b0c0d0e0f10}">
   <tasks><task name="Work" value="1" message="$(string.task.Work)">
    <opcodes><opcode name="Step" value="10"/></opcodes></task></tasks>
   <opcodes><opcode name="Tick" value="11"/></opcodes>
   <levels><level name="Chatty" value="16"/></levels>
   <keywords><keyword name="Main" mask="0x1"/><keyword name="Side" mask="0x2"/></keywords>
   <templates>
    <template tid="T">
     <data name="Count" inType="win:UInt16"/>
     <data name="Items" inType="win:UInt32" count="Count" map="M"/>
     <data name="Blob" inType="win:Binary" length="Count" outType="xs:hexBinary"/>
     <struct name="Pairs" count="2">
      <data name="Key" inType="win:UnicodeString"/>
      <data name="Flags" inType="win:UInt8" map="B"/>
      <struct name="Inner" count="Count"><data name="Size" inType="trace:SizeT"/></struct>
     </struct>
     <data name="When" inType="win:FILETIME" outType="xs:dateTime"/>
     <data name="Who" inType="win:SID"/>
     <data name="Name" inType="win:AnsiString" length="8"/>
    </template>
   </templates>
   <maps>
    <valueMap name="M"><map value="0x1" message="$(string.one)"/><map value="2" message="two"/></valueMap>
    <bitMap name="B"><map value="0x1" message="$(string.one)"/><map value="0x" message="none"/></bitMap>
   </maps>
   <events>
    <event value="1" version="2" task="Work" opcode="Step" level="Chatty" keywords="Main Side" template="T" symbol="One"/>
    <event value="2" opcode="Tick" level="win:Verbose" keywords="win:ResponseTime"/>
    <event value="3" task="Work" opcode="win:Stop" template="T" message="$(string.three)"/>
   </events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="task.Work" value="Working"/><string id="one" value="One"/><string id="three" value="%1 items"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"""


def manifest_xml_seeds():
    """Small manifests: one that uses every part the parser reads (task-local opcodes, levels,
    keywords, counts and lengths by name and number, nested structures, value and bit maps,
    the string table), the same in UTF-16 with byte order marks, and each fault the parser
    reports (a missing template, a count naming nothing, an unknown type, a duplicate event,
    structures nested too deep, broken XML, not a manifest)."""
    small = SMALL_MANIFEST
    seeds = [small.encode(), b"\xff\xfe" + small.encode("utf-16-le"),
             b"\xfe\xff" + small.encode("utf-16-be"), b"\xef\xbb\xbf" + small.encode()]
    faults = [
        ('template="T" symbol', 'template="Gone" symbol'),
        ('count="Count" map', 'count="Nothing" map'),
        ('inType="win:UInt32"', 'inType="win:UInt33"'),
        ('<event value="2"', '<event value="1" version="2"'),
        ('length="Count" outType', 'outType'),
        ('$(string.one)"/><map value="2"', '$(string.missing)"/><map value="2"'),
        ('<data name="Count" inType="win:UInt16"/>', '<data name="Count" inType="win:Double"/>'),
        ("</template>", "</templat>"),
    ]
    for old, new in faults:
        seeds.append(small.replace(old, new, 1).encode())
    deep = "".join('<struct name="S%d">' % n for n in range(10))
    deep += '<data name="X" inType="win:UInt8"/>' + "</struct>" * 10
    seeds.append(small.replace("<template tid=\"T\">", "<template tid=\"T\">" + deep, 1).encode())
    seeds.append(b"<root/>")
    seeds.append(b"")
    return seeds


SMALL_MOF = """#pragma namespace("\\\\\\\\.\\\\root\\\\wmi")
// A provider, two versions of an event class and their event type classes.
[Dynamic, Guid("{01234567-89ab-cdef-0123-456789abcdef}"), DisplayName("Firmware")]
class Firmware : EventTrace { [Values{"Off", "On"}, ValueMap{"0", "1"}] uint32 Level; };
[Guid("{11111111-2222-3333-4444-555555555555}"), EventVersion(0)]
class Boot_V0 : Firmware {};
[EventType(1), EventTypeName("Stage")] class Boot_V0_Stage : Boot_V0 { [WmiDataId(1)] uint8 Stage; };
[Dynamic: ToInstance, Guid("{11111111-2222-3333-4444-555555555555}"), DisplayName("Boot") : amended]
class Boot : Firmware {};
/* Every property kind. */
[EventType{1, 2, 3}, EventTypeName{"Stage", "Done", "Fail"}]
class Boot_Stage : Boot
{
    [WmiDataId(1), ValueMap{"0x1", "0x2"}, Values{"Rom", "Loader"}] uint32 Stage;
    [WmiDataId(2), ValueType("flag"), ValueMap{"1", "2"}, Values{"Warm" "Start", "Safe"}] uint32 Flags;
    [WmiDataId(3), BitMap{"0", "3"}, BitValues{"A", "D"}] uint16 Lanes;
    [WmiDataId(4)] uint16 NameLength;
    [WmiDataId(5), WmiSizeIs("NameLength")] char16 Name[];
    [WmiDataId(6), WmiSizeIs("NameLength")] uint32 Values[];
    [WmiDataId(7), MAX(16)] uint8 Digest[];
    [WmiDataId(8), Format("s")] uint8 Tag[8];
    [WmiDataId(9), StringTermination("Counted"), Format("w")] string Note;
    [WmiDataId(10), Extension("SizeT")] object Size;
    [WmiDataId(11), Extension("WmiTime")] object When;
    [WmiDataId(12), Extension("IPAddrV6")] object Peer;
    [WmiDataId(13), Extension("Port")] object Port;
    [WmiDataId(14), Extension("Sid")] object User;
    [WmiDataId(15), Pointer, Format("x")] uint32 Address;
    [WmiDataId(16)] real64 Ratio;
    [WmiDataId(17), StringTermination("NotCounted")] string Rest;
};
instance of __Win32Provider { Name = "Ignored"; };
"""


def mof_text_seeds():
    """Small MOF texts: one that uses every part the parser reads (pragmas, comments, flavors,
    versions, maps, sizes, extensions, string kinds, an instance), and each fault the parser
    reports (a WmiDataId gap and repeat, an unknown type and extension, WmiSizeIs naming
    nothing, an unterminated comment and string, an undefined parent, an inheritance loop, a
    duplicate event)."""
    small = SMALL_MOF
    seeds = [small.encode()]
    faults = [
        ("[WmiDataId(3),", "[WmiDataId(33),"),
        ("[WmiDataId(4)]", "[WmiDataId(3)]"),
        ("real64 Ratio", "real65 Ratio"),
        ('Extension("Port")', 'Extension("Harbour")'),
        ('WmiSizeIs("NameLength")] char16', 'WmiSizeIs("Nothing")] char16'),
        ("/* Every property kind. */", "/* Every property kind."),
        ('"Fail"}', '"Fail}'),
        ("class Boot : Firmware", "class Boot : Hardware"),
        ("class Boot_V0 : Firmware", "class Boot_V0 : Boot_V0_Stage"),
        ("EventType{1, 2, 3}", "EventType{1, 1, 3}"),
        ("uint8 Tag[8];", "uint8 Tag[8]"),
    ]
    for old, new in faults:
        seeds.append(small.replace(old, new, 1).encode())
    seeds.append(b"class A : EventTrace {")
    seeds.append(b"")
    return seeds


# --- time order of whole files: etl_time_order, and processors beyond the count ----------------

def with_processor(buffer, processor, proc_index=True):
    """`buffer` whose ETW_BUFFER_CONTEXT names `processor`: ProcessorIndex (u16 @0x28) with
    ETW_BUFFER_FLAG_PROC_INDEX (0x20) in BufferFlag (u16 @0x34), or ProcessorNumber (byte
    0x28) without it."""
    buffer = bytearray(buffer)
    flag = struct.unpack_from("<H", buffer, 0x34)[0]
    if proc_index:
        struct.pack_into("<H", buffer, 0x28, processor)
        flag |= BUFFER_FLAG_PROC_INDEX
    else:
        buffer[0x28] = processor
        flag &= ~BUFFER_FLAG_PROC_INDEX
    struct.pack_into("<H", buffer, 0x34, flag)
    return bytes(buffer)


def processors_beyond_count_seeds():
    """Files whose buffers name processors the logfile header (NumberOfProcessors 2) does not
    count, among others it does, in both forms of ETW_BUFFER_CONTEXT."""
    families = pack_events(every_family())
    forest = pack_events(instance_forest(), pad=0x00)
    return [
        etl_file(64, with_processor(trace_buffer(families), 1),
                 with_processor(compressed_buffer(forest, 2), 5),
                 with_processor(trace_buffer(forest, 0x400, sequence=3), 0x7FF)),
        etl_file(32, with_processor(trace_buffer(families, sequence=2), 2, proc_index=False),
                 with_processor(compressed_buffer(forest, 1), 0, proc_index=False)),
    ]


def etl_time_order_input(control, processors, kib, buffers, limit=0):
    """The etl_time_order input: control byte, NumberOfProcessors, BufferSize in KiB - 1, the
    limit, then per buffer its processor, SequenceNumber, events, how it is stored, and a u16
    per event."""
    out = struct.pack("<BBBI", control, processors, kib - 1, limit)
    for processor, sequence, how, steps in buffers:
        out += struct.pack("<BbBB", processor, sequence, len(steps), how)
        out += b"".join(struct.pack("<H", step) for step in steps)
    return out


def etl_time_order_seeds():
    LITERALS, EXPAND, BAD_OFFSET = 1, 2, 4
    SIXTY_FOUR, SORTED, LIMIT, PROC_INDEX = 1, 2, 4, 8
    mixed = [
        (0, 3, 0, [5, 10, 10]), (1, 1, LITERALS, [3, 4]), (0, 1, EXPAND | (3 << 2), [2]),
        (2, 2, 0, [7, 7, 1]), (7, 0, 0, [1]), (1, -4, 0, [9]), (3, 5, LITERALS, []),
        (2, 2, 0, [0, 0, 0]),
    ]
    return [
        etl_time_order_input(SIXTY_FOUR | SORTED | PROC_INDEX, 4, 64, mixed),
        etl_time_order_input(SORTED, 4, 16, mixed),
        etl_time_order_input(SIXTY_FOUR | PROC_INDEX, 4, 8, mixed),
        # A limit that leaves some of the 4 KiB buffers out.
        etl_time_order_input(
            SIXTY_FOUR | SORTED | LIMIT | PROC_INDEX, 8, 8,
            [(p, s, EXPAND | (3 << 2), [s]) for p, s in [(0, 1), (1, 1), (2, 1), (0, 2), (3, 1)]],
            limit=3 * 4096),
        # Offsets past BufferSize, compressed and not.
        etl_time_order_input(SORTED | PROC_INDEX, 2, 2,
                             [(0, 1, BAD_OFFSET, [1]), (1, 1, LITERALS | BAD_OFFSET, [2]),
                              (1, 2, 0, [3])]),
        # No processor counted.
        etl_time_order_input(SIXTY_FOUR, 0, 4, [(0, 1, 0, [1]), (1, 1, 0, [2])]),
        # 40 processors, one buffer each, in reverse SequenceNumber order.
        etl_time_order_input(SIXTY_FOUR | SORTED | PROC_INDEX, 64, 4,
                             [(p, 40 - p, p % 2, [p, 1]) for p in range(40)]),
        # One processor's 13 buffers of one SequenceNumber, each expanding to 41 KiB of events:
        # the events handed over take many times the bytes the walk holds.
        etl_time_order_input(SIXTY_FOUR | SORTED | PROC_INDEX, 2, 61,
                             [(0, -94, EXPAND | (40 << 2), [1, 2])] * 13
                             + [(1, 0, LITERALS, [1])]),
    ]


# --- event_info and event_source_reassembly --------------------------------------------------

# The GUID of KernelTraceControl's MetaData events (PAYLOADS.md section 1) and their class types.
METADATA_GUID = bytes.fromhex("c1f6ccbbd16cc44880ff839482e37671")
EVENT_INFO_TYPE = 32
EVENT_MAP_INFO_TYPE = 33
EVENT_INFO_MAX_LEN = 8192
REASSEMBLY_MAX_LEN = 32768


def utf16z_names(names):
    """The NUL-terminated UTF-16LE names laid end to end, and the offset of each from 0."""
    offsets, blob = [], b""
    for name in names:
        offsets.append(len(blob))
        blob += name.encode("utf-16-le") + b"\0\0"
    return offsets, blob


def trace_event_info(properties, top_level=None, provider="Fuzz-Provider", task="Task",
                     opcode="win:Info", keywords=(), decoding_source=0, event_guid=b"\0" * 16):
    """A TRACE_EVENT_INFO as tdh.h lays it out: 112 bytes (ProviderGuid, EventGuid,
    EVENT_DESCRIPTOR, DecodingSource, the name offsets, PropertyCount, TopLevelPropertyCount,
    Flags), then 24 bytes per EVENT_PROPERTY_INFO (Flags, NameOffset, InType or
    StructStartIndex, OutType or NumOfStructMembers, MapNameOffset, count, length, Reserved),
    then the names. A property is (flags, name, first, second, map name or None, count,
    length)."""
    base = 112 + 24 * len(properties)
    names = [provider, task, opcode] + [p[1] for p in properties] + [p[4] for p in properties if p[4]]
    offsets, blob = utf16z_names(names)
    at = dict(zip(names, (base + o for o in offsets)))
    keyword_offset = 0
    if keywords:
        keyword_offset = base + len(blob)
        blob += b"".join(k.encode("utf-16-le") + b"\0\0" for k in keywords) + b"\0\0"
    info = guid(31) + event_guid
    info += struct.pack("<HBBBBHQ", 1001, 0, 16, 4, 0, 1001, 0x8000000000000000)
    info += struct.pack("<I", decoding_source)
    info += struct.pack("<8I", at[provider], 0, 0, keyword_offset, at[task], at[opcode], 0, 0)
    info += struct.pack("<4I", 0, 0, 0, 0)
    info += struct.pack("<3I", len(properties), len(properties) if top_level is None else top_level, 1)
    for flags, name, first, second, map_name, count, length in properties:
        info += struct.pack("<IIHHIHHI", flags, at[name], first, second,
                            at[map_name] if map_name else 0, count, length, 0)
    return info + blob


def event_map_info(entries, name="FuzzMap", flag=1, value_type=0):
    """A provider GUID and an EVENT_MAP_INFO (tdh.h): NameOffset, Flag, EntryCount,
    MapEntryValueType, then {OutputOffset, Value or InputOffset} per entry, offsets from the
    EVENT_MAP_INFO. An entry is (output, value) or (output, input text)."""
    base = 16 + 8 * len(entries)
    names = [name] + [e[0] for e in entries] + [e[1] for e in entries if isinstance(e[1], str)]
    offsets, blob = utf16z_names(names)
    at = dict(zip(names, (base + o for o in offsets)))
    info = struct.pack("<4I", at[name], flag, len(entries), value_type)
    for output, value in entries:
        info += struct.pack("<II", at[output], at[value] if isinstance(value, str) else value)
    return guid(31) + info + blob


def event_info_input(structure, data=b"", choice=0):
    return bytes([choice]) + struct.pack("<H", len(structure)) + structure + data


def event_info_seeds():
    """For event_info: the DNS-Client description of PAYLOADS.md section 4 rebuilt from its
    facts (six properties, a map, a Binary whose length is a property) with an event's data;
    a structure of two members counted by a property; a loop; a value map, a bit map and a
    pattern map; and cuts of each."""
    dns = trace_event_info([
        (0, "Interface", 1, 1, None, 1, 0),
        (0, "TotalServerCount", 8, 8, None, 1, 4),
        (0, "Index", 8, 8, None, 1, 4),
        (0, "DynamicAddress", 4, 4, "DnsIpTypeMap", 1, 1),
        (0, "AddressLength", 8, 8, None, 1, 4),
        (2, "Address", 14, 25, None, 1, 4),
    ], provider="Microsoft-Windows-DNS-Client", task="DnsServerForInterface")
    dns_data = ("Ethernet".encode("utf-16-le") + b"\0\0" + struct.pack("<IIBI", 4, 3, 1, 16)
                + bytes([2, 0, 0, 0, 10, 50, 10, 50]) + b"\0" * 8)
    nested = trace_event_info([
        (0, "Count", 8, 0, None, 1, 4),
        (0x5, "Items", 3, 2, None, 0, 0),
        (0, "Tail", 6, 0, "TailMap", 1, 2),
        (0, "Len", 4, 0, None, 1, 1),
        (2, "Text", 1, 0, None, 1, 3),
    ], top_level=3, keywords=("K1", "K2"))
    nested_data = struct.pack("<I", 2) + b"\x01" + "a".encode("utf-16-le") + b"\x02" \
        + "bc".encode("utf-16-le") + struct.pack("<H", 7)
    looping = trace_event_info([(1, "S", 0, 1, None, 1, 0)])
    classic = trace_event_info([(0x20, "Values", 8, 0, None, 3, 4)], decoding_source=1,
                               event_guid=guid(32))
    value_map = event_map_info([("static ", 0), ("dynamic ", 1)], name="DnsIpTypeMap")
    bit_map = event_map_info([("A ", 1), ("B ", 2), ("C ", 4)], flag=2)
    pattern = event_map_info([("Out", "In*")], flag=4)
    seeds = [
        event_info_input(dns, dns_data),
        event_info_input(dns, dns_data, choice=1),
        event_info_input(dns[:200], dns_data),
        event_info_input(nested, nested_data),
        event_info_input(nested[:len(nested) - 1], nested_data),
        event_info_input(looping),
        event_info_input(classic, struct.pack("<3I", 1, 2, 3)),
        event_info_input(value_map),
        event_info_input(bit_map),
        event_info_input(pattern),
        event_info_input(value_map[:30]),
    ]
    return seeds


def reassembly_step(stream, data, envelope=None):
    """One step: the stream, and either an envelope (TotalChunks, ChunkNumber, flags) made by
    the target with the text after it, or the raw event data."""
    if envelope is None:
        return bytes([stream & 3]) + struct.pack("<H", len(data)) + data
    return bytes([(stream & 3) | 4]) + bytes(envelope) + struct.pack("<H", len(data)) + data


def manifest_envelope(total, number, format_=1, major=1, minor=0, magic=0x5B):
    """ManifestEnvelope (perfview ManifestEnvelope.cs): Format, MajorVersion, MinorVersion,
    Magic, TotalChunks, ChunkNumber."""
    return struct.pack("<BBBBHH", format_, major, minor, magic, total, number)


def event_source_reassembly_seeds():
    """For event_source_reassembly: one chunk; three chunks out of order; two streams
    interleaved; a repeated chunk, a changed version, format 2, a bad magic, a chunk before
    chunk 0, an empty chunk; a cap that a stream passes; text that is not UTF-8."""
    xml = b'<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">' \
          b'<instrumentation><events><provider name="Fuzz" guid="{00000000-0000-0000-0000-000000000001}"/>' \
          b'</events></instrumentation></instrumentationManifest>'
    parts = [xml[:60], xml[60:120], xml[120:]]
    default_cap = b"\xff"
    return [
        default_cap + reassembly_step(0, manifest_envelope(1, 0) + xml),
        default_cap + b"".join([
            reassembly_step(0, parts[0], (3, 0, 0)),
            reassembly_step(0, parts[2], (3, 2, 0)),
            reassembly_step(0, parts[1], (3, 1, 0)),
        ]),
        default_cap + b"".join([
            reassembly_step(0, parts[0], (2, 0, 0)),
            reassembly_step(1, parts[0], (2, 0, 0)),
            reassembly_step(1, parts[1], (2, 1, 0)),
            reassembly_step(0, parts[1], (2, 1, 0)),
        ]),
        default_cap + b"".join([
            reassembly_step(2, parts[0], (3, 0, 0)),
            reassembly_step(2, parts[0], (3, 0, 0)),
            reassembly_step(2, parts[1], (3, 1, 1)),
            reassembly_step(3, parts[1], (3, 1, 0)),
            reassembly_step(3, parts[0], (3, 0, 2)),
            reassembly_step(3, parts[0], (3, 0, 4)),
            reassembly_step(3, manifest_envelope(3, 0)),
        ]),
        b"\x05" + b"".join([
            reassembly_step(0, parts[0], (3, 0, 0)),
            reassembly_step(0, parts[1], (3, 1, 0)),
            reassembly_step(1, parts[0], (2, 0, 0)),
        ]),
        default_cap + reassembly_step(1, manifest_envelope(1, 0) + b"<a>\xff</a>"),
    ]


# Header types whose Size is a u16 at offset 4 (SYSTEM, COMPACT, PERFINFO: version-first).
VERSION_FIRST_TYPES = (0x01, 0x02, 0x03, 0x04, 0x10, 0x11)


def trace_events(path):
    """(header type, event bytes) of every event of an .etl file, buffer by buffer, with the
    walk's rules (the reader's `Events`): 0xFFFFFFFF ends a buffer's events, byte 3 must have
    TRACE_HEADER_FLAG (0x80), TRACE_MESSAGE (0x10) makes it a message whose Size is at 0, and
    otherwise byte 2 is the header type, Size at 4 for the version-first ones, else at 0."""
    for _, buffer in etl_buffers(path.read_bytes()):
        events = uncompressed(buffer)[BUFFER_HEADER_LEN:]
        at = 0
        while at + 4 <= len(events):
            marker = struct.unpack_from("<I", events, at)[0]
            header_type, flags = events[at + 2], events[at + 3]
            if marker == 0xFFFFFFFF or not flags & 0x80:
                break
            if flags & 0x10:
                header_type = 0x0F
            size_at = 4 if header_type in VERSION_FIRST_TYPES and not flags & 0x10 else 0
            if at + size_at + 2 > len(events):
                break
            size = struct.unpack_from("<H", events, at + size_at)[0]
            if size < 4 or at + size > len(events):
                break
            yield header_type, events[at:at + size]
            at += aligned(size)


def metadata_and_described(path):
    """The MetaData events (class type, data) of a trace, and the user data of its
    EVENT_HEADER events without extended items by (provider GUID bytes, id, version)."""
    metadata, described = [], {}
    for header_type, event in trace_events(path):
        if header_type in (0x0A, 0x14) and len(event) >= 0x30 and event[0x18:0x28] == METADATA_GUID:
            metadata.append((event[4], event[0x30:]))
        elif header_type in (EVENT_HEADER32, EVENT_HEADER64) and len(event) >= EVENT_HEADER_LEN \
                and not struct.unpack_from("<H", event, 4)[0] & EXTENDED_INFO:
            key = (event[0x18:0x28], struct.unpack_from("<H", event, 0x28)[0], event[0x2A])
            described.setdefault(key, (header_type, event[EVENT_HEADER_LEN:]))
    return metadata, described


def perfview_event_info_seeds(traces):
    """For event_info, every EventInfo event of the traces with the data of the first event it
    describes (the pointer size of its header type), and every EventMapInfo event."""
    seeds = []
    for path in traces:
        metadata, described = metadata_and_described(path)
        for class_type, data in metadata:
            if class_type == EVENT_INFO_TYPE and len(data) >= 112:
                key = (data[:16], struct.unpack_from("<H", data, 32)[0], data[34])
                header_type, payload = described.get(key, (EVENT_HEADER64, b""))
                choice = 1 if header_type == EVENT_HEADER32 else 0
                seed = event_info_input(data, payload, choice)
            else:
                seed = event_info_input(data)
            if len(seed) <= EVENT_INFO_MAX_LEN:
                seeds.append(seed)
    return seeds


def perfview_reassembly_seeds(traces):
    """For event_source_reassembly, each trace's ManifestData events (id 0xFFFE, opcode 0xFE,
    task 0xFFFE) of at most 16 KiB as they are, and again with their text cut into chunks of
    4 KiB under new envelopes, the last chunk first after chunk 0."""
    seeds = []
    for path in traces:
        for header_type, event in trace_events(path):
            if header_type not in (EVENT_HEADER32, EVENT_HEADER64) or len(event) < EVENT_HEADER_LEN:
                continue
            event_id, _, _, _, opcode, task = struct.unpack_from("<HBBBBH", event, 0x28)
            if (event_id, opcode, task) != (0xFFFE, 0xFE, 0xFFFE):
                continue
            data = event[EVENT_HEADER_LEN:]
            if len(data) > 16384:
                continue
            text = data[8:]
            chunks = [text[i:i + 4096] for i in range(0, len(text), 4096)]
            order = [0] + list(range(len(chunks) - 1, 0, -1))
            split = b"".join(reassembly_step(1, chunks[i], (len(chunks), i, 0)) for i in order)
            seeds.append(b"\xff" + reassembly_step(0, data) + split)
    return seeds


def write_corpus(target, seeds, prefix="seed-"):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for seed in seeds:
        name = prefix + hashlib.sha1(seed).hexdigest()[:16]
        wanted[name] = seed
    for stale in directory.glob(prefix + "*"):
        if stale.name not in wanted:
            stale.unlink()
    for name, seed in sorted(wanted.items()):
        path = directory / name
        if not path.exists() or path.read_bytes() != seed:
            path.write_bytes(seed)
    total = sum(len(seed) for seed in wanted.values())
    print(f"{target}: {len(wanted)} {prefix}* seeds, {total} bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--perfview",
        metavar="DIR",
        type=pathlib.Path,
        help="also write untracked perfview-* seeds from the .etl files in DIR",
    )
    args = parser.parse_args()
    if os.environ.get("ETW_REQUIRE_TRACES") == "1" and args.perfview is None:
        parser.error("ETW_REQUIRE_TRACES=1: give --perfview DIR, the folder of the PerfView traces")
    traces = None
    if args.perfview is not None:
        traces = sorted(args.perfview.glob("*.etl"))
        if not traces:
            # An error whether or not ETW_REQUIRE_TRACES is set: the folder was asked for.
            raise SystemExit(f"no .etl file in {args.perfview}")

    write_corpus("fixed_headers", fixed_headers_seeds())
    write_corpus("class_roll_up", class_roll_up_seeds())
    write_corpus("guid_text", guid_text_seeds())
    write_corpus("session_write_read", session_write_read_seeds())
    write_corpus("plain_lz77", plain_lz77_seeds())
    write_corpus("lznt1", lznt1_seeds())
    write_corpus("xpress_huffman", xpress_huffman_seeds())
    write_corpus("trace_buffer_walk", trace_buffer_walk_seeds())
    write_corpus("etl_reader", etl_reader_seeds())
    write_corpus("time_order", time_order_seeds())
    write_corpus("event_header", event_header_seeds())
    write_corpus("kernel_headers", kernel_headers_seeds())
    # The streaming reader is compared with the in-memory one on the same files, and the
    # Python module's calls are made on them.
    write_corpus("etl_stream", etl_reader_seeds() + processors_beyond_count_seeds())
    write_corpus("etl_python", etl_reader_seeds() + processors_beyond_count_seeds())
    write_corpus("etl_time_order", etl_time_order_seeds())
    write_corpus("manifest_xml", manifest_xml_seeds())
    write_corpus("mof_text", mof_text_seeds())
    write_corpus("event_info", event_info_seeds())
    write_corpus("event_source_reassembly", event_source_reassembly_seeds())
    if traces is not None:
        write_corpus("event_info", perfview_event_info_seeds(traces), prefix="perfview-")
        write_corpus("event_source_reassembly", perfview_reassembly_seeds(traces), prefix="perfview-")
        write_corpus("event_header", perfview_event_header_seeds(traces), prefix="perfview-")
        walk, files, streams = perfview_seeds(traces)
        write_corpus("trace_buffer_walk", walk, prefix="perfview-")
        write_corpus("etl_reader", files, prefix="perfview-")
        write_corpus("time_order", perfview_time_order_seeds(traces), prefix="perfview-")
        write_corpus("etl_stream", files, prefix="perfview-")
        write_corpus("etl_python", files, prefix="perfview-")
        write_corpus("plain_lz77", streams, prefix="perfview-")


if __name__ == "__main__":
    main()
