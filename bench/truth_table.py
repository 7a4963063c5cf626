#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-truth: first the compensated time of a program of tiny calls
against its own time without profviz (bench/native_time.py, with its goals);
then compensated and raw shares against perf sampling, for real and
synthetic programs, against the goals (self-share TVD <= 5 %, no shown arc
more than 2 points off), with perf against perf as the noise floor.
Each figure is the median of RUNS comparisons (TRUTH_RUNS, default 5), each
a profviz run and a perf run; perf against perf is the median over the pairs
of those perf runs. The range over the runs is shown too: the calibration
is measured anew in every process, and varies.

How far a static calibration fits a program depends on the processor (how
much of a hook the program's own work hides, and where): the figures are
this machine's, not a property of profviz alone."""
import itertools
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import harness as h  # noqa: E402
import native_time  # noqa: E402
import realprogs  # noqa: E402
import truth  # noqa: E402

RUNS = int(os.environ.get("TRUTH_RUNS", "5"))
GOAL_TVD, GOAL_ARC = 0.05, 2.0


def programs():
    # Long enough for some 3,000 samples or more natively: shorter runs leave
    # perf against perf at 5-15 % on the synthetic programs.
    yield "tiny (40 M calls of a 2-multiply leaf)", [h.build("tiny", flags=h.NO_INLINE),
                                                     "40000000"]
    bench = os.path.join(ROOT, "build", "bench")
    yield "bench/mixed 3000000", [os.path.join(bench, "mixed"), "3000000"]
    yield "bench/dispatch 30000000", [os.path.join(bench, "dispatch"), "30000000"]
    src, why = h.fetch_source("zlib")
    if src:
        exe = h.build_zlib_program(src, "minigzip")
        yield "zlib minigzip -c, 24 MB of base64", [exe, "-c", realprogs.base64_text(
            "minigzip-input.txt", 18_000_000, 7)]
    else:
        print("zlib minigzip: skipped (%s)" % why)
    # The real programs, each some 0.5-1 s natively.
    for name, builder in (("sqlite speedtest1 --size 20", realprogs.build_sqlite_speedtest1),
                          ("bzip2 -c, 12 MB of base64", realprogs.build_bzip2),
                          ("lua interpreter, workloads/mix.lua", realprogs.build_lua),
                          ("tinyxml2 parse+walk (C++)", realprogs.build_tinyxml2_parse)):
        argv, why = builder()
        if argv:
            yield name, argv
        else:
            print("%s: skipped (%s)" % (name, why))


def spread(values, scale=1):
    return "%5.1f [%4.1f-%4.1f]" % (scale * statistics.median(values), scale * min(values),
                                    scale * max(values))


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "profviz.so", "bench-progs"], check=True)
    native_time.main()
    print()
    print("medians of %d runs [their range]; self-share TVD %%, worst shown arc in points%s"
          % (RUNS, "; on CPU " + os.environ["TRUTH_CPU"] if os.environ.get("TRUTH_CPU") else ""))
    for name, argv in programs():
        runs = [truth.compare(argv) for _ in range(RUNS)]
        med = {(label, k): statistics.median(r[label][k] for r in runs)
               for label in ("raw", "compensated") for k in ("self_tvd", "worst_arc_points")}
        pairs = [truth.perf_vs_perf(a, b) for a, b in itertools.combinations(runs, 2)]
        noise = {k: statistics.median(p[k] for p in pairs) if pairs else float("nan")
                 for k in ("self_tvd", "worst_arc_points")}
        ok = (med["compensated", "self_tvd"] <= GOAL_TVD and
              med["compensated", "worst_arc_points"] <= GOAL_ARC)
        print("%-34s raw %5.1f  comp %s  perf/perf %4.1f   arcs raw %4.1f  comp %s"
              "  perf/perf %4.1f   %s" % (
                  name, 100 * med["raw", "self_tvd"],
                  spread([r["compensated"]["self_tvd"] for r in runs], 100),
                  100 * noise["self_tvd"], med["raw", "worst_arc_points"],
                  spread([r["compensated"]["worst_arc_points"] for r in runs]),
                  noise["worst_arc_points"], "goal met" if ok else "goal NOT met"), flush=True)
        ov = [r["overhead"] for r in runs if r["overhead"]]
        if ov:
            print("  calibration per run (ns per call): %s" % "  ".join(
                "%.1f/%.1f/%.1f" % (o["callee"][0], o["caller"][0], o["caller_miss"][0])
                for o in ov) + "  (callee/caller/miss)")


if __name__ == "__main__":
    main()
