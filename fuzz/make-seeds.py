#!/usr/bin/env python3
"""Write the seed corpora under fuzz/corpus/<target>/seed-*.

The fixed_headers seeds are the golden vectors of tests/data (the C ABI vectors of both
bitnesses and the headers read from PerfView traces), plus a few built from them: whole events
whose Size fits the input, instance headers a trace buffer would accept, and inputs one byte too
short. The class_roll_up and guid_text seeds are small hand-picked values; the
session_write_read seeds are small programs of trace, flush and hand-out steps; the plain_lz77
seeds are the MS-XCA examples and a few streams built by hand from its rules.

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
    return seeds


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
