#!/usr/bin/env python3
"""make bench-truth: compensated and raw shares against perf sampling, for
real and synthetic programs, against the goals (self-share TVD <= 5 %, no
shown arc more than 2 points off), with perf against perf as the noise floor.
Each figure is the median of RUNS comparisons (TRUTH_RUNS, default 3).

How far a static calibration fits a program depends on the processor (how
much of a hook the program's own work hides, and where): the figures are
this machine's, not a property of profviz alone."""
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import harness as h  # noqa: E402
import truth  # noqa: E402

RUNS = int(os.environ.get("TRUTH_RUNS", "3"))
GOAL_TVD, GOAL_ARC = 0.05, 2.0


def programs():
    yield "tiny (4 M calls of a 2-multiply leaf)", [h.build("tiny", flags=h.NO_INLINE), "4000000"]
    bench = os.path.join(ROOT, "build", "bench")
    yield "bench/mixed", [os.path.join(bench, "mixed"), "300000"]
    yield "bench/dispatch", [os.path.join(bench, "dispatch"), "3000000"]
    src, why = h.fetch_source("zlib")
    if not src:
        print("zlib minigzip: skipped (%s)" % why)
        return
    exe = h.build_zlib_program(src, "minigzip")
    data = os.path.join(h.BUILD, "minigzip-input.txt")
    if not os.path.exists(data):
        import base64
        import random
        with open(data, "wb") as f:
            f.write(base64.encodebytes(random.Random(7).randbytes(18_000_000)))
    yield "zlib minigzip -c, 24 MB of base64", [exe, "-c", data]


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "profviz.so", "bench-progs"], check=True)
    rows = []
    for name, argv in programs():
        runs = [truth.compare(argv, noise=(i == 0)) for i in range(RUNS)]
        med = {(label, k): statistics.median(r[label][k] for r in runs)
               for label in ("raw", "compensated") for k in ("self_tvd", "worst_arc_points")}
        noise = runs[0]["perf_vs_perf"]
        ok = (med["compensated", "self_tvd"] <= GOAL_TVD and
              med["compensated", "worst_arc_points"] <= GOAL_ARC)
        rows.append((name, med, noise, ok, runs[0]["overhead"]))
        print("%-38s raw %5.1f %%  comp %5.1f %%  perf/perf %4.1f %%   arcs raw %4.1f  comp %4.1f"
              "  perf/perf %4.1f points   %s" % (
                  name, 100 * med["raw", "self_tvd"], 100 * med["compensated", "self_tvd"],
                  100 * noise["self_tvd"], med["raw", "worst_arc_points"],
                  med["compensated", "worst_arc_points"], noise["worst_arc_points"],
                  "goal met" if ok else "goal NOT met"), flush=True)
    if rows:
        print("calibration (ns per call): %s" % rows[-1][4])


if __name__ == "__main__":
    main()
