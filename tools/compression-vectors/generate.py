#!/usr/bin/env python3
"""Writes tests/data/compression-vectors.json: LZNT1 and LZ77+Huffman streams made by compressors
written independently of etw-classic, each checked with a third decompressor, for
tests/compression_vectors.rs.

See README.md beside this script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from importlib import metadata
from pathlib import Path

import lznt1 as pypi_lznt1
from dissect.util.compression import lznt1 as dissect_lznt1
from dissect.util.compression import lzxpress_huffman as dissect_huffman
from ntcompress.ntdll import lznt1 as nt_lznt1
from ntcompress.ntdll import xpress_huff as nt_huffman

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUT = ROOT / "tests" / "data" / "compression-vectors.json"
# Plaintexts up to this long are written out in full; longer ones as length and SHA-256.
INLINE_LIMIT = 512


def event_like(count: int) -> bytes:
    """Records shaped like classic events: a 4-byte marker and size, a small header with a
    slowly rising timestamp and a few ids, then a short payload of text and counters."""
    rng = random.Random(0x45545743)
    out = bytearray()
    timestamp = 0x01D9_0000_0000_0000
    for index in range(count):
        payload = f"Provider/Task{index % 7} value={rng.randrange(1000)}".encode()
        payload += bytes(rng.randrange(4) for _ in range(rng.randrange(12)))
        size = 0x18 + len(payload)
        timestamp += rng.randrange(1, 5000)
        out += (0xC0020000 | size).to_bytes(4, "little")
        out += (index % 3 + 10).to_bytes(2, "little") + (0x14).to_bytes(2, "little")
        out += (4 + index % 4).to_bytes(4, "little") + (0x1F00 + index % 2).to_bytes(4, "little")
        out += timestamp.to_bytes(8, "little")
        out += payload
        out += bytes((-len(out)) % 8)
    return bytes(out)


def full_header64_events(count: int) -> bytes:
    """The events of a trace buffer: `count` classic events with a 64-bit EVENT_TRACE_HEADER
    (Size, HeaderType 0x14 FULL_HEADER64, MarkerFlags 0xC0; Class, ThreadId, ProcessId,
    TimeStamp, Guid, KernelTime, UserTime: 0x30 bytes), each with a short text payload and
    padded to 8 bytes, as a buffer lays them out."""
    out = bytearray()
    guid = bytes.fromhex("3a2f8f6b1e1d4c8f9a0b5c6d7e8f9012")
    for index in range(count):
        payload = b"event %d of a compressed buffer\0" % index
        size = 0x30 + len(payload)
        out += size.to_bytes(2, "little") + bytes([0x14, 0xC0])
        out += (0x0002_0001 | (index % 4) << 8).to_bytes(4, "little")
        out += (0x1000 + index % 3).to_bytes(4, "little") + (0x400).to_bytes(4, "little")
        out += (0x01D9_0000_0000_0000 + 997 * index).to_bytes(8, "little")
        out += guid
        out += (index * 2).to_bytes(4, "little") + (index * 3).to_bytes(4, "little")
        out += payload
        out += bytes((-len(out)) % 8)
    return bytes(out)


def plaintexts() -> list[tuple[str, bytes]]:
    rng = random.Random(20170611)
    text = (
        b"Event Tracing for Windows writes trace buffers of events; a compressed trace stores "
        b"each buffer's events compressed after its header.\n"
    )
    small_alphabet = bytes(rng.choice(b"abcdefgh ") for _ in range(6000))
    noise = bytes(rng.randrange(256) for _ in range(2500))
    lines = b"".join(b"line %05d of a log with a counter %d\n" % (n, n * 7 % 113) for n in range(1800))
    return [
        ("empty", b""),
        ("one byte", b"x"),
        ("alphabet", b"abcdefghijklmnopqrstuvwxyz"),
        ("abc x 100", b"abc" * 100),
        ("aaaa", b"a" * 4),
        ("text x 40 (4096 + bytes)", (text * 40)[:4100]),
        ("exactly one 4096-byte chunk", (text * 40)[:4096]),
        ("small alphabet, 6000 bytes", small_alphabet),
        ("random bytes, 2500", noise),
        ("events, 12 KiB", event_like(300)[: 12 * 1024]),
        ("log lines, multiple 64 KiB blocks", lines),
        ("zeros, 70000 (a long run)", bytes(70000)),
        ("zeros, 131072 (LZNT1: 32 whole chunks)", bytes(131072)),
        ("noise then repeats", noise[:700] + noise[:700] * 6 + noise[100:300]),
        # For tests/compressed_formats_etl.rs, which puts them in an .etl buffer.
        (ETL_EVENTS, full_header64_events(40)),
    ]


# The name of the plaintext that is a buffer's events, written out whatever its length.
ETL_EVENTS = "40 FULL_HEADER64 events"


def check(name: str, fmt: str, compressed: bytes, plain: bytes) -> list[str]:
    """Decodes the vector with every other decompressor at hand, and returns those that agree
    (all but dissect.util for a stream with a 32-bit match length, which it does not read)."""
    if fmt == "lznt1":
        decoded = dissect_lznt1.decompress(compressed)
        if decoded != plain:
            sys.exit(f"{name}: dissect.util's LZNT1 decompressor disagrees")
        if nt_lznt1.decompress(compressed) != plain or pypi_lznt1.decompress(compressed) != plain:
            sys.exit(f"{name}: an LZNT1 decompressor disagrees")
        return ["dissect.util", "ntcompress", "lznt1"]
    agree = ["ntcompress"]
    if nt_huffman.decompress(compressed) != plain:
        sys.exit(f"{name}: ntcompress's LZ77+Huffman decompressor disagrees")
    if not needs_wide_length(plain):
        decoded = dissect_huffman.decompress(compressed)
        # dissect.util decodes until it has read the whole input, the end symbol 256 as a match
        # of length 3 at distance 1: the plaintext then 3 bytes, or, where it read the last
        # words before decoding the symbols they hold, a prefix of the plaintext (all of it
        # but for the shortest streams).
        if not (plain + plain[-1:] * 3).startswith(decoded) or len(decoded) + 32 < len(plain):
            sys.exit(f"{name}: dissect.util's LZ77+Huffman decompressor disagrees")
        agree.append("dissect.util")
    return agree


def needs_wide_length(plain: bytes) -> bool:
    """Whether ntcompress's greedy matcher makes a match of 65536 bytes or more here: a run of
    one byte that long (the only such plaintexts below)."""
    return len(plain) > 65536 and len(set(plain)) == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()

    compressors = [
        ("lznt1", f"lznt1 {metadata.version('lznt1')}", pypi_lznt1.compress),
        ("lznt1", f"ntcompress {metadata.version('ntcompress')}", nt_lznt1.compress),
        ("xpress_huffman", f"ntcompress {metadata.version('ntcompress')}", nt_huffman.compress),
    ]
    vectors = []
    for name, plain in plaintexts():
        for fmt, compressor, compress in compressors:
            compressed = bytes(compress(plain))
            agree = check(name, fmt, compressed, plain)
            vector = {
                "name": name,
                "format": fmt,
                "compressor": compressor,
                "compressed": compressed.hex(),
                "decompressed_len": len(plain),
                "decompressed_sha256": hashlib.sha256(plain).hexdigest(),
                "decoded_by": agree,
            }
            if len(plain) <= INLINE_LIMIT or name == ETL_EVENTS:
                vector["decompressed"] = plain.hex()
            vectors.append(vector)
    document = {
        "source": "tools/compression-vectors/generate.py",
        "decoders": f"dissect.util {metadata.version('dissect.util')}, "
        f"ntcompress {metadata.version('ntcompress')}, lznt1 {metadata.version('lznt1')}",
        "vectors": vectors,
    }
    args.output.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{len(vectors)} vectors written to {args.output}")


if __name__ == "__main__":
    main()
