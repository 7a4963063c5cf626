#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compensated time against the program's own, for make bench-truth: with
millions of tiny calls (tests/progs/tiny.c) the raw profile is several times
the program's own time, and the compensated one should be near it. The
program times its section itself without the preload (glibc's no-op hooks),
which is what the compensated profile must show. Native and profiled runs
are taken in turn, so that a machine that speeds up or slows down moves both
alike: the median native time against the profiled run with the median
compensated total (TRUTH_RUNS pairs, default 5; TRUTH_CPU=N pins them).
The goals are the hooks' clock's (PROFVIZ_TIME=hooks); the sampled time's
figures are printed beside them.

Goals (how much of a hook a function's own work hides depends on the work
and on the processor, so these are this machine's figures, not a property
of profviz alone):
- raw / native above 1.4: the hooks dominate, the case compensation is for;
- compensated / native within 0.3-1.4, and nearer native than raw;
- leaf / section self above 1, and above 1.5 times raw's: taking the hooks
  out moves the balance to the leaf, which does the work (perf puts 94-98 %
  of the section in it), from the loop, on which the hooks put more."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import harness as h  # noqa: E402
import realprogs  # noqa: E402
import truth  # noqa: E402

CALLS = "4000000"
PAIRS = int(os.environ.get("TRUTH_RUNS", "5"))


def native_ns(prog):
    """The section's time, as prog measures it itself, without the preload."""
    out = subprocess.run(truth.pinned([prog, CALLS]), env=truth.clean_env(), check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def profiled(prog, time):
    """(compensated total, raw total, the profile) of the timed section, its
    time from `time` (PROFVIZ_TIME)."""
    d = tempfile.mkdtemp(prefix="profviz-native-")
    p = h.Profile(truth.profviz_run([prog, CALLS], d, time))
    f = p.func("section")
    return f["total"][0], f["raw_total"][0], p


def paired_runs(prog, twin):
    """The median native time, the twin's, and for each time source the
    profiled run with the median total."""
    native, twins, runs = [], [], {t: [] for t in truth.TIMES}
    for _ in range(PAIRS):
        native.append(native_ns(prog))
        twins.append(native_ns(twin))
        for t in truth.TIMES:
            runs[t].append(profiled(prog, t))
    return sorted(native)[PAIRS // 2], sorted(twins)[PAIRS // 2], {
        t: sorted(r, key=lambda x: x[0])[PAIRS // 2] for t, r in runs.items()}


def line(what, measured, goal, met):
    print("  %-34s %-28s goal %-34s %s" % (what, measured, goal, "met" if met else "NOT met"),
          flush=True)


def main():
    prog = h.build("tiny", flags=h.NO_INLINE)
    twin = realprogs.native_twin([prog])[0]
    native, twin_ns, runs = paired_runs(prog, twin)
    total, raw, p = runs["hooks"]
    print("tiny, %s calls of a 2-multiply leaf: medians of %d paired runs (native %.1f ms);"
          " the hooks' clock (PROFVIZ_TIME=hooks)" % (CALLS, PAIRS, native / 1e6))
    line("raw / native", "%.2f (%.1f ms)" % (raw / native, raw / 1e6), "> 1.4: the hooks dominate",
         raw > 1.4 * native)
    line("compensated / native", "%.2f (%.1f ms)" % (total / native, total / 1e6),
         "0.3-1.4, nearer native than raw",
         abs(total - native) < abs(raw - native) and 0.3 * native < total < 1.4 * native)
    leaf, section = p.func("leaf"), p.func("section")
    comp_ratio = leaf["self"][0] / max(1, section["self"][0])
    raw_ratio = leaf["raw_self"][0] / max(1, section["raw_self"][0])
    line("leaf / section self", "%.2f (raw %.2f)" % (comp_ratio, raw_ratio),
         "> 1, and > 1.5 x raw's", comp_ratio > 1 and comp_ratio > 1.5 * raw_ratio)
    print("  calibration (ns per call): %s" % json.dumps(p.data.get("overhead")))
    # The sampled time drops what it finds inside the hooks, not what they
    # cost the program's own code around their calls: against the section's
    # time in the native twin (no hooks at all).
    sampled, _, p = runs["sampled"]
    leaf, section = p.func("leaf"), p.func("section")
    print("  sampled (the default): section %.1f ms, %.2f of the native twin's %.1f ms; leaf /"
          " section self %.2f; no goal" % (sampled / 1e6, sampled / twin_ns, twin_ns / 1e6,
                                          leaf["self"][0] / max(1, section["self"][0])),
          flush=True)


if __name__ == "__main__":
    main()
