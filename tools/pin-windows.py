#!/usr/bin/env python3
"""Windows of outer iterations in which one contact pair holds the largest multiplier.

Reads the logs of `alcove run -v` (or -vv), whose "step N: multipliers of ... largest L ... on
the KIND pair of vertices A B C D (c = C m)" line follows every multiplier update, and prints
each window of one step that spans W updates (W + 1 consecutive lines, default W = 10) in which
the same pair held the largest multiplier throughout and that multiplier grew at least G-fold
from the window's first line to its last (default 2), with its pair's linearized constraint c
at both; "first" is the window's first line, counted from 1 within the step.

Issue 14 uses it to tell a pinned vertex (the multiplier grows while c stays: the step waits in
vain and is better split) from a stall that waiting clears (c falls as the multiplier grows):
bench/results/amd-epyc-2c/ipc-examples.md, twenty-ninth session.

usage: tools/pin-windows.py [-w W] [-g G] LOG...
"""
import argparse
import re
import sys

LINE = re.compile(r"step (\d+): multipliers of \d+ pairs: largest ([0-9.eE+-]+) .*?"
                  r"pair of vertices ([0-9 ]+) \(c = ([0-9.eE+-]+) m\)")


def updates(path):
    """{step: [(lambda, pair, c), ...]} in log order (a split step's parts together)."""
    steps = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if m:
                steps.setdefault(int(m.group(1)), []).append(
                    (float(m.group(2)), m.group(3), float(m.group(4))))
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-w", type=int, default=10, help="updates a window spans (default 10)")
    ap.add_argument("-g", type=float, default=2.0, help="least growth shown (default 2)")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    if a.w < 1 or a.g <= 0:
        ap.error("-w must be >= 1 and -g > 0")
    print("log step first growth c_start c_end c_end/c_start pair")
    shown = 0
    for path in a.logs:
        try:
            steps = updates(path)
        except OSError as e:
            sys.exit("pin-windows: %s" % e)
        if not steps:
            print("pin-windows: %s has no multiplier lines (run with -v)" % path,
                  file=sys.stderr)
        for step, it in sorted(steps.items()):
            for i in range(len(it) - a.w):
                win = it[i:i + a.w + 1]
                if any(u[1] != win[0][1] for u in win) or win[0][0] <= 0:
                    continue
                growth = win[-1][0] / win[0][0]
                if growth < a.g:
                    continue
                ratio = win[-1][2] / win[0][2] if win[0][2] != 0 else float("nan")
                print("%s %d %d %.2f %.3e %.3e %.3f %s" % (path, step, i + 1, growth, win[0][2],
                                                          win[-1][2], ratio, win[0][1]))
                shown += 1
    print("%d windows" % shown)


if __name__ == "__main__":
    main()
