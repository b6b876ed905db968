#!/usr/bin/env python3
"""Compare the fields `etwc etl --json` decodes for EVENT_HEADER events with dissect.etl's
decoding of the same events through the provider manifests it ships, on the PerfView traces.

For every trace, `etwc etl TRACE --json` (no --manifest: our schemas come from the trace itself,
its EventInfo events and EventSource manifests) gives every event's buffer, offset, provider,
event descriptor, `fields` and `data`. Every EVENT_HEADER event whose provider has a manifest in
dissect.etl (`dissect/etl/manifests/xml/{GUID}.xml`, compiled at run time by
`dissect.etl.manifest.lookup`, never copied) is a candidate; the first N (`--per-key`, 25 by
default) of each (provider, id, version) are compared. Those the trace has no schema for
(gcevents.etl's CLR events) are read again with `--manifest ../shared/data/schemas/ClrEtwAll.man`
(`--manifest`); those it still has none for are listed. dissect reads the event at the same
buffer and offset (`ETL.buffer(index).read_record(offset)`), and its manifest's template for the
event's id and version (`EVENTS[(Id, Version)].template`) reads the user data. Every field the
template decodes is compared with ours by name (payload_oracle.agree: numbers against our hex
text, a map's value by its number, booleans, GUIDs, SYSTEMTIME, a one-element array against a
single value), and every disagreement is decided by the bytes as kernel_payloads.py decides it:
when dissect's struct covers fewer or more bytes than the event's data, it read another layout
than the data's, and the disagreement is counted as dissect's with the bytes shown once per
kind; otherwise it fails the run. An event our schema does not fit (an error in a field) fails
the run too; one neither the trace nor ClrEtwAll.man describes is listed (we have no layout to
read it by). Where our schema says less than the data holds
(`CLRStackWalk`'s `Stack count="2"`, docs/PAYLOADS.md) the bytes left are listed, and a
disagreement there is dissect's only if its struct covers fewer bytes than our fields.

dissect's own `EventRecord.event` decodes none of these events, for reasons of its own, which
the script steps around (and reports) so that its manifests can be compared at all:
- it builds an EVENT_HEADER's provider GUID big-endian (`UUID(bytes=ProviderId)`, in
  headers/event.py), a GUID no manifest has; the script reads the same 16 header bytes
  little-endian (as crosscheck.py does) and prints the first event's bytes and both readings;
- it picks the template by (Opcode, Version) (etl.py, `Event.__init__`), while a manifest's
  events are keyed by id: the script takes (Id, Version), and counts the events for which
  dissect's key would give another event's template or none;
- its `EtwPointer.as_32bit` lacks `@classmethod` (manifest.py), so a 32-bit event raises
  TypeError: the script calls it with the class;
- it reads the template from the first byte after the header, extended items included: the
  script starts after the extended items, up to the one whose Linkage bit is 0, and checks that
  these are the bytes we call `data`.
A manifest dissect's generator cannot compile whole (its type table has no `AnsiString`,
`Binary`, `FILETIME`) is compiled again without the templates holding such a type; their events,
and events whose id and version its manifest has no template for, are counted by reason.

Usage: manifest_payloads.py [--etwc PATH] [--perfview DIR] [--per-key N] [--manifest PATH]
The binary defaults to target/release/etwc (cargo build --release -p etw-classic-cli). Exits 1
on a disagreement the bytes do not explain or on an event our schema does not fit, 2 when something is
missing. Needs dissect.etl (pip install dissect.etl==3.14).
"""

import argparse
import io
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

try:
    from dissect.etl import manifest
    from dissect.etl.etl import ETL
    from dissect.etl.headers.event import EventHeader
    from defusedxml import ElementTree
except ImportError:
    print("manifest_payloads: dissect.etl is not installed (pip install dissect.etl==3.14)", file=sys.stderr)
    sys.exit(2)

from payload_oracle import TRACES, Tally, normalise

ROOT = Path(__file__).resolve().parents[2]
EXTENDED_INFO = 0x0001  # EVENT_HEADER_FLAG_EXTENDED_INFO
PROVIDER_ID = '"provider_id":"'
EVENTS_NS = "{http://schemas.microsoft.com/win/2004/08/events}"


class Manifests:
    """dissect's compiled manifest of each provider GUID, or why it has none.

    dissect's generator stops at the first field whose type its table does not map (`KeyError:
    'AnsiString'`, 'Binary', 'FILETIME'), losing the whole provider for one template. Such a
    manifest is compiled again by the same generator (`manifest.compile_xml`) from its text
    (read through the package at run time) without the templates holding such a type and the
    events using them; those events are counted as ones dissect has no type for."""

    def __init__(self):
        self.modules = {}

    def get(self, guid):
        """(module, problem, {(id, version): why dissect has no template}) of `guid`."""
        if guid not in self.modules:
            try:
                self.modules[guid] = (manifest.lookup(uuid.UUID(guid)), None, {})
            except manifest.ManifestNotFoundError:
                self.modules[guid] = (None, None, {})
            except Exception as error:  # dissect's own failures
                self.modules[guid] = self.reduced(guid, f"{type(error).__name__}: {error}")
        return self.modules[guid]

    @staticmethod
    def reduced(guid, problem):
        text = manifest.get_resource_string(f"manifests/xml/{{{guid}}}.xml")
        root = ElementTree.fromstring(text)
        unmapped = {}
        for parent in list(root.iter()):
            for template in [child for child in parent if child.tag == f"{EVENTS_NS}template"]:
                types = sorted({field.get("inType", ":").split(":")[1] for field in template
                                if not mapped(field.get("inType", ":").split(":")[1])})
                if types:
                    unmapped[template.get("tid")] = types
                    parent.remove(template)
        missing = {}
        for parent in list(root.iter()):
            for event in [child for child in parent if child.tag == f"{EVENTS_NS}event"]:
                types = unmapped.get(event.get("template"))
                if types:
                    key = (int(event.get("value"), 0), int(event.get("version", "0"), 0))
                    missing[key] = f"its template {event.get('template')} holds {', '.join(types)}, a type dissect does not map"
                    parent.remove(event)
        try:
            module = manifest.compile_xml(uuid.UUID(guid), ElementTree.tostring(root, encoding="unicode"))
        except Exception as error:  # dissect's own failures
            return None, f"its manifest does not compile: {problem}; without those templates: {type(error).__name__}: {error}", {}
        return module, None, missing


def mapped(in_type):
    """Whether dissect's generator (manifest.generate_from_xml) has a type for `in_type`."""
    return in_type.lower() in manifest.c_parser.typedefs or (
        in_type in manifest.FIELD_MAP and in_type != "Struct")


def etwc_lines(etwc, path, options=()):
    """The lines of `etwc etl PATH --json` and the options, as they come."""
    command = [etwc, "etl", str(path), "--json", *options]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        yield from process.stdout
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)


def ours(etwc, path, per_key, manifests):
    """The events to compare ({(buffer, offset): line}), and per provider GUID the number of
    EVENT_HEADER events, dissect's name of the provider, and why it has no usable manifest."""
    wanted, per_event, providers = {}, {}, {}
    for line in etwc_lines(etwc, path):
        start = line.find(PROVIDER_ID)
        if start < 0:
            continue
        guid = line[start + len(PROVIDER_ID):start + len(PROVIDER_ID) + 36]
        module, problem, _ = manifests.get(guid)
        entry = providers.setdefault(guid, [0, None, problem])
        entry[0] += 1
        if module is None:
            continue
        event = json.loads(line)
        entry[1] = module.PROVIDER_NAME
        descriptor = event["event_descriptor"]
        key = (guid, descriptor["id"], descriptor["version"])
        per_event[key] = per_event.get(key, 0) + 1
        if per_event[key] <= per_key:
            wanted[(event["buffer"], event["offset"])] = event
    return wanted, providers


def with_manifest(etwc, path, wanted, manifest_path):
    """Replaces the events of `wanted` the trace has no schema for by the same events read with
    `--manifest manifest_path`; returns how many were replaced."""
    unschemed = {f'{{"buffer":{key[0]},"offset":{key[1]},': key for key, event in wanted.items()
                 if event.get("fields") is None and (event.get("undecoded") or "").startswith("no schema")}
    if not unschemed or not manifest_path:
        return 0
    for line in etwc_lines(etwc, path, ["--manifest", str(manifest_path)]):
        key = unschemed.get(line[:line.find('"kind"')])
        if key is not None:
            wanted[key] = json.loads(line)
            wanted[key]["schema_from"] = Path(manifest_path).name
    return sum(1 for key in unschemed.values() if "schema_from" in wanted[key])


def user_data(header):
    """The event's user data as dissect reads it: its payload after the extended items, up to
    the one whose Linkage bit (dissect's `reserved1`) is 0, when Flags has EXTENDED_INFO; None
    when dissect's items end before that one."""
    payload = bytes(header.payload)
    if not header.header.Flags & EXTENDED_INFO:
        return payload
    used = 0
    for item in header.header_extensions:
        used += item.size
        if not item.reserved1 & 1:
            return payload[used:]
    return None


def set_pointer_size(module, is_64bit):
    """What dissect's `parse_payload` does before decoding, its `as_32bit` called with the class
    (it lacks `@classmethod`)."""
    pointer, sid = module.c_parser.EtwPointer, module.c_parser.UserSID_blob
    if is_64bit:
        pointer.as_64bit()
        sid.as_64bit()
    else:
        pointer.as_32bit(pointer)
        sid.as_32bit()


def compare(path, wanted, manifests, failures):
    """{provider name: Tally} of the events in `wanted`, and dissect's own keying notes."""
    tallies, notes = {}, {"opcode_key": {}, "guid": None, "unschemed": {}, "short": {}}
    with open(path, "rb") as fh:
        etl = ETL(fh)
        for (buffer, offset), event in sorted(wanted.items()):
            where = f"{path.name} ({buffer}, {offset})"
            header = etl.buffer(buffer).read_record(offset).header
            if not isinstance(header, EventHeader):
                failures.append(f"{where}: dissect reads a {type(header).__name__} where we read {event['kind']}")
                continue
            raw = header.header
            guid = str(uuid.UUID(bytes_le=bytes(raw.ProviderId)))
            if guid != event["provider_id"]:
                failures.append(f"{where}: dissect's header holds provider {guid}, ours {event['provider_id']}")
                continue
            if notes["guid"] is None and str(header.provider_id) != guid:
                notes["guid"] = (bytes(raw.ProviderId).hex(), str(header.provider_id), guid)
            module, _, missing = manifests.get(guid)
            tally = tallies.setdefault(module.PROVIDER_NAME, Tally())
            label = (f"{event['event_name']} (id {raw.Id}) v{raw.Version}" if event.get("event_name")
                     else f"id {raw.Id} v{raw.Version}")
            template = module.EVENTS.get((raw.Id, raw.Version))
            theirs_key = module.EVENTS.get((raw.OpCode, raw.Version))
            if theirs_key is not template:
                named = "another event's template" if theirs_key else "no template"
                notes["opcode_key"][named] = notes["opcode_key"].get(named, 0) + 1
            if template is None:
                why = missing.get((raw.Id, raw.Version), "its manifest has no template for this id and version")
                tally.cannot_decode(f"{label}: {why}")
                continue
            data = user_data(header)
            if data is None:
                tally.cannot_decode(f"{label}: its extended items end before the last one")
                continue
            if data.hex() != event["data"]:
                failures.append(f"{where} {label}: dissect's user data {data.hex()}, ours {event['data']}")
                continue
            if event.get("fields") is None and (event.get("undecoded") or "").startswith("no schema"):
                unschemed = notes["unschemed"].setdefault(module.PROVIDER_NAME, {})
                unschemed[label] = unschemed.get(label, 0) + 1
                continue
            if event.get("fields") is None or "fields_error" in event:
                failures.append(f"{where} {label}: we do not decode it: "
                                f"{event.get('undecoded') or event.get('fields_error')}")
                continue
            left = event.get("fields_left") or 0
            if left:
                short = notes["short"].setdefault(module.PROVIDER_NAME, {})
                short[label] = short.get(label, 0) + 1
            set_pointer_size(module, header.is_64bit)
            stream = io.BytesIO(data)
            try:
                struct = template.template(stream)
            except Exception as error:  # dissect's own failures, counted by reason
                tally.cannot_decode(f"{label}: {type(error).__name__}: {error}"[:110])
                continue
            theirs = {name: normalise(getattr(struct, name)) for name in type(struct).fields}
            tally.fields(label, event["fields"], theirs, stream.tell(), event["data"], failures, where,
                         left=left)
    return tallies, notes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--etwc", default=str(ROOT / "target/release/etwc"))
    parser.add_argument("--perfview", default=os.environ.get(
        "ETW_PERFVIEW_DIR", str(ROOT.parent / "shared/data/perfview")))
    parser.add_argument("--per-key", type=int, default=25)
    parser.add_argument("--manifest", default=str(ROOT.parent / "shared/data/schemas/ClrEtwAll.man"),
                        help="read with this manifest the events a trace has no schema for "
                             "(the .NET runtime's; '' for none)")
    args = parser.parse_args()
    if not Path(args.etwc).exists():
        print(f"manifest_payloads: {args.etwc} is missing (cargo build --release -p etw-classic-cli)",
              file=sys.stderr)
        return 2
    if args.manifest and not Path(args.manifest).exists():
        print(f"manifest_payloads: {args.manifest} is missing", file=sys.stderr)
        return 2
    started = time.monotonic()
    manifests = Manifests()
    failures = []
    totals = [0, 0, 0]
    for name in TRACES:
        path = Path(args.perfview) / name
        if not path.exists():
            print(f"manifest_payloads: {path} is missing", file=sys.stderr)
            return 2
        wanted, providers = ours(args.etwc, path, args.per_key, manifests)
        replaced = with_manifest(args.etwc, path, wanted, args.manifest)
        tallies, notes = compare(path, wanted, manifests, failures)
        print(f"{name}: {sum(count for count, _, _ in providers.values())} EVENT_HEADER events, "
              f"{len(wanted)} of providers with a dissect.etl manifest compared"
              + (f" ({replaced} read with --manifest {Path(args.manifest).name}: the trace has no schema "
                 f"for them)" if replaced else ""))
        for provider, tally in sorted(tallies.items()):
            print(f"  {provider}: {tally.events} events, {tally.compared} fields dissect decodes, "
                  f"{tally.agreeing} agree")
            tally.print()
            for label, count in sorted(notes["short"].get(provider, {}).items()):
                print(f"    our schema says less than the data holds in {count}: {label} (bytes left "
                      f"after its last field, docs/PAYLOADS.md)")
            for label, count in sorted(notes["unschemed"].get(provider, {}).items()):
                print(f"    we have no schema for {count}: {label}")
            totals[0] += tally.events
            totals[1] += tally.compared
            totals[2] += tally.agreeing
        for guid, (count, provider, problem) in sorted(providers.items()):
            if problem:
                print(f"  {guid}: {count} events not compared, {problem}")
        without = sorted(guid for guid, (_, provider, problem) in providers.items()
                         if provider is None and problem is None)
        if without:
            print(f"  no manifest in dissect.etl: {', '.join(without)}")
        if notes["guid"]:
            stored, big, little = notes["guid"]
            print(f"  dissect's own record.event: ProviderId bytes {stored} read big-endian as "
                  f"{big} (no manifest), little-endian {little}")
        if notes["opcode_key"]:
            print("  dissect's own (Opcode, Version) key would give " + ", ".join(
                f"{named} for {count}" for named, count in sorted(notes["opcode_key"].items()))
                  + f" of the {len(wanted)} events")
    print(f"all traces: {totals[0]} events, {totals[1]} fields dissect decodes, {totals[2]} agree, "
          f"{len(failures)} unexplained ({time.monotonic() - started:.1f} s)")
    for failure in failures:
        print(f"DIFFERENCE {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
