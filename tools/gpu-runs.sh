#!/usr/bin/env bash
# The long runs that tools/gpu-acceptance.sh --runs takes on a lent GPU machine, prepared on a
# machine without one: the IPC paper's examples that the reference backend cannot finish in a
# session (issue 14; bench/results/amd-epyc-2c/ipc-examples.md), in the order they are run.
#
#   tools/gpu-runs.sh import IPC_DIR [DIR]   import the queue below from a checkout of
#                                            ipc-sim/IPC into DIR (default build/gpu-runs)
#   tools/gpu-runs.sh take SNAPSHOT [DIR]    put the runs of an acceptance snapshot (.tar.gz
#                                            of its OUTDIR, with runs/NAME in it) back as
#                                            DIR/out/NAME, so that the next call goes on
#   tools/gpu-runs.sh list [DIR]             each run's last step and its states' check
#
# On the lent machine (DIR and the bundle of tools/gpu-bundle.sh carried there):
#
#   export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
#   BUILD=build/gpu-bundle/build tools/gpu-acceptance.sh --prebuilt --only runs \
#       --runs build/gpu-runs --budget 480 --snapshot $OUT/runs.tgz /tmp/runs-acceptance
#
# (carry build/gpu-bundle/build/alcove, build/gpu-bundle/build/alcove_gpu_tests,
# build/gpu-bundle/lib and build/gpu-runs; only the snapshot comes back from $OUT).
#
# A run of the reference backend goes on on the device the same way: copy its folder (alcove
# run --out RUN) to DIR/out/NAME before the call (the dolphin's step-210 checkpoint of a
# reference run went on in the emulated cuda backend, its states clean).
#
# Scenes are named NN_EXAMPLE so that the name order is the queue's: the dolphin first (its
# passage through the funnel, issue 14's last criterion, which the reference backend's line met
# at step 696 of 800: here the cuda backend's own run of it), with absolute eigenvalue filtering
# (solver.eigen_filter: abs, 3.5x fewer Newton iterations in the funnel than as imported;
# bench/results/amd-epyc-2c/ipc-examples.md), stalled steps split after 10 outer iterations
# (solver.split_after: 10), x-hat restarted at inversion cuts below 0.01 (solver.restart_alpha:
# 0.01) and far pairs' CCD gaps capped at delta (solver.ccd_gap_cap: 1), the reference line's
# settings (docs/import-ipc.md), and as imported,
# then the unfinished examples from the smallest remaining work up (18_pointRollerBall is not
# among them: its rollers are points, which the importer leaves out, so its run would be a ball
# on the ground and nothing of the example's). A queue entry is
# EXAMPLE[:VARIANT[+VARIANT...]]; each variant adds one solver key (abs, saN, rs, gc, guards). The
# environment variable GPU_RUNS_QUEUE replaces the queue (space-separated entries; the test
# import_ipc_gpuRunsQueue imports a one-script checkout with it).
set -euo pipefail
cd "$(dirname "$0")/.." || exit 2
alcove=${ALCOVE:-build/alcove}
queue=${GPU_RUNS_QUEUE:-"13_dolphinFunnel:abs+sa10+rs+gc 13_dolphinFunnel 5_hitCardHouse
    8_rollerBall 4_rodsTwist 1_squeezeOut"}

usage() { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }
# the step a run folder goes on from: its newest state's (the checkpoint is written with each)
ckstep() { ls "$1/states" 2>/dev/null | tail -n 1 | tr -dc 0-9 | sed 's/^0*//; s/^$/0/'; }

cmd=${1:-}
case $cmd in
import)
    ipc=${2:?"usage: tools/gpu-runs.sh import IPC_DIR [DIR]"}
    dir=${3:-build/gpu-runs}
    [ -d "$ipc/input/paperExamples" ] || {
        echo "gpu-runs: '$ipc' is not a checkout of ipc-sim/IPC (no input/paperExamples)" >&2
        exit 2
    }
    mkdir -p "$dir"
    k=0
    for entry in $queue; do
        k=$((k + 1))
        ex=${entry%%:*} variant=""
        [ "$entry" != "$ex" ] && variant=${entry#*:}
        name=$(printf '%02d_%s%s' $k "$ex" "${variant:+_${variant//+/_}}")
        # PCG: the CUDA backend has no direct solver (the importer would pick it for stiff bodies)
        "$alcove" import-ipc "$ipc/input/paperExamples/$ex.txt" --out "$dir" --name "$name" -q \
            --linear-solver pcg
        # each variant adds one solver key (docs/scene-format.md): guards, docs/architecture.md's
        # "Tetrahedron guards"; abs, its "Absolute eigenvalue filtering" (both off by default);
        # saN, split_after N (default 100); rs, restart_alpha 0.01 (default stall_alpha); gc,
        # ccd_gap_cap 1 (its "A far pair's CCD cut"; default 0)
        for v in ${variant//+/ }; do
            case $v in
            guards) key="tet_guards: 64" ;;
            abs) key="eigen_filter: abs" ;;
            sa[0-9]*) key="split_after: ${v#sa}" ;;
            rs) key="restart_alpha: 0.01" ;;
            gc) key="ccd_gap_cap: 1" ;;
            *) echo "gpu-runs: unknown variant '$v' in the queue" >&2; exit 2 ;;
            esac
            sed -i "s/^solver:\$/solver:\n  $key/" "$dir/$name.yaml"
            grep -q "^  $key\$" "$dir/$name.yaml" || {
                echo "gpu-runs: $dir/$name.yaml has no solver: block to add '$key' to" >&2
                exit 1
            }
        done
        echo "$dir/$name.yaml"
    done
    du -sh "$dir"
    # what travels to the lent machine: the tracked tree, this queue and the bundle (device
    # tool: 64 MiB in all); the queue as imported here plus the sm-90 bundle and the tree came
    # to 58 MiB (thirty-sixth session)
    tree=$({ git ls-files -z 2>/dev/null || true; } | xargs -0 -r du -cb 2>/dev/null |
        tail -n 1 | cut -f1)
    tree=${tree:-0}
    queue=$(du -sb "$dir" | cut -f1)
    bundle=0
    [ -d build/gpu-bundle ] && bundle=$(du -scb build/gpu-bundle/build/alcove \
        build/gpu-bundle/build/alcove_gpu_tests build/gpu-bundle/lib 2>/dev/null | tail -n 1 | cut -f1)
    mib=$(((tree + queue + bundle) / 1048576))
    b="$((bundle / 1048576))"
    [ "$bundle" = 0 ] && b="not built yet (tools/gpu-bundle.sh)"
    echo "gpu-runs: to carry about $mib MiB of the device's 64 (tree $((tree / 1048576))," \
        "queue $((queue / 1048576)), bundle $b)"
    if [ "$mib" -ge 64 ]; then
        echo "gpu-runs: warning: over the device's 64 MiB: shorten the queue (GPU_RUNS_QUEUE)" >&2
    fi
    ;;
take)
    snap=${2:?"usage: tools/gpu-runs.sh take SNAPSHOT [DIR]"}
    dir=${3:-build/gpu-runs}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    tar xzf "$snap" -C "$tmp"
    [ -d "$tmp/runs" ] || { echo "gpu-runs: $snap holds no runs/ folder" >&2; exit 1; }
    mkdir -p "$dir/out"
    for run in "$tmp"/runs/*/; do
        name=$(basename "$run")
        [ -f "$dir/$name.yaml" ] || echo "gpu-runs: note: $name has no scene in $dir" >&2
        rm -rf "${dir:?}/out/$name"
        cp -r "$run" "$dir/out/$name"
        echo "$dir/out/$name: checkpoint at step $(ckstep "$dir/out/$name")"
    done
    ;;
list)
    dir=${2:-build/gpu-runs}
    for s in "$dir"/*.yaml; do
        [ -f "$s" ] || continue
        name=$(basename "$s" .yaml)
        run=$dir/out/$name
        if [ -f "$run/stats.csv" ]; then
            echo "$name: checkpoint at step $(ckstep "$run") of" \
                "$(grep -o 'steps: [0-9]*' "$s" | head -n 1 | cut -d' ' -f2);" \
                "$(tail -n 1 "$run/checks.txt" 2>/dev/null || echo 'not checked')"
        else
            echo "$name: not started"
        fi
    done
    ;;
-h | --help) usage ;;
*)
    usage >&2
    exit 2
    ;;
esac
