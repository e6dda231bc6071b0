#!/usr/bin/env bash
# Second device call: the sanitizers over the GPU tests of the device code the acceptance's
# sanitizer steps do not reach (tetrahedron guards, the inversion bound per tetrahedron, the
# multiplier update with its credit), then pile_well's reference run uncut.
set -u
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
export PATH=/usr/local/cuda/bin:$PATH
T=$PWD/build/gpu-bundle/build/alcove_gpu_tests
A=$PWD/build/gpu-bundle/build/alcove
L=/tmp/call2; rm -rf $L; mkdir -p $L
t0=$SECONDS
run() { # run NAME LIMIT CMD...
    local n=$1 lim=$2; shift 2
    local left=$((330 - (SECONDS - t0)))
    [ $left -lt 10 ] && { echo "$n: not run (time spent)" | tee -a $L/summary.txt; return; }
    [ $lim -gt $left ] && lim=$left
    local ts=$SECONDS
    timeout --kill-after=5 $lim "$@" > $L/$n.log 2>&1
    local rc=$?
    echo "$n: exit $rc after $((SECONDS - ts)) s (limit $lim s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $L/$n.log | tr '\n' ' ')" | tee -a $L/summary.txt
}
for tool in memcheck initcheck synccheck; do
    for f in Guards tetBound alContact_scenesPressed; do
        run san-$tool-$f 45 env ALC_CUDA_ARENA=0 ALC_BUILD=build/gpu-bundle/build \
            compute-sanitizer --tool $tool --error-exitcode 1 $T $f
    done
done
for f in tetBound alContact_scenesPressed backend_checkpointWithGuards; do
    run san-racecheck-$f 45 env ALC_CUDA_ARENA=0 ALC_BUILD=build/gpu-bundle/build \
        compute-sanitizer --tool racecheck --error-exitcode 1 $T $f
done
run pile_well-ref 60 $A bench scenes/pile_well.yaml --preset full --steps 3 --backend ref --threads $(nproc)
tail -n 3 $L/pile_well-ref.log
tar czf $OUT/call2.tgz -C $L .
