"""The filters of etw_classic.open (provider, event, process, pid, start, end, limit) against
`etwc etl` given the same filters: the same events, in the same order, with the same keys."""

import json
from datetime import datetime, timedelta, timezone

import pytest

import etw_classic
from conftest import etwc, trace
from test_reader import assert_same

NET = "net.4.5.2.x64.etl"
UTC = timezone.utc

# (keyword arguments of open, the same filters for etwc, how many events etwc --stats counts).
CASES = [
    ({"provider": "kernel:PROCESS"}, ["--provider", "kernel:PROCESS"], 136),
    ({"provider": "Kernel:process"}, ["--provider", "kernel:PROCESS"], 136),
    ({"provider": ["PerfView", "9b79ee91-b5fd-41c0-a243-4248e266e9d0"]},
     ["--provider", "PerfView,9b79ee91-b5fd-41c0-a243-4248e266e9d0"], 121),
    ({"event": "Create"}, ["--event", "Create"], 562),
    ({"event": "perfview/perfviewlog"}, ["--event", "PerfView/PerfViewLog"], 53),
    ({"process": "PerfView"}, ["--process", "PerfView"], None),
    ({"pid": 1632}, ["--pid", "1632"], 1660),
    ({"pid": [4, 1632], "provider": "kernel:IO"}, ["--pid", "4,1632", "--provider", "kernel:IO"],
     None),
    ({"start": datetime(2020, 7, 29, 0, 7, 5, 500000, tzinfo=UTC),
      "end": datetime(2020, 7, 29, 0, 7, 5, 600000, tzinfo=UTC)},
     ["--from", "2020-07-29T00:07:05.5Z", "--to", "2020-07-29T00:07:05.6Z"], 1573),
    # The same instants in another time zone, and as text with 100 ns digits.
    ({"start": datetime(2020, 7, 29, 2, 7, 5, 500000, tzinfo=timezone(timedelta(hours=2))),
      "end": "2020-07-29T00:07:05.6Z"},
     ["--from", "2020-07-29T00:07:05.5Z", "--to", "2020-07-29T00:07:05.6Z"], 1573),
    ({"limit": 7}, ["--limit", "7"], 7),
    ({"provider": "kernel:io", "pid": 4, "limit": 10},
     ["--provider", "kernel:io", "--pid", "4", "--limit", "10"], 10),
]


@pytest.mark.parametrize("order", ["file", "time"])
@pytest.mark.parametrize("kwargs,flags,count", CASES)
def test_filters_equal_etwc(kwargs, flags, count, order):
    path = trace(NET)
    status, out, err = etwc("etl", path, "--json", "--order", order, *flags)
    assert status == 0, err
    lines = out.splitlines()[1:]
    if count is not None:
        assert len(lines) == count
    assert lines
    with etw_classic.open(path, order=order, **kwargs) as reader:
        events = list(reader)
    assert len(events) == len(lines)
    for event, line in zip(events, lines):
        assert_same(event, line)


def test_filtered_events_hold_what_was_asked():
    path = trace(NET)
    start = datetime(2020, 7, 29, 0, 7, 5, 500000, tzinfo=UTC)
    end = datetime(2020, 7, 29, 0, 7, 5, 600000, tzinfo=UTC)
    with etw_classic.open(path, provider="kernel:IO", pid=[4, 1632]) as reader:
        events = list(reader)
    assert events and all(event["provider"] == "kernel:IO" for event in events)
    with etw_classic.open(path, start=start, end=end) as reader:
        times = [event["time"] for event in reader]
    assert times and all(start <= time <= end for time in times)


def test_limit_zero_reads_nothing():
    with etw_classic.open(trace(NET), limit=0) as reader:
        assert list(reader) == []


def test_counts_per_provider_equal_etwc_stats():
    # `provider` and the provider filter agree with --stats for every provider of the trace.
    path = trace("gcevents.etl")
    status, out, err = etwc("etl", path, "--stats", "--json")
    assert status == 0, err
    stats = json.loads(out)
    providers = stats["providers"]
    assert providers == {"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4": 69, "kernel:HEADER": 2}
    for provider, count in providers.items():
        with etw_classic.open(path, provider=provider) as reader:
            events = list(reader)
        assert len(events) == count
        assert {event["provider"] for event in events} == {provider}


@pytest.mark.parametrize("kwargs,error,message", [
    ({"provider": "kernel:PROCES"}, ValueError, "provider: unknown kernel group \"PROCES\""),
    ({"provider": "{not-a-guid}"}, ValueError, "provider: "),
    ({"provider": 3}, TypeError, "provider: expected a str or a list of strs, found int"),
    ({"event": ["Create", 3]}, TypeError, "event[1]: expected a str, found int"),
    ({"pid": "4"}, TypeError, "pid: expected an int or a list of ints, found str"),
    ({"pid": -1}, ValueError, "pid: expected a process id from 0 to 4294967295, found -1"),
    ({"start": datetime(2020, 7, 29)}, ValueError, "start: expected a timezone-aware datetime"),
    ({"end": "2020-07-29T00:07:05"}, ValueError, "end: expected 'Z' (UTC) at the end"),
    ({"end": 1.5}, TypeError, "end: expected a datetime (timezone-aware)"),
    ({"limit": -1}, OverflowError, ""),
])
def test_bad_filters(kwargs, error, message):
    with pytest.raises(error) as raised:
        etw_classic.open(trace("gcevents.etl"), **kwargs)
    assert str(raised.value).startswith(message), str(raised.value)


def test_time_filter_without_a_clock_is_refused(tmp_path):
    from test_reader import NO_CLOCK_TYPE, without_clock
    path = without_clock(tmp_path)
    with pytest.raises(etw_classic.EtlError) as raised:
        etw_classic.open(path, start=datetime(2020, 1, 1, tzinfo=UTC))
    assert str(raised.value) == (f"{path}: start and end need each event's time, but the file's "
                                 f"clock cannot be read: {NO_CLOCK_TYPE}")
