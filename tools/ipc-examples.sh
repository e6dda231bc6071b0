#!/usr/bin/env bash
# The IPC paper's examples as a benchmark (issue 14): import every script of a checkout of the
# public IPC repository (ipc-sim/IPC, input/paperExamples/*.txt and the Erleben tests and
# scalability scripts in its subfolders 11_erleben/ and 21_scalability/) with `alcove import-ipc`, run
# it on the reference backend, check every saved state with `alcove check`, and print one
# Markdown table row per example beside the IPC paper's Fig. 23 figures (seconds and Newton
# iterations per step on the paper's machines).
#
# usage: tools/ipc-examples.sh IPC_DIR [options] [NAME ...]
#   IPC_DIR        a checkout of https://github.com/ipc-sim/IPC (its input/ folder is read)
#   NAME ...       only these examples (script stems, e.g. 7_masonryArch or spikeCrackCO, or
#                  the folder's scripts by its name, e.g. 11_erleben); default: all
#   --small        only the small examples (the ones `make bench IPC_DIR=...` runs)
#   --steps N      run N steps instead of each scene's full duration
#   --out DIR      working folder (default: build/ipc-examples): scenes/, runs/, table.md
#   --threads N    reference backend threads (default: all)
#   --alcove PATH  the alcove binary (default: build/alcove)
#   --time-limit S stop each run after S seconds (SIGTERM: the run keeps every step it
#                  finished and its last checkpoint; the row says how far it got)
#   --resume       continue each run that has a checkpoint in --out from it (with the
#                  options it was started with, but --threads when given: the reference
#                  backend's results do not depend on it) instead of starting it again; a
#                  run that already reached its last step is only checked and reported
#
# Long examples are run in pieces: `--time-limit 3600` now, `--resume --time-limit 3600` in a
# later session, until every row reads "all".
# Examples that cannot be imported (missing meshes, codimensional shapes alcove does not
# simulate) are listed with the importer's reason instead of a result. Exit status: 0 when every
# example that ran is clean by `alcove check`, 1 otherwise, 2 on bad usage.
set -u

usage() { sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

IPC_DIR=""
OUT=build/ipc-examples
STEPS=""
THREADS=""
SMALL=0
ALCOVE=build/alcove
TIME_LIMIT=""
RESUME=0
NAMES=()
while [ $# -gt 0 ]; do
    case "$1" in
        --small) SMALL=1 ;;
        --steps) STEPS="${2:?--steps needs a number}"; shift ;;
        --out) OUT="${2:?--out needs a folder}"; shift ;;
        --threads) THREADS="${2:?--threads needs a number}"; shift ;;
        --alcove) ALCOVE="${2:?--alcove needs a path}"; shift ;;
        --time-limit) TIME_LIMIT="${2:?--time-limit needs seconds}"; shift ;;
        --resume) RESUME=1 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "ipc-examples: unknown option '$1'" >&2; usage >&2; exit 2 ;;
        *) if [ -z "$IPC_DIR" ]; then IPC_DIR="$1"; else NAMES+=("$1"); fi ;;
    esac
    shift
done
if [ -z "$IPC_DIR" ] || [ ! -d "$IPC_DIR/input/paperExamples" ]; then
    echo "ipc-examples: '$IPC_DIR' is not a checkout of ipc-sim/IPC (no input/paperExamples)" >&2
    usage >&2
    exit 2
fi
if [ ! -x "$ALCOVE" ]; then
    echo "ipc-examples: $ALCOVE not found: run 'make' first" >&2
    exit 2
fi

# small examples: a few thousand tetrahedra at most, whole runs of minutes on 2 cores; the ten
# Erleben tests (11_erleben/, a few hundred tetrahedra dragged against obstacles) take seconds
SMALL_SET="10_tetTet 10_tetSlots 10_cubeStack 12_largeMassRatio 11_erleben"

# IPC paper, Fig. 23 (seconds per step, Newton iterations per step, machine A-D of the paper)
fig23() {
    case "$1" in
        2_spherePoints) echo "2.8|6.6" ;;
        2_matKnives) echo "1.4|5.5" ;;
        13_dolphinFunnel) echo "27.9|39.7" ;;
        17_pinCushionBall) echo "3.7|9.5" ;;
        19_golfBall) echo "12.1|9.3" ;;
        14_matTwist) echo "776.2|34.5" ;;
        4_rodsTwist) echo "141.5|14.1" ;;
        15_trashComp_shapes) echo "61.9|29.4" ;;
        1_squeezeOut) echo "252|42.5" ;;
        8_rollerBall) echo "63.3|58.6" ;;
        5_hitCardHouse) echo "10.0|16.6" ;;
        7_masonryArch) echo "0.05|5.7" ;;
        16_armaRoller_E1e5) echo "346 (E = 5e5)|66.8" ;;
        22_squishyBall) echo "328.3|12.2" ;;
        *) echo "-|-" ;;
    esac
}

mkdir -p "$OUT/scenes" "$OUT/runs" || exit 1
TABLE="$OUT/table.md"
{
    echo "| example | tets | steps run | Newton/step | s/step | contacts avg (max) | capped steps | check | IPC s/step | IPC Newton/step |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$TABLE"
cat "$TABLE"

# wanted NAME FOLDER: whether the command line names this script (its stem, FOLDER/stem, or
# its folder)
wanted() {
    local n
    for n in "${NAMES[@]}"; do
        if [ "$n" = "$1" ]; then return 0; fi
        if [ -n "$2" ] && { [ "$n" = "$2" ] || [ "$n" = "$2/$1" ]; }; then return 0; fi
    done
    return 1
}

status=0
for script in "$IPC_DIR"/input/paperExamples/*.txt "$IPC_DIR"/input/paperExamples/*/*.txt; do
    [ -f "$script" ] || continue
    name=$(basename "$script" .txt)
    # the folder of a script in a subfolder (11_erleben, 21_scalability), else ""
    folder=$(basename "$(dirname "$script")")
    [ "$folder" = paperExamples ] && folder=""
    if [ ${#NAMES[@]} -gt 0 ]; then
        wanted "$name" "$folder" || continue
    elif [ "$SMALL" = 1 ]; then
        case " $SMALL_SET " in *" $name "* | *" ${folder:-none} "*) ;; *) continue ;; esac
    fi
    IFS='|' read -r ipcT ipcN <<< "$(fig23 "$name")"
    log="$OUT/scenes/$name.import.log"
    if ! "$ALCOVE" import-ipc "$script" --ipc-root "$IPC_DIR" --out "$OUT/scenes" -q > "$log" 2>&1; then
        why=$(grep -m1 -v '^$' "$log" | sed 's/.*error: //; s/|/\\|/g' | cut -c1-120)
        row="| ${folder:+$folder/}$name | - | not imported: $why | | | | | | $ipcT | $ipcN |"
        echo "$row" | tee -a "$TABLE"
        continue
    fi
    # what the importer could not carry over (codimensional shapes, unsupported scripts)
    missing=$(grep -m2 'warning:' "$log" | sed 's/.*warning: //; s/|/\\|/g' | cut -c1-80 | paste -sd ';' -)
    run="$OUT/runs/$name"
    # the steps the run is to reach: --steps, else the scene's run.steps
    want="$STEPS"
    [ -z "$want" ] && want=$(grep -m1 '^run:' "$OUT/scenes/$name.yaml" | grep -o 'steps: *[0-9]*' | grep -o '[0-9]*$')
    done_steps() { [ -f "$run/stats.csv" ] && echo $(($(wc -l < "$run/stats.csv") - 1)) || echo 0; }
    if [ "$RESUME" = 1 ] && [ -f "$run/checkpoint.alck" ]; then
        args=(run --resume "$run" --out "$run" --quiet)
        [ -n "$want" ] && args+=(--steps "$want")
        # later options win over the recorded ones; the results do not depend on the count
        [ -n "$THREADS" ] && args+=(--threads "$THREADS")
    else
        args=(run "$OUT/scenes/$name.yaml" --out "$run" --quiet --frames none)
        [ -n "$STEPS" ] && args+=(--steps "$STEPS")
        [ -n "$THREADS" ] && args+=(--threads "$THREADS")
    fi
    rc=0
    if [ "$RESUME" = 1 ] && [ -n "$want" ] && [ "$(done_steps)" -ge "$want" ]; then
        :  # finished in an earlier call: check and report only
    elif [ -n "$TIME_LIMIT" ]; then
        timeout -s TERM "$TIME_LIMIT" "$ALCOVE" "${args[@]}" >> "$run.log" 2>&1
        rc=$?
    else
        "$ALCOVE" "${args[@]}" >> "$run.log" 2>&1
        rc=$?
    fi
    verdict="clean"
    if ! "$ALCOVE" check "$run" > "$run.check" 2>&1; then
        verdict="**violations**"
        status=1
    fi
    # 124: timeout sent SIGTERM at the time limit; the steps the run finished are in the row
    if [ $rc -eq 124 ]; then
        verdict="$verdict, stopped at the time limit"
    elif [ $rc -ne 0 ]; then
        verdict="$verdict, run exit $rc"
    fi
    stats=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { n++; nw += $c["newton"]; t += $c["time_step"]; ca += $c["contacts_avg"];
          if ($c["contacts_max"] > cm) cm = $c["contacts_max"]; cap += $c["capped"] }
        END { if (n) printf "%d|%.2f|%.3g|%.0f (%d)|%d", n, nw / n, t / n, ca / n, cm, cap;
              else printf "0|-|-|-|-" }' "$run/stats.csv" 2>/dev/null)
    IFS='|' read -r n nw ts cc cap <<< "$stats"
    # from the summary line "[not ]clean: ... states checked (T tetrahedra, ...)"; other lines also
    # name tetrahedra (inverted ones of materials that may invert)
    tets=$(grep -m1 -o '([0-9]* tetrahedra' "$run.check" | tr -dc '0-9')
    [ -n "$missing" ] && verdict="$verdict; importer: $missing"
    if [ -n "$want" ] && [ "$n" != "$want" ]; then n="$n of $want"; else n="$n (all)"; fi
    row="| ${folder:+$folder/}$name | ${tets:--} | $n | $nw | $ts | $cc | $cap | $verdict | $ipcT | $ipcN |"
    echo "$row" | tee -a "$TABLE"
done
echo "table: $TABLE"
exit $status
