"""The meaning of the events: names, process names and decoded fields checked against PerfView's
own test baselines (src/TraceEvent/TraceEvent.Tests/inputs/*.baseline.txt, which list sample
events with their field values, and COUNT lines per event name) and the .NET runtime's
ClrEtwAll.man; `manifest=` and `mof=` as etwc's --manifest and --mof; their errors."""

import collections
import itertools
import os
from pathlib import Path

import pytest

import etw_classic
from conftest import etwc, etwc_lines, schema, trace
from test_reader import assert_same, cli_message

CLR_PROVIDER = "Microsoft-Windows-DotNETRuntime"

# A manifest for the .NET runtime's provider (its GUID, e13c0d23-..., from ClrEtwAll.man) that
# describes GC/CreateSegment (event 5 version 1: Address u64, Size u64, Type u32, ClrInstanceID
# u16) with fields named like the keys whose hex is bytes in the event's headers.
NAMED_LIKE_HEADERS = """\
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Renamed-Runtime" guid="{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}">
   <tasks><task name="Segments" value="1"/></tasks>
   <templates>
    <template tid="Named">
     <data name="data" inType="win:Binary" length="8"/>
     <data name="bytes" inType="win:Binary" length="8"/>
     <data name="padding" inType="win:UInt32"/>
     <data name="ClrInstanceID" inType="win:UInt16"/>
    </template>
   </templates>
   <events><event value="5" version="1" task="Segments" opcode="win:Info" template="Named"/></events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>
"""


def named(reader, event_name):
    return [event for event in reader if event["event_name"] == event_name]


def test_primitive_types_tracelogging_fields():
    # primitive-types.baseline.txt: 5 solar_system/PrimitiveTypesTest events, the first
    # "string_type=Mercury; ... int16_type=-51; int32_type=-102; uint16_type=51;
    # uint32_type=102; ... uint64_type=204".
    with etw_classic.open(trace("primitive-types.etl")) as reader:
        events = named(reader, "PrimitiveTypesTest")
    assert [event["fields"]["string_type"] for event in events] == [
        "Mercury", "Venus", "Earth", "Mars", "Jupiter"]
    first = events[0]
    assert first["provider_name"] == "solar_system"
    assert first["process_id"] == 33984 and first["thread_id"] == 21768
    fields = first["fields"]
    assert fields["string_type"] == "Mercury"
    assert (fields["int16_type"], fields["int32_type"]) == (-51, -102)
    assert (fields["uint16_type"], fields["uint32_type"], fields["uint64_type"]) == (51, 102, 204)
    assert fields["boolean_type"] is False
    assert fields["guid_type"].startswith("0ad614c4-0ef4-4225-8")
    assert "fields_error" not in first and "fields_left" not in first
    assert "undecoded" not in first


def test_allocation_tick_from_the_trace_and_from_the_manifest():
    # net.4.5.2.x64.baseline.txt: "Microsoft-Windows-DotNETRuntime/GC/AllocationTick PID=3988;
    # TID=3992; PName=PerfView; ProceNum=6; ... AllocationAmount=107,620; AllocationKind=Small;
    # ClrInstanceID=11; AllocationAmount64=107,620; TypeID=0x08c3d188;
    # TypeName=System.Windows.Media...; HeapIndex=0; Address=0x1118b854".
    path = trace("net.4.5.2.x64.etl")

    def tick(reader):
        return next(event for event in reader if event["provider_name"] == CLR_PROVIDER
                    and (event["fields"] or {}).get("AllocationAmount") == 107620)

    with etw_classic.open(path, manifest=schema("ClrEtwAll.man")) as reader:
        from_manifest = tick(reader)
    # Without the manifest, the trace's own descriptions (its MetaData/EventInfo events) name
    # the event by the task and opcode names of ClrEtwAll.man's <task name="GarbageCollection">
    # and <opcode name="GCAllocationTick">, and so does the manifest; their messages, which
    # PerfView shows, are "GC" and "AllocationTick".
    with etw_classic.open(path) as reader:
        from_trace = tick(reader)
    assert (from_trace["buffer"], from_trace["offset"]) == (
        from_manifest["buffer"], from_manifest["offset"])
    for event in (from_manifest, from_trace):
        assert event["event_name"] == "GarbageCollection/GCAllocationTick"
        assert (event["task_name"], event["opcode_name"]) == (
            "GarbageCollection", "GCAllocationTick")
    for event in (from_manifest, from_trace):
        assert event["provider_name"] == CLR_PROVIDER
        assert (event["process_id"], event["thread_id"], event["processor"]) == (3988, 3992, 6)
        assert event["process_name"] == "PerfView"
        fields = event["fields"]
        assert fields["AllocationKind"] == {"value": 0, "name": "Small"}
        assert fields["ClrInstanceID"] == 11
        assert fields["AllocationAmount64"] == 107620
        assert fields["TypeID"] == "0x08c3d188"
        assert fields["TypeName"].startswith("System.Windows.Media")
        assert fields["HeapIndex"] == 0
        assert fields["Address"] == "0x1118b854"


def test_process_names():
    # net.4.5.2.x64.baseline.txt names process 3988 PerfView; the trace names it in its kernel
    # Process events, which the first pass reads before any event is handed out.
    names = collections.Counter()
    with etw_classic.open(trace("net.4.5.2.x64.etl")) as reader:
        for event in reader:
            if event.get("process_id") == 3988:
                names[event["process_name"]] += 1
    assert list(names) == ["PerfView"]
    assert names["PerfView"] > 30000


def test_gc_create_segment_with_the_runtime_manifest():
    # gcevents.baseline.txt: "COUNT Microsoft-Windows-DotNETRuntime/GC/CreateSegment:7", the
    # second "Address=0x1b0f3000028; Size=0x003fffd8; Type=SmallObjectHeap; ClrInstanceID=8".
    # The manifest names the event by its <task name="GarbageCollection"> and
    # <opcode name="GCCreateSegment"> (PerfView prints their messages, GC and CreateSegment).
    path = trace("gcevents.etl")
    manifest = schema("ClrEtwAll.man")
    with etw_classic.open(path) as reader:
        assert named(reader, "GarbageCollection/GCCreateSegment") == []
    for given in (manifest, str(manifest), [manifest], (str(manifest),)):
        with etw_classic.open(path, manifest=given) as reader:
            segments = named(reader, "GarbageCollection/GCCreateSegment")
        assert len(segments) == 7
        second = segments[1]
        assert second["provider_name"] == CLR_PROVIDER
        assert (second["task_name"], second["opcode_name"]) == (
            "GarbageCollection", "GCCreateSegment")
        assert second["fields"] == {
            "Address": 0x1b0f3000028,
            "Size": 0x003fffd8,
            "Type": {"value": 0, "name": "SmallObjectHeap"},
            "ClrInstanceID": 8,
        }


def test_fields_named_like_hex_keys_stay_strings(tmp_path):
    # The second GC/CreateSegment of gcevents.etl (Address=0x1b0f3000028; Size=0x003fffd8 in
    # the baseline) read through a manifest whose fields are named data, bytes and padding:
    # the fields hold hex strings of the little-endian values, while the event's own `data`
    # (its payload) is bytes.
    path = trace("gcevents.etl")
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "named.man").write_text(NAMED_LIKE_HEADERS)
    for given in (folder / "named.man", folder):  # a file, or a folder of them
        with etw_classic.open(path, manifest=given) as reader:
            segments = [event for event in reader if event["provider_name"] == "Renamed-Runtime"]
        assert len(segments) == 7
        second = segments[1]
        assert second["fields"] == {
            "data": (0x1b0f3000028).to_bytes(8, "little").hex(),
            "bytes": (0x003fffd8).to_bytes(8, "little").hex(),
            "padding": 0,
            "ClrInstanceID": 8,
        }
        assert second["data"] == (0x1b0f3000028).to_bytes(8, "little") + \
            (0x003fffd8).to_bytes(8, "little") + bytes(4) + (8).to_bytes(2, "little")
    status, out, err = etwc("etl", path, "--json", "--manifest", folder / "named.man")
    assert status == 0, err
    lines = out.splitlines()[1:]
    with etw_classic.open(path, manifest=[folder / "named.man"]) as reader:
        events = list(reader)
    assert len(events) == len(lines) > 0
    for event, line in zip(events, lines):
        assert_same(event, line)


@pytest.mark.parametrize("order", ["file", "time"])
def test_manifest_and_mof_equal_etwc(order):
    # The kernel's MOF classes and the runtime's manifest given both ways: the same events as
    # `etwc etl --json --manifest M --mof F` (compared on the first buffers).
    path = trace("net.4.5.2.x64.etl")
    manifest = schema("ClrEtwAll.man")
    mof = schema("kerneltraceeventparser.mof")
    lines = etwc_lines("etl", path, "--json", "--order", order, "--manifest", manifest,
                       "--mof", mof)
    next(lines)
    compared = 0
    with etw_classic.open(path, order=order, manifest=[manifest], mof=os.fspath(mof)) as reader:
        for event, line in zip(itertools.islice(reader, 20000), lines):
            assert_same(event, line)
            compared += 1
    assert compared == 20000


def test_manifest_error(tmp_path):
    # A provider element left open: the error names the file and the line where XML fails.
    bad = tmp_path / "bad.man"
    bad.write_text(NAMED_LIKE_HEADERS.replace("  </provider>\n", ""))
    path = trace("primitive-types.etl")
    with pytest.raises(etw_classic.EtlError) as raised:
        etw_classic.open(path, manifest=bad)
    status, _, err = etwc("etl", path, "--json", "--manifest", bad)
    assert status == 1
    assert str(raised.value) == cli_message(err)
    assert str(raised.value).startswith(f"{bad}:14:")
    assert isinstance(raised.value, ValueError)


def test_missing_manifest(tmp_path):
    absent = tmp_path / "absent.man"
    path = trace("primitive-types.etl")
    with pytest.raises(etw_classic.EtlError) as raised:
        etw_classic.open(path, manifest=[absent])
    assert str(raised.value) == cli_message(etwc("etl", path, "--manifest", absent)[2])
    assert str(raised.value).startswith(f"cannot read {absent}: ")


def test_bad_manifest_and_mof_arguments():
    path = trace("primitive-types.etl")
    with pytest.raises(TypeError, match=r"^manifest: expected a path \(str or os.PathLike\) or "
                                        r"a list of paths, found int$"):
        etw_classic.open(path, manifest=5)
    with pytest.raises(TypeError, match=r"^mof\[1\]: expected a path \(str or os.PathLike\), "
                                        r"found NoneType$"):
        etw_classic.open(path, mof=[Path("a.mof"), None])
    with etw_classic.open(path, manifest=None, mof=[]) as reader:
        assert len(named(reader, "PrimitiveTypesTest")) == 5
