#!/usr/bin/env bash
# Third device call: initcheck again after the padding and vmin-reset fix, on the tests that
# showed the uninitialized reads, the roller's step, then as much of the GPU suite as fits.
set -u
export LD_LIBRARY_PATH=$PWD/build/gpu-bundle/lib
export PATH=/usr/local/cuda/bin:$PATH
T=$PWD/build/gpu-bundle/build/alcove_gpu_tests
A=$PWD/build/gpu-bundle/build/alcove
L=/tmp/call3; rm -rf $L; mkdir -p $L
run() { # run NAME LIMIT CMD...
    local n=$1 lim=$2; shift 2
    local ts=$SECONDS
    timeout --kill-after=3 $lim "$@" > $L/$n.log 2>&1
    local rc=$?
    echo "$n: exit $rc after $((SECONDS - ts)) s (limit $lim s): $(grep -E 'ERROR SUMMARY|passed,' $L/$n.log | tr '\n' ' ')" | tee -a $L/summary.txt
}
S="env ALC_CUDA_ARENA=0 ALC_BUILD=build/gpu-bundle/build compute-sanitizer --error-exitcode 1"
run san-initcheck-Guards 30 $S --tool initcheck $T Guards
run san-memcheck-Guards 30 $S --tool memcheck $T Guards
run san-initcheck-roller 15 $S --tool initcheck $A run scenes/roller.yaml --backend cuda --steps 1 --frames none --no-states --no-checkpoint --out /tmp/alc-san-roller --quiet
run san-initcheck-suite 85 $S --tool initcheck --print-limit 40 $T
grep -E "^(PASS|FAIL)" $L/san-initcheck-suite.log | tail -n 3
tar czf $OUT/call3.tgz -C $L .
