"""etw_classic against etwc on the PerfView traces: the same events with the same keys and values
as `etwc etl --json` (hex there, bytes here; names and decoded fields alike), the same counts as `etwc etl --summary --json`, the
same logfile header, and the same messages for files that are not .etl files or are damaged."""

import csv
import importlib.util
import io
import itertools
import json
import resource
import shutil
import warnings
from datetime import datetime, timedelta, timezone

import pytest

import etw_classic
from conftest import REPO, etwc, etwc_lines, trace

SMALL = ["SelfDescribingSingleEvent.etl", "gcevents.etl", "primitive-types.etl"]
LARGE = ["net.4.5.2.x64.etl", "net.4.5.2.x86.etl"]
# The large traces are compared event by event on their first buffers only (the counts cover
# every event): these hold compressed buffers, EVENT_HEADER events with stack traces, and
# 64-bit values up to 2**64 - 1 (a keyword of all ones in buffer 16 or 17, kernel addresses in
# the stack items of buffer 18 or 19).
LARGE_BUFFERS = 24
# The keys whose hex strings in etwc's JSON are bytes in the dicts (not in an event's decoded
# `fields`, which are as the JSON gives them, whatever their names).
HEX_KEYS = ("data", "bytes", "padding")


def as_bytes(value, key=None):
    """etwc's parsed JSON with its hex strings as bytes, as etw_classic gives them."""
    if isinstance(value, dict):
        return {name: as_bytes(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [as_bytes(item) for item in value]
    if key in HEX_KEYS and isinstance(value, str):
        return bytes.fromhex(value)
    return value


# The keys the dicts add after those of etwc's JSON line: the event's `provider`; the logfile
# header's times as dates.
ADDED_EVENT_KEYS = ("provider",)
ADDED_HEADER_KEYS = ("start_time", "end_time", "boot_time")


def as_datetime(text):
    """etwc's ISO 8601 UTC time (seven fractional digits, 100 ns) as the timezone-aware
    datetime etw_classic gives: the digits past the microsecond dropped."""
    assert text.endswith("Z") and text[19] == "." and len(text) == 28, text
    return datetime.strptime(text[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)


def filetime_datetime(filetime):
    """A FILETIME as a datetime by Python's own calendar: 1601-01-01 UTC plus its 100 ns
    intervals, truncated to microseconds."""
    return datetime(1601, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=filetime // 10)


def as_event(line):
    """etwc's JSON line parsed as etw_classic gives it: hex as bytes, except in `fields`; the
    event's `time` as a datetime."""
    event = {name: item if name == "fields" else as_bytes(item, name)
             for name, item in json.loads(line).items()}
    if isinstance(event.get("time"), str):
        event["time"] = as_datetime(event["time"])
    return event


def assert_same(ours, line):
    """Our dict equals etwc's JSON line: the same keys in the same order (at every depth), the
    same values, bytes where the line has hex, and ints (never floats) for every number; then
    the keys the dicts add, checked apart (`provider`, the header's dates)."""
    theirs = as_event(line)
    added = ADDED_HEADER_KEYS if theirs.get("kind") == "LOGFILE_HEADER" else ADDED_EVENT_KEYS
    assert list(ours)[len(ours) - len(added):] == list(added)
    ours = {key: value for key, value in ours.items() if key not in added}
    assert ours == theirs
    same_shape(ours, theirs, [])


def same_shape(ours, theirs, path):
    assert type(ours) is type(theirs), (path, ours, theirs)
    if isinstance(ours, dict):
        assert list(ours) == list(theirs), path
        for key in ours:
            same_shape(ours[key], theirs[key], path + [key])
    elif isinstance(ours, list):
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            same_shape(mine, other, path + [index])


def events_until_error(reader):
    """Every event the reader hands out, and the EtlError it ends with (None if it ends well)."""
    events = []
    try:
        for event in reader:
            events.append(event)
    except etw_classic.EtlError as error:
        return events, error
    return events, None


def cli_message(stderr):
    """etwc's error message, without its `etwc: ` prefix."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("etwc: "), stderr
    return lines[0][len("etwc: "):]


@pytest.mark.parametrize("name", SMALL + LARGE)
def test_event_counts_equal_etwc_summary(name):
    path = trace(name)
    status, out, err = etwc("etl", path, "--summary", "--json")
    assert status == 0, err
    summary = json.loads(out)
    kinds = {}
    with etw_classic.open(path) as reader:
        for event in reader:
            kinds[event["kind"]] = kinds.get(event["kind"], 0) + 1
    assert sum(kinds.values()) == summary["events"]
    assert kinds == summary["kinds"]


@pytest.mark.parametrize("name", SMALL)
def test_every_event_equals_etwc_json(name):
    path = trace(name)
    status, out, err = etwc("etl", path, "--json")
    assert status == 0, err
    lines = out.splitlines()
    with etw_classic.open(path) as reader:
        assert_same(reader.header, lines[0])
        events = list(reader)
    assert len(events) == len(lines) - 1 > 0
    for event, line in zip(events, lines[1:]):
        assert_same(event, line)
    # The comparison covers the meaning of the events too: their names and decoded fields.
    assert all("event_name" in event and "fields" in event for event in events)
    assert any(event["fields"] for event in events)


@pytest.mark.parametrize("name", LARGE)
def test_first_buffers_equal_etwc_json(name):
    path = trace(name)
    lines = etwc_lines("etl", path, "--json")
    with etw_classic.open(path) as reader:
        assert_same(reader.header, next(lines))
        compared = 0
        for event, line in zip(reader, lines):
            if event["buffer"] >= LARGE_BUFFERS:
                break
            assert_same(event, line)
            compared += 1
    assert compared > 5000


def test_u64_values_are_exact_ints():
    # EVENT_HEADER32 events of buffer 17 have the keyword 0xFFFFFFFFFFFFFFFF, and the stack
    # items of buffer 18 kernel addresses above 2**63: exact ints, not floats.
    path = trace("net.4.5.2.x86.etl")
    keywords, addresses = set(), set()
    with etw_classic.open(path) as reader:
        for event in itertools.takewhile(lambda event: event["buffer"] <= 18, reader):
            if "event_descriptor" in event:
                keywords.add(event["event_descriptor"]["keyword"])
                for item in event["extended_data"]:
                    addresses.update(item.get("address", []))
    assert 2**64 - 1 in keywords
    assert 18446735278176745387 in addresses
    assert all(type(value) is int for value in keywords | addresses)


@pytest.mark.parametrize("name", SMALL + LARGE)
def test_logfile_header_equals_etwc_json(name):
    path = trace(name)
    with etw_classic.open(path) as reader:
        header = reader.header
    assert_same(header, next(etwc_lines("etl", path, "--json")))
    assert header["kind"] == "LOGFILE_HEADER"


def test_times_are_utc_datetimes_of_the_filetime():
    # The time of every event is its FILETIME by Python's calendar, truncated to microseconds
    # (and etwc's text time, checked by assert_same, is the same instant to 100 ns).
    with etw_classic.open(trace("gcevents.etl")) as reader:
        header = reader.header
        events = list(reader)
    assert len(events) == 71
    for event in events:
        assert event["time"].tzinfo is timezone.utc
        assert event["time"] == filetime_datetime(event["filetime"])
    logfile = header["logfile_header"]
    for key in ADDED_HEADER_KEYS:
        assert header[key] == filetime_datetime(logfile[key]), key
        assert header[key].tzinfo is timezone.utc
    # The session started before its first event.
    assert header["start_time"] <= events[0]["time"]


@pytest.mark.parametrize("name", SMALL + ["net.4.5.2.x64.etl"])
def test_provider_equals_etwc_csv(name):
    # `provider` is the CSV's column of the same name (the GUID, or kernel:GROUP), for every
    # kind of event; an event without one has None where the CSV has an empty cell.
    path = trace(name)
    status, out, err = etwc("etl", path, "--format", "csv")
    assert status == 0, err
    csv.field_size_limit(1 << 30)  # the fields column of the large events
    rows = list(csv.DictReader(io.StringIO(out)))
    with etw_classic.open(path) as reader:
        providers = [event["provider"] for event in reader]
    assert providers == [row["provider"] or None for row in rows]
    assert any(provider.startswith("kernel:") for provider in providers if provider) \
        or name != "net.4.5.2.x64.etl"


def test_logfile_header_values():
    # gcevents.etl: PerfView's session, read by etwc and dissect.etl alike (tools/etl-crosscheck).
    with etw_classic.open(trace("gcevents.etl")) as reader:
        header = reader.header
    assert header["logger_name"] == "PerfViewSession"
    assert header["log_file_name"].endswith("PerfViewData.etl")
    assert header["logfile_header"]["pointer_size"] == 8
    assert header["logfile_header"]["perf_freq"] == 10_000_000


def test_time_order_equals_etwc():
    path = trace("gcevents.etl")
    status, out, err = etwc("etl", path, "--json", "--order", "time")
    assert status == 0, err
    lines = out.splitlines()[1:]
    with etw_classic.open(path, order="time") as reader:
        events = list(reader)
    assert len(events) == len(lines) > 0
    for event, line in zip(events, lines):
        assert_same(event, line)


def test_time_order_stops_early():
    # Closing the reader half-way stops the merge's thread (the test would hang otherwise).
    with etw_classic.open(trace("net.4.5.2.x64.etl"), order="time") as reader:
        first = list(itertools.islice(reader, 10))
    assert len(first) == 10
    assert [event["filetime"] for event in first] == sorted(event["filetime"] for event in first)


def crafted_inputs():
    """tools/crafted-inputs/make.py as a module."""
    spec = importlib.util.spec_from_file_location(
        "crafted_inputs", REPO / "tools" / "crafted-inputs" / "make.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_time_order_of_359_processors_and_16_mib_buffers(tmp_path):
    # net.4.5.2.x64.etl with each data buffer its own processor and the logfile header's
    # BufferSize 16 MiB: the time order used to hold a 16 MiB scratch per processor (5.9 GB).
    # Now the buffers whose processor the header does not count (8 and above) are named, and
    # the events of the others merged, as etwc does.
    made = crafted_inputs()
    data = bytearray(trace("net.4.5.2.x64.etl").read_bytes())
    made.distinct_processors(data)
    made.set_u32(data, made.logfile_field(data, "BufferSize"), 16 << 20)
    path = tmp_path / "crafted.etl"
    path.write_bytes(bytes(data))
    status, out, err = etwc("etl", path, "--json", "--order", "time")
    assert status == 1
    lines = out.splitlines()[1:]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with etw_classic.open(path, order="time") as reader:
        events, error = events_until_error(reader)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert error is not None
    assert str(error) == cli_message(err)
    assert str(error).startswith(
        f"{path}: buffer 8 at file offset 0x1be8a: WMI_BUFFER_HEADER.ClientContext."
        f"ProcessorIndex (u16 at 0x28; BufferFlag has PROC_INDEX 0x20): expected below the "
        f"logfile header's NumberOfProcessors, 8, found 8; ")
    assert str(error).endswith("; and 332 more errors")
    assert len(events) == len(lines) > 0
    assert {event["buffer"] for event in events} == set(range(8))
    for event, line in zip(events, lines):
        assert_same(event, line)
    # The module's own memory grew by far less than one 16 MiB scratch per processor.
    assert grown_kib < 256 * 1024, grown_kib


def test_not_an_etl_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello, world: not a trace\n" * 10)
    with pytest.raises(etw_classic.EtlError) as raised:
        etw_classic.open(path)
    status, _, err = etwc("etl", path, "--json")
    assert status == 1
    assert str(raised.value) == cli_message(err)
    assert str(raised.value).startswith(
        f"{path}: not an .etl file: its first 8 bytes are 68 65 6c 6c 6f 2c 20 77; ")
    assert isinstance(raised.value, ValueError)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.etl"
    path.write_bytes(b"")
    with pytest.raises(etw_classic.EtlError, match="not an .etl file: it is empty") as raised:
        etw_classic.open(path)
    assert str(raised.value) == cli_message(etwc("etl", path)[2])


def test_truncated_file(tmp_path):
    # gcevents.etl cut in its fourth buffer: the events of the first three, then the error.
    source = trace("gcevents.etl")
    path = tmp_path / "cut.etl"
    path.write_bytes(source.read_bytes()[:3 * 65536 + 1000])
    status, out, err = etwc("etl", path, "--json")
    assert status == 1
    lines = out.splitlines()[1:]
    with etw_classic.open(path) as reader:
        events, error = events_until_error(reader)
        assert list(reader) == []  # the error is raised once; the reader is then done
    assert error is not None
    assert str(error) == cli_message(err)
    assert "buffer 3 at file offset 0x30000" in str(error)
    assert len(events) == len(lines) > 0
    assert {event["buffer"] for event in events} == {0, 1, 2}
    for event, line in zip(events, lines):
        assert_same(event, line)


def test_corrupt_buffer(tmp_path):
    # The Size of buffer 1's second event (at 0x58 after its header) made 0x2000: the events
    # before it, then those of the later buffers (etwc goes on past a damaged buffer), then one
    # error naming the buffer and the event.
    source = trace("gcevents.etl")
    data = bytearray(source.read_bytes())
    size = 65536 + 0x48 + 0x58
    data[size:size + 2] = (0x2000).to_bytes(2, "little")
    path = tmp_path / "corrupt.etl"
    path.write_bytes(bytes(data))
    status, out, err = etwc("etl", path, "--json")
    assert status == 1
    lines = out.splitlines()[1:]
    with etw_classic.open(path) as reader:
        events, error = events_until_error(reader)
    assert error is not None
    assert str(error) == cli_message(err)
    assert str(error) == (f"{path}: buffer 1 at file offset 0x10000: EVENT_HEADER64 event at "
                          f"offset 0x58: expected a Size of at most the 1064 bytes left, found 8192")
    assert len(events) == len(lines) > 0
    assert [event["offset"] for event in events if event["buffer"] == 1] == [0]
    assert {event["buffer"] for event in events} == {0, 1, 2, 3, 4}
    for event, line in zip(events, lines):
        assert_same(event, line)


def test_missing_file(tmp_path):
    path = tmp_path / "absent.etl"
    with pytest.raises(FileNotFoundError) as raised:
        etw_classic.open(path)
    assert raised.value.errno == 2
    assert raised.value.filename == path


def test_path_as_str_and_pathlike(tmp_path):
    source = trace("primitive-types.etl")
    copy = tmp_path / "copy.etl"
    shutil.copyfile(source, copy)
    with etw_classic.open(str(copy)) as by_str, etw_classic.open(copy) as by_path:
        assert list(by_str) == list(by_path)
        assert by_str.path == by_path.path == str(copy)


def test_context_manager_closes():
    with etw_classic.open(trace("primitive-types.etl")) as reader:
        assert not reader.closed
        next(reader)
    assert reader.closed
    with pytest.raises(ValueError, match="closed"):
        next(reader)
    with pytest.raises(ValueError, match="closed"):
        iter(reader)


def test_bad_order():
    with pytest.raises(ValueError, match='order: expected "file" or "time", found "size"'):
        etw_classic.open(trace("primitive-types.etl"), order="size")


# Where TRACE_LOGFILE_HEADER starts in an .etl file: after the first buffer's 0x48-byte
# WMI_BUFFER_HEADER and the logfile header event's 0x20-byte SYSTEM_TRACE_HEADER; PerfFreq (i64)
# and ReservedFlags (u32, the clock type) at 0x100 and 0x110 of its 64-bit layout (LAYOUTS.md).
LOGFILE_HEADER_AT = 0x48 + 0x20
PERF_FREQ_AT = LOGFILE_HEADER_AT + 0x100
RESERVED_FLAGS_AT = LOGFILE_HEADER_AT + 0x110
NO_CLOCK_TYPE = ("TRACE_LOGFILE_HEADER.ReservedFlags: expected a clock type of 1 (query "
                 "performance counter), 2 (system time) or 3 (CPU cycle counter), found 0")


def without_clock(tmp_path, name="gcevents.etl"):
    """A copy of a PerfView trace whose clock cannot be read: PerfFreq and ReservedFlags 0."""
    data = bytearray(trace(name).read_bytes())
    assert data[0x48 + 2] == 2  # a SYSTEM64 logfile header event: the 64-bit layout
    assert int.from_bytes(data[PERF_FREQ_AT:PERF_FREQ_AT + 8], "little") == 10_000_000
    assert int.from_bytes(data[RESERVED_FLAGS_AT:RESERVED_FLAGS_AT + 4], "little") == 1
    data[PERF_FREQ_AT:PERF_FREQ_AT + 8] = bytes(8)
    data[RESERVED_FLAGS_AT:RESERVED_FLAGS_AT + 4] = bytes(4)
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("order", ["file", "time"])
def test_without_a_clock_open_warns_once_and_no_event_has_a_time(tmp_path, order):
    path = without_clock(tmp_path)
    status, out, err = etwc("etl", path, "--json", "--order", order)
    assert status == 0
    [note] = err.splitlines()
    assert note == f"note: {path}: no event has a time, as the file's clock cannot be read: " \
                   f"{NO_CLOCK_TYPE}"
    with pytest.warns(etw_classic.NoTimeWarning) as warned:
        with etw_classic.open(path, order=order) as reader:
            events = list(reader)
    assert [str(warning.message) for warning in warned] == [note[len("note: "):]]
    assert issubclass(etw_classic.NoTimeWarning, UserWarning)
    assert reader.clock_error == NO_CLOCK_TYPE
    lines = out.splitlines()[1:]
    assert len(events) == len(lines) == 71
    for event, line in zip(events, lines):
        assert event["filetime"] is None and event["time"] is None
        assert_same(event, line)


def test_without_a_clock_require_time_raises_the_reason(tmp_path):
    path = without_clock(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning before
        with pytest.raises(etw_classic.EtlError) as raised:
            etw_classic.open(path, require_time=True)
    assert str(raised.value) == (f"{path}: require_time=True needs each event's time, but the "
                                 f"file's clock cannot be read: {NO_CLOCK_TYPE}")
    # etwc refuses a time filter on the same file for the same reason.
    status, out, err = etwc("etl", path, "--from", "2020-01-01", "--summary")
    assert (status, out) == (1, "")
    assert cli_message(err) == (f"{path}: --from compares each event's time, but the file's "
                                f"clock cannot be read: {NO_CLOCK_TYPE}")


def test_with_a_clock_nothing_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with etw_classic.open(trace("gcevents.etl"), require_time=True) as reader:
            assert reader.clock_error is None
            events = list(reader)
    assert len(events) == 71
    assert all(event["time"] is not None for event in events)
