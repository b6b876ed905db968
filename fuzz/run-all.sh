#!/usr/bin/env bash
# Builds every fuzz target and runs each one, one after the other, for ${FUZZ_SECONDS:-30}
# seconds from its corpus with the -max_len and the memory limits of README.md (-malloc_limit_mb:
# one allocation larger than the reader ever makes fails the run; -rss_limit_mb: the whole
# process, with room for the address sanitizer's own). Prints per target the executions
# (stat::number_of_executed_units) and libFuzzer's final "#N DONE" line, and exits non-zero when
# any run finds something (a law broken, a crash, a leak, a slow input, an allocation or a
# process past its limit); libFuzzer leaves the input in fuzz/artifacts/<target>/.
#
# The PerfView traces are looked for in $ETW_PERFVIEW_DIR, else in ../shared/data/perfview beside
# the repository; when they are there, the perfview-* seeds are regenerated from them first.
# When they are not, the runs start from the committed seeds only, or, with ETW_REQUIRE_TRACES=1,
# the script stops with an error before building anything. Run from the repository root:
#
#     bash fuzz/run-all.sh
#     FUZZ_SECONDS=300 bash fuzz/run-all.sh
#     ETW_REQUIRE_TRACES=1 bash fuzz/run-all.sh
set -euo pipefail

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(dirname "$fuzz_dir")"
seconds="${FUZZ_SECONDS:-30}"
perfview="${ETW_PERFVIEW_DIR:-$repo_root/../shared/data/perfview}"
require_traces="${ETW_REQUIRE_TRACES:-}"

# The longest input each target is given (see README.md, "Input lengths").
max_len() {
    case "$1" in
        fixed_headers) echo 1024 ;;
        class_roll_up) echo 64 ;;
        guid_text) echo 256 ;;
        trace_buffer_walk) echo 65536 ;;
        etl_reader | etl_stream | etl_python) echo 262144 ;;
        etl_time_order) echo 4096 ;;
        time_order) echo 65600 ;;
        event_header) echo 4096 ;;
        kernel_headers) echo 1024 ;;
        lznt1 | xpress_huffman) echo 8192 ;;
        event_info) echo 8192 ;;
        event_source_reassembly) echo 32768 ;;
        assemble) echo 65536 ;;
        *) echo 4096 ;;
    esac
}

# The largest single allocation each target may make, in MB (see README.md, "Memory limits"):
# the .etl readers' is one buffer of MAX_BUFFER_SIZE (16 MiB), the others' a few times their
# input; anything larger is memory the input asked for.
malloc_limit() {
    case "$1" in
        etl_reader | etl_stream | etl_python | etl_time_order) echo 17 ;;
        *) echo 4 ;;
    esac
}
# The most the whole process may hold, in MB: the time order's bound (256 MiB of events, two
# 16 MiB buffers) and the harness's, with room for what the address sanitizer holds of its own
# over a long run (300-500 MB: its quarantine and shadow).
rss_limit=2048

cd "$fuzz_dir"
if [[ -d "$perfview" ]]; then
    python3 make-seeds.py --perfview "$perfview"
elif [[ "$require_traces" == 1 ]]; then
    echo "ETW_REQUIRE_TRACES=1, but there is no folder $perfview with the PerfView traces;" \
        "set ETW_PERFVIEW_DIR to it" >&2
    exit 1
else
    echo "no $perfview: running from the committed seeds only" \
        "(ETW_REQUIRE_TRACES=1 makes this an error)"
fi

cargo +nightly fuzz build

logs="$(mktemp -d)"
failed=()
for target in $(cargo +nightly fuzz list); do
    limit="$(max_len "$target")"
    malloc="$(malloc_limit "$target")"
    log="$logs/$target.log"
    status=0
    cargo +nightly fuzz run "$target" -- \
        -max_total_time="$seconds" -max_len="$limit" -timeout=30 -print_final_stats=1 \
        -malloc_limit_mb="$malloc" -rss_limit_mb="$rss_limit" \
        >"$log" 2>&1 || status=$?
    units="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
    printf '%-20s max_len %-7s malloc %2s MB  executions %-10s %s\n' \
        "$target" "$limit" "$malloc" "${units:-?}" "${done_line:-(no DONE line)}"
    if [[ $status -ne 0 ]]; then
        failed+=("$target")
        echo "    FAILED with exit status $status; full log: $log"
        grep -E 'panicked at|ERROR: libFuzzer|malloc\(|SUMMARY:|artifact_prefix|Test unit written' "$log" \
            | head -n 8 | sed 's/^/    /' || true
    fi
done

if ((${#failed[@]})); then
    echo "findings in: ${failed[*]}"
    exit 1
fi
echo "no findings; logs in $logs"
