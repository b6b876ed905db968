#!/usr/bin/env python3
"""Write the seed corpora under fuzz/corpus/<target>/seed-*.

The fixed_headers seeds are the golden vectors of tests/data (the C ABI vectors of both
bitnesses, the headers read from PerfView traces and their logfile header events), plus a few
built from them: whole events whose Size fits the input, instance headers a trace buffer would
accept, logfile header events of both layouts with bad HookIds, short Sizes and cut names, and
inputs one byte too short. The class_roll_up and guid_text seeds are small hand-picked values;
the session_write_read seeds are small programs of trace, flush and hand-out steps; the
plain_lz77 seeds are the MS-XCA examples and a few streams built by hand from its rules.

Standard library only, and deterministic: every run writes the same files, and files named
seed-* that the run would not write are removed. Run from anywhere:

    python3 fuzz/make-seeds.py
"""

import hashlib
import json
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
    return [b"\x00" + boot, b"\x01" + many, b"\x00" + churn, b"\x01" + errors]


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
    return [struct.pack("<H", capacity) + stream for stream, capacities in streams
            for capacity in capacities]


# --- Trace buffers and .etl files (../shared/reference/LAYOUTS.md) ---------------------------

BUFFER_HEADER_LEN = 0x48
SYSTEM_HEADER_LEN = 0x20
ALIGNMENT = 8  # DEFAULT_TRACE_ALIGNMENT
END_MARK = b"\xff" * 4

FULL32, FULL64 = 0x0A, 0x14
SYSTEM32, SYSTEM64 = 0x01, 0x02
COMPACT64 = 0x04
TIMED = 0x0C
PERFINFO64 = 0x11
EVENT_HEADER64 = 0x13
TRACE_MESSAGE_MARKER = 0x90

BUFFER_FLAG_FLUSH_MARKER = 0x0001
BUFFER_FLAG_COMPRESSED = 0x0040
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


def write_corpus(target, seeds):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for seed in seeds:
        name = "seed-" + hashlib.sha1(seed).hexdigest()[:16]
        wanted[name] = seed
    for stale in directory.glob("seed-*"):
        if stale.name not in wanted:
            stale.unlink()
    for name, seed in sorted(wanted.items()):
        (directory / name).write_bytes(seed)
    print(f"{target}: {len(wanted)} seeds")


def main():
    write_corpus("fixed_headers", fixed_headers_seeds())
    write_corpus("class_roll_up", class_roll_up_seeds())
    write_corpus("guid_text", guid_text_seeds())
    write_corpus("session_write_read", session_write_read_seeds())
    write_corpus("plain_lz77", plain_lz77_seeds())


if __name__ == "__main__":
    main()
