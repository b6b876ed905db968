"""Real consumers of `etwc etl --format parquet`: DuckDB, pyarrow and polars read the Parquet of
the PerfView traces, and what they count equals what etwc counts itself.

    python3 tools/parquet-consumers/check.py [--etwc PATH] [--traces DIR]

Writes the Parquet of every trace of DIR (default ../shared/data/perfview) into one folder with
one `etwc etl ... --format parquet -o FOLDER` run, then checks:

- DuckDB: for each trace, the counts by provider, by provider/event name and by process id
  equal `etwc etl TRACE --stats --json`;
- DuckDB: a join of the events to a table of process names (one name per process id, from the
  events themselves) gives, for net.4.5.2.x64, the events per process name that its JSON lines
  (`etwc etl --json`) give;
- DuckDB: one query over the folder (`read_parquet('FOLDER/*.parquet')`) counts the sum of
  every trace's events, and counts them per file;
- pyarrow and polars read every file with the row count of `--stats`.

Exits 1 with the differences when anything differs. Needs `pip install duckdb pyarrow polars`.
"""

import argparse
import collections
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import duckdb
import polars
import pyarrow.parquet

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

failures = []


def check(what, got, expected):
    if got != expected:
        failures.append(f"{what}: got {got!r}, expected {expected!r}")
    else:
        print(f"ok: {what}")


def etwc_json(etwc, *args):
    return subprocess.run([etwc, *args], check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--etwc", default=str(ROOT / "target" / "release" / "etwc"))
    parser.add_argument("--traces", default=str(ROOT.parent / "shared" / "data" / "perfview"))
    args = parser.parse_args()
    traces = sorted(pathlib.Path(args.traces).glob("*.etl"))
    if not traces:
        sys.exit(f"no .etl file in {args.traces}")

    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder) / "traces"
        started = time.monotonic()
        subprocess.run(
            [args.etwc, "etl", *map(str, traces), "--format", "parquet", "-o", str(folder)],
            check=True,
        )
        print(f"wrote {len(traces)} Parquet files in {time.monotonic() - started:.2f} s")
        db = duckdb.connect()
        total = 0
        per_file = {}
        for trace in traces:
            stats = json.loads(etwc_json(args.etwc, "etl", str(trace), "--stats", "--json"))
            path = folder / f"{trace.stem}.parquet"
            table = f"read_parquet('{path}')"
            name = trace.name
            total += stats["events"]
            per_file[path.name] = stats["events"]

            rows = dict(db.sql(f"select provider, count(*) from {table} where provider is not null group by all").fetchall())
            check(f"{name}: DuckDB counts by provider", rows, stats["providers"])
            rows = dict(
                db.sql(
                    f"""select coalesce(provider_name, provider)
                               || coalesce('/' || event_name, ''), count(*)
                        from {table} where provider is not null or provider_name is not null
                        group by all"""
                ).fetchall()
            )
            check(f"{name}: DuckDB counts by provider/event name", rows, stats["event_names"])
            rows = dict(db.sql(f"select cast(pid as varchar), count(*) from {table} where pid is not null group by all").fetchall())
            check(f"{name}: DuckDB counts by process id", rows, stats["processes"])

            check(f"{name}: pyarrow rows", pyarrow.parquet.read_table(path).num_rows, stats["events"])
            check(f"{name}: polars rows", polars.read_parquet(path).height, stats["events"])

        # A join: the events to a table of process names, one per process id.
        net = folder / "net.4.5.2.x64.parquet"
        if net.exists():
            rows = dict(
                db.sql(
                    f"""with events as (select * from read_parquet('{net}')),
                             names as (select pid, any_value(process_name) as name from events
                                       where process_name is not null group by pid)
                        select names.name, count(*) from events join names using (pid)
                        group by all"""
                ).fetchall()
            )
            lines = etwc_json(args.etwc, "etl", str(ROOT.parent / "shared" / "data" / "perfview" / "net.4.5.2.x64.etl"), "--json")
            expected = collections.Counter()
            for line in lines.splitlines()[1:]:
                event = json.loads(line)
                if event.get("process_name") is not None:
                    expected[event["process_name"]] += 1
            check("net.4.5.2.x64: DuckDB join of events to process names, per name", rows, dict(expected))

        # One query over the folder, as over a fleet's traces.
        glob = f"read_parquet('{folder}/*.parquet', filename = true)"
        check("DuckDB over the folder: every event", db.sql(f"select count(*) from {glob}").fetchall()[0][0], total)
        rows = {
            pathlib.Path(file).name: count
            for file, count in db.sql(f"select filename, count(*) from {glob} group by all").fetchall()
        }
        check("DuckDB over the folder: events per file", rows, per_file)
        check("polars over the folder: every event", polars.scan_parquet(f"{folder}/*.parquet").select(polars.len()).collect().item(), total)

    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print(f"{len(traces)} traces: DuckDB, pyarrow and polars agree with etwc --stats")


if __name__ == "__main__":
    main()
