#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What profiling a program costs in wall and CPU time: rounds in which the
native twin, the instrumented binary without the preload (glibc's no-op
hooks), and the instrumented binary under profviz with each time source run
one after another, so that a machine that speeds up or slows down moves
them alike. Each ratio is taken within a round; the figures are medians
over the rounds, with their range.

usage: slowdown.py [--rounds N] --twin TWIN -- PROG ARGS...

CPU time is user plus system of the process and its threads (profviz's
sampler thread included): on a loaded machine it moves less than wall time,
which counts the time other work takes the CPU."""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import truth

# What runs in each round: (label, uses the preload, PROFVIZ_TIME).
KINDS = (("native twin", False, None), ("instrumented", False, None),
         ("sampled", True, "sampled"), ("hooks", True, "hooks"))


def timed(argv, env):
    """(wall seconds, CPU seconds) of one run of argv."""
    start = time.monotonic()
    p = subprocess.Popen(truth.pinned(argv), env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise RuntimeError("%s exited %d" % (" ".join(argv), p.returncode))
    return wall, usage.ru_utime + usage.ru_stime


def rounds(argv, twin, n):
    """{label: [(wall, cpu) per round]} over n rounds."""
    workdir = tempfile.mkdtemp(prefix="profviz-slowdown-")
    out = os.path.join(workdir, "profile.json")
    runs = {label: [] for label, _, _ in KINDS}
    for _ in range(n):
        for label, preload, source in KINDS:
            env = truth.profviz_env(out, source) if preload else truth.clean_env()
            runs[label].append(timed(twin if label == "native twin" else argv, env))
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    os.rmdir(workdir)
    return runs


def ratios(runs, label, base, which):
    """label's time over base's, round by round (which: 0 wall, 1 CPU)."""
    return [a[which] / b[which] for a, b in zip(runs[label], runs[base])]


def summary(values):
    return statistics.median(values), min(values), max(values)


def measure(argv, twin, n):
    """Medians [ranges] of each kind's times, and of the profiled runs' ratios
    to the instrumented binary and to the native twin, in wall and CPU time."""
    runs = rounds(argv, twin, n)
    result = {"rounds": n}
    for label, _, _ in KINDS:
        result[label] = {"wall": summary([w for w, _ in runs[label]]),
                         "cpu": summary([c for _, c in runs[label]])}
    for label in ("sampled", "hooks", "instrumented"):
        for base in ("instrumented", "native twin"):
            if label == base:
                continue
            for which, unit in ((0, "wall"), (1, "cpu")):
                result["%s/%s %s" % (label, base, unit)] = summary(
                    ratios(runs, label, base, which))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--twin", required=True, help="the native twin of PROG")
    args = truth.parse_with_program(ap)
    r = measure(args.argv, [args.twin] + args.argv[1:], args.rounds)
    print("%s, %d rounds: medians [ranges]" % (" ".join(args.argv), args.rounds))
    for label, _, _ in KINDS:
        print("  %-13s wall %6.2f s [%.2f-%.2f]   CPU %6.2f s [%.2f-%.2f]"
              % ((label,) + r[label]["wall"] + r[label]["cpu"]))
    for key in sorted(k for k in r if "/" in k):
        print("  %-30s %5.2fx [%.2f-%.2f]" % ((key,) + r[key]))


if __name__ == "__main__":
    main()
