#!/usr/bin/env bash
# The one command a machine with an NVIDIA GPU runs: everything about the CUDA backend that the
# SIMT emulation cannot show (docs/architecture.md "What only a device can show").
#
#   tools/gpu-acceptance.sh [OUTDIR]
#
# Steps, each logged under OUTDIR (default bench/results/<gpu name>/acceptance/):
#   1. build with warnings as errors for the device's own architecture as well;
#   2. make gpu-test: every alcg_ module against its alcr_ twin on the device (must not be
#      waived: a machine without a usable device fails here);
#   3. compute-sanitizer memcheck, racecheck, synccheck and initcheck over the GPU tests, each
#      device array its own allocation (ALC_CUDA_ARENA=0);
#   4. ptxas resource use per kernel for the device's architecture;
#   5. the GPU benchmark: the Table 1 rows of the scenes on the cuda backend (the GPU tests,
#      step 2, already compare every scene's full step with the reference backend);
#   6. the full step at each scene's full preset for 10 steps on the device, every state
#      checked by `alcove check`, and one scene run twice: bitwise identical states (the
#      backend's reproducibility promise, cuda/backend_cuda.cu);
#   7. summary.md with the device, driver, toolkit, date, commit and each step's result.
# Exit status 0 only when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cuda_home=${CUDA_HOME:-/usr/local/cuda}
export PATH="$cuda_home/bin:$PATH"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu-acceptance: no NVIDIA GPU here (nvidia-smi finds none): nothing to accept" >&2
    exit 2
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
slug=$(echo "$gpu" | tr '[:upper:]' '[:lower:]' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
out=${1:-bench/results/$slug/acceptance}
mkdir -p "$out"
jobs=$(nproc)
status=0
declare -a rows

step() {  # step NAME LOG COMMAND...: run, log, record pass/fail
    local name=$1 log=$2
    shift 2
    echo "== $name"
    local t0=$SECONDS
    "$@" > "$out/$log" 2>&1
    local rc=$?
    local dt=$((SECONDS - t0))
    if [ $rc -eq 0 ]; then
        rows+=("| $name | passed | ${dt} s | [$log]($log) |")
    else
        rows+=("| $name | **failed** (exit $rc) | ${dt} s | [$log]($log) |")
        status=1
    fi
    tail -n 3 "$out/$log"
    return $rc
}

archs="80 86 89 90"
case " $archs " in *" $cc "*) ;; *) archs="$archs $cc" ;; esac

step "build (WERROR=1, sm $archs)" build.log \
    make -j"$jobs" WERROR=1 CUDA_ARCHS="$archs" all build/alcove_gpu_tests
step "GPU tests vs reference" gpu-test.log bash -c '
    build/alcove_gpu_tests; rc=$?
    if [ $rc -eq 2 ]; then echo "waived: the device is not usable"; exit 1; fi
    exit $rc'
# each array its own allocation (ALC_CUDA_ARENA=0), so that memcheck sees an overrun of one
# array into its neighbour in the arena (cuda/arena.h)
for tool in memcheck racecheck synccheck initcheck; do
    step "compute-sanitizer $tool" "sanitizer-$tool.log" \
        env ALC_CUDA_ARENA=0 compute-sanitizer --tool "$tool" --error-exitcode 1 \
        build/alcove_gpu_tests
done
step "ptxas report sm_$cc" "ptxas-sm$cc.md" tools/ptxas-report.sh "$cc"

# the benchmark: the full step on the device
step "benchmark (cuda backend)" bench.log \
    build/alcove bench --table --backend cuda --record "$out"
# the full presets on the device, checked; one scene twice, bitwise
step "full presets, 10 steps each, checked" full-presets.log bash -c '
    rc=0
    for s in scenes/*.yaml; do
        n=$(basename "$s" .yaml)
        build/alcove run "$s" --backend cuda --preset full --steps 10 --frames none \
            --out "'"$out"'/probe/$n" --quiet || { echo "$n: run failed"; rc=1; continue; }
        build/alcove check "'"$out"'/probe/$n" | tail -n 1 || rc=1
        grep -m1 "\"memory\"\|memory" "'"$out"'/probe/$n/summary.txt" || true
    done
    exit $rc'
step "reproducible (slope twice, bitwise)" reproducible.log bash -c '
    for k in 1 2; do
        build/alcove run scenes/slope.yaml --backend cuda --steps 20 --frames none \
            --out "'"$out"'/probe/rep$k" --quiet || exit 1
    done
    for f in "'"$out"'"/probe/rep1/states/*.alcs; do
        cmp "$f" "'"$out"'/probe/rep2/states/$(basename "$f")" || exit 1
    done
    echo "20 states identical"'
rm -rf "$out/probe"

{
    echo "# GPU acceptance: $gpu"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "- device: $gpu, compute capability $cc, driver $driver"
    echo "- toolkit: $(nvcc --version | tail -n 2 | head -n 1)"
    echo "- command: tools/gpu-acceptance.sh $*"
    echo
    echo "| step | result | time | log |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} > "$out/summary.md"
cat "$out/summary.md"
exit $status
