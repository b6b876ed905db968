#!/usr/bin/env python3
"""Flash and stack footprint of the codec in firmware, checked against budgets.

Builds tiny `thumbv7em-none-eabihf` binaries (Cortex-M4F; release, opt-level "z", fat LTO,
panic = "abort", one codegen unit), each a crate under this folder:

  empty/         the baseline: reset vector, entry point, panic handler (common/start.rs)
  header-codec/  case (a): `EventInstanceGuidHeader::parse` + `emit` on opaque input

and reports, for each case:

  .text   bytes of `.text` the case adds over the empty binary. Read from the ELF section
          headers of a build with the default toolchain (parsed here, no tool needed).
  stack   worst-case stack depth from the entry point, in bytes. The same crates are built again
          with nightly's `-Z emit-stack-sizes`, which makes LLVM record each function's frame size
          in a `.stack_sizes` section (kept by common/link.x); `llvm-objdump` (rustup's
          `llvm-tools` component) gives the calls (`bl`, and `b` to another function's start, a
          tail call); the depth is the largest sum of frames along a call path from `reset`.
          An indirect call or recursion makes the depth unknown, which fails the check.

A figure above its budget in BUDGETS makes the script exit with status 1. It installs what it
needs (the thumbv7em target for stable and nightly, nightly itself, llvm-tools) and does nothing
when they are there. Builds go to target/footprint/ at the root of the repository.

Usage: python3 tools/footprint/footprint.py
"""

import os
import re
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TARGET = "thumbv7em-none-eabihf"
TARGET_DIR = ROOT / "target" / "footprint"
ENTRY = "reset"


@dataclass(frozen=True)
class Case:
    crate: str  # folder under tools/footprint/, and its binary's name is "footprint-<crate>"
    label: str
    text_budget: int  # bytes of .text over the empty binary
    # Worst-case bytes of stack from the entry point; None where the call graph holds an
    # indirect call the analysis cannot resolve, so the depth is reported as unknown.
    stack_budget: int | None


BASELINE = "empty"

# Budgets sit just above what is achieved, so that any growth fails; the targets are (a) .text
# <= 1024 bytes and stack <= 256 bytes, (b) .text <= 4096 bytes. Lower a budget when the code
# shrinks; raise one only on purpose, saying why.
CASES = [
    Case("header-codec", "(a) EventInstanceGuidHeader parse + emit", text_budget=1600, stack_budget=464),
    # (b) keeps a callee's address in `lr` across stack spills at opt-level z, which the
    # literal-pool tracking below does not follow: its stack depth is not measured yet.
    Case("provider-session", "(b) provider + one session buffer", text_budget=3300, stack_budget=None),
]


def run(*command, **options):
    return subprocess.run(command, check=True, **options)


def output(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def install():
    """The toolchain parts the builds need; each step is a no-op when already done."""
    toolchains = output("rustup", "toolchain", "list")
    if not re.search(r"^nightly", toolchains, re.M):
        run("rustup", "toolchain", "install", "nightly", "--profile", "minimal")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    run("rustup", "target", "add", TARGET, **quiet)
    run("rustup", "+nightly", "target", "add", TARGET, **quiet)
    run("rustup", "+nightly", "component", "add", "llvm-tools", **quiet)


def build(crate, toolchain, rustflags):
    """Builds one case with `toolchain` (None: the default one); returns its ELF file's path."""
    target_dir = TARGET_DIR / (toolchain or "default")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), RUSTFLAGS=rustflags)
    env.pop("CARGO_BUILD_TARGET", None)
    cargo = ["cargo"] + ([f"+{toolchain}"] if toolchain else [])
    try:
        run(
            *cargo, "build", "--quiet", "--release", "--locked",
            "--target", TARGET, "--manifest-path", str(HERE / crate / "Cargo.toml"),
            env=env,
        )
    except subprocess.CalledProcessError:
        raise SystemExit(f"building {crate} failed (see above)")
    return target_dir / TARGET / "release" / f"footprint-{crate}"


# ---- ELF32, little-endian ---------------------------------------------------------------------


def sections(elf):
    """{name: (address, offset, size)} of an ELF32 little-endian file's sections."""
    if elf[:6] != b"\x7fELF\x01\x01":
        raise SystemExit("not a little-endian ELF32 file")
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x2E)
    headers = [struct.unpack_from("<10I", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = elf[strtab[4]:strtab[4] + strtab[5]]
    result = {}
    for name, _type, _flags, address, offset, size, *_ in headers:
        end = names.index(b"\0", name)
        result[names[name:end].decode()] = (address, offset, size)
    return result


def functions(elf, table):
    """{address: name} of the function symbols (Thumb bit cleared)."""
    _, offset, size = table[".symtab"]
    _, str_offset, str_size = table[".strtab"]
    names = elf[str_offset:str_offset + str_size]
    result = {}
    for at in range(offset, offset + size, 16):
        name, value, _size, info, _other, _shndx = struct.unpack_from("<IIIBBH", elf, at)
        if info & 0xF == 2:  # STT_FUNC
            end = names.index(b"\0", name)
            result[value & ~1] = names[name:end].decode()
    return result


def stack_sizes(elf, table):
    """{function address: frame bytes} from `.stack_sizes`: (u32 address, ULEB128 size) pairs."""
    if ".stack_sizes" not in table:
        raise SystemExit(".stack_sizes missing: was the build made with -Z emit-stack-sizes?")
    _, offset, size = table[".stack_sizes"]
    data, at, result = elf[offset:offset + size], 0, {}
    while at < len(data):
        address, = struct.unpack_from("<I", data, at)
        at += 4
        value, shift = 0, 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        result[address & ~1] = value
    return result


# ---- stack depth ------------------------------------------------------------------------------


def objdump():
    sysroot = output("rustc", "+nightly", "--print", "sysroot").strip()
    for tool in Path(sysroot, "lib", "rustlib").glob("*/bin/llvm-objdump"):
        return str(tool)
    found = shutil.which("llvm-objdump")
    if found:
        return found
    raise SystemExit("llvm-objdump not found (rustup +nightly component add llvm-tools)")


CALL = re.compile(
    r"^\s*([0-9a-f]+):\s+(bl|blx|bx|b(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?)(?:\.w)?"
    r"\s+([^\s,]+)(?:\s|$)"
)
# `ldr rN, [pc, #k] @ 0xADDR`: rN takes the word at ADDR (how -Oz keeps a callee in a register).
LITERAL = re.compile(r"^\s*[0-9a-f]+:\s+ldr(?:\.w)?\s+(r\d+|lr|ip), \[pc, #-?(?:0x[0-9a-f]+|\d+)\]\s+@ 0x([0-9a-f]+)")
# Any other instruction that writes a register forgets what the register held.
WRITES = re.compile(r"^\s*[0-9a-f]+:\s+\S+\s+(r\d+|lr|ip)\b")


def word_at(elf, table, address):
    """The little-endian word at `address` in the section that holds it."""
    for start, offset, size in table.values():
        if start and start <= address < start + size:
            return struct.unpack_from("<I", elf, offset + address - start)[0]
    return None


def call_graph(path, elf, table, starts):
    """{caller: (callees, unresolved indirect calls)} from the disassembly of the ELF.

    `bl` and `blx` to an address are calls; `b` to another function's start is a tail call;
    `blx rN` is resolved when rN was last loaded from the literal pool in the same function
    (what -Oz does with a callee used several times), and is unresolved otherwise."""
    text = output(objdump(), "-d", "--no-show-raw-insn", "--triple=thumbv7em-none-eabihf", str(path))
    graph = {address: (set(), []) for address in starts}
    prologue = {address: 0 for address in starts}
    current, registers, in_prologue = None, {}, False
    for line in text.splitlines():
        header = re.match(r"^([0-9a-f]+) <.*>:$", line)
        if header:
            address = int(header.group(1), 16)
            current = address if address in graph else None
            registers, in_prologue = {}, True
            continue
        if current is None:
            continue
        if in_prologue:
            frame = prologue_bytes(line)
            if frame is None:
                in_prologue = False
            else:
                prologue[current] += frame
        instruction = CALL.match(line)
        if instruction:
            at, mnemonic, operand = instruction.groups()
            at = int(at, 16)
            if mnemonic == "bx" and operand == "lr":
                continue  # return
            if re.fullmatch(r"r\d+|sp|lr|ip|pc", operand):
                if mnemonic in ("blx", "bx"):
                    target = registers.get(operand)
                    if target is None:
                        graph[current][1].append(f"{mnemonic} {operand} at {at:#x}")
                    else:
                        graph[current][0].add(target & ~1)
                continue
            target = int(operand, 16)
            if mnemonic in ("bl", "blx") or (target in graph and target != current):
                graph[current][0].add(target)  # a call, or a tail call to another function
            continue
        literal = LITERAL.match(line)
        if literal:
            registers[literal.group(1)] = word_at(elf, table, int(literal.group(2), 16))
            continue
        written = WRITES.match(line)
        if written:
            registers.pop(written.group(1), None)
    return graph, prologue


def prologue_bytes(line):
    """Stack bytes one prologue instruction takes (push, vpush, sub sp), 0 for other set-up
    moves, None at the first instruction that ends the prologue."""
    match = re.match(r"^\s*[0-9a-f]+:\s+(\S+)\s+(.*)$", line)
    if not match:
        return 0
    mnemonic, operands = match.groups()
    if mnemonic in ("push", "push.w", "stmdb", "stmdb.w") and "{" in operands:
        return 4 * len(registers_in(operands))
    if mnemonic == "vpush":
        return 8 * len(registers_in(operands))
    if mnemonic in ("str", "str.w") and re.match(r"\S+, \[sp, #-(?:0x)?[0-9a-f]+\]!", operands):
        return int(re.search(r"#-((?:0x)?[0-9a-f]+)", operands).group(1), 0)
    sub = re.match(r"(?:sp, )?sp, #((?:0x)?[0-9a-f]+)$", operands)
    if mnemonic in ("sub", "sub.w", "subw") and sub:
        return int(sub.group(1), 0)
    if mnemonic in ("add", "mov", "mov.w", "movs", "movw", "movt", "ldr", "str", "strd", "ldr.w"):
        return 0
    return None


def registers_in(operands):
    """The registers of a list like {r4, r5, r6, r7, lr} or {d8-d11}."""
    names = []
    for item in operands.strip("{} ").split(","):
        item = item.strip()
        span = re.fullmatch(r"([rd])(\d+)-[rd](\d+)", item)
        if span:
            names += [f"{span.group(1)}{n}" for n in range(int(span.group(2)), int(span.group(3)) + 1)]
        elif item:
            names.append(item)
    return names


def worst_stack(graph, frames, names):
    """The deepest sum of frame sizes from ENTRY, and the path; raises on unknown depth."""
    entry = next(address for address, name in names.items() if name == ENTRY)
    memo = {}

    def depth(address, on_path):
        if address in on_path:
            raise SystemExit(f"recursion through {names.get(address, hex(address))}: depth unknown")
        if address in memo:
            return memo[address]
        if address not in frames:
            raise SystemExit(f"no frame size for {names.get(address, hex(address))}")  # unreachable
        callees, indirect = graph.get(address, (set(), []))
        if indirect:
            raise SystemExit(f"indirect call in {names.get(address)} ({indirect[0]}): depth unknown")
        best = (0, [])
        for callee in callees:
            below = depth(callee, on_path | {address})
            best = max(best, below, key=lambda item: item[0])
        memo[address] = (frames[address] + best[0], [address] + best[1])
        return memo[address]

    total, path = depth(entry, frozenset())
    return total, " -> ".join(f"{names.get(a, hex(a))} ({frames[a]})" for a in path)


def measure(crate, with_stack=True):
    """(.text bytes, worst-case stack bytes, deepest path) of one crate."""
    elf_path = build(crate, None, "")
    text = sections(elf_path.read_bytes())[".text"][2]
    if not with_stack:
        return text, None, "not measured"
    stack_path = build(crate, "nightly", "-Z emit-stack-sizes")
    elf = stack_path.read_bytes()
    table = sections(elf)
    names = functions(elf, table)
    frames = stack_sizes(elf, table)
    graph, prologue = call_graph(stack_path, elf, table, names)
    # Functions built without -Z emit-stack-sizes (compiler-builtins' memcpy and memset come
    # prebuilt with the target) get the size their prologue reserves.
    for address, size in prologue.items():
        frames.setdefault(address, size)
    stack, path = worst_stack(graph, frames, names)
    return text, stack, path


def main():
    install()
    base_text, base_stack, base_path = measure(BASELINE)
    print(f"{TARGET}, opt-level z, LTO, panic=abort; the empty binary: .text {base_text} bytes, "
          f"stack {base_stack} bytes ({base_path})")
    print()
    print(f"| {'case':<45} | {'.text added':>11} | {'budget':>6} | {'stack':>5} | {'budget':>6} |")
    print(f"|{'-' * 47}|{'-' * 13}|{'-' * 8}|{'-' * 7}|{'-' * 8}|")
    failures = []
    paths = []
    for case in CASES:
        text, stack, path = measure(case.crate, with_stack=case.stack_budget is not None)
        added = text - base_text
        shown_stack = "n/a" if stack is None else stack
        shown_budget = "n/a" if case.stack_budget is None else case.stack_budget
        print(f"| {case.label:<45} | {added:>11} | {case.text_budget:>6} | {shown_stack:>5} | {shown_budget:>6} |")
        paths.append(f"{case.crate}: {path}")
        if added > case.text_budget:
            failures.append(f"{case.label}: .text adds {added} bytes, budget {case.text_budget}")
        if stack is not None and stack > case.stack_budget:
            failures.append(f"{case.label}: stack {stack} bytes, budget {case.stack_budget}")
    print()
    print("deepest paths (frame bytes):")
    for path in paths:
        print(f"  {path}")
    if failures:
        print()
        for failure in failures:
            print(f"over budget: {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
