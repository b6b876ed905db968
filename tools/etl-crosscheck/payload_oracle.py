"""What the two payload cross-checks (kernel_payloads.py, manifest_payloads.py) share: the
traces, dissect.etl's values in the form ours are written, whether two values say the same, and
the tally of a comparison in which the bytes decide every disagreement.

The rule both apply: every field dissect decodes is compared with ours by name; where they
disagree and dissect's struct covers fewer or more bytes than the event holds (while ours ends
exactly at the end of the data), dissect read another layout than the data's, and the
disagreement is counted as dissect's, with the event's bytes shown once per kind; a disagreement
on an event whose every byte dissect's struct covers is not explained, and fails the run.
"""

import uuid

from dissect.cstruct import Structure
from dissect.util.sid import read_sid

TRACES = ["SelfDescribingSingleEvent.etl", "gcevents.etl", "net.4.5.2.x64.etl",
          "net.4.5.2.x86.etl", "primitive-types.etl"]


def normalise(value):
    """dissect's value as plain Python: bytes, text, integers, floats, lists, a SID's text
    form, and any other structure (SYSTEMTIME) as a dict of its members."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [normalise(item) for item in value]
    if hasattr(value, "sid"):
        return read_sid(value.sid.dumps())
    if isinstance(value, Structure):
        return {name: normalise(getattr(value, name)) for name in type(value).fields}
    return repr(value)


def _text_agrees(mine, theirs):
    """Our text against dissect's bytes: 8-bit text (UTF-8 when it is, else Latin-1, as
    `decode/src/render.rs` writes it), binary as hex, or a GUID, which dissect leaves as its 16
    bytes."""
    text = theirs.split(b"\0", 1)[0] if b"\0" in theirs else theirs
    try:
        utf8 = text.decode("utf-8")
    except UnicodeDecodeError:
        utf8 = None
    return (mine in (utf8, text.decode("latin-1"), theirs.rstrip(b"\0").decode("latin-1"), theirs.hex())
            or (len(theirs) == 16 and mine == str(uuid.UUID(bytes_le=theirs))))


def _number_agrees(mine, theirs):
    """Our text of a number against dissect's number: `0x` and hex digits (pointers, HEXINT,
    error codes) or an IPv4 address's dotted quad (the bytes in the order stored)."""
    if mine.lower().startswith("0x"):
        try:
            return int(mine, 16) == theirs
        except ValueError:
            return False
    parts = mine.split(".")
    if len(parts) == 4 and all(part.isdigit() for part in parts) and 0 <= theirs < 1 << 32:
        return [int(part) for part in parts] == list(theirs.to_bytes(4, "little"))
    return False


def agree(mine, theirs):
    """Whether our JSON value and dissect's normalised value say the same, representation
    aside: a map's `{"value", "name"}` by its number, booleans against the number stored,
    numbers written as hex text, GUIDs in either case, SYSTEMTIME members against our text, a
    one-element array against a single value."""
    if isinstance(mine, dict) and "value" in mine:
        return agree(mine["value"], theirs)
    if isinstance(theirs, bytes):
        return isinstance(mine, str) and _text_agrees(mine, theirs)
    if isinstance(theirs, list):
        return isinstance(mine, list) and len(theirs) == len(mine) and all(
            agree(a, b) for a, b in zip(mine, theirs))
    if isinstance(mine, list) and len(mine) == 1:
        # An array the data sizes to one element, which dissect (ignoring `count`) reads as a
        # single value from the same bytes.
        return agree(mine[0], theirs)
    if isinstance(theirs, dict) and isinstance(mine, str) and "wYear" in theirs:
        return mine == ("{wYear:04}-{wMonth:02}-{wDay:02}T{wHour:02}:{wMinute:02}:{wSecond:02}"
                        ".{wMilliseconds:03}".format(**theirs))
    if isinstance(mine, bool) and isinstance(theirs, int):
        return mine == (theirs != 0)
    if isinstance(mine, str) and isinstance(theirs, int):
        return _number_agrees(mine, theirs)
    if isinstance(mine, str) and isinstance(theirs, str):
        return mine.lower() == theirs.lower() if _is_guid(mine) else mine == theirs
    return mine == theirs


def _is_guid(text):
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return len(text) == 36


def problem_of(field, mine, theirs, left=0):
    """What a disagreement on `field` is, in words (`left`: the bytes our schema leaves)."""
    if isinstance(mine, list) and not isinstance(theirs, list) and mine and agree(mine[0], theirs):
        if left:
            return (f"`{field}`: dissect reads one value, our schema {len(mine)} and leaves {left} "
                    f"bytes after its last field")
        return f"`{field}`: dissect reads one value, the data holds {len(mine)}"
    return f"`{field}`: ours {mine!r}, dissect's {theirs!r}"


class Tally:
    """One comparison's counts: events, fields dissect decodes, those that agree, the
    disagreements counted as dissect's (by kind, with the first one's bytes), the events dissect
    cannot decode (by reason) and the disagreements the bytes do not explain (`failures`)."""

    def __init__(self):
        self.events = 0
        self.compared = 0
        self.agreeing = 0
        self.dissects = {}
        self.cannot = {}

    def cannot_decode(self, reason, count=1):
        self.cannot[reason] = self.cannot.get(reason, 0) + count

    def fields(self, label, ours, theirs, struct_len, data, failures, where, lookup=None, left=0):
        """Compares dissect's fields `theirs` (name to normalised value) with `ours` (name to
        our JSON value); `struct_len` is how many bytes dissect's struct covers, `data` the
        event's data in hex; `lookup(ours, name)` finds our value of dissect's field (by default
        the same name, or the same but for case). Unexplained disagreements go to `failures`,
        each prefixed with `where`.

        `left` is how many bytes our schema leaves after its last field (a schema that says less
        than the data holds). Then our fields do not reach the end of the data either, and a
        disagreement is dissect's only where its struct covers fewer bytes than our fields do."""
        lookup = lookup or find_field
        data_len = len(data) // 2
        explained = struct_len != data_len if not left else struct_len < data_len - left
        self.events += 1
        for field, value in theirs.items():
            self.compared += 1
            known, mine = lookup(ours, field)
            if not known:
                problem = f"dissect's field `{field}` is not one of ours"
            elif agree(mine, value):
                self.agreeing += 1
                continue
            else:
                problem = problem_of(field, mine, value, left)
            if explained:
                side = "fewer" if struct_len < data_len else "more"
                kind = f"{label}: dissect's struct covers {side} bytes than the data"
                first = self.dissects.setdefault(
                    kind, [0, f"{problem}; dissect's struct {struct_len} bytes, the data "
                              f"{data_len}", data])
                first[0] += 1
            else:
                failures.append(f"{where} {label}: {problem}; data {data}")

    def print(self, indent="    "):
        for kind, (count, problem, data) in sorted(self.dissects.items()):
            print(f"{indent}dissect's layout: {kind} ({count} fields differ), e.g. {problem}: "
                  f"{data[:160]}{'...' if len(data) > 160 else ''}")
        for reason, count in sorted(self.cannot.items()):
            print(f"{indent}dissect cannot decode {count}: {reason}")


def find_field(fields, name):
    """Our value of dissect's field `name`: the same name, or the same but for case."""
    if name in fields:
        return True, fields[name]
    for ours_name, value in fields.items():
        if ours_name.lower() == name.lower():
            return True, value
    return False, None
