#!/usr/bin/env bash
# Run the readers' libFuzzer targets (tests/fuzz/fuzz_readers.c, built by `make fuzz-build`):
# each first over its seed corpus (every seed once: a regression run), then for SECONDS of new
# inputs. Prints a PASS or FAIL line per target and closes with "N passed, N failed, N skipped"
# (the line tests/run_suites.sh and CI read). A target that finds a crash, a leak, a sanitizer
# report, a timeout (10 s; 60 s in the fixed run) or an out-of-memory (2 GB) fails, and the input is kept as
# FUZZ_DIR/crash-TARGET-*.
#   tests/fuzz/run_fuzz.sh [SECONDS]
# Without SECONDS (make test), each target runs FUZZ_RUNS (default 20000) new inputs from the
# fixed seed 1: the same inputs every time, so that `make test` cannot fail by chance (a random
# run may find a scene that is merely big: a 91-cell sphere takes more than the 10 s timeout to
# build under ASan). With SECONDS (make fuzz), each runs that long from a random seed.
# Environment: FUZZ_DIR (default build/fuzz), ALCOVE (default build/alcove, to make the seed
# states). Targets that were not built (no clang with libFuzzer) are reported skipped.
set -u
cd "$(dirname "$0")/../.."
# a number as the argument: that many seconds per target, random (make fuzz); otherwise
# FUZZ_RUNS inputs per target from seed 1 (make test, through tests/run_suites.sh)
secs=${1:-}
case "$secs" in '' | *[!0-9]*) secs="" FUZZ_RUNS=${FUZZ_RUNS:-20000} ;; *) FUZZ_RUNS="" ;; esac
# per-input timeout: 10 s for random runs; 60 s for the fixed run, whose inputs include a
# mutated balls_press of 40 overlapping balls that the loader's initial intersection check
# rejects after counting 1.6M pairs (1.2 s natively, 12 s under the sanitizers) and, in a build
# without CHOLMOD (whose other code steers the mutations elsewhere), fine_sphere with 82 cells
# instead of 14: 1.4M tetrahedra, 39 s under the sanitizers on the 2-core CI machine
tmo=10
[ -n "${FUZZ_RUNS:-}" ] && tmo=60
dir=${FUZZ_DIR:-build/fuzz}
alcove=${ALCOVE:-build/alcove}
readers="scene msh tetgen obj state topology"
passed=0 failed=0 skipped=0

# seed corpora from the project's own files, made afresh
corpus=$dir/corpus
rm -rf "$corpus" "$dir/work"
for r in $readers; do mkdir -p "$corpus/$r" "$dir/work/$r"; done
cp scenes/*.yaml "$corpus/scene/"
cp tests/data/meshes/*.msh "$corpus/msh/" 2>/dev/null
cp tests/data/meshes/*.obj "$corpus/obj/" 2>/dev/null
for node in tests/data/meshes/*.node; do
    [ -f "$node" ] || continue
    { cat "$node"; printf '\0'; cat "${node%.node}.ele"; } > "$corpus/tetgen/$(basename "$node" .node)"
done
seedrun=$(mktemp -d)
if [ -x "$alcove" ] && "$alcove" run scenes/bar_drop.yaml --steps 2 --frames none --quiet \
    --out "$seedrun" >/dev/null 2>&1; then
    cp "$seedrun"/states/*.alcs "$corpus/state/"
    cp "$seedrun"/topology.alct "$corpus/topology/"
fi
rm -rf "$seedrun"

for r in $readers; do
    bin=$dir/fuzz_$r
    if [ ! -x "$bin" ]; then
        echo "SKIP fuzz_$r (not built: no clang with libFuzzer; make fuzz-build)"
        skipped=$((skipped + 1))
        continue
    fi
    nseed=$(find "$corpus/$r" -type f | wc -l)
    log=$dir/fuzz_$r.log
    opts=(-timeout="$tmo" -rss_limit_mb=2048 -max_len=65536 "-artifact_prefix=$dir/crash-$r-")
    if [ -n "${FUZZ_RUNS:-}" ]; then
        budget=(-seed=1 -runs="$FUZZ_RUNS")
        what="from seed 1"
    else
        budget=(-max_total_time="$secs")
        what="in $secs s"
    fi
    if "$bin" "${opts[@]}" -runs=0 "$corpus/$r" > "$log" 2>&1 &&
        "$bin" "${opts[@]}" "${budget[@]}" "$dir/work/$r" "$corpus/$r" >> "$log" 2>&1; then
        runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -n 1 | grep -o '[0-9]*')
        echo "PASS fuzz_$r ($nseed seeds, then ${runs:-?} inputs $what)"
        passed=$((passed + 1))
    else
        echo "FAIL fuzz_$r: $(grep -m 1 -E 'ERROR|SUMMARY|Test unit written' "$log")"
        echo "    log: $log"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
