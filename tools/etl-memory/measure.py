#!/usr/bin/env python3
"""Measure the memory `etwc` reads .etl files in: it must be set by the reader, not the file.

Three sections, each a table of peak resident set sizes with the command run (the child's own
`ru_maxrss`, from `os.wait4`; in the last two sections, through GNU time when /usr/bin/time is
there, since a child forked from this script starts from the script's own 14 MiB):

--big (the default when no section is named): writes a 50 MB and a 500 MB .etl file with the
  library's own writer (the `write_big_etl` example, which streams each sealed buffer to the
  file), then runs on each

      etwc etl FILE --summary
      etwc etl FILE --json > /dev/null

  and reports each run's peak and its throughput in MB/s of file read (wall-clock time, so a
  machine busy with other work reads slower). Fails when a run on the 500 MB file peaks above
  the same run on the 50 MB file by more than 10% + 8 MiB: the reader holds a batch of
  buffers, never the file.

--traces DIR: runs `etwc etl TRACE --summary` and `etwc etl TRACE --order time --summary` on
  each .etl file of DIR (the PerfView traces: ../shared/data/perfview).

--crafted DIR: makes the crafted-input table with tools/crafted-inputs/make.py from the traces
  of DIR and runs the same two commands on each of its .etl files.

For every `--order time` run of the last two, the bound the documentation of
`EtlReader::for_each_event_in_time_order` states for the file is printed next to the peak: the
decoded events of one buffer per processor the logfile header counts (NumberOfProcessors x
BufferSize, at most TIME_ORDER_MEMORY, 256 MiB), one stored buffer and one scratch of
BufferSize, 32 bytes per buffer the file can hold (one per 72 bytes). The script fails when a
peak passes that bound and 16 MiB for the program itself.

--compare ETWC also runs another build of etwc (an older one, say) on the same files, in a
column of its own, checked against nothing.

Usage: measure.py [--big] [--traces DIR] [--crafted DIR] [--compare ETWC] [--dir DIR] [--keep]
                  [--etwc PATH] [--writer PATH]
The binaries default to target/release/etwc and target/release/examples/write_big_etl; the
script builds them first (`cargo build --release`) unless given. The big files (550 MB) and
the crafted ones go to a temporary folder under DIR (default: the system's), removed at the
end unless --keep. Linux and macOS (ru_maxrss is in KiB on Linux, bytes on macOS).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES_MB = (50, 500)
MODES = (["--summary"], ["--json"])
# The 500 MB run may peak at most this much above the 50 MB one: 10% + 8 MiB.
MARGIN_RATIO = 1.10
MARGIN_BYTES = 8 << 20


def peak_rss_bytes(rusage):
    """`ru_maxrss` in bytes: KiB on Linux, bytes on macOS."""
    return rusage.ru_maxrss if sys.platform == "darwin" else rusage.ru_maxrss * 1024


# GNU time: its child is forked from a process of about 1 MiB, where a child forked from this
# script starts with the script's own 14 MiB (Linux keeps the peak of the memory a process
# had before exec), so small peaks read truly.
GNU_TIME = Path("/usr/bin/time")


def run_any(command, stdout):
    """Runs `command` to its end; returns (wall seconds, peak RSS bytes, exit status). Through
    GNU time when there is one (the peak it reports, in KiB), else the child's own rusage."""
    if GNU_TIME.is_file():
        with tempfile.NamedTemporaryFile("r") as report:
            started = time.perf_counter()
            code = subprocess.run([GNU_TIME, "-q", "-f", "%M", "-o", report.name, *command],
                                  stdout=stdout, stderr=subprocess.DEVNULL).returncode
            elapsed = time.perf_counter() - started
            kib = int(report.read().split()[-1])
        return elapsed, kib * 1024, code
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=stdout, stderr=subprocess.DEVNULL)
    # The child's own rusage: RUSAGE_CHILDREN's ru_maxrss would be the largest of all.
    _, status, rusage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    return elapsed, peak_rss_bytes(rusage), os.waitstatus_to_exitcode(status)


def run(command, stdout):
    """Runs `command` to its end; returns (wall seconds, peak RSS bytes). Stops the script when
    it fails."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=stdout, stderr=errors)
        # The child's own rusage: RUSAGE_CHILDREN's ru_maxrss would be the largest of all.
        _, status, rusage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    if code != 0:
        print(f"{' '.join(map(str, command))} failed ({code}): {stderr}", file=sys.stderr)
        sys.exit(2)
    return elapsed, peak_rss_bytes(rusage)


# The time order's documented bound (see the module documentation).
TIME_ORDER_MEMORY = 256 << 20
MAX_BUFFER_SIZE = 16 << 20
LOGFILE_AT = 0x48 + 0x20
# What the program itself takes besides the bound: code, libraries, stacks.
PROGRAM = 16 << 20


def time_order_bound(path):
    """The bound of `EtlReader::for_each_event_in_time_order` for the file at `path`."""
    with open(path, "rb") as handle:
        head = handle.read(LOGFILE_AT + 0x10)
    length = os.path.getsize(path)
    if len(head) < LOGFILE_AT + 0x10:
        return 32 * (length // 0x48 + 1)
    buffer_size = min(int.from_bytes(head[LOGFILE_AT:LOGFILE_AT + 4], "little"), MAX_BUFFER_SIZE)
    processors = int.from_bytes(head[LOGFILE_AT + 0x0C:LOGFILE_AT + 0x10], "little")
    return (min(processors * buffer_size, TIME_ORDER_MEMORY) + 2 * buffer_size
            + 32 * (length // 0x48 + 1))


def read_files(files, etwc, compare):
    """Runs both orders on each file; prints a row per run; returns the problems."""
    mib = 2 ** 20
    header = f"{'file':<46} {'order':<5} {'status':>6} {'peak MiB':>9} {'bound MiB':>10}"
    if compare:
        header += f" {'compared MiB':>13}"
    print(header)
    problems = []
    for path in files:
        for order in ("file", "time"):
            command = [etwc, "etl", path, "--order", order, "--summary"]
            with open(os.devnull, "wb") as null:
                _, peak, code = run_any(command, null)
            row = f"{path.name:<46} {order:<5} {code:>6} {peak / mib:>9.1f}"
            if order == "time":
                bound = time_order_bound(path)
                row += f" {bound / mib:>10.1f}"
                if peak > bound + PROGRAM:
                    problems.append(f"{path.name}: --order time peaked at {peak / mib:.1f} MiB, "
                                    f"above its bound {bound / mib:.1f} MiB + 16 MiB")
            else:
                row += f" {'':>10}"
            if code not in (0, 1):
                problems.append(f"{' '.join(map(str, command))}: status {code}")
            if compare:
                with open(os.devnull, "wb") as null:
                    _, other, other_code = run_any([compare] + command[1:], null)
                row += f" {other / mib:>13.1f}" + ("" if other_code in (0, 1)
                                                   else f" (status {other_code})")
            print(row)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", action="store_true", help="the 50 MB and 500 MB files")
    parser.add_argument("--traces", type=Path, default=None, metavar="DIR",
                        help="the .etl files of DIR in both orders")
    parser.add_argument("--crafted", type=Path, default=None, metavar="DIR",
                        help="the crafted-input table made from the traces of DIR")
    parser.add_argument("--compare", type=Path, default=None, metavar="ETWC",
                        help="another etwc to run on the same files")
    parser.add_argument("--dir", default=None, help="where the temporary folder goes")
    parser.add_argument("--keep", action="store_true", help="keep the written files")
    parser.add_argument("--etwc", default=None)
    parser.add_argument("--writer", default=None)
    args = parser.parse_args()
    big = args.big or (args.traces is None and args.crafted is None)

    if args.etwc is None or (big and args.writer is None):
        targets = [["-p", "etw-classic-cli", "--bin", "etwc"]]
        if big:
            targets.append(["-p", "etw-classic", "--example", "write_big_etl"])
        for target in targets:
            subprocess.run(["cargo", "build", "--quiet", "--release", *target],
                           cwd=ROOT, check=True)
    etwc = Path(args.etwc or ROOT / "target/release/etwc")
    writer = Path(args.writer or ROOT / "target/release/examples/write_big_etl")

    problems = []
    if args.traces is not None:
        print(f"The traces of {args.traces}: etwc etl TRACE --order ORDER --summary")
        problems += read_files(sorted(args.traces.glob("*.etl")), etwc, args.compare)
        print()
    if args.crafted is not None:
        folder = Path(tempfile.mkdtemp(prefix="etl-crafted-", dir=args.dir))
        try:
            subprocess.run([sys.executable, ROOT / "tools/crafted-inputs/make.py", "--perfview",
                            args.crafted, "--out", folder], check=True)
            print("The crafted inputs (tools/crafted-inputs/make.py): "
                  "etwc etl FILE --order ORDER --summary")
            problems += read_files(sorted(folder.glob("*.etl")), etwc, args.compare)
            print()
        finally:
            if args.keep:
                print(f"crafted files kept in {folder}")
            else:
                for made in folder.iterdir():
                    made.unlink()
                folder.rmdir()
    if not big:
        for problem in problems:
            print(problem, file=sys.stderr)
        print("etl-memory: " + ("FAILED" if problems else "every time order within its bound"))
        return 1 if problems else 0

    folder = Path(tempfile.mkdtemp(prefix="etl-memory-", dir=args.dir))
    peaks = {}
    print(f"{'file':>8} {'run':<22} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    try:
        for size in SIZES_MB:
            path = folder / f"{size}mb.etl"
            seconds, peak = run([writer, path, "--megabytes", str(size)], subprocess.DEVNULL)
            megabytes = path.stat().st_size / 1e6
            peaks[(size, "write_big_etl")] = peak
            print(f"{size:>6}MB {'write_big_etl':<22} {seconds:>8.2f} {megabytes / seconds:>8.0f} "
                  f"{peak / 2**20:>13.1f}")
            for mode in MODES:
                with open(os.devnull, "wb") as null:
                    seconds, peak = run([etwc, "etl", path, *mode], null)
                name = "etwc etl " + " ".join(mode)
                peaks[(size, name)] = peak
                print(f"{size:>6}MB {name:<22} {seconds:>8.2f} {megabytes / seconds:>8.0f} "
                      f"{peak / 2**20:>13.1f}")
    finally:
        if args.keep:
            print(f"files kept in {folder}")
        else:
            for written in folder.glob("*.etl"):
                written.unlink()
            folder.rmdir()

    small, large = SIZES_MB
    for (size, name), peak in peaks.items():
        if size != large:
            continue
        limit = peaks[(small, name)] * MARGIN_RATIO + MARGIN_BYTES
        if peak > limit:
            problems.append(f"{name}: {peak / 2**20:.1f} MiB on {large} MB, above "
                            f"{limit / 2**20:.1f} MiB ({small} MB run + 10% + 8 MiB)")
    for problem in problems:
        print(problem, file=sys.stderr)
    print("etl-memory: " + ("FAILED" if problems else
                            f"peak memory on {large} MB within 10% + 8 MiB of {small} MB"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
