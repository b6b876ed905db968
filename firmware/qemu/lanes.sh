#!/usr/bin/env bash
# Runs the boot trace firmware on a Cortex-M0, M3 and M4 (src/bin/boot.rs) and on a big-endian
# Cortex-R5 (src/bin/boot-r5.rs, BE8) under qemu-system-arm, and checks that each .etl file it
# writes through semihosting is byte-identical to the one the host build of the same trace
# writes, and that etwc reads it back with every event; described.etl's typed events, with
# their provider, event and field names and values from its in-band descriptions. The firmware also dumps each mode's raw
# trace buffers (`<mode>.buffers`, a torn copy of the last one at the end): `etwc assemble`
# must make an .etl file of them that dissect.etl reads with every event, the firmware's own
# events, and told the header's members, the firmware's file byte for byte
# (tools/etl-crosscheck/assembled.py).
#
# Usage: bash firmware/qemu/lanes.sh   (from anywhere; installs qemu-system-arm, the targets,
# nightly's rust-src (the R5 target has no prebuilt core), llvm-tools (llvm-objcopy) and
# dissect.etl when they are missing). Builds go to target/firmware/ at the root of the
# repository.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
profile=${FIRMWARE_PROFILE:-fw-s}

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-arm >/dev/null
fi
qemu-system-arm --version | head -n 1
# target:QEMU machine (the board firmware/qemu/build.rs links for)
lanes="thumbv7em-none-eabihf:mps2-an386 thumbv7m-none-eabi:lm3s6965evb thumbv6m-none-eabi:microbit"
for lane in $lanes; do
    rustup target list --installed | grep -qx "${lane%%:*}" || rustup target add "${lane%%:*}"
done
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
rustup +nightly component list --installed | grep -q '^rust-src' || rustup +nightly component add rust-src
rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools
objcopy=$(ls "$(rustc --print sysroot)"/lib/rustlib/*/bin/llvm-objcopy)
python3 -c 'import dissect.etl' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check dissect.etl==3.14

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --quiet --release -p etw-classic-cli --bin etwc -p etw-classic-firmware --example boot_etl
etwc=target/release/etwc
# One JSON line per file: what etwc's summary must count.
target/release/examples/boot_etl "$out/host" >"$out/expected.jsonl"

# The big-endian lane: nightly builds core for armebv7r-none-eabi, the image is linked BE8 and
# loaded raw at 0 on QEMU's empty machine, where the Cortex-R5 starts.
lanes="$lanes armebv7r-none-eabi:none"

# What etwc must show of described.etl (firmware/src/lib.rs, Mode::Described): the three
# descriptions, then per stage a Start, a Checkpoint per step and an End, every field named.
described_check='
import json, sys
events = [json.loads(line) for line in sys.stdin]
boot = [e for e in events if e.get("provider_name") == "Boot"]
names = [e["event_name"] for e in boot]
expected = []
for steps in (2, 3, 1, 2):
    expected += ["Stage/Start"] + ["Stage/Checkpoint"] * steps + ["Stage/End"]
if names != expected:
    sys.exit(f"typed events named {names}, expected {expected}")
first = boot[0]["fields"]
if first != {"Stage": 1, "Steps": 2, "Entry": "0x08001000", "Name": "clocks"}:
    sys.exit(f"the first Stage/Start has {first}")
fields = {"Stage/Start": ["Stage", "Steps", "Entry", "Name"], "Stage/Checkpoint": ["Ok", "Image", "At", "Hash"], "Stage/End": ["Stage", "Status"]}
for e in boot:
    name, keys = e["event_name"], list(e["fields"])
    if keys != fields[name]:
        sys.exit(f"{name} has the fields {keys}")
infos = sum(e.get("event_name") == "MetaData/EventInfo" for e in events)
if infos != 3:
    sys.exit(f"{infos} MetaData/EventInfo events, expected 3")
print(f"  {len(boot)} typed events named from the trace alone: {dict((n, names.count(n)) for n in fields)}")
'

failed=0
for lane in $lanes; do
    target=${lane%%:*} machine=${lane##*:}
    board=$machine
    [ "$machine" = none ] && board="none (cortex-r5)"
    started=$(date +%s%3N)
    mkdir -p "$out/$machine"
    if [ "$target" = armebv7r-none-eabi ]; then
        cargo +nightly build --quiet --manifest-path firmware/qemu/Cargo.toml \
            --target-dir target/firmware -Z build-std=core --profile "$profile" --target "$target" \
            --features cortex-r --bin boot-r5
        "$objcopy" -O binary "target/firmware/$target/$profile/boot-r5" "$out/boot-r5.bin"
        run=(qemu-system-arm -M none -cpu cortex-r5 -m 4M -nographic -monitor none
            -semihosting-config enable=on,target=native
            -device "loader,file=$out/boot-r5.bin,addr=0")
    else
        cargo build --quiet --manifest-path firmware/qemu/Cargo.toml --target-dir target/firmware \
            --profile "$profile" --target "$target" --bin boot
        run=(qemu-system-arm -M "$machine" -nographic -semihosting-config enable=on,target=native
            -kernel "$root/target/firmware/$target/$profile/boot")
    fi
    built=$(date +%s%3N)
    status=0
    (cd "$out/$machine" && timeout 60 "${run[@]}") || status=$?
    ran=$(date +%s%3N)
    if [ "$status" -ne 0 ]; then
        echo "$target on $board: the firmware exited with status $status" >&2
        failed=1
        continue
    fi
    while read -r expected; do
        file=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["file"])' "$expected")
        if ! cmp "$out/host/$file" "$out/$machine/$file"; then
            echo "$target on $board: $file differs from the host's" >&2
            failed=1
            continue
        fi
        summary=$("$etwc" etl "$out/$machine/$file" --summary --json)
        if ! python3 - "$expected" "$summary" <<'PY'
import json, sys
expected, summary = (json.loads(arg) for arg in sys.argv[1:])
counts = {key: expected[key] for key in ("buffers", "events", "kinds")}
if counts != summary:
    sys.exit(f"etwc counts {summary}, the trace wrote {counts}")
PY
        then
            echo "$target on $board: $file does not read back with every event" >&2
            failed=1
            continue
        fi
        echo "$target on $board: $file identical to the host's, read back: $summary"
        if [ "$file" = described.etl ]; then
            # The typed events, named from the trace's own MetaData/EventInfo events alone.
            if ! "$etwc" etl "$out/$machine/$file" --json | python3 -c "$described_check"; then
                echo "$target on $board: $file's typed events do not read back with names and values" >&2
                failed=1
                continue
            fi
        fi
        dump=${file%.etl}.buffers
        # Every note and header difference on the first lane, one line on the others.
        brief=--brief
        [ "$target" = thumbv7em-none-eabihf ] && brief=
        if ! python3 tools/etl-crosscheck/assembled.py --etwc "$etwc" $brief "$out/$machine/$dump" \
            "$out/$machine/$file"; then
            echo "$target on $board: etwc assemble $dump does not give $file's events" >&2
            failed=1
            continue
        fi
        echo "$target on $board: etwc assemble $dump: $file's events, read by dissect.etl"
    done <"$out/expected.jsonl"
    echo "$target on $board: built in $((built - started)) ms, ran in $((ran - built)) ms"
done
exit "$failed"
