#!/usr/bin/env bash
# A run of one IPC paper example that takes longer than a session (issue 14: the squeeze-out
# and the twisting rods need tens of hours of one core), carried from session to session in
# the repository. No machine of this project keeps its files past a session, so the run's
# state travels in a line folder, bench/results/ipc-lines/NAME/:
#
#   scene.yaml       the scene as `alcove import-ipc` writes it, with the line's edits (the
#                    squeeze-out's cg_tol); its meshes are imported again from IPC_DIR
#   checkpoint.alck  the state to go on from (absent: the line starts at step 0); a call says
#                    its size, and warns above 10 MB (each commit of it adds its size to the
#                    repository's history)
#   stats.csv        one row per step so far; run.args, the run's arguments
#   sessions.csv     one row per call: when, machine, threads, commit and binary, the steps it
#                    ran, their seconds and Newton iterations, and `alcove check` on their states
#
# usage: tools/ipc-line.sh IPC_DIR LINE_DIR [options]
#   IPC_DIR         a checkout of https://github.com/ipc-sim/IPC (the scene's meshes)
#   LINE_DIR        the line folder (NAME is its name: the IPC script's stem)
#   --work DIR      working folder (default: build/ipc-lines): DIR/scenes/NAME.yaml and its
#                   meshes, DIR/runs/NAME with this call's states (several GB on a long call)
#   --until N       stop after step N (default: the scene's run.steps, the example's end)
#   --time-limit S  stop after S seconds (SIGTERM: the steps finished are kept)
#   --threads N     reference backend threads (default: all; results do not depend on it)
#   --alcove PATH   the alcove binary (default: build/alcove)
#   --save          do not run: check the work folder's run of NAME (one started by hand, or
#                   a call that was killed) and write it back to LINE_DIR
#
# SIGINT or SIGTERM to this script stops the run after its last finished step and still
# checks it and writes it back. Resuming is bit for bit on the same build; a checkpoint that
# the binary cannot read (another struct layout) or a model that differs from the
# checkpoint's (another importer) is refused with alcove's message, and nothing is written
# back. Exit status: 0 when the run's states are clean and the line was written back, 1 on a
# violation or a failed run (the line is then left as it was), 2 on bad usage.
set -u

usage() { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

IPC_DIR=""
LINE=""
WORK=build/ipc-lines
UNTIL=""
LIMIT=""
THREADS=""
ALCOVE=build/alcove
SAVE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --work) WORK="${2:?--work needs a folder}"; shift ;;
        --until) UNTIL="${2:?--until needs a step}"; shift ;;
        --time-limit) LIMIT="${2:?--time-limit needs seconds}"; shift ;;
        --threads) THREADS="${2:?--threads needs a number}"; shift ;;
        --alcove) ALCOVE="${2:?--alcove needs a path}"; shift ;;
        --save) SAVE=1 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "ipc-line: unknown option '$1'" >&2; usage >&2; exit 2 ;;
        *) if [ -z "$IPC_DIR" ]; then IPC_DIR="$1"
           elif [ -z "$LINE" ]; then LINE="${1%/}"
           else echo "ipc-line: one line folder per call ('$1')" >&2; exit 2; fi ;;
    esac
    shift
done
if [ -z "$IPC_DIR" ] || [ -z "$LINE" ]; then usage >&2; exit 2; fi
NAME=$(basename "$LINE")
SCRIPT="$IPC_DIR/input/paperExamples/$NAME.txt"
[ -f "$SCRIPT" ] || SCRIPT=$(ls "$IPC_DIR"/input/paperExamples/*/"$NAME.txt" 2>/dev/null | head -n 1)
if [ -z "$SCRIPT" ] || [ ! -f "$SCRIPT" ]; then
    echo "ipc-line: no script $NAME.txt in $IPC_DIR/input/paperExamples (is it a checkout of ipc-sim/IPC?)" >&2
    exit 2
fi
if [ ! -f "$LINE/scene.yaml" ]; then
    echo "ipc-line: $LINE/scene.yaml not found (a line folder holds the scene it runs)" >&2
    exit 2
fi
if [ ! -x "$ALCOVE" ]; then
    echo "ipc-line: $ALCOVE not found: run 'make' first" >&2
    exit 2
fi
case "$UNTIL$LIMIT$THREADS" in *[!0-9]*)
    echo "ipc-line: --until, --time-limit and --threads take whole numbers" >&2; exit 2 ;;
esac

RUN="$WORK/runs/$NAME"
SCENE="$WORK/scenes/$NAME.yaml"
rows() { [ -f "$1" ] && echo $(($(wc -l < "$1") - 1)) || echo 0; }
# the step the line goes on from: its statistics' last, where it has a checkpoint to go on with
from=0
[ -f "$LINE/checkpoint.alck" ] && from=$(rows "$LINE/stats.csv")

if [ "$SAVE" = 0 ]; then
    mkdir -p "$WORK/scenes" "$WORK/runs" || exit 1
    # the meshes from the checkout, then the line's own scene over the imported one
    if ! "$ALCOVE" import-ipc "$SCRIPT" --ipc-root "$IPC_DIR" --out "$WORK/scenes" -q \
            > "$WORK/scenes/$NAME.import.log" 2>&1; then
        echo "ipc-line: import failed:" >&2
        cat "$WORK/scenes/$NAME.import.log" >&2
        exit 1
    fi
    cp "$LINE/scene.yaml" "$SCENE" || exit 1
    [ -z "$UNTIL" ] && UNTIL=$(grep -m1 '^run:' "$SCENE" | grep -o 'steps: *[0-9]*' | grep -o '[0-9]*$')
    if [ -z "$UNTIL" ]; then
        echo "ipc-line: $LINE/scene.yaml has no run.steps: give --until" >&2
        exit 2
    fi
    if [ "$from" -ge "$UNTIL" ]; then
        echo "ipc-line: $NAME is at step $from of $UNTIL: nothing to run"
        exit 0
    fi
    # the run folder: the line's files, nothing of an earlier call
    rm -rf "$RUN" && mkdir -p "$RUN" || exit 1
    if [ -f "$LINE/checkpoint.alck" ]; then
        cp "$LINE/checkpoint.alck" "$LINE/stats.csv" "$LINE/run.args" "$RUN/" || exit 1
        args=(run --resume "$RUN" "$SCENE" --steps "$UNTIL" --quiet)
    else
        args=(run "$SCENE" --out "$RUN" --frames none --steps "$UNTIL" --quiet)
    fi
    [ -n "$THREADS" ] && args+=(--threads "$THREADS")
    echo "ipc-line: $NAME from step $from to $UNTIL${LIMIT:+, at most $LIMIT s} (log: $RUN.log)"
    "$ALCOVE" "${args[@]}" >> "$RUN.log" 2>&1 &
    pid=$!
    trap 'kill -TERM $pid 2>/dev/null' INT TERM
    timer=""
    if [ -n "$LIMIT" ]; then
        # a subshell that ends its sleep when it is told to go (no sleep outlives the call)
        (trap 'kill $s 2>/dev/null; exit 0' TERM
         sleep "$LIMIT" & s=$!
         wait $s && kill -TERM $pid 2>/dev/null) &
        timer=$!
    fi
    # wait returns early when a trapped signal comes; the run then drops the step it is in
    # (its output keeps every finished step) and exits
    rc=0
    while :; do
        wait $pid
        rc=$?
        kill -0 $pid 2>/dev/null || break
    done
    trap - INT TERM
    [ -n "$timer" ] && kill $timer 2>/dev/null
    # 143: stopped by SIGTERM (time limit or this script's signal), every file complete
    if [ $rc -ne 0 ] && [ $rc -ne 143 ] && [ $rc -ne 130 ]; then
        echo "ipc-line: the run failed (exit $rc); the line is left as it was:" >&2
        tail -n 5 "$RUN.log" >&2
        exit 1
    fi
fi

# check the states this call wrote, then write the line back
if [ ! -f "$RUN/checkpoint.alck" ] || [ ! -f "$RUN/stats.csv" ]; then
    echo "ipc-line: $RUN has no checkpoint and statistics to write back" >&2
    exit 1
fi
to=$(rows "$RUN/stats.csv")
if [ "$to" -le "$from" ]; then
    echo "ipc-line: $NAME has no step past $from in $RUN: nothing written back"
    exit 0
fi
verdict=clean
if ! "$ALCOVE" check "$RUN" > "$RUN.check" 2>&1; then verdict=violations; fi
states=$(grep -m1 -o '[0-9]* states checked' "$RUN.check" | grep -o '^[0-9]*')
if [ "$verdict" != clean ]; then
    echo "ipc-line: $NAME: alcove check found violations ($RUN.check); the line is left as it was" >&2
    exit 1
fi
sums=$(awk -F, -v from="$from" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["step"] > from { t += $c["time_step"]; n += $c["newton"] }
    END { printf "%.1f,%d", t, n }' "$RUN/stats.csv")
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo -)
[ -n "$(git -C "$root" status --porcelain -uno 2>/dev/null)" ] && commit="$commit-dirty"
binary=$(sha1sum "$ALCOVE" | cut -c1-12)
machine=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
machine="${machine:-unknown} ($(nproc) cores)"
threads=$(tr '\0' '\n' < "$RUN/run.args" | grep -A1 -x -- '--threads' | tail -n 1)
threads=${threads:-all}
[ -f "$LINE/sessions.csv" ] ||
    echo "ended_utc,machine,threads,commit,binary_sha1,from_step,to_step,seconds,newton,states_checked,check" \
        > "$LINE/sessions.csv"
for f in checkpoint.alck stats.csv run.args; do
    cp "$RUN/$f" "$LINE/.$f.tmp" && mv "$LINE/.$f.tmp" "$LINE/$f" || exit 1
done
echo "$(date -u +%Y-%m-%dT%H:%MZ),\"$machine\",$threads,$commit,$binary,$from,$to,$sums,${states:-0},$verdict" \
    >> "$LINE/sessions.csv"
bytes=$(stat -c %s "$LINE/checkpoint.alck")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "ipc-line: $NAME at step $to (from $from), ${states:-0} states clean; written back to $LINE (checkpoint $mb MB)"
if [ "$bytes" -gt 10000000 ]; then
    echo "ipc-line: $LINE/checkpoint.alck is $mb MB, over 10 MB: each commit of it adds that" \
         "to the repository's history (bench/results/ipc-lines/README.md); look again before" \
         "committing it" >&2
fi
