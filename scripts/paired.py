#!/usr/bin/env python3
"""Paired whole-process timings, with Python's standard library alone (BENCHMARKS.md uses it).

    scripts/paired.py [-n RUNS] [--warmup N] --vs 'COMMAND B' -- COMMAND A ...

A and B run in turn, each RUNS times after WARMUP uncounted runs of each, their output thrown
away; the pairs alternate which runs first (A B, B A, ...), so an order effect cancels out. For each it prints the median, minimum and maximum of the wall and CPU
(user + system, the children's own accounting) seconds, then the median of the pair-by-pair
ratios A/B: pairing keeps a ratio meaningful when the machine's speed drifts during the call.
COMMAND B is one string split as a shell splits words; write `sh -c '...'` for a pipe.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    """One run of argv: (wall seconds, CPU seconds of the process and what it waited for)."""
    start = time.monotonic()
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
    except OSError as e:
        sys.exit(f"paired.py: {shlex.join(argv)}: cannot start: {e.strerror}")
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code  # reaped here, not by Popen
    if code < 0:
        sys.exit(f"paired.py: {shlex.join(argv)} was killed by signal {-code}")
    if code != 0:
        sys.exit(f"paired.py: {shlex.join(argv)} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime


def pair(a, b, i):
    """Pair i: (A's run, B's run), B first in every other pair."""
    if i % 2:
        rb = run(b)
        return run(a), rb
    return run(a), run(b)


def spread(values):
    return f"{statistics.median(values):9.3f} (min {min(values):.3f}, max {max(values):.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=11, help="counted runs of each command")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted runs of each first")
    parser.add_argument("--vs", required=True, help="command B, the yardstick")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="command A, after --")
    args = parser.parse_args()
    a = args.command[1:] if args.command[:1] == ["--"] else args.command
    b = shlex.split(args.vs)
    if not a or not b or args.n < 1 or args.warmup < 0:
        parser.error("give -n of at least 1, --vs 'COMMAND B' and -- COMMAND A")
    for i in range(args.warmup):
        pair(a, b, i)
    runs = [pair(a, b, i) for i in range(args.n)]
    for name, i in (("A", 0), ("B", 1)):
        print(f"{name} wall s {spread([r[i][0] for r in runs])}")
        print(f"{name} cpu s  {spread([r[i][1] for r in runs])}")
    for what, i in (("wall", 0), ("cpu ", 1)):
        if all(rb[i] > 0 for _, rb in runs):
            print(f"A/B {what}  {spread([ra[i] / rb[i] for ra, rb in runs])}")
        else:
            print(f"A/B {what}  no ratio: B took no measurable {what.strip()} time in some run")
    print(f"{args.n} pairs; A = {shlex.join(a)}; B = {args.vs}")


if __name__ == "__main__":
    main()
