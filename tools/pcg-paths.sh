#!/usr/bin/env bash
# PCG's two device paths (cuda/pcg.h) side by side on a GPU: the grid path (three launches per
# iteration) and the one-block path (one launch per solve), forced through
# ALC_CUDA_PCG_ONE_BLOCK_ROWS, on scenes from 68 to 15,793 block rows; optionally a second
# binary (an older build) as a third column. Prints a Markdown table of microseconds per CG
# iteration (s/step x PCG share / (Newton per step x CG per solve), from `alcove bench`) to
# stdout, the raw bench lines to stderr. Needs a device: on the emulation it measures the
# emulation.
#   tools/pcg-paths.sh [ALCOVE [OLD_ALCOVE]]        (ALCOVE default build/alcove)
set -euo pipefail
cd "$(dirname "$0")/.."
alcove=${1:-build/alcove}
old=${2:-}
# scene file, extra options, label
cases=(
    "scenes/slope.yaml|--steps 40|slope"
    "scenes/box_drop.yaml|--steps 30|box_drop"
    "scenes/arch.yaml|--steps 40|arch"
    "scenes/box_stack.yaml|--steps 30|box_stack"
    "scenes/rods_twist.yaml|--steps 20|rods_twist"
    "scenes/balls_press.yaml|--steps 30|balls_press"
    "scenes/rings_box.yaml|--steps 20|rings_box"
    "scenes/pile_well.yaml|--steps 20|pile_well"
    "scenes/pile_well.yaml|--steps 10 --set n=3|pile_well n=3"
    "scenes/roller.yaml|--steps 20|roller"
    "scenes/pile_well.yaml|--steps 10 --set n=4|pile_well n=4"
    "scenes/pile_well.yaml|--steps 6 --set n=6|pile_well n=6"
    "scenes/slope.yaml|--steps 3 --preset full|slope full"
    "scenes/roller.yaml|--steps 3 --preset full|roller full"
)

# the bench row of one run -> "CG Newton s/step PCG-share"
run() {
    local bin=$1 rows=$2 scene=$3 opts=$4 line
    # shellcheck disable=SC2086
    line=$(ALC_CUDA_PCG_ONE_BLOCK_ROWS=$rows "$bin" bench "$scene" $opts --backend cuda 2>&1 |
        grep -A1 '^backend: cuda' | tail -n 1)
    echo "  rows=$rows $bin: $line" >&2
    # name #tets CG (peak) Newton (peak) contacts (peak) alpha s/step (peak) Hess PCG ...
    echo "$line" | awk '{ print $3, $5, $10, $13 }' | tr -d '%'
}

usPerIter() {  # CG Newton s/step PCG% -> microseconds
    awk -v cg="$1" -v nt="$2" -v s="$3" -v pcg="$4" \
        'BEGIN { if (cg * nt > 0) printf "%.1f", 1e6 * s * pcg / 100 / (cg * nt); else print "-" }'
}

echo "| scene | block rows | CG/solve | µs per CG iteration, grid | one block |${old:+ $old (grid) |} s/step grid | one block |"
echo "|---|---|---|---|---|${old:+---|}---|---|"
for c in "${cases[@]}"; do
    IFS='|' read -r scene opts label <<< "$c"
    setOpt=$(grep -o -- '--\(set\|preset\) [^ ]*' <<< "$opts" | tr '\n' ' ' || true)
    # shellcheck disable=SC2086
    nrow=$("$alcove" info "$scene" $setOpt 2>/dev/null |
        sed -n 's/^model *: \([0-9]*\) vertices.*/\1/p')
    read -r cg nt sg pg <<< "$(run "$alcove" 0 "$scene" "$opts")"
    read -r cg1 nt1 s1 p1 <<< "$(run "$alcove" 16384 "$scene" "$opts")"
    oldCol=""
    if [ -n "$old" ]; then
        read -r cgo nto so po <<< "$(run "$old" 0 "$scene" "$opts")"
        oldCol=" $(usPerIter "$cgo" "$nto" "$so" "$po") |"
    fi
    echo "| $label | $nrow | $cg | $(usPerIter "$cg" "$nt" "$sg" "$pg") |" \
        "$(usPerIter "$cg1" "$nt1" "$s1" "$p1") |$oldCol $sg | $s1 |"
done
