#!/usr/bin/env bash
# The one command a machine with an NVIDIA GPU runs: everything about the CUDA backend that the
# SIMT emulation cannot show (docs/architecture.md "What only a device can show").
#
#   tools/gpu-acceptance.sh [--prebuilt] [--budget SECONDS] [--snapshot FILE] [--only STEPS]
#                           [--runs DIR] [OUTDIR]
#
# Steps, each logged under OUTDIR (default bench/results/<gpu name>/acceptance/):
#   1. build with warnings as errors for the device's own architecture as well (or, with
#      --prebuilt, check that the binaries in $BUILD hold machine code for it);
#   2. make gpu-test: every alcg_ module against its alcr_ twin on the device (must not be
#      waived: a machine without a usable device fails here);
#   3. the GPU benchmark: the Table 1 rows of the scenes on the cuda backend, one entry at a
#      time (the GPU tests, step 2, already compare every scene's full step with the reference);
#   4. the full step at each scene's full preset for 10 steps on the device, states every 5
#      steps checked by `alcove check`, each scene's summary kept;
#   5. the same full presets for 3 steps on the cuda backend and on the reference backend with
#      every core of this host, side by side (compare/);
#   6. one scene run twice: bitwise identical states (the backend's reproducibility promise,
#      cuda/backend_cuda.cu);
#   7. compute-sanitizer memcheck, racecheck, synccheck and initcheck, each device array its
#      own allocation (ALC_CUDA_ARENA=0), over the GPU tests (or, with --budget, over one step
#      of the roller, which launches every kernel of the full step: contact, friction, CCD, PCG,
#      then over the GPU tests of the tetrahedron guards, which the roller does not use;
#      racecheck over one step of the box drop);
#   8. ptxas resource use per kernel for the device's architecture (not with --prebuilt: it
#      needs no device, tools/ptxas-report.sh runs anywhere);
#   9. with --runs DIR, long runs: the scenes DIR/*.yaml in name order on the cuda backend,
#      each taken towards its end before the next starts, continued from DIR/out/NAME where an
#      earlier call left a checkpoint, stopped by SIGTERM (which keeps the checkpoint of its
#      last frame) when the step's time is spent; every state written checked by `alcove
#      check`; the run folder, its states thinned to every 100th step and the last, kept as
#      OUTDIR/runs/NAME, which the next call takes back as DIR/out/NAME (docs/architecture.md,
#      "What only a device can show");
#  10. summary.md with the device, driver, toolkit, date, commit and each step's result,
#      rewritten after every step.
# Exit status 0 only when every step passed; a step stopped by its time limit is "timed out",
# which is not a pass.
#
# Options, for a lent machine on a clock (docs/architecture.md, "What only a device can show"):
#   --prebuilt        the binaries in $BUILD (default build) were built elsewhere with the same
#                     toolkit and WERROR=1 (tools/gpu-bundle.sh builds them and gathers the
#                     libraries they link); step 1 checks they carry sm_<cc> code and that
#                     every library resolves, instead of building (the lent machine may lack
#                     the -dev packages)
#   --budget S        give each step a share of S seconds of wall time: tests 15 %, benchmark
#                     10 %, full presets 24 %, the comparison with the reference 28 %,
#                     reproducibility 3 %, each sanitizer 5 %. On an H200 with S = 540 the tests
#                     took 46 s, the benchmark 34 s, the full presets 102 s with balls_press cut
#                     at its 27 s, the comparison 105 s with pile_well's reference run cut (it
#                     takes 39 s alone), memcheck and initcheck over the guard tests 18 and 15 s
#                     (bench/results/h200/README.md). Without it no step is limited. The
#                     long runs' share is 40 %; the shares of the steps run are scaled to
#                     fill S
#   --only STEPS      run only these steps (comma-separated): tests, bench, full, compare,
#                     reproducible, sanitizers, ptxas, runs; the binaries' check (step 1)
#                     always runs. For a second call on a warm machine, e.g. --only runs
#   --runs DIR        the long runs of step 9: DIR holds the scenes (NAME.yaml with their
#                     meshes) and, to continue earlier calls' runs, DIR/out/NAME
#   --snapshot FILE   after every step, pack OUTDIR into FILE (.tar.gz), so that a run cut
#                     off from outside leaves everything up to its last finished step
# Environment: BUILD (binaries' folder), CUDA_HOME.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
cuda_home=${CUDA_HOME:-/usr/local/cuda}
export PATH="$cuda_home/bin:$PATH"
build=${BUILD:-build}
prebuilt=0 budget=0 snapshot="" out="" only="" runs=""
while [ $# -gt 0 ]; do
    case $1 in
    --prebuilt) prebuilt=1 ;;
    --budget) budget=$2; shift ;;
    --snapshot) snapshot=$2; shift ;;
    --only) only=$2; shift ;;
    --runs) runs=$2; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "gpu-acceptance: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
    esac
    shift
done
case $budget in '' | *[!0-9]*) echo "gpu-acceptance: --budget takes whole seconds" >&2; exit 2 ;; esac
for name in ${only//,/ }; do
    case $name in
    tests | bench | full | compare | reproducible | sanitizers | ptxas | runs) ;;
    *) echo "gpu-acceptance: --only: unknown step '$name' (tests, bench, full, compare," \
        "reproducible, sanitizers, ptxas, runs)" >&2; exit 2 ;;
    esac
done
if [ -n "$runs" ]; then
    [ -d "$runs" ] || { echo "gpu-acceptance: --runs $runs: no such folder" >&2; exit 2; }
    runs=$(cd "$runs" && pwd)
    ls "$runs"/*.yaml >/dev/null 2>&1 || { echo "gpu-acceptance: --runs $runs: no scene (*.yaml) in it" >&2; exit 2; }
elif [[ ",$only," == *,runs,* ]]; then
    echo "gpu-acceptance: --only runs needs --runs DIR" >&2
    exit 2
fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu-acceptance: no NVIDIA GPU here (nvidia-smi finds none): nothing to accept" >&2
    exit 2
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
slug=$(echo "$gpu" | tr '[:upper:]' '[:lower:]' | sed 's/nvidia //; s/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
out=${out:-bench/results/$slug/acceptance}
mkdir -p "$out"
out=$(cd "$out" && pwd)
jobs=$(nproc)
case $build in /*) bin=$build ;; *) bin=$root/$build ;; esac
alcove=$bin/alcove
gputests=$bin/alcove_gpu_tests
status=0
declare -a rows
started=$(date -u +%Y-%m-%dT%H:%MZ)

# selected NAME: whether step NAME runs (--only, and runs only with --runs)
selected() {
    [ "$1" = runs ] && [ -z "$runs" ] && return 1
    [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]
}
# each step's share of --budget in percent; those of the steps that run are scaled to fill it
declare -A pct=([tests]=15 [bench]=10 [full]=24 [compare]=28 [reproducible]=3 [sanitizers]=20
    [runs]=40)
pct_sum=0
for name in "${!pct[@]}"; do selected "$name" && pct_sum=$((pct_sum + pct[$name])); done
[ $pct_sum -gt 0 ] || pct_sum=100
# share PERCENT: a step's wall-time limit in seconds under --budget, 0 = none
share() { if [ "$budget" -gt 0 ]; then echo $((budget * $1 / pct_sum)); else echo 0; fi; }

summary() {
    {
        echo "# GPU acceptance: $gpu"
        echo
        echo "- date: $started"
        echo "- commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "- device: $gpu, compute capability $cc, driver $driver"
        echo "- host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $jobs cores"
        echo "- toolkit: $(nvcc --version 2>/dev/null | tail -n 2 | head -n 1)"
        echo "- command: tools/gpu-acceptance.sh$([ $prebuilt = 1 ] && echo ' --prebuilt')$([ "$budget" -gt 0 ] && echo " --budget $budget")$([ -n "$only" ] && echo " --only $only")$([ -n "$runs" ] && echo " --runs $runs")"
        echo
        echo "| step | result | time | log |"
        echo "|---|---|---|---|"
        printf '%s\n' "${rows[@]}"
    } > "$out/summary.md"
    if [ -n "$snapshot" ]; then tar czf "$snapshot.tmp" -C "$out" . && mv "$snapshot.tmp" "$snapshot"; fi
}

step() {  # step NAME LOG LIMIT COMMAND...: run (LIMIT seconds, 0 = none), log, record
    local name=$1 log=$2 limit=$3
    shift 3
    echo "== $name$([ "$limit" -gt 0 ] && echo " (limit ${limit} s)")"
    local t0=$SECONDS rc
    if [ "$limit" -gt 0 ]; then
        timeout --kill-after=10 "$limit" "$@" > "$out/$log" 2>&1
    else
        "$@" > "$out/$log" 2>&1
    fi
    rc=$?
    local dt=$((SECONDS - t0))
    if [ $rc -eq 0 ]; then
        rows+=("| $name | passed | ${dt} s | [$log]($log) |")
    elif [ "$limit" -gt 0 ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; }; then
        rows+=("| $name | **timed out** at its ${limit} s | ${dt} s | [$log]($log) |")
        status=1
    else
        rows+=("| $name | **failed** (exit $rc) | ${dt} s | [$log]($log) |")
        status=1
    fi
    tail -n 3 "$out/$log"
    summary
    return $rc
}

archs="80 86 89 90"
case " $archs " in *" $cc "*) ;; *) archs="$archs $cc" ;; esac

if [ $prebuilt = 1 ]; then
    step "prebuilt binaries hold sm_$cc code" build.log 0 bash -c '
        for b in "$@"; do
            [ -x "$b" ] || { echo "$b: missing"; exit 1; }
            echo "$b: $(cuobjdump --list-elf "$b" | grep -o "sm_[0-9]*" | sort -u | tr "\n" " ")"
            cuobjdump --list-elf "$b" | grep -q "sm_'"$cc"'" || { echo "$b: no sm_'"$cc"' code"; exit 1; }
            ldd "$b" | grep "not found" && exit 1
        done
        exit 0' _ "$alcove" "$gputests"
else
    step "build (WERROR=1, sm $archs)" build.log 0 \
        make -j"$jobs" WERROR=1 BUILD="$build" CUDA_ARCHS="$archs" all "$build/alcove_gpu_tests"
fi

selected tests && step "GPU tests vs reference" gpu-test.log "$(share 15)" bash -c '
    ALC_BUILD="$2" "$1"; rc=$?
    if [ $rc -eq 2 ]; then echo "waived: the device is not usable"; exit 1; fi
    exit $rc' _ "$gputests" "$build"

# the benchmark, one table entry at a time, none given more than 3/5 of the step's time (the
# arch's 250 steps took about 42 s of call 3's 64 on an H100)
bench_limit=$(share 10)
selected bench && step "benchmark (cuda backend)" bench.log "$bench_limit" bash -c '
    alcove=$1 out=$2 limit=$3 rc=0 t0=$SECONDS
    for n in $("$alcove" bench --list | cut -d" " -f1); do
        each=0
        if [ "$limit" -gt 0 ]; then
            left=$((limit - (SECONDS - t0) - 5))
            [ $left -lt 5 ] && { echo "$n: not run (the step'"'"'s time is spent)"; rc=1; continue; }
            each=$((left < limit * 3 / 5 ? left : limit * 3 / 5))
        fi
        if [ $each -gt 0 ]; then
            timeout --kill-after=5 $each "$alcove" bench --table --only "$n" --backend cuda --record "$out/bench"
        else
            "$alcove" bench --table --only "$n" --backend cuda --record "$out/bench"
        fi
        r=$?
        [ $r -ne 0 ] && { echo "$n: exit $r$([ $r -eq 124 ] && echo " (stopped at its $each s)")"; rc=1; }
    done
    exit $rc' _ "$alcove" "$out" "$bench_limit"

# the full presets on the device, checked; their summaries kept
preset_limit=$(share 24)
selected full && step "full presets, 10 steps each, checked" full-presets.log "$preset_limit" bash -c '
    alcove=$1 out=$2 limit=$3 rc=0 t0=$SECONDS
    mkdir -p "$out/full"
    # ball_plate last: its full preset (a ball at 100 m/s into a 384k-tet plate) does not end
    # its first step within a share on either backend, and would take the time of the rest
    for s in $(ls scenes/*.yaml | grep -v "/ball_plate.yaml$") scenes/ball_plate.yaml; do
        n=$(basename "$s" .yaml)
        [ -f "$s" ] || continue
        grep -q "^preset:\|^  full:" "$s" || continue
        if grep -q "type: rigid" "$s"; then
            echo "$n: not run (rigid bodies run on the reference backend only, issue 17)"
            continue
        fi
        each=0
        if [ "$limit" -gt 0 ]; then
            left=$((limit - (SECONDS - t0) - 5))
            [ $left -lt 10 ] && { echo "$n: not run (the step'"'"'s time is spent)"; rc=1; continue; }
            # a third: balls_press (2M tetrahedra) takes some 35 s with the mesh and the states
            each=$((left < limit / 3 ? left : limit / 3))
        fi
        probe=/tmp/alc-accept-probe/$n
        rm -rf "$probe"
        ts=$SECONDS
        if [ $each -gt 0 ]; then
            timeout --kill-after=5 $each "$alcove" run "$s" --backend cuda --preset full --steps 10 \
                --frames none --every 5 --out "$probe" --quiet
        else
            "$alcove" run "$s" --backend cuda --preset full --steps 10 --frames none --every 5 \
                --out "$probe" --quiet
        fi
        r=$?
        echo "$n: run exit $r after $((SECONDS - ts)) s"
        [ $r -ne 0 ] && rc=1
        [ -f "$probe/summary.txt" ] && cp "$probe/summary.txt" "$out/full/$n.txt" && cat "$probe/summary.txt"
        [ -f "$probe/stats.csv" ] && cp "$probe/stats.csv" "$out/full/$n.csv"
        if [ -f "$probe/topology.alct" ]; then
            "$alcove" check "$probe" | tail -n 1 || rc=1
        fi
        rm -rf "$probe"
    done
    exit $rc' _ "$alcove" "$out" "$preset_limit"

# the same host's processor beside the device: each full preset for 3 steps on the cuda backend,
# then on the reference backend with every core (the smallest scenes first, so that a cut leaves
# the most pairs)
cmp_limit=$(share 28)
selected compare && step "full presets, cuda beside ref ($jobs cores), 3 steps" compare.log "$cmp_limit" bash -c '
    alcove=$1 out=$2 limit=$3 jobs=$4 rc=0 t0=$SECONDS
    mkdir -p "$out/compare"
    for n in slope roller rods_twist momentum rings_box box_drop box_stack fine_sphere \
        balls_press pile_well; do
        s=scenes/$n.yaml
        [ -f "$s" ] || continue
        for b in cuda ref; do
            each=0
            if [ "$limit" -gt 0 ]; then
                left=$((limit - (SECONDS - t0) - 3))
                [ $left -lt 5 ] && { echo "$n $b: not run (the step'"'"'s time is spent)"; rc=1; continue; }
                each=$((left < limit / 3 ? left : limit / 3))
            fi
            ts=$SECONDS
            if [ $each -gt 0 ]; then
                timeout --kill-after=5 $each "$alcove" bench "$s" --preset full --steps 3 \
                    --backend $b --threads "$jobs" > "$out/compare/$n-$b.txt" 2>&1
            else
                "$alcove" bench "$s" --preset full --steps 3 --backend $b --threads "$jobs" \
                    > "$out/compare/$n-$b.txt" 2>&1
            fi
            r=$?
            echo "$n $b: exit $r after $((SECONDS - ts)) s"
            grep -A1 "^backend:" "$out/compare/$n-$b.txt" | tail -n 1
            [ $r -ne 0 ] && rc=1
        done
    done
    exit $rc' _ "$alcove" "$out" "$cmp_limit" "$jobs"

selected reproducible && step "reproducible (slope twice, bitwise)" reproducible.log "$(share 3)" bash -c '
    alcove=$1
    for k in 1 2; do
        rm -rf /tmp/alc-accept-rep$k
        "$alcove" run scenes/slope.yaml --backend cuda --steps 20 --frames none \
            --out /tmp/alc-accept-rep$k --quiet || exit 1
    done
    n=0
    for f in /tmp/alc-accept-rep1/states/*.alcs; do
        cmp "$f" "/tmp/alc-accept-rep2/states/$(basename "$f")" || exit 1
        n=$((n + 1))
    done
    rm -rf /tmp/alc-accept-rep1 /tmp/alc-accept-rep2
    echo "$n states identical"' _ "$alcove"

# each array its own allocation (ALC_CUDA_ARENA=0), so that memcheck sees an overrun of one
# array into its neighbour in the arena (cuda/arena.h)
for tool in memcheck racecheck synccheck initcheck; do
    selected sanitizers || break
    if [ "$budget" -gt 0 ]; then
        # racecheck runs a kernel's shared-memory accesses one by one: the roller's step, some
        # 700 CG iterations, took longer than 21 s under it on an H100; the box drop's is small
        # and the guard tests (racecheck over backend_checkpointWithGuards took over 45 s on an
        # H200)
        scene=roller guards=Guards
        [ $tool = racecheck ] && scene=box_drop guards=""
        step "compute-sanitizer $tool ($scene, 1 step${guards:+; GPU tests *$guards*})" \
            "sanitizer-$tool.log" "$(share 5)" bash -c '
            alcove=$1 tests=$2 build=$3 tool=$4 scene=$5 guards=$6
            export ALC_CUDA_ARENA=0 ALC_BUILD=$build
            compute-sanitizer --tool "$tool" --error-exitcode 1 "$alcove" run scenes/$scene.yaml \
                --backend cuda --steps 1 --frames none --no-states --no-checkpoint \
                --out "/tmp/alc-accept-san-$tool" --quiet || exit 1
            [ -z "$guards" ] && exit 0
            compute-sanitizer --tool "$tool" --error-exitcode 1 "$tests" "$guards"' \
            _ "$alcove" "$gputests" "$build" "$tool" "$scene" "$guards"
    else
        step "compute-sanitizer $tool" "sanitizer-$tool.log" 0 \
            env ALC_CUDA_ARENA=0 ALC_BUILD="$build" compute-sanitizer --tool "$tool" \
            --error-exitcode 1 "$gputests"
    fi
done
if [ $prebuilt = 0 ] && selected ptxas; then
    step "ptxas report sm_$cc" "ptxas-sm$cc.md" 0 tools/ptxas-report.sh "$cc"
fi

# long runs (--runs DIR): each scene towards its end on the device, continued call after call.
# A run stopped at its time (SIGTERM: the checkpoint of its last frame is kept, exit 143) is
# not a failure; a run that fails, or a state that `alcove check` finds unclean, is
if selected runs; then
    step "long runs (cuda backend, continued, checked)" runs.log "$(share 40)" bash -c '
        alcove=$1 out=$2 limit=$3 dir=$4 rc=0 t0=$SECONDS
        mkdir -p "$out/runs"
        for s in "$dir"/*.yaml; do
            name=$(basename "$s" .yaml)
            run=$out/runs/$name
            rm -rf "$run"
            [ -d "$dir/out/$name" ] && cp -r "$dir/out/$name" "$run"
            each=0
            if [ "$limit" -gt 0 ]; then
                # in name order, each scene given what is left of the step, 30 s kept for its
                # check: a run is taken to its end before the next one starts
                each=$((limit - (SECONDS - t0) - 30))
                [ $each -lt 20 ] && { echo "$name: not run (the step'"'"'s time is spent)"; continue; }
            fi
            # the step of the newest state: the checkpoint is written with each of them
            ckstep() { ls "$run/states" 2>/dev/null | tail -n 1 | tr -dc 0-9 | sed "s/^0*//; s/^$/0/"; }
            if [ -f "$run/checkpoint.alck" ]; then
                from=$(ckstep)
                cmd=("$alcove" run --resume "$run" "$s" --backend cuda --quiet)
            else
                from=0
                cmd=("$alcove" run "$s" --backend cuda --out "$run" --every 5 --frames none --quiet)
            fi
            ts=$SECONDS
            if [ $each -gt 0 ]; then
                timeout --kill-after=60 $each "${cmd[@]}" 2>> "$run.log"
            else
                "${cmd[@]}" 2>> "$run.log"
            fi
            r=$?
            [ -f "$run.log" ] && mv "$run.log" "$run/run-$(date -u +%Y%m%dT%H%M%S).log"
            last=$(tail -n 1 "$run/stats.csv" 2>/dev/null | cut -d, -f1)
            case $r in
            0) what="ended" ;;
            124 | 143) what="stopped at its $each s, checkpoint at step $(ckstep) (the next call goes on from there)" ;;
            *) what="failed (exit $r)"; rc=1 ;;
            esac
            echo "$name: from step $from to step ${last:-?} in $((SECONDS - ts)) s, $what"
            [ -f "$run/topology.alct" ] || continue
            "$alcove" check "$run" > "$run/check.out" 2>&1
            cr=$?
            { date -u +%Y-%m-%dT%H:%MZ; tail -n 2 "$run/check.out"; } >> "$run/checks.txt"
            tail -n 1 "$run/check.out"
            [ $cr -ne 0 ] && { echo "$name: alcove check exit $cr"; rc=1; }
            # the states of every 100th step and the last stay, for the next call and the record
            newest=$(ls "$run/states" 2>/dev/null | tail -n 1)
            for f in "$run"/states/state_*.alcs; do
                [ -f "$f" ] || continue
                b=$(basename "$f")
                st=$((10#$(echo "$b" | tr -dc 0-9)))
                [ "$b" = "$newest" ] || [ $((st % 100)) -eq 0 ] || rm -f "$f"
            done
        done
        exit $rc' _ "$alcove" "$out" "$(share 40)" "$runs"
fi

summary
cat "$out/summary.md"
exit $status
