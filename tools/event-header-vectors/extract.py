#!/usr/bin/env python3
"""Print golden values of a few EVENT_HEADER events of the PerfView test traces, as read by
dissect.etl, an ETL parser independent of this crate, for tests/event_header.rs.

For each trace it picks the first EVENT_HEADER32/EVENT_HEADER64 event, the first one whose Flags
have EVENT_HEADER_FLAG_EXTENDED_INFO (0x0001) and the last one, plus the event of
../shared/reference/EVENT-HEADERS.md section 2 sample 3 (net.4.5.2.x64.etl buffer 355, offset
0x208). For each it prints a Rust `Golden { ... }` literal with the header fields dissect.etl
decodes, the extended data items it finds after the header (type, item size, DataSize, and for
the types it decodes the values: the related activity GUID, the stack's MatchId and addresses,
the provider name) and the user data after them.

Two things dissect.etl gets wrong, which the script works around and says so in its output:
- `EventHeader.provider_id` builds the GUID with `UUID(bytes=...)`, big-endian, instead of
  `bytes_le`; the script reads the raw `ProviderId` bytes with `bytes_le` (as dissect's other
  headers and its own `activity_id` do).
- `_read_extensions` reads items without looking at the EXTENDED_INFO flag or the Linkage bit;
  the script keeps its items only for flagged events, and only up to the first item whose
  Linkage bit (bit 0 of the u16 at item offset 4, which dissect names Reserved1) is 0.

Offsets count from the end of the buffer's 0x48-byte header, in the decompressed events (the
offsets `etwc etl` prints). Usage:

    python3 tools/event-header-vectors/extract.py [PERFVIEW_DIR]

PERFVIEW_DIR defaults to $ETW_PERFVIEW_DIR, else ../shared/data/perfview beside the repository.
Needs dissect.etl 3.14 (pip install dissect.etl==3.14).
"""

import os
import struct
import sys
from pathlib import Path
from uuid import UUID

from dissect.etl.etl import ETL

ROOT = Path(__file__).resolve().parents[2]
TRACES = [
    "SelfDescribingSingleEvent.etl",
    "gcevents.etl",
    "net.4.5.2.x64.etl",
    "net.4.5.2.x86.etl",
    "primitive-types.etl",
]
EXTRA = {("net.4.5.2.x64.etl", 355, 0x208)}
EXTENDED_INFO = 0x0001


def event_header_events(path):
    """(buffer, offset, record) of every EVENT_HEADER32/64 event, in file order."""
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for index in range(etl.logfile_header.buffers_written):
            offset = 0
            for record in etl.buffer(index):
                marker = record.header.marker
                header_type = (marker >> 16) & 0xFF
                if marker >> 24 != 0x90 and header_type in (0x12, 0x13):
                    yield index, offset, record
                offset += record.aligned_size


def signed64(value):
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def items_of(header):
    """dissect.etl's items of a flagged event, up to the one whose Linkage bit is 0, with the
    bytes they take."""
    raw = header.header
    if not raw.Flags & EXTENDED_INFO:
        return [], 0
    payload = bytes(header.payload)
    items, used = [], 0
    for item in header.header_extensions:
        linkage = struct.unpack_from("<H", payload, used + 4)[0]
        items.append((item, linkage))
        used += item.size
        if not linkage & 1:
            break
    return items, used


def rust_item(item, linkage):
    data = bytes(item.raw_data)
    fields = [
        f"ext_type: 0x{int(item.ext_type):04X}",
        f"item_size: {item.size}",
        f"linkage: {linkage}",
        f"data_size: {item.data_size}",
    ]
    name = item.ext_type.name
    if name == "RELATED_ACTIVITY_ID":
        fields.append(f'related_activity_id: Some("{item.data["Guid"]}")')
    if name == "STACK_TRACE64":
        addresses = list(item.data["Address"])
        fields.append(f"match_id: Some({item.data['MatchId']})")
        fields.append(f"frames: {len(addresses)}")
        fields.append(f"first_address: 0x{addresses[0]:X}" if addresses else "first_address: 0")
        fields.append(f"last_address: 0x{addresses[-1]:X}" if addresses else "last_address: 0")
    if name == "PROV_TRAITS":
        fields.append(f"traits_size: Some({item.data['TraitSize']})")
        provider = bytes(item.data["ProviderName"]).rstrip(b"\0").decode()
        fields.append(f'provider_name: Some("{provider}")')
    fields.append(f'data_prefix: "{data[:16].hex()}"')
    return "GoldenItem { " + ", ".join(fields) + ", ..GoldenItem::NONE }"


def rust_event(name, index, offset, record):
    header = record.header
    raw = header.header
    processor_time = raw.ProcessorTime
    items, used = items_of(header)
    user_data = bytes(header.payload)[used:]
    lines = [
        "    Golden {",
        f'        file: "{name}", buffer: {index}, offset: 0x{offset:X},',
        f"        header_type: 0x{(header.marker >> 16) & 0xFF:02X}, size: {raw.Size}, flags: 0x{raw.Flags:04X}, event_property: {raw.EventProperty},",
        f"        thread_id: {raw.ThreadId}, process_id: {raw.ProcessId}, timestamp: {signed64(raw.TimeDelta)},",
        f'        provider_id: "{UUID(bytes_le=bytes(raw.ProviderId))}", // dissect.etl prints {header.provider_id}',
        f"        id: {raw.Id}, version: {raw.Version}, channel: {raw.Channel}, level: {raw.Level}, opcode: {raw.OpCode}, task: {raw.Task}, keyword: 0x{raw.Keywords:X},",
        f"        kernel_time: {processor_time & 0xFFFFFFFF}, user_time: {processor_time >> 32},",
        f'        activity_id: "{header.activity_id}",',
        "        items: &[",
    ]
    lines += [f"            {rust_item(item, linkage)}," for item, linkage in items]
    lines += [
        "        ],",
        f'        user_data_len: {len(user_data)}, user_data_prefix: "{user_data[:16].hex()}",',
        "    },",
    ]
    return "\n".join(lines)


def main():
    default = os.environ.get("ETW_PERFVIEW_DIR") or ROOT / "../shared/data/perfview"
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else default)
    print("// dissect.etl's provider_id reads the GUID big-endian; the values below read")
    print("// ProviderId's raw bytes little-endian (UUID(bytes_le=...)), as the GUID is stored.")
    for name in TRACES:
        first = first_flagged = last = None
        extra = []
        for index, offset, record in event_header_events(folder / name):
            event = (index, offset, record)
            first = first or event
            if first_flagged is None and record.header.header.Flags & EXTENDED_INFO:
                first_flagged = event
            if (name, index, offset) in EXTRA:
                extra.append(event)
            last = event
        chosen = []
        for event in [first, first_flagged, *extra, last]:
            if event is not None and all(event[:2] != other[:2] for other in chosen):
                chosen.append(event)
        for index, offset, record in chosen:
            print(rust_event(name, index, offset, record))


if __name__ == "__main__":
    main()
