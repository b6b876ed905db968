#!/usr/bin/env python3
"""Golden byte vectors for the classic ETW headers, taken from the real C ABI.

For each Windows ABI (i686 and x86_64 mingw-w64) this script:

1. writes a C file that includes mingw-w64's own <evntrace.h>, defines
   EVENT_INSTANCE_GUID_HEADER (not in the public headers), checks every
   struct size, member offset and member size with _Static_assert, and holds
   one `const` global per vector, set with designated initializers;
2. compiles it with `<triple>-gcc -c` (nothing is linked or run);
3. reads the bytes of every global back out of the object file with the
   matching binutils (`objdump -h`/`-t` for the section and symbol offsets,
   `objcopy -O binary --only-section` for the bytes);
4. checks the bytes against the field values and the offsets read back from
   the compiler, and that each EVENT_INSTANCE_GUID_HEADER vector equals the
   first 0x48 bytes of the EVENT_TRACE vector it was filled from;
5. writes tests/data/abi-vectors-<abi>.json.

Field values follow a byte pattern over the struct's offsets: the byte at
offset k of a vector is 1 + ((start - 1 + step * k) mod 255), with `step`
coprime to 255. Every byte of every field is therefore non-zero and differs
from every other byte of the same vector, so a field read from the wrong
offset, with the wrong width or the wrong byte order, gives a wrong value.

Standard library only. Run from anywhere; the output is deterministic.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_OUT_DIR = REPO_ROOT / "tests" / "data"

SECTION = ".abivec"
SYMBOL_PREFIX = "abiv_"


def require(cond, what):
    """A check that stays on under `python3 -O`."""
    if not cond:
        sys.exit(f"error: check failed: {what}")


# ---------------------------------------------------------------------------
# ABIs


class Abi:
    def __init__(self, name, triple, ptr, underscore):
        self.name = name  # short name used in file names
        self.triple = triple  # GNU triple, also the tool prefix
        self.ptr = ptr  # pointer width in bytes
        self.underscore = underscore  # C symbols get a leading '_'

    def tool(self, name):
        return f"{self.triple}-{name}"


ABIS = [
    Abi("i686", "i686-w64-mingw32", 4, True),
    Abi("x86_64", "x86_64-w64-mingw32", 8, False),
]

# ---------------------------------------------------------------------------
# Layouts, with the offsets and sizes expected from the SDK definitions. The
# compiler checks them (_Static_assert) and they are read back from it.

UINT = "uint"  # unsigned integer of the member's size
INT64 = "int64"  # LARGE_INTEGER, initialised through .QuadPart
SINT = "sint"  # signed integer of the member's size (LONG)
WCHARS = "wchars"  # WCHAR array: a list of u16 code units
GUID = "guid"
PTR = "ptr"  # pointer-sized, initialised as (type)(ULONG_PTR)value
AGG = "aggregate"  # container (struct/union view): offsets only, no value


class Member:
    """One C member: designator path, JSON key (None: not given a value),
    expected offset and size, value kind, and for pointers the C type."""

    def __init__(self, path, key, offset, size, kind=UINT, c_type=None):
        self.path = path
        self.key = key
        self.offset = offset
        self.size = size
        self.kind = kind
        self.c_type = c_type


class Layout:
    def __init__(self, name, c_type, size, members, unions, group_prefix=None):
        self.name = name
        self.c_type = c_type
        self.size = size
        self.members = members
        # unions: list of (union label, [(view name, [member paths set by the view])])
        self.unions = unions
        # Members whose path starts with this prefix go in a nested "header"
        # object in the JSON fields (EVENT_TRACE only).
        self.group_prefix = group_prefix

    def member(self, path):
        found = [m for m in self.members if m.path == path]
        require(len(found) == 1, f"{self.name}: one member {path}")
        return found[0]

    def paths_set_by(self, views):
        """Member paths given a value when `views` ({union label: view name})
        are the union views chosen: every valued member outside the unions,
        plus the members of the chosen views."""
        require(set(views) == {label for label, _ in self.unions}, f"{self.name}: a view for each union")
        in_unions = set()
        chosen = set()
        for label, options in self.unions:
            for view, paths in options:
                in_unions.update(paths)
                if views[label] == view:
                    chosen.update(paths)
        for path in in_unions:
            require(self.member(path).key is not None, f"{self.name}: {path} has a JSON key")
        return [m.path for m in self.members
                if m.key is not None and (m.path in chosen or m.path not in in_unions)]


def _prefix_members():
    """Size .. TimeStamp, shared by all three header layouts (0x00..0x18)."""
    return [
        Member("Size", "size", 0x00, 2),
        Member("FieldTypeFlags", None, 0x02, 2),
        Member("HeaderType", "header_type", 0x02, 1),
        Member("MarkerFlags", "marker_flags", 0x03, 1),
        Member("Version", "version", 0x04, 4),
        Member("Class", None, 0x04, 4, AGG),
        Member("Class.Type", "class_type", 0x04, 1),
        Member("Class.Level", "class_level", 0x05, 1),
        Member("Class.Version", "class_version", 0x06, 2),
        Member("ThreadId", "thread_id", 0x08, 4),
        Member("ProcessId", "process_id", 0x0C, 4),
        Member("TimeStamp", "timestamp", 0x10, 8, INT64),
    ]


def _trace_header_members():
    return _prefix_members() + [
        Member("Guid", "guid", 0x18, 16, GUID),
        Member("GuidPtr", "guid_ptr", 0x18, 8),
        Member("KernelTime", "kernel_time", 0x28, 4),
        Member("UserTime", "user_time", 0x2C, 4),
        Member("ProcessorTime", "processor_time", 0x28, 8),
        Member("ClientContext", "client_context", 0x28, 4),
        Member("Flags", "flags", 0x2C, 4),
    ]


def version_union(prefix=""):
    return ("version", [("version", [prefix + "Version"]),
                        ("class", [prefix + "Class.Type", prefix + "Class.Level", prefix + "Class.Version"])])


def guid_union(prefix=""):
    return ("guid", [("guid", [prefix + "Guid"]), ("guid_ptr", [prefix + "GuidPtr"])])


def trace_time_union(prefix=""):
    return ("time", [("kernel_user", [prefix + "KernelTime", prefix + "UserTime"]),
                     ("processor_time", [prefix + "ProcessorTime"]),
                     ("client_flags", [prefix + "ClientContext", prefix + "Flags"])])


def instance_time_union():
    return ("time", [("kernel_user", ["KernelTime", "UserTime"]),
                     ("processor_time", ["ProcessorTime"]),
                     ("event_flags", ["EventId", "Flags"])])


def context_union():
    return ("context", [("client_context", ["ClientContext"]),
                        ("buffer_context", ["BufferContext.ProcessorNumber", "BufferContext.Alignment",
                                            "BufferContext.LoggerId"])])


def trace_header_layout():
    return Layout("trace-header", "EVENT_TRACE_HEADER", 0x30, _trace_header_members(),
                  [version_union(), guid_union(), trace_time_union()])


def instance_header_layout():
    members = _prefix_members() + [
        Member("RegHandle", "reg_handle", 0x18, 8),
        Member("InstanceId", "instance_id", 0x20, 4),
        Member("ParentInstanceId", "parent_instance_id", 0x24, 4),
        Member("KernelTime", "kernel_time", 0x28, 4),
        Member("UserTime", "user_time", 0x2C, 4),
        Member("ProcessorTime", "processor_time", 0x28, 8),
        Member("EventId", "event_id", 0x28, 4),
        Member("Flags", "flags", 0x2C, 4),
        Member("ParentRegHandle", "parent_reg_handle", 0x30, 8),
    ]
    return Layout("instance-header", "EVENT_INSTANCE_HEADER", 0x38, members,
                  [version_union(), instance_time_union()])


def _instance_tail_members():
    return [
        Member("InstanceId", "instance_id", 0x30, 4),
        Member("ParentInstanceId", "parent_instance_id", 0x34, 4),
        Member("ParentGuid", "parent_guid", 0x38, 16, GUID),
    ]


def instance_guid_header_layout():
    return Layout("instance-guid-header", "EVENT_INSTANCE_GUID_HEADER", 0x48,
                  _trace_header_members() + _instance_tail_members(),
                  [version_union(), guid_union(), trace_time_union()])


def event_trace_layout(abi):
    p = abi.ptr
    header = [Member("Header", None, 0x00, 0x30, AGG)]
    for m in _trace_header_members():
        header.append(Member("Header." + m.path, m.key, m.offset, m.size, m.kind, m.c_type))
    own = _instance_tail_members() + [
        Member("MofData", "mof_data", 0x48, p, PTR, "PVOID"),
        Member("MofLength", "mof_length", 0x48 + p, 4),
        Member("ClientContext", "client_context", 0x4C + p, 4),
        Member("BufferContext", None, 0x4C + p, 4, AGG),
        Member("BufferContext.ProcessorNumber", "processor_number", 0x4C + p, 1),
        Member("BufferContext.Alignment", "alignment", 0x4D + p, 1),
        Member("BufferContext.ProcessorIndex", None, 0x4C + p, 2),
        Member("BufferContext.LoggerId", "logger_id", 0x4E + p, 2),
    ]
    return Layout(f"event-trace{p * 8}", "EVENT_TRACE", 0x58, header + own,
                  [version_union("Header."), guid_union("Header."), trace_time_union("Header."),
                   context_union()],
                  group_prefix="Header.")


def instance_info_layout(abi):
    p = abi.ptr
    members = [
        Member("RegHandle", "reg_handle", 0x00, p, PTR, "HANDLE"),
        Member("InstanceId", "instance_id", p, 4),
    ]
    return Layout(f"instance-info{p * 8}", "EVENT_INSTANCE_INFO", 2 * p, members, [])


def mof_field_layout():
    members = [
        Member("DataPtr", "data_ptr", 0x00, 8),
        Member("Length", "length", 0x08, 4),
        Member("DataType", "data_type", 0x0C, 4),
    ]
    return Layout("mof-field", "MOF_FIELD", 0x10, members, [])


def system_trace_header_layout():
    members = [
        Member("Marker", "marker", 0x00, 4),
        Member("Version", "version", 0x00, 2),
        Member("HeaderType", "header_type", 0x02, 1),
        Member("Flags", "flags", 0x03, 1),
        Member("Header", "header", 0x04, 4),
        Member("Packet", None, 0x04, 4, AGG),
        Member("Packet.Size", "size", 0x04, 2),
        Member("Packet.HookId", "hook_id", 0x06, 2),
        Member("Packet.Type", "type", 0x06, 1),
        Member("Packet.Group", "group", 0x07, 1),
        Member("ThreadId", "thread_id", 0x08, 4),
        Member("ProcessId", "process_id", 0x0C, 4),
        Member("SystemTime", "system_time", 0x10, 8, INT64),
        Member("KernelTime", "kernel_time", 0x18, 4),
        Member("UserTime", "user_time", 0x1C, 4),
    ]
    unions = [
        ("marker", [("marker", ["Marker"]), ("fields", ["Version", "HeaderType", "Flags"])]),
        ("header", [("header", ["Header"]), ("hook_id", ["Packet.Size", "Packet.HookId"]),
                    ("type_group", ["Packet.Size", "Packet.Type", "Packet.Group"])]),
    ]
    return Layout("system-header", "SYSTEM_TRACE_HEADER", 0x20, members, unions)


def _system_time_members(path, key, offset):
    """A SYSTEMTIME (8 WORDs) inside TIME_ZONE_INFORMATION; JSON keys drop the `w` prefix."""
    names = ["Year", "Month", "DayOfWeek", "Day", "Hour", "Minute", "Second", "Milliseconds"]
    keys = ["year", "month", "day_of_week", "day", "hour", "minute", "second", "milliseconds"]
    out = [Member(path, None, offset, 16, AGG)]
    for i, (name, sub) in enumerate(zip(names, keys)):
        out.append(Member(f"{path}.w{name}", ("time_zone", key, sub), offset + 2 * i, 2))
    return out


def logfile_header_layout(abi):
    p = abi.ptr
    tz = 0x38 + 2 * p  # TIME_ZONE_INFORMATION, 0xAC bytes, 4-byte aligned
    after = tz + 0xAC + 4  # 4 bytes of padding align BootTime to 8
    members = [
        Member("BufferSize", "buffer_size", 0x00, 4),
        Member("Version", "version", 0x04, 4),
        Member("VersionDetail", None, 0x04, 4, AGG),
        Member("VersionDetail.MajorVersion", "major_version", 0x04, 1),
        Member("VersionDetail.MinorVersion", "minor_version", 0x05, 1),
        Member("VersionDetail.SubVersion", "sub_version", 0x06, 1),
        Member("VersionDetail.SubMinorVersion", "sub_minor_version", 0x07, 1),
        Member("ProviderVersion", "provider_version", 0x08, 4),
        Member("NumberOfProcessors", "number_of_processors", 0x0C, 4),
        Member("EndTime", "end_time", 0x10, 8, INT64),
        Member("TimerResolution", "timer_resolution", 0x18, 4),
        Member("MaximumFileSize", "maximum_file_size", 0x1C, 4),
        Member("LogFileMode", "log_file_mode", 0x20, 4),
        Member("BuffersWritten", "buffers_written", 0x24, 4),
        Member("LogInstanceGuid", "log_instance_guid", 0x28, 16, GUID),
        Member("StartBuffers", "start_buffers", 0x28, 4),
        Member("PointerSize", "pointer_size", 0x2C, 4),
        Member("EventsLost", "events_lost", 0x30, 4),
        Member("CpuSpeedInMHz", "cpu_speed_in_mhz", 0x34, 4),
        Member("LoggerName", "logger_name", 0x38, p, PTR, "LPWSTR"),
        Member("LogFileName", "log_file_name", 0x38 + p, p, PTR, "LPWSTR"),
        Member("TimeZone", None, tz, 0xAC, AGG),
        Member("TimeZone.Bias", ("time_zone", "bias"), tz, 4, SINT),
        Member("TimeZone.StandardName", ("time_zone", "standard_name"), tz + 0x04, 64, WCHARS),
        *_system_time_members("TimeZone.StandardDate", "standard_date", tz + 0x44),
        Member("TimeZone.StandardBias", ("time_zone", "standard_bias"), tz + 0x54, 4, SINT),
        Member("TimeZone.DaylightName", ("time_zone", "daylight_name"), tz + 0x58, 64, WCHARS),
        *_system_time_members("TimeZone.DaylightDate", "daylight_date", tz + 0x98),
        Member("TimeZone.DaylightBias", ("time_zone", "daylight_bias"), tz + 0xA8, 4, SINT),
        Member("BootTime", "boot_time", after, 8, INT64),
        Member("PerfFreq", "perf_freq", after + 0x08, 8, INT64),
        Member("StartTime", "start_time", after + 0x10, 8, INT64),
        Member("ReservedFlags", "reserved_flags", after + 0x18, 4),
        Member("BuffersLost", "buffers_lost", after + 0x1C, 4),
    ]
    unions = [
        ("version", [("version", ["Version"]),
                     ("detail", ["VersionDetail.MajorVersion", "VersionDetail.MinorVersion",
                                 "VersionDetail.SubVersion", "VersionDetail.SubMinorVersion"])]),
        ("instance", [("guid", ["LogInstanceGuid"]),
                      ("counts", ["StartBuffers", "PointerSize", "EventsLost", "CpuSpeedInMHz"])]),
    ]
    return Layout(f"logfile-header{p * 8}", "TRACE_LOGFILE_HEADER", 0x108 + 2 * p, members, unions)


def layouts_for(abi):
    return [
        trace_header_layout(),
        instance_header_layout(),
        instance_guid_header_layout(),
        event_trace_layout(abi),
        instance_info_layout(abi),
        mof_field_layout(),
        system_trace_header_layout(),
        logfile_header_layout(abi),
    ]


# ---------------------------------------------------------------------------
# Byte patterns and field values


class Pattern:
    def __init__(self, name, start, step):
        require(1 <= start <= 255 and step % 3 and step % 5 and step % 17, f"pattern {name}")
        self.name = name
        self.start = start
        self.step = step

    def byte(self, k):
        """Offsets 255 apart get the same byte (only TRACE_LOGFILE_HEADER is that long)."""
        require(0 <= k, f"pattern offset {k} >= 0")
        return 1 + ((self.start - 1 + self.step * k) % 255)

    def bytes(self, offset, size):
        return bytes(self.byte(offset + i) for i in range(size))


ASCENDING = Pattern("ascending", 0x11, 1)  # 11 12 13 ...; TimeStamp positive
DESCENDING = Pattern("descending", 0xFE, 254)  # fe fd fc ...; TimeStamp negative
STRIDE = Pattern("stride", 0x35, 37)  # 35 5a 7f ...; TimeStamp negative


def guid_to_string(raw):
    d1 = int.from_bytes(raw[0:4], "little")
    d2 = int.from_bytes(raw[4:6], "little")
    d3 = int.from_bytes(raw[6:8], "little")
    return f"{d1:08x}-{d2:04x}-{d3:04x}-{raw[8:10].hex()}-{raw[10:16].hex()}"


def guid_from_string(text):
    m = re.fullmatch(r"([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})", text)
    require(m, f"GUID string {text}")
    return (int(m.group(1), 16).to_bytes(4, "little") + int(m.group(2), 16).to_bytes(2, "little")
            + int(m.group(3), 16).to_bytes(2, "little") + bytes.fromhex(m.group(4) + m.group(5)))


def value_from_bytes(member, raw):
    if member.kind == GUID:
        return guid_to_string(raw)
    if member.kind == WCHARS:
        return [int.from_bytes(raw[i:i + 2], "little") for i in range(0, len(raw), 2)]
    return int.from_bytes(raw, "little", signed=member.kind in (INT64, SINT))


def value_to_bytes(member, size, value):
    if member.kind == GUID:
        return guid_from_string(value)
    if member.kind == WCHARS:
        require(2 * len(value) == size, f"{member.path}: {len(value)} code units fill {size} bytes")
        return b"".join(unit.to_bytes(2, "little") for unit in value)
    return value.to_bytes(size, "little", signed=member.kind in (INT64, SINT))


class Vector:
    """One initialised global: a layout, the members given a value (by
    path) and their values."""

    def __init__(self, layout, name, values):
        self.layout = layout
        self.name = name
        self.values = values  # {member path: value}, in layout member order
        self.source = None  # for a guid header vector: the EVENT_TRACE vector it copies

    @staticmethod
    def from_pattern(layout, views, pattern):
        """views: {union label: view name} for every union of the layout."""
        values = {}
        for path in layout.paths_set_by(views):
            m = layout.member(path)
            values[path] = value_from_bytes(m, pattern.bytes(m.offset, m.size))
        if layout.unions:
            name = f"{layout.c_type} " + "+".join(views[label] for label, _ in layout.unions)
        else:
            name = f"{layout.c_type} {pattern.name}"
        return Vector(layout, name, values)

    def fields_json(self):
        """The JSON `fields` object: SDK names in snake_case; for EVENT_TRACE
        the embedded header's fields go in a nested `header` object. A key
        given as a tuple is a path of nested objects (TRACE_LOGFILE_HEADER's
        `time_zone`)."""
        out = {}
        if self.layout.group_prefix:
            out["header"] = {}
        for m in self.layout.members:
            if m.path not in self.values:
                continue
            if self.layout.group_prefix and m.path.startswith(self.layout.group_prefix):
                out["header"][m.key] = self.values[m.path]
            elif isinstance(m.key, tuple):
                target = out
                for part in m.key[:-1]:
                    target = target.setdefault(part, {})
                target[m.key[-1]] = self.values[m.path]
            else:
                out[m.key] = self.values[m.path]
        return out


def vectors_for(abi, layouts):
    by_name = {lay.name: lay for lay in layouts}
    th = by_name["trace-header"]
    ih = by_name["instance-header"]
    gh = by_name["instance-guid-header"]
    et = by_name[f"event-trace{abi.ptr * 8}"]
    ii = by_name[f"instance-info{abi.ptr * 8}"]
    mf = by_name["mof-field"]

    out = []
    out.append(Vector.from_pattern(th, {"version": "class", "guid": "guid", "time": "kernel_user"}, ASCENDING))
    out.append(Vector.from_pattern(th, {"version": "version", "guid": "guid_ptr", "time": "processor_time"},
                                   DESCENDING))
    out.append(Vector.from_pattern(th, {"version": "class", "guid": "guid", "time": "client_flags"}, STRIDE))

    out.append(Vector.from_pattern(ih, {"version": "class", "time": "kernel_user"}, ASCENDING))
    out.append(Vector.from_pattern(ih, {"version": "version", "time": "processor_time"}, DESCENDING))
    out.append(Vector.from_pattern(ih, {"version": "class", "time": "event_flags"}, STRIDE))

    traces = [
        Vector.from_pattern(et, {"version": "class", "guid": "guid", "time": "kernel_user",
                                 "context": "client_context"}, ASCENDING),
        Vector.from_pattern(et, {"version": "version", "guid": "guid_ptr", "time": "processor_time",
                                 "context": "buffer_context"}, DESCENDING),
        Vector.from_pattern(et, {"version": "class", "guid": "guid", "time": "client_flags",
                                 "context": "buffer_context"}, STRIDE),
    ]
    # Guid header vectors: the same values as the EVENT_TRACE vectors, up to
    # ParentGuid (the byte check is in check_guid_header_vs_event_trace).
    for trace in traces:
        values = {}
        for m in gh.members:
            src = "Header." + m.path if m.offset < 0x30 else m.path
            if src in trace.values:
                values[m.path] = trace.values[src]
        name = trace.name.replace("EVENT_TRACE", gh.c_type, 1).rsplit("+", 1)[0]
        vec = Vector(gh, name, values)
        vec.source = trace
        out.append(vec)
    out.extend(traces)

    for pattern in (ASCENDING, DESCENDING, STRIDE):
        out.append(Vector.from_pattern(ii, {}, pattern))
    for pattern in (ASCENDING, DESCENDING, STRIDE):
        out.append(Vector.from_pattern(mf, {}, pattern))

    sh = by_name["system-header"]
    out.append(Vector.from_pattern(sh, {"marker": "fields", "header": "hook_id"}, ASCENDING))
    out.append(Vector.from_pattern(sh, {"marker": "marker", "header": "header"}, DESCENDING))
    out.append(Vector.from_pattern(sh, {"marker": "fields", "header": "type_group"}, STRIDE))

    lh = by_name[f"logfile-header{abi.ptr * 8}"]
    out.append(Vector.from_pattern(lh, {"version": "detail", "instance": "counts"}, ASCENDING))
    out.append(Vector.from_pattern(lh, {"version": "version", "instance": "guid"}, DESCENDING))
    out.append(Vector.from_pattern(lh, {"version": "detail", "instance": "guid"}, STRIDE))

    order = [lay.name for lay in layouts]
    out.sort(key=lambda v: order.index(v.layout.name))  # stable
    return out


def lint_vectors(vectors, layouts):
    """The value rules: every field non-zero in every byte, no byte value
    shared by two bytes of a vector less than 255 bytes apart (in structs up
    to 255 bytes: no byte value shared at all), every union view covered,
    TimeStamp of both signs."""
    names = set()
    for vec in vectors:
        require(vec.name not in names, f"duplicate vector name {vec.name}")
        names.add(vec.name)
        where = {}  # byte value -> offsets holding it
        for path, value in vec.values.items():
            m = next(m for m in vec.layout.members if m.path == path)
            raw = value_to_bytes(m, m.size, value)
            require(all(raw), f"{vec.name}: {path} has a zero byte")
            for i, b in enumerate(raw):
                where.setdefault(b, []).append(m.offset + i)
        for b, offsets in where.items():
            offsets.sort()
            apart = all(later - earlier >= 255 for earlier, later in zip(offsets, offsets[1:]))
            require(apart, f"{vec.name}: byte 0x{b:02x} at offsets {offsets} less than 255 apart")
    for lay in layouts:
        vecs = [v for v in vectors if v.layout is lay]
        require(vecs, f"{lay.name} has vectors")
        for label, options in lay.unions:
            for view, paths in options:
                covered = any(all(p in v.values for p in paths) for v in vecs)
                require(covered, f"{lay.name}: union view {label}/{view} not covered")
        stamps = [val for v in vecs for path, val in v.values.items() if path.endswith("TimeStamp")]
        if any(m.path.endswith("TimeStamp") for m in lay.members):
            require(any(s < 0 for s in stamps) and any(s > 0 for s in stamps),
                    f"{lay.name}: TimeStamp needs both signs")


# ---------------------------------------------------------------------------
# C source


def c_ident(name):
    return re.sub(r"[^0-9a-zA-Z]", "_", name)


def c_value(member, value):
    if member.kind == GUID:
        raw = guid_from_string(value)
        d1 = int.from_bytes(raw[0:4], "little")
        d2 = int.from_bytes(raw[4:6], "little")
        d3 = int.from_bytes(raw[6:8], "little")
        d4 = ", ".join(f"0x{b:02x}" for b in raw[8:16])
        return f"{{ 0x{d1:08x}u, 0x{d2:04x}u, 0x{d3:04x}u, {{ {d4} }} }}"
    if member.kind == INT64:
        if value < 0:
            return f"(-0x{-value - 1:016x}ll - 1)"
        return f"0x{value:016x}ll"
    if member.kind == SINT:
        if value < 0:
            return f"(-0x{-value - 1:0{member.size * 2}x} - 1)"
        return f"0x{value:0{member.size * 2}x}"
    if member.kind == WCHARS:
        return "{ " + ", ".join(f"0x{unit:04x}u" for unit in value) + " }"
    if member.kind == PTR:
        return f"({member.c_type})(ULONG_PTR)0x{value:0{member.size * 2}x}ull"
    suffix = "ull" if member.size == 8 else "u"
    return f"0x{value:0{member.size * 2}x}{suffix}"


def c_designator(member):
    if member.kind == INT64:
        return f".{member.path}.QuadPart"
    return f".{member.path}"


GUID_HEADER_C = """\
/* EVENT_INSTANCE_GUID_HEADER is not in the public headers: the first 0x30
   bytes are an EVENT_TRACE_HEADER (with its unions), then the instance ids
   and the parent's GUID. */
typedef struct _EVENT_INSTANCE_GUID_HEADER {
  USHORT Size;
  __extension__ union {
    USHORT FieldTypeFlags;
    __extension__ struct {
      UCHAR HeaderType;
      UCHAR MarkerFlags;
    };
  };
  __extension__ union {
    ULONG Version;
    struct {
      UCHAR Type;
      UCHAR Level;
      USHORT Version;
    } Class;
  };
  ULONG ThreadId;
  ULONG ProcessId;
  LARGE_INTEGER TimeStamp;
  __extension__ union {
    GUID Guid;
    ULONGLONG GuidPtr;
  };
  __extension__ union {
    __extension__ struct {
      ULONG KernelTime;
      ULONG UserTime;
    };
    ULONG64 ProcessorTime;
    __extension__ struct {
      ULONG ClientContext;
      ULONG Flags;
    };
  };
  ULONG InstanceId;
  ULONG ParentInstanceId;
  GUID ParentGuid;
} EVENT_INSTANCE_GUID_HEADER;
"""


SYSTEM_HEADER_C = """\
/* SYSTEM_TRACE_HEADER (ntwmi.h) is not in the public headers either. Its
   layout, as Geoff Chappell describes it from NTWMI.H of the Windows 10 WDK:
   the Marker (Version, HeaderType, Flags), then a WMI_TRACE_PACKET (Size and
   the HookId, whose bytes are Type and Group), thread and process ids, the
   time stamp and the CPU times. */
typedef struct _WMI_TRACE_PACKET {
  USHORT Size;
  __extension__ union {
    USHORT HookId;
    __extension__ struct {
      UCHAR Type;
      UCHAR Group;
    };
  };
} WMI_TRACE_PACKET;

typedef struct _SYSTEM_TRACE_HEADER {
  __extension__ union {
    ULONG Marker;
    __extension__ struct {
      USHORT Version;
      UCHAR HeaderType;
      UCHAR Flags;
    };
  };
  __extension__ union {
    ULONG Header;
    WMI_TRACE_PACKET Packet;
  };
  ULONG ThreadId;
  ULONG ProcessId;
  LARGE_INTEGER SystemTime;
  ULONG KernelTime;
  ULONG UserTime;
} SYSTEM_TRACE_HEADER;
"""


def logfile_header_cross_checks(abi, layouts):
    """The native TRACE_LOGFILE_HEADER against mingw's explicit 32- and 64-bit
    forms, and the sizes of its parts."""
    native = next(lay for lay in layouts if lay.c_type == "TRACE_LOGFILE_HEADER")
    twin = f"TRACE_LOGFILE_HEADER{abi.ptr * 8}"
    lines = [
        "/* TRACE_LOGFILE_HEADER: its parts, and mingw's explicit 32-bit and 64-bit forms. */",
        "_Static_assert(sizeof(TIME_ZONE_INFORMATION) == 0xac, \"sizeof(TIME_ZONE_INFORMATION)\");",
        "_Static_assert(sizeof(SYSTEMTIME) == 0x10, \"sizeof(SYSTEMTIME)\");",
        "_Static_assert(sizeof(TRACE_LOGFILE_HEADER32) == 0x110, \"sizeof(TRACE_LOGFILE_HEADER32)\");",
        "_Static_assert(sizeof(TRACE_LOGFILE_HEADER64) == 0x118, \"sizeof(TRACE_LOGFILE_HEADER64)\");",
        f"_Static_assert(sizeof(TRACE_LOGFILE_HEADER) == sizeof({twin}), \"native is {twin}\");",
    ]
    for m in native.members:
        lines.append(f"_Static_assert(offsetof(TRACE_LOGFILE_HEADER, {m.path}) == offsetof({twin}, {m.path}), "
                     f"\"{twin} {m.path} offset\");")
    return lines


def c_source(abi, layouts, vectors):
    lines = [
        f"/* Generated by tools/abi-vectors/generate.py for {abi.triple}. */",
        "#define WIN32_LEAN_AND_MEAN",
        "#include <windows.h>",
        "#include <evntrace.h>",
        "#include <stddef.h>",
        "",
        f"#define ABIV_DATA __attribute__((section(\"{SECTION}\"), used))",
        "#define ABIV_MEMBER_SIZE(T, m) sizeof(((T *)0)->m)",
        "",
        GUID_HEADER_C,
        SYSTEM_HEADER_C,
        "/* The compiler is the one for this ABI. */",
        f"_Static_assert(sizeof(void *) == {abi.ptr}, \"pointer size\");",
        f"_Static_assert(sizeof(ULONG_PTR) == {abi.ptr}, \"ULONG_PTR size\");",
        "",
        "/* Sizes, offsets and member sizes, as in the layout notes. */",
    ]
    for lay in layouts:
        t = lay.c_type
        lines.append(f"_Static_assert(sizeof({t}) == 0x{lay.size:x}, \"sizeof({t})\");")
        for m in lay.members:
            lines.append(f"_Static_assert(offsetof({t}, {m.path}) == 0x{m.offset:x}, "
                         f"\"offsetof({t}, {m.path})\");")
            lines.append(f"_Static_assert(ABIV_MEMBER_SIZE({t}, {m.path}) == {m.size}, "
                         f"\"sizeof {t}.{m.path}\");")
    lines.append("")
    lines.append("/* EVENT_INSTANCE_GUID_HEADER is the first 0x48 bytes of EVENT_TRACE. */")
    gh = next(lay for lay in layouts if lay.name == "instance-guid-header")
    lines.append("_Static_assert(sizeof(EVENT_INSTANCE_GUID_HEADER) == offsetof(EVENT_TRACE, MofData), "
                 "\"guid header size\");")
    lines.append("_Static_assert(sizeof(EVENT_TRACE_HEADER) == offsetof(EVENT_TRACE, InstanceId), "
                 "\"EVENT_TRACE.Header size\");")
    for m in gh.members:
        et_path = "Header." + m.path if m.offset < 0x30 else m.path
        lines.append(f"_Static_assert(offsetof(EVENT_INSTANCE_GUID_HEADER, {m.path}) == "
                     f"offsetof(EVENT_TRACE, {et_path}), \"guid header {m.path} offset\");")
        lines.append(f"_Static_assert(ABIV_MEMBER_SIZE(EVENT_INSTANCE_GUID_HEADER, {m.path}) == "
                     f"ABIV_MEMBER_SIZE(EVENT_TRACE, {et_path}), \"guid header {m.path} size\");")
    lines.append("")
    lines.extend(logfile_header_cross_checks(abi, layouts))
    lines.append("")
    lines.append("/* Layout tables read back by the generator: sizeof, then (offset, size) per member. */")
    for lay in layouts:
        t = lay.c_type
        lines.append(f"ABIV_DATA const unsigned int {SYMBOL_PREFIX}layout_{c_ident(lay.name)}[] = {{")
        lines.append(f"  sizeof({t}),")
        for m in lay.members:
            lines.append(f"  offsetof({t}, {m.path}), ABIV_MEMBER_SIZE({t}, {m.path}),")
        lines.append("};")
    lines.append("")
    lines.append("/* Vectors. Members not named here, and padding, are zero. */")
    for i, vec in enumerate(vectors):
        lines.append(f"/* {vec.name} */")
        lines.append(f"ABIV_DATA const {vec.layout.c_type} {SYMBOL_PREFIX}vector_{i} = {{")
        for m in vec.layout.members:
            if m.path in vec.values:
                lines.append(f"  {c_designator(m)} = {c_value(m, vec.values[m.path])},")
        lines.append("};")
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Compiling and reading the object file


def run(cmd, cwd=None):
    try:
        proc = subprocess.run(cmd, cwd=cwd, check=False, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit(f"error: {cmd[0]} not found (see tools/abi-vectors/README.md for the packages)")
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def compile_and_read(abi, source, work):
    c_file = work / f"abi-vectors-{abi.name}.c"
    obj = work / f"abi-vectors-{abi.name}.o"
    blob_file = work / f"abi-vectors-{abi.name}.bin"
    c_file.write_text(source)
    run([abi.tool("gcc"), "-std=gnu11", "-O0", "-Wall", "-Wextra", "-Werror",
         "-c", c_file.name, "-o", obj.name], cwd=work)

    # Section table: "Idx Name Size VMA ...". COFF symbol entries refer to
    # sections by number, 1-based, i.e. Idx + 1.
    sections = {}
    for line in run([abi.tool("objdump"), "-h", str(obj)]).splitlines():
        m = re.match(r"\s*(\d+)\s+(\S+)\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s", line)
        if m:
            sections[m.group(2)] = (int(m.group(1)) + 1, int(m.group(3), 16), int(m.group(4), 16))
    if SECTION not in sections:
        sys.exit(f"error: no {SECTION} section in {obj.name}")
    sec_number, sec_size, sec_vma = sections[SECTION]
    require(sec_vma == 0, "section not at address 0 in the object file")

    relocs = run([abi.tool("objdump"), "-r", "-j", SECTION, str(obj)])
    if "RELOCATION RECORDS" in relocs:
        sys.exit(f"error: {SECTION} has relocations; its bytes are not final:\n{relocs}")

    # Symbol table lines look like
    # "[ 12](sec  4)(fl 0x00)(ty    0)(scl   2) (nx 0) 0x00000058 _abiv_vector_0".
    prefix = ("_" if abi.underscore else "") + SYMBOL_PREFIX
    symbols = {}
    for line in run([abi.tool("objdump"), "-t", str(obj)]).splitlines():
        m = re.match(r"\[\s*\d+\]\(sec\s+(-?\d+)\).*\s0x([0-9a-fA-F]+)\s+(\S+)$", line)
        if not m or not m.group(3).startswith(prefix):
            continue
        name = m.group(3)[len(prefix) - len(SYMBOL_PREFIX):]
        if int(m.group(1)) != sec_number:
            sys.exit(f"error: symbol {m.group(3)} is not in {SECTION}")
        require(name not in symbols, f"one symbol {name}")
        symbols[name] = int(m.group(2), 16)

    run([abi.tool("objcopy"), "-O", "binary", f"--only-section={SECTION}", str(obj), str(blob_file)])
    blob = blob_file.read_bytes()
    if len(blob) != sec_size:
        sys.exit(f"error: read {len(blob)} bytes of {SECTION}, objdump says {sec_size}")
    return symbols, blob


def symbol_bytes(symbols, blob, name, size):
    if name not in symbols:
        sys.exit(f"error: symbol {name} not found in the object file")
    start = symbols[name]
    if start + size > len(blob):
        sys.exit(f"error: symbol {name} runs past the end of {SECTION}")
    return blob[start:start + size]


def read_layouts(layouts, symbols, blob):
    """{layout name: (sizeof, {path: (offset, size)})} as the compiler sees it."""
    out = {}
    for lay in layouts:
        count = 1 + 2 * len(lay.members)
        raw = symbol_bytes(symbols, blob, f"{SYMBOL_PREFIX}layout_{c_ident(lay.name)}", 4 * count)
        nums = [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(count)]
        members = {}
        for i, m in enumerate(lay.members):
            members[m.path] = (nums[1 + 2 * i], nums[2 + 2 * i])
        out[lay.name] = (nums[0], members)
    return out


# ---------------------------------------------------------------------------
# Checks on what was read back


def check_layouts(layouts, compiled):
    for lay in layouts:
        size, members = compiled[lay.name]
        require(size == lay.size, f"{lay.name}: sizeof {size} != {lay.size}")
        for m in lay.members:
            require(members[m.path] == (m.offset, m.size),
                    f"{lay.name}.{m.path}: compiler {members[m.path]} != expected {(m.offset, m.size)}")


def encode(vec, compiled):
    """The bytes the vector must have, from its values and the compiler's
    offsets: every member given a value at its offset, zero elsewhere."""
    size, members = compiled[vec.layout.name]
    buf = bytearray(size)
    owner = [None] * size
    for m in vec.layout.members:
        if m.path not in vec.values:
            continue
        off, msize = members[m.path]
        raw = value_to_bytes(m, msize, vec.values[m.path])
        for i, b in enumerate(raw):
            require(owner[off + i] is None, f"{vec.name}: {m.path} overlaps {owner[off + i]}")
            owner[off + i] = m.path
            buf[off + i] = b
    return bytes(buf)


def check_guid_header_vs_event_trace(vectors, raw_by_vector):
    checked = 0
    for vec in vectors:
        source = vec.source
        if source is None:
            continue
        mine = raw_by_vector[id(vec)]
        theirs = raw_by_vector[id(source)]
        require(len(mine) == 0x48, f"{vec.name} is 0x48 bytes")
        require(mine == theirs[:0x48],
                f"{vec.name}: {mine.hex()} != first 0x48 bytes of {source.name} {theirs[:0x48].hex()}")
        checked += 1
    require(checked, "no EVENT_INSTANCE_GUID_HEADER vector was compared with EVENT_TRACE")
    return checked


# ---------------------------------------------------------------------------
# Output


def headers_version():
    out = run(["dpkg-query", "-W", "-f=${Version}", "mingw-w64-common"]).strip()
    if not out:
        sys.exit("error: dpkg-query gave no version for mingw-w64-common")
    return out


def generate(abi, work, headers):
    layouts = layouts_for(abi)
    vectors = vectors_for(abi, layouts)
    lint_vectors(vectors, layouts)

    symbols, blob = compile_and_read(abi, c_source(abi, layouts, vectors), work)
    compiled = read_layouts(layouts, symbols, blob)
    check_layouts(layouts, compiled)

    raw_by_vector = {}
    for i, vec in enumerate(vectors):
        size = compiled[vec.layout.name][0]
        raw = symbol_bytes(symbols, blob, f"{SYMBOL_PREFIX}vector_{i}", size)
        expected = encode(vec, compiled)
        require(raw == expected, f"{abi.name} {vec.name}:\n compiler {raw.hex()}\n expected {expected.hex()}")
        raw_by_vector[id(vec)] = raw
    guid_checks = check_guid_header_vs_event_trace(vectors, raw_by_vector)

    compiler = run([abi.tool("gcc"), "--version"]).splitlines()[0].strip()
    doc = {
        "abi": abi.triple,
        "compiler": compiler,
        "headers": f"mingw-w64 evntrace.h ({headers})",
        "layouts": {},
        "vectors": [],
    }
    for lay in layouts:
        size, members = compiled[lay.name]
        doc["layouts"][lay.name] = {
            "sizeof": size,
            "offsets": {m.path: members[m.path][0] for m in lay.members},
        }
    for vec in vectors:
        doc["vectors"].append({
            "name": vec.name,
            "layout": vec.layout.name,
            "c_type": vec.layout.c_type,
            "hex": raw_by_vector[id(vec)].hex(),
            "fields": vec.fields_json(),
        })
    return doc, guid_checks


def display_path(path):
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR,
                        help="where to write abi-vectors-<abi>.json (default: tests/data)")
    parser.add_argument("--keep-work", type=Path, default=None,
                        help="keep the generated C files and objects in this directory")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the files on disk differ from a fresh run")
    args = parser.parse_args()

    headers = headers_version()
    if args.keep_work:
        args.keep_work.mkdir(parents=True, exist_ok=True)
        work_ctx = None
        work = args.keep_work
    else:
        work_ctx = tempfile.TemporaryDirectory(prefix="abi-vectors-")
        work = Path(work_ctx.name)

    stale = []
    try:
        for abi in ABIS:
            doc, guid_checks = generate(abi, work, headers)
            text = json.dumps(doc, indent=2) + "\n"
            target = args.out_dir / f"abi-vectors-{abi.name}.json"
            shown = display_path(target)
            counts = {}
            for v in doc["vectors"]:
                counts[v["layout"]] = counts.get(v["layout"], 0) + 1
            summary = ", ".join(f"{k} {n}" for k, n in counts.items())
            if args.check:
                current = target.read_text(encoding="utf-8") if target.exists() else None
                state = "up to date" if current == text else "DIFFERS"
                if current != text:
                    stale.append(target)
                print(f"{shown}: {state}")
            else:
                args.out_dir.mkdir(parents=True, exist_ok=True)
                with open(target, "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
                print(f"wrote {shown}: {len(doc['vectors'])} vectors ({summary}); "
                      f"{guid_checks} guid-header/EVENT_TRACE byte checks passed")
    finally:
        if work_ctx is not None:
            work_ctx.cleanup()
    if stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
