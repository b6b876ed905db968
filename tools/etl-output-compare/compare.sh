#!/usr/bin/env bash
# Compares what two builds of `etwc etl` print for the PerfView traces, byte for byte.
#
#   tools/etl-output-compare/compare.sh REV        build REV (a commit, tag or branch) of this
#                                                  repository and compare it with the work tree
#   tools/etl-output-compare/compare.sh OLD NEW    compare two etwc binaries already built
#
# Each trace of ../shared/data/perfview (or $ETW_PERFVIEW_DIR) is printed by both builds as
#   --json                                        the JSON lines
#   --json --manifest M --mof K                   the same with the schema files of
#                                                 ../shared/data/schemas ($ETW_SCHEMAS_DIR), so
#                                                 that more fields are decoded
#   --json --order time                           the JSON lines in time order
#   --format table, --format csv, --format chrome the other outputs
#   --summary --json, --stats --json
# and the outputs (standard output, standard error and the exit status) must be the same. The
# outputs are kept in OUT (default: a temporary folder, removed at the end) when --keep OUT is
# given first. REV is built into a target directory of its own under the system's temporary
# folder (CARGO_TARGET_DIR for it: $COMPARE_TARGET_DIR), from a `git worktree` removed at the
# end. Exits 1 at the first output that differs, after showing where.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

keep=
if [ "${1:-}" = --keep ]; then
    keep=$2
    shift 2
fi
work=$(mktemp -d)
cleanup() {
    if [ -n "${tree:-}" ]; then git worktree remove --force "$tree" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

case $# in
1)
    rev=$1
    tree=$work/tree
    git worktree add --detach "$tree" "$rev" >/dev/null
    target=${COMPARE_TARGET_DIR:-${TMPDIR:-/tmp}/etwc-compare-target}
    echo "building $rev ($(git rev-parse --short "$rev")) in $target" >&2
    (cd "$tree" && CARGO_TARGET_DIR=$target cargo build --quiet --release -p etw-classic-cli --bin etwc)
    old=$work/etwc-old
    cp "$target/release/etwc" "$old"
    echo "building the work tree" >&2
    cargo build --quiet --release -p etw-classic-cli --bin etwc
    new=$root/target/release/etwc
    ;;
2)
    old=$1
    new=$2
    ;;
*)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac

traces=${ETW_PERFVIEW_DIR:-$root/../shared/data/perfview}
schemas=${ETW_SCHEMAS_DIR:-$root/../shared/data/schemas}
out=${keep:-$work/out}
mkdir -p "$out/old" "$out/new"

runs=(
    "json|--json"
    "json-schemas|--json --manifest $schemas/ClrEtwAll.man --mof $schemas/kerneltraceeventparser.mof"
    "json-time|--json --order time"
    "table|--format table"
    "csv|--format csv"
    "chrome|--format chrome"
    "summary|--summary --json"
    "stats|--stats --json"
)

compared=0
for trace in "$traces"/*.etl; do
    name=$(basename "$trace" .etl)
    for run in "${runs[@]}"; do
        label=${run%%|*}
        # The options are words without spaces: split them on purpose.
        read -r -a options <<<"${run#*|}"
        for side in old new; do
            binary=$old
            [ "$side" = new ] && binary=$new
            status=0
            "$binary" etl "$trace" "${options[@]}" >"$out/$side/$name.$label.out" \
                2>"$out/$side/$name.$label.err" || status=$?
            echo "$status" >"$out/$side/$name.$label.status"
        done
        for part in out err status; do
            if ! cmp -s "$out/old/$name.$label.$part" "$out/new/$name.$label.$part"; then
                echo "DIFFERENT: $name $label ($part): etwc etl $trace ${options[*]}" >&2
                cmp "$out/old/$name.$label.$part" "$out/new/$name.$label.$part" >&2 || true
                diff <(head -c 2000000 "$out/old/$name.$label.$part") \
                    <(head -c 2000000 "$out/new/$name.$label.$part") | head -n 20 >&2 || true
                exit 1
            fi
        done
        lines=$(wc -l <"$out/new/$name.$label.out")
        printf 'same: %-28s %-13s %9s lines\n' "$name" "$label" "$lines"
        compared=$((compared + 1))
    done
done
echo "$compared outputs compared, every one the same byte for byte"
