"""etw_classic.read_arrow against the event iterator: the same events, row by row, every column
the value of the key of the same name; the filters select the same events; pandas and polars
take the table."""

import json
from datetime import datetime, timedelta, timezone

import pytest

pa = pytest.importorskip("pyarrow")

import etw_classic  # noqa: E402
from conftest import trace  # noqa: E402
from test_filters import CASES, NET  # noqa: E402
from test_reader import SMALL  # noqa: E402

# FILETIME of 1970-01-01T00:00:00Z, from Python's own calendar.
UNIX_EPOCH = (datetime(1970, 1, 1, tzinfo=timezone.utc)
              - datetime(1601, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1) * 10

# The columns named as the iterator's keys, with the same value.
SAME_KEYS = ["buffer", "offset", "kind", "processor", "size", "filetime", "provider",
             "provider_name", "event_name", "task_name", "opcode_name", "process_name"]
# The columns of keys some events have and others not (null where the event has no such key).
OPTIONAL_KEYS = ["level_name", "keyword_names", "fields_error", "fields_left", "undecoded",
                 "error"]


def columns(table):
    """The table as a dict of lists, the time as int nanoseconds since 1970."""
    out = {}
    for name in table.column_names:
        column = table.column(name)
        if name == "time":
            column = column.cast(pa.int64())
        out[name] = column.to_pylist()
    return out


def assert_rows_equal_events(table, events):
    assert table.num_rows == len(events)
    cols = columns(table)
    for row, event in enumerate(events):
        for key in SAME_KEYS:
            assert cols[key][row] == event[key], (row, key)
        for key in OPTIONAL_KEYS:
            assert cols[key][row] == event.get(key), (row, key)
        # The header's raw timestamp: `timestamp`, or `system_time` of the kernel's headers.
        raw = event.get("timestamp", event.get("system_time"))
        assert cols["timestamp"][row] == raw, row
        # The time to the nanosecond (FILETIME counts 100 ns); the iterator's datetime is the
        # same instant truncated to the microsecond.
        if event["filetime"] is None:
            assert cols["time"][row] is None
        else:
            nanos = (event["filetime"] - UNIX_EPOCH) * 100
            assert cols["time"][row] == nanos
            assert datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(
                microseconds=nanos // 1000) == event["time"]
        # The fields as their JSON text; the iterator's are the same JSON values.
        fields = cols["fields"][row]
        assert (None if fields is None else json.loads(fields)) == event["fields"], row
        data = event.get("data", event.get("bytes"))
        assert cols["data"][row] == data, row
        if data is not None:
            assert cols["data_length"][row] == len(data)
        if "process_id" in event:
            assert cols["pid"][row] == event["process_id"], row
        if "thread_id" in event:
            assert cols["tid"][row] == event["thread_id"], row


@pytest.mark.parametrize("order", ["file", "time"])
@pytest.mark.parametrize("name", SMALL)
def test_rows_equal_the_iterator(name, order):
    path = trace(name)
    table = etw_classic.read_arrow(path, order=order)
    assert isinstance(table, pa.Table)
    with etw_classic.open(path, order=order) as reader:
        events = list(reader)
    assert events
    assert_rows_equal_events(table, events)


def test_net_x64_whole():
    # Every event of the largest trace, in batches of at most 65,536 rows.
    path = trace(NET)
    table = etw_classic.read_arrow(path)
    assert table.num_rows == 179_474
    assert max(len(batch) for batch in table.to_batches()) <= 65_536
    assert table.schema.field("time").type == pa.timestamp("ns", tz="UTC")
    # One dictionary per name column across the batches, so that group_by takes the table as
    # it is.
    for name in ("kind", "provider", "provider_name", "event_name", "process_name"):
        chunks = table.column(name).chunks
        assert len(chunks) > 1
        assert all(chunk.dictionary.equals(chunks[0].dictionary) for chunk in chunks), name
    counts = table.group_by("provider").aggregate([("buffer", "count")]).to_pydict()
    counts = dict(zip(counts["provider"], counts["buffer_count"]))
    # etwc etl --stats on the same file.
    assert counts["kernel:PERFINFO"] == 79_530
    assert counts["e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"] == 32_730


@pytest.mark.parametrize("order", ["file", "time"])
@pytest.mark.parametrize("kwargs,flags,count", CASES)
def test_filters_select_the_iterators_events(kwargs, flags, count, order):
    path = trace(NET)
    table = etw_classic.read_arrow(path, order=order, **kwargs)
    with etw_classic.open(path, order=order, **kwargs) as reader:
        events = list(reader)
    assert events
    assert_rows_equal_events(table, events)


def test_limit_zero_is_an_empty_table_with_the_columns():
    table = etw_classic.read_arrow(trace("gcevents.etl"), limit=0)
    assert table.num_rows == 0
    assert "provider" in table.column_names and "time" in table.column_names


def test_errors():
    with pytest.raises(FileNotFoundError):
        etw_classic.read_arrow("/nonexistent/trace.etl")
    with pytest.raises(ValueError):
        etw_classic.read_arrow(trace("gcevents.etl"), order="random")
    with pytest.raises(ValueError, match="provider: unknown kernel group"):
        etw_classic.read_arrow(trace("gcevents.etl"), provider="kernel:PROCES")


def test_polars():
    polars = pytest.importorskip("polars")
    path = trace("gcevents.etl")
    frame = polars.from_arrow(etw_classic.read_arrow(path))
    with etw_classic.open(path) as reader:
        events = list(reader)
    assert frame.height == len(events) == 71
    assert frame["provider"].to_list() == [event["provider"] for event in events]
    assert frame["filetime"].to_list() == [event["filetime"] for event in events]
    assert frame["time"].dtype == polars.Datetime("ns", "UTC")


def test_pandas():
    pandas = pytest.importorskip("pandas")
    path = trace("gcevents.etl")
    frame = etw_classic.read_arrow(path).to_pandas()
    with etw_classic.open(path) as reader:
        events = list(reader)
    assert len(frame) == len(events) == 71
    # pandas shows a null name as NaN.
    names = [None if pandas.isna(name) else name for name in frame["event_name"]]
    assert names == [event["event_name"] for event in events]
    assert [time.value for time in frame["time"]] == [
        (event["filetime"] - UNIX_EPOCH) * 100 for event in events]
    assert str(frame["time"].dt.tz) == "UTC"
    assert isinstance(frame["time"].iloc[0], pandas.Timestamp)


@pytest.mark.parametrize("order", ["file", "time"])
@pytest.mark.parametrize("damage", ["cut", "corrupt"])
def test_damaged_files_raise_the_message_of_etwc(tmp_path, damage, order):
    # gcevents.etl cut in its fourth buffer, or with the Size of buffer 1's second event made
    # 0x2000 (as in test_reader): no table, and the error etwc prints, naming buffer and offset.
    from test_reader import cli_message
    from conftest import etwc
    data = bytearray(trace("gcevents.etl").read_bytes())
    if damage == "cut":
        data = data[:3 * 65536 + 1000]
    else:
        size = 65536 + 0x48 + 0x58
        data[size:size + 2] = (0x2000).to_bytes(2, "little")
    path = tmp_path / f"{damage}.etl"
    path.write_bytes(bytes(data))
    status, _, err = etwc("etl", path, "--summary", "--order", order)
    assert status == 1
    with pytest.raises(etw_classic.EtlError) as raised:
        etw_classic.read_arrow(path, order=order)
    assert str(raised.value) == cli_message(err)
    assert "buffer 3 at file offset 0x30000" in str(raised.value) or damage == "corrupt"


def test_without_a_clock_warns_and_no_row_has_a_time(tmp_path):
    from test_reader import NO_CLOCK_TYPE, without_clock
    path = without_clock(tmp_path)
    with pytest.warns(etw_classic.NoTimeWarning) as warned:
        table = etw_classic.read_arrow(path)
    assert [str(warning.message) for warning in warned] == [
        f"{path}: no event has a time, as the file's clock cannot be read: {NO_CLOCK_TYPE}"]
    assert table.num_rows == 71
    assert table.column("time").null_count == table.column("filetime").null_count == 71
