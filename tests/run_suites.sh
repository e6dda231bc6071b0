#!/usr/bin/env bash
# Run test binaries one after another and close with one line for all of them:
#   tests/run_suites.sh BIN [BIN ...] -- [FILTER]
# Each binary ends with "N passed, N failed, N skipped"; this script prints each one's output
# as it comes, then the sums on a line of its own (the line CI reads). Exit status 1 when any
# test failed or a binary did not end with its closing line.
set -u
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$1"); shift; done
[ $# -gt 0 ] && shift
filter=("$@")
passed=0 failed=0 skipped=0 bad=0
for b in "${bins[@]}"; do
    echo "== $(basename "$b")"
    out=$(mktemp)
    "$b" "${filter[@]}" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
    rm -f "$out"
    if [ -z "$line" ]; then
        echo "$(basename "$b"): no closing line (exit status $rc)"
        bad=1
        continue
    fi
    read -r p _ f _ s _ <<<"$(echo "$line" | tr -d ',')"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { echo "$(basename "$b"): exit status $rc"; bad=1; }
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$bad" -eq 0 ]
