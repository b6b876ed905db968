#!/usr/bin/env python3
"""The library's costs on a Cortex-M4, measured under QEMU: instructions and stack per call, and
flash and RAM in a firmware image, in three build profiles (and in the fw-s profile on a
Cortex-M3 and a Cortex-M0). Prints the tables of docs/FIRMWARE.md (Markdown).

How each figure is made (the firmware is firmware/qemu/, built for thumbv7em-none-eabihf and run
on QEMU's mps2-an386 board):

  instructions  src/bin/costs.rs reads SysTick (clocked by the core, 25 MHz on this board)
                before and after each call. Under `-icount shift=10,align=off,sleep=off` the
                virtual clock advances 2^10 ns per instruction, so SysTick moves 25.6 ticks per
                instruction; the firmware measures that ratio itself (10 000 NOPs) and the
                overhead of the measurement (the same reads around a call of a function that
                does nothing), and the figure is (ticks - overhead) / ratio: the instructions
                the call executes, its call and return included.
  stack         the firmware paints 8 KiB below its stack pointer with a pattern, makes the
                call, and finds the lowest word no longer painted: the bytes the call wrote
                below its caller's stack pointer (its return address push included). The
                32 bytes just below are left unpainted, so a figure of 32 means "at most 32".
  flash, RAM    section sizes from the ELF section headers of three images built alike:
                image-traced (a provider and a 2 x 512-byte session in a static made with
                Session::disabled, one instance event with a parent, one plain event, flush,
                drain, the logfile header), image-session (the same without the logfile header),
                image-plain (the same start-up and file writes without the library, no
                static) and image-described (image-session writing first the MetaData/EventInfo
                event of one typed event type of four fields, its TRACE_EVENT_INFO a constant:
                the difference with image-session is what describing an event type in-band
                costs).
                Code is .vector_table + .text + .rodata; flash is code + .data (the initial
                image start-up copies to RAM); RAM is .data + .bss. The stack is not in them
                (see the stack column).
  targets       the Cortex-M4 figures set against the targets of TARGETS (cargo's release
                profile against 1.5 times the fw-s ones), met or missed and by how much.
  cross-check   the costs firmware is run once more with `-semihosting-config arg=crosscheck`
                under `-singlestep -d exec,nochain`, so QEMU logs every instruction it
                executes; the script counts the log's instructions between the SysTick reads
                around one call (a 16-byte instance event with a parent) and around the empty
                call, and compares their difference with the SysTick figure.

Usage: python3 tools/firmware-costs/costs.py [--json] [--quick]

--quick measures the fw-s profile on the M4 only, with the cross-check: what .ci/run runs, to
keep the measurement firmware building and the two ways of counting in agreement (the script
exits with status 1 when they differ by more than one instruction). It asserts no figure.
Installs the thumbv7em target and qemu-system-arm when they are missing. Builds go to
target/firmware/ at the root of the repository.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MANIFEST = ROOT / "firmware" / "qemu" / "Cargo.toml"
TARGET_DIR = ROOT / "target" / "firmware"
TARGET = "thumbv7em-none-eabihf"
MACHINE = "mps2-an386"
# The other cores, measured in the fw-s profile: (core, target, QEMU machine).
OTHER_CORES = [
    ("Cortex-M3", "thumbv7m-none-eabi", "lm3s6965evb"),
    ("Cortex-M0", "thumbv6m-none-eabi", "microbit"),
]
ICOUNT = "shift=10,align=off,sleep=off"

# (profile, what it sets); the first two are firmware/qemu/Cargo.toml's, the last cargo's own.
PROFILES = [
    ("fw-s", 'opt-level "s", lto = "fat", codegen-units = 1'),
    ("fw-z", 'opt-level "z", lto = "fat", codegen-units = 1'),
    ("release", "cargo's default release: opt-level 3, lto = false, codegen-units = 16"),
]

# (case printed by the firmware, what the row says)
CASES = [
    ("instance-0", "`trace_event_instance`, 0 bytes of data, no parent"),
    ("instance-16", "`trace_event_instance`, 16 bytes, no parent"),
    ("instance-64", "`trace_event_instance`, 64 bytes, no parent"),
    ("instance-256", "`trace_event_instance`, 256 bytes, no parent"),
    ("instance-0-parent", "`trace_event_instance`, 0 bytes, with a parent"),
    ("instance-16-parent", "`trace_event_instance`, 16 bytes, with a parent"),
    ("instance-64-parent", "`trace_event_instance`, 64 bytes, with a parent"),
    ("instance-256-parent", "`trace_event_instance`, 256 bytes, with a parent"),
    ("filtered-out", "`trace_event_instance` filtered out (level 6, session at 5), 16 bytes, parent"),
    ("trace-event-16", "`trace_event` (classic, `FULL_HEADER32`), 16 bytes"),
    ("typed-four", "`TypedEvent::trace` (classic, `FULL_HEADER32`), four fields: `u32`, `u16`, pointer, 8-character string (19 bytes)"),
    ("seal", "`trace_event_instance` that seals a 512-byte buffer (16 bytes of fill) and starts the next, 16 bytes, parent"),
    ("overwrite", "`trace_event_instance` that seals a buffer and overwrites the oldest full one (flight recorder, `WhenFull::OverwriteOldest`; its 5 events counted), 16 bytes, parent"),
    ("shared-instance-16-parent", "`SharedSession::trace_event_instance` (critical section included), 16 bytes, parent"),
    ("shared-with", "`SharedSession::with` around `full_count` (the critical section and the `RefCell` borrow alone)"),
    ("flush", "`Session::flush` of a 512-byte buffer holding one event (352 bytes of fill)"),
    ("drain-1", "`Session::drain` of one sealed buffer (the store closure does nothing)"),
    ("create-instance-id", "`Provider::create_instance_id`"),
    ("write-first-buffer", "`EtlHeader::write_first_buffer` (512-byte buffer)"),
]

NOPS = 10_000


def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def setup():
    installed = subprocess.run(
        ["rustup", "target", "list", "--installed"], check=True, capture_output=True, text=True
    ).stdout.split()
    for target in [TARGET] + [target for _, target, _ in OTHER_CORES]:
        if target not in installed:
            run(["rustup", "target", "add", target])
    if shutil.which("qemu-system-arm") is None:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "qemu-system-arm"], env=env)


def build(profile, target=TARGET):
    run(
        ["cargo", "build", "--quiet", "--manifest-path", str(MANIFEST), "--target-dir",
         str(TARGET_DIR), "--profile", profile, "--target", target,
         "--bin", "costs", "--bin", "image-traced", "--bin", "image-session", "--bin", "image-plain",
         "--bin", "image-described"]
    )
    return TARGET_DIR / target / profile


def qemu(elf, *extra, semihosting_args=(), cwd=None, machine=MACHINE):
    config = "enable=on,target=native" + "".join(f",arg={arg}" for arg in semihosting_args)
    command = ["qemu-system-arm", "-M", machine, "-nographic", "-semihosting-config", config,
               "-icount", ICOUNT, *extra, "-kernel", str(elf)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd)
    if result.returncode != 0:
        sys.exit(f"{elf.name} exited with status {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def measure(elf, machine=MACHINE):
    """{case: (instructions, stack bytes)} and the ticks per instruction."""
    raw = {}
    for line in qemu(elf, semihosting_args=("costs",), machine=machine).splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[0] == "case":
            raw[fields[1]] = (int(fields[2]), int(fields[3]))
    empty = raw["empty"][0]
    per_instruction = (raw["nops"][0] - empty) / NOPS
    figures = {}
    for case, _ in CASES:
        ticks, stack = raw[case]
        figures[case] = ((ticks - empty) / per_instruction, stack)
    return figures, per_instruction, empty / per_instruction


def crosscheck(elf, per_instruction):
    """Instructions of one call counted in QEMU's execution log, and from SysTick."""
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "exec.log"
        singlestep = ["-singlestep"]
        version = subprocess.run(["qemu-system-arm", "--version"], capture_output=True,
                                 text=True).stdout
        major = int(re.search(r"version (\d+)", version).group(1))
        if major >= 8:
            singlestep = ["-accel", "tcg,one-insn-per-tb=on"]
        out = qemu(elf, *singlestep, "-d", "exec,nochain", "-D", str(log),
                   semihosting_args=("costs", "crosscheck"))
        lines = log.read_text().splitlines()
    empty_ticks, call_ticks = (int(value) for value in out.split()[1:3])
    # One instruction per translation block: each "Trace" line is one instruction started.
    # Under -icount an I/O access in the middle of a block is rewound and the block
    # re-executed ("cpu_io_recompile: rewound execution of TB to PC"): the line before that
    # message did not complete, and PC is the SysTick load.
    executed = []
    systick_load = None
    for line in lines:
        rewound = re.match(r"cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)", line)
        if rewound:
            executed.pop()
            systick_load = int(rewound.group(1), 16)
            continue
        trace = re.match(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/", line)
        if trace:
            executed.append(int(trace.group(1), 16))
    reads = [index for index, pc in enumerate(executed) if pc == systick_load]
    if len(reads) != 4:
        sys.exit(f"expected 4 SysTick reads in the execution log, found {len(reads)}")
    empty_count = reads[1] - reads[0]
    call_count = reads[3] - reads[2]
    return {
        "log_instructions": call_count - empty_count,
        "log_overhead": empty_count,
        "systick_instructions": (call_ticks - empty_ticks) / per_instruction,
        "systick_overhead": empty_ticks / per_instruction,
    }


def sections(path):
    """{name: (size, is_nobits)} of the allocated sections of an ELF32 little-endian file."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        sys.exit(f"{path}: not a 32-bit little-endian ELF file")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
    headers = [struct.unpack_from("<IIIIIIIIII", data, shoff + index * shentsize)
               for index in range(shnum)]
    names_offset = headers[shstrndx][4]
    result = {}
    for name, kind, flags, _addr, _offset, size, *_ in headers:
        if flags & 0x2 and size:  # SHF_ALLOC
            end = data.index(b"\0", names_offset + name)
            result[data[names_offset + name:end].decode()] = (size, kind == 8)  # SHT_NOBITS
    return result


def footprint(path):
    flash = ram = 0
    for name, (size, nobits) in sections(path).items():
        if not nobits:
            flash += size
        if nobits or name == ".data":
            ram += size
    detail = {name: size for name, (size, _) in sections(path).items()}
    return flash, ram, detail


# The targets set for the Cortex-M4 (fw-s and fw-z; cargo's release profile gets 1.5 times the
# fw-s ones): (what, its limit at fw-s, at fw-z, the figure from a profile's results, its unit).
RELEASE_FACTOR = 1.5


def instance_16(data):
    figures = data["figures"]
    return max(figures["instance-16"][0], figures["instance-16-parent"][0])


def payload_per_byte(data):
    figures = data["figures"]
    return max((figures[f"instance-256{parent}"][0] - figures[f"instance-0{parent}"][0]) / 256
               for parent in ("", "-parent"))


def instance_stack(data):
    figures = data["figures"]
    cases = [case for case, _ in CASES if case.startswith("instance-")] + ["seal"]
    return max(figures[case][1] for case in cases)


def session_flash(data):
    return image_rows(data)[4][1][3]


TARGETS = [
    ("16-byte `INSTANCE` event (the larger of no parent and with a parent), instructions",
     250, 300, instance_16, "{:.0f}"),
    ("typed event of four fields (u32, u16, pointer, 8-character string), instructions", 300, 300,
     lambda data: data["figures"]["typed-four"][0], "{:.0f}"),
    ("filtered-out event, instructions", 40, 40,
     lambda data: data["figures"]["filtered-out"][0], "{:.0f}"),
    ("payload, instructions a byte (256-byte event − 0-byte event, / 256)", 1.5, 1.5,
     payload_per_byte, "{:.2f}"),
    ("stack of `trace_event_instance`, sealing included (bytes)", 256, 256, instance_stack,
     "{:.0f}"),
    ("flash of provider + session (bytes)", 4096, 4096, session_flash, "{:.0f}"),
]


def verdict(value, limit, style):
    shown = style.format(value)
    if value <= limit:
        return f"{shown} ≤ {style.format(limit)}: met"
    over = value - limit
    return (f"{shown} > {style.format(limit)}: **missed** by {style.format(over)} "
            f"({100 * over / limit:.0f} %)")


def print_targets(results, profiles):
    print("| target (Cortex-M4) | " + " | ".join(profile for profile, _ in profiles) + " |")
    print("|" + "---|" * (1 + len(profiles)))
    for name, limit_s, limit_z, figure, style in TARGETS:
        limits = {"fw-s": limit_s, "fw-z": limit_z, "release": limit_s * RELEASE_FACTOR}
        cells = [verdict(figure(results[profile]), limits[profile], style)
                 for profile, _ in profiles]
        print(f"| {name} | " + " | ".join(cells) + " |")


IMAGES = [("image_traced", "image-traced"), ("image_session", "image-session"),
          ("image_plain", "image-plain"), ("image_described", "image-described")]


def images(out):
    return {key: footprint(out / name) for key, name in IMAGES}


def image_rows(data):
    """(image, code, .data, .bss, flash, RAM) for each image and for the library's share."""
    rows = {}
    for key, name in IMAGES:
        flash, ram, detail = data[key]
        initialised = detail.get(".data", 0)
        bss = detail.get(".bss", 0) + detail.get(".uninit", 0)
        rows[key] = (flash - initialised, initialised, bss, flash, ram)
    plain = rows["image_plain"]
    share = lambda key: tuple(a - b for a, b in zip(rows[key], plain))
    return [
        ("image-traced", rows["image_traced"], False),
        ("image-session", rows["image_session"], False),
        ("image-plain", plain, False),
        ("the library (image-traced − image-plain)", share("image_traced"), True),
        ("provider + session (image-session − image-plain)", share("image_session"), True),
        ("image-described", rows["image_described"], False),
        ("one event type described in-band (image-described − image-session)",
         tuple(a - b for a, b in zip(rows["image_described"], rows["image_session"])), True),
    ]


def main():
    as_json = "--json" in sys.argv[1:]
    quick = "--quick" in sys.argv[1:]
    profiles = PROFILES[:1] if quick else PROFILES
    other_cores = [] if quick else OTHER_CORES
    setup()
    version = subprocess.run(["qemu-system-arm", "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    results = {}
    for profile, _ in profiles:
        out = build(profile)
        figures, per_instruction, overhead = measure(out / "costs")
        results[profile] = {
            "figures": figures,
            "ticks_per_instruction": per_instruction,
            "overhead_instructions": overhead,
            **images(out),
        }
        if profile == "fw-s":
            results[profile]["crosscheck"] = crosscheck(out / "costs", per_instruction)
    check = results["fw-s"]["crosscheck"]
    if abs(check["log_instructions"] - check["systick_instructions"]) > 1:
        sys.exit(f"SysTick and QEMU's execution log disagree: {check}")
    cores = {}
    for core, target, machine in other_cores:
        out = build("fw-s", target)
        figures, per_instruction, overhead = measure(out / "costs", machine)
        cores[core] = {
            "target": target,
            "machine": machine,
            "figures": figures,
            "ticks_per_instruction": per_instruction,
            "overhead_instructions": overhead,
            **images(out),
        }
    results["other_cores"] = cores
    if as_json:
        print(json.dumps(results, indent=1))
        return

    print(f"Cortex-M4 ({TARGET}) on QEMU {MACHINE}, `-icount {ICOUNT}`; {version}; {rustc}.\n")
    header = "| call | " + " | ".join(f"{p}: instructions | {p}: stack" for p, _ in profiles) + " |"
    print(header)
    print("|" + "---|" * (1 + 2 * len(profiles)))
    for case, label in CASES:
        cells = []
        for profile, _ in profiles:
            instructions, stack = results[profile]["figures"][case]
            cells.append(f"{instructions:.0f}")
            cells.append(f"≤ {stack}" if stack <= 32 else f"{stack}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    print("| profile | image | code | .data | .bss | flash | RAM |")
    print("|---|---|---|---|---|---|---|")
    for profile, _ in profiles:
        for name, row, bold in image_rows(results[profile]):
            cells = [f"**{value}**" if bold else str(value) for value in row]
            label = f"**{name}**" if bold else name
            print(f"| {profile} | {label} | " + " | ".join(cells) + " |")
    print()
    print_targets(results, profiles)
    print()
    for profile, _ in profiles:
        print(f"- {profile}: measurement overhead "
              f"{results[profile]['overhead_instructions']:.1f} instructions, "
              f"{results[profile]['ticks_per_instruction']:.3f} SysTick ticks per instruction")
    print(f"- cross-check (fw-s, 16-byte instance event with a parent): "
          f"{check['log_instructions']} instructions in QEMU's execution log, "
          f"{check['systick_instructions']:.2f} from SysTick "
          f"(overhead {check['log_overhead']} in the log, {check['systick_overhead']:.2f} from SysTick)")
    if not cores:
        return
    print()
    columns = [("Cortex-M4", results["fw-s"])] + list(cores.items())
    print("The fw-s profile on each core: "
          + "; ".join(f"{core} ({data.get('target', TARGET)}, QEMU {data.get('machine', MACHINE)}, "
                      f"{data['ticks_per_instruction']:.3f} SysTick ticks per instruction)"
                      for core, data in columns) + ".\n")
    print("| call | " + " | ".join(f"{core}: instructions | {core}: stack" for core, _ in columns)
          + " |")
    print("|" + "---|" * (1 + 2 * len(columns)))
    for case, label in CASES:
        cells = []
        for _, data in columns:
            instructions, stack = data["figures"][case]
            cells += [f"{instructions:.0f}", f"≤ {stack}" if stack <= 32 else f"{stack}"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for index, name in ((3, "the library in image-traced"), (4, "provider + session (image-session)"),
                        (6, "one event type described in-band")):
        cells = []
        for _, data in columns:
            _, row, _ = image_rows(data)[index]
            cells += [f"flash {row[3]}", f"RAM {row[4]}"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
