#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-truth: first the compensated time of a program of tiny calls
against its own time without profviz (bench/native_time.py, with its goals);
then, for real and synthetic programs, profviz's shares against the truth:
perf sampling each program's native twin (the same sources and flags minus
those that instrument, bench/realprogs.py), its samples charged to the
instrumented functions (bench/truth.py). profviz is run with each of its
time sources: sampled (the default: its sampler thread charges CPU time to
the calling context each thread publishes) and PROFVIZ_TIME=hooks (the
per-call clock, compensated and raw). Beside them: the instrumented binary
with glibc's no-op hooks against the same truth (what the hooks' calls alone
do to the program), perf against perf and sampled against sampled (the
noise floors), and the sampled shares pooled over the runs against perf's
pooled (what stays when the sampling noise shrinks). Then what profiling
costs: wall and CPU time against the instrumented binary without the
preload and against the native twin (bench/slowdown.py).

Goals (issue 18's, full instrumentation, -O2 -fno-inline builds):
self-share TVD lua <= 12 %, tinyxml2 <= 20 %, SQLite <= 15 %, bzip2 and
minigzip <= 5 %; lua built with the exclusions profviz report advises <= 8
%; worst shown arc <= 3 points on every fully instrumented program; SQLite
built with the README's gcc and with its clang flags: perf's top function is
profviz's; profiled wall time <= 1.6 times the instrumented binary's
without profviz on lua, tinyxml2 and SQLite. Each goal is printed against
the default (sampled) time; the hooks' figures are beside it.

Each figure is the median of RUNS comparisons (TRUTH_RUNS, default 5), each
profviz runs and perf runs of the twin and of the instrumented binary,
pooled until each has TRUTH_SAMPLES samples (default 8,000), with the range
over the runs; times the median of TRUTH_TIME_ROUNDS rounds (default 7).
TRUTH_ONLY=lua,sqlite runs only the rows whose names start so.

How far profviz is from the program depends on the processor (how much of
a hook the program's own work hides, and where): the figures are this
machine's, not a property of profviz alone."""
import collections
import itertools
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import harness as h  # noqa: E402
import native_time  # noqa: E402
import realprogs  # noqa: E402
import slowdown  # noqa: E402
import truth  # noqa: E402

RUNS = int(os.environ.get("TRUTH_RUNS", "5"))
SAMPLES = int(os.environ.get("TRUTH_SAMPLES", "8000"))
TIME_ROUNDS = int(os.environ.get("TRUTH_TIME_ROUNDS", "7"))
ONLY = [x for x in os.environ.get("TRUTH_ONLY", "").split(",") if x]
GOAL_ARC = 3.0  # points of the run, every fully instrumented program
GOAL_SLOWDOWN = 1.6  # profiled wall time over the instrumented binary's

Row = collections.namedtuple("Row", "name argv tvd arc slowdown top")


def programs():
    """The table's rows, each with its goals (None: none): self-share TVD in
    %, worst arc in points, wall time over the instrumented binary's, and
    whether perf's top function must be profviz's."""
    # Long enough for some 3,000 samples or more natively: shorter runs leave
    # perf against perf at 5-15 % on the synthetic programs.
    yield Row("tiny (40 M calls of a 2-multiply leaf)",
              [h.build("tiny", flags=h.NO_INLINE), "40000000"], None, GOAL_ARC, None, False)
    bench = os.path.join(ROOT, "build", "bench")
    yield Row("bench/mixed 3000000", [os.path.join(bench, "mixed"), "3000000"], None, GOAL_ARC,
              None, False)
    yield Row("bench/dispatch 30000000", [os.path.join(bench, "dispatch"), "30000000"], None,
              GOAL_ARC, None, False)
    src, why = h.fetch_source("zlib")
    if src:
        exe = h.build_zlib_program(src, "minigzip")
        yield Row("zlib minigzip -c, 24 MB of base64", [exe, "-c", realprogs.base64_text(
            "minigzip-input.txt", 18_000_000, 7)], 5.0, GOAL_ARC, None, False)
    else:
        print("zlib minigzip: skipped (%s)" % why)
    # The real programs, each some 0.5-1 s natively.
    for name, builder, tvd, slower in (
            ("sqlite speedtest1 --size 20", realprogs.build_sqlite_speedtest1, 15.0,
             GOAL_SLOWDOWN),
            ("bzip2 -c, 12 MB of base64", realprogs.build_bzip2, 5.0, None),
            ("lua interpreter, workloads/mix.lua", realprogs.build_lua, 12.0, GOAL_SLOWDOWN),
            ("tinyxml2 parse+walk (C++)", realprogs.build_tinyxml2_parse, 20.0,
             GOAL_SLOWDOWN)):
        argv, why = builder()
        if not argv:
            print("%s: skipped (%s)" % (name, why))
            continue
        yield Row(name, argv, tvd, GOAL_ARC, slower, False)
        if builder is realprogs.build_lua and wanted("lua, the report's exclusions"):
            flag = report_exclusions(argv)
            if flag:
                print("lua, the report's exclusions: %s" % flag)
                argv, why = realprogs.build_lua(exclude=flag)
                yield Row("lua, the report's exclusions", argv, 8.0, None, None, False)
            else:
                print("lua, the report's exclusions: skipped (the report advised none)")
    for compiler in ("gcc", "clang"):
        argv, why = realprogs.build_sqlite_speedtest1(readme=compiler)
        if argv:
            yield Row("sqlite, the README's %s flags" % compiler, argv, None, None, None, True)
        else:
            print("sqlite, the README's %s flags: skipped (%s)" % (compiler, why))


def wanted(name):
    return not ONLY or any(name.startswith(x) for x in ONLY)


FLAG = "-finstrument-functions-exclude-function-list="


def report_exclusions(argv, tries=6):
    """The functions profviz report advises leaving out of instrumentation,
    for argv's profile with the hooks' clock (the sampled time has no hooks'
    cost to doubt). The report advises only when the hooks took 40 % of the
    raw run, which a loaded machine's preemptions can hide: the first of
    `tries` runs whose report advises. Kept in build/progs/NAME.exclusions,
    so that the table's build is the same from one run to the next (the
    list's tail varies with the calibration)."""
    cache = argv[0] + ".exclusions"
    if os.path.exists(cache):
        with open(cache) as f:
            return f.read().strip()
    workdir = tempfile.mkdtemp(prefix="profviz-exclusions-")
    out = os.path.join(workdir, "profile.json")
    flag = ""
    for _ in range(tries):
        subprocess.run(truth.pinned(argv), env=truth.profviz_env(out, "hooks"), check=True,
                       stdout=subprocess.DEVNULL)
        report = subprocess.run([os.path.join(ROOT, "profviz"), "report", out], check=True,
                                capture_output=True, text=True).stdout
        flag = next((line.strip()[len(FLAG):] for line in report.splitlines()
                     if line.strip().startswith(FLAG)), "")
        if flag:
            break
    os.unlink(out)
    os.rmdir(workdir)
    if flag:
        with open(cache, "w") as f:
            f.write(flag + "\n")
    return flag


def spread(values):
    return "%5.1f [%.1f-%.1f]" % (statistics.median(values), min(values), max(values))


def against(measured, goal):
    """measured / goal / met, as the other benchmarks print goals."""
    if goal is None:
        return "%5.1f / no goal" % measured
    return "%5.1f / %4.1f / %s" % (measured, goal, "met" if measured <= goal else "NOT met")


def median_of(runs, key, k):
    return statistics.median(r[key][k] for r in runs)


def median_run(runs, label, key):
    """The run whose key is the median one, of label's."""
    return sorted(runs, key=lambda r: r[label][key])[len(runs) // 2][label]


def noise(runs):
    """perf against perf and sampled against sampled: medians over the pairs
    of runs (with one run, perf's second measurement, and no sampled)."""
    if len(runs) == 1:
        return {"perf": runs[0]["perf_vs_perf"]["self_tvd"], "sampled": None,
                "perf_arc": runs[0]["perf_vs_perf"]["worst_arc_points"]}
    pairs = list(itertools.combinations(runs, 2))
    perf = [truth.perf_vs_perf(a, b) for a, b in pairs]
    return {"perf": statistics.median(p["self_tvd"] for p in perf),
            "perf_arc": statistics.median(p["worst_arc_points"] for p in perf),
            "sampled": statistics.median(truth.profile_vs_profile(a, b, "sampled")
                                         for a, b in pairs)}


def top(shares):
    return max(shares, key=shares.get) if shares else None


def pct(x):
    return "-" if x is None else "%.1f %%" % (100 * x)


def table_row(row):
    """Measure one row, print it, and return its figures for the summary."""
    twin = realprogs.native_twin(row.argv)
    runs = [truth.compare(row.argv, twin=twin, noise=RUNS == 1, least=SAMPLES)
            for _ in range(RUNS)]
    n = noise(runs)
    pooled = truth.pooled(runs, "sampled")
    tvd = {k: [100 * r[k]["self_tvd"] for r in runs] for k in ("sampled", "compensated")}
    arc = {k: [r[k]["worst_arc_points"] for r in runs] for k in ("sampled", "compensated")}
    arc_out = [r["sampled"]["worst_arc_outside_cycles_points"] for r in runs]
    print("%-36s %.0f M calls, %d samples or more a perf measurement" % (
        row.name, statistics.median(r["calls"] for r in runs) / 1e6,
        min(r["samples"] for r in runs)))
    print("  self TVD %%  sampled %s [%.1f-%.1f]  pooled %.1f  sampled/sampled %s | hooks:"
          " compensated %s  raw %.1f | no-op hooks %.1f  perf/perf %.1f" % (
              against(statistics.median(tvd["sampled"]), row.tvd), min(tvd["sampled"]),
              max(tvd["sampled"]), 100 * pooled["self_tvd"], pct(n["sampled"]),
              spread(tvd["compensated"]), 100 * median_of(runs, "raw", "self_tvd"),
              100 * median_of(runs, "noop_hooks", "self_tvd"), 100 * n["perf"]))
    worst = median_run(runs, "sampled", "worst_arc_points")["worst_arc"]
    worst_out = median_run(runs, "sampled", "worst_arc_outside_cycles_points")[
        "worst_arc_outside_cycles"]
    worst_comp = median_run(runs, "compensated", "worst_arc_points")["worst_arc"]
    arrow = " -> ".join
    print("  worst arc, points  sampled %s [%.1f-%.1f] %s; into no function recursion runs"
          " through %s %s | hooks: compensated %s %s  raw %.1f | no-op hooks %.1f  perf/perf"
          " %.1f" % (
              against(statistics.median(arc["sampled"]), row.arc), min(arc["sampled"]),
              max(arc["sampled"]), arrow(str(f) for f in worst or ()),
              spread(arc_out), arrow(str(f) for f in worst_out or ()),
              spread(arc["compensated"]), arrow(str(f) for f in worst_comp or ()),
              median_of(runs, "raw", "worst_arc_points"),
              median_of(runs, "noop_hooks", "worst_arc_points"), n["perf_arc"]))
    print("  pooled sampled TVD's carriers (profviz/perf %, calls): " + ", ".join(
        "%s %.1f/%.1f (%d)" % (f, 100 * m, 100 * t, c) for f, m, t, c in pooled["carriers"]))
    charged = statistics.median(r["sampled_charged_seconds"] for r in runs)
    cpu = statistics.median(r["sampled_cpu_seconds"] for r in runs)
    print("  sampler: charged %.2f s of the threads' %.2f s of CPU (the rest, %.0f %%, found"
          " in the hooks and the runtime)" % (charged, cpu, 100 * (1 - charged / cpu)))
    ov = [r["overhead"] for r in runs if r.get("overhead")]
    if ov:
        print("  hooks' calibration per run (ns per call): %s" % "  ".join(
            "%.1f/%.1f/%.1f" % (o["callee"][0], o["caller"][0], o["caller_miss"][0])
            for o in ov) + "  (callee/caller/miss)")
    tops = None
    if row.top:
        perf_pooled = truth.mean_shares([r["perf_self"] for r in runs])
        tops = {"perf": top(perf_pooled),
                "sampled": top(truth.mean_shares([r["sampled"]["self"] for r in runs])),
                "compensated": top(truth.mean_shares([r["compensated"]["self"]
                                                      for r in runs]))}
        agree = sum(top(r["sampled"]["self"]) == top(r["perf_self"]) for r in runs)
        print("  top function, pooled: perf %s (%.1f %%); sampled %s, %s (in %d of %d runs"
              " the run's perf top); hooks compensated %s, %s" % (
                  tops["perf"], 100 * perf_pooled[tops["perf"]], tops["sampled"],
                  "met" if tops["sampled"] == tops["perf"] else "NOT met", agree, len(runs),
                  tops["compensated"],
                  "the same" if tops["compensated"] == tops["perf"] else "not the same"))
    t = slowdown.measure(row.argv, twin, TIME_ROUNDS)
    wall = t["sampled/instrumented wall"][0]
    print("  time, medians of %d rounds: native twin %.2f s, instrumented %.2f s, sampled %.2f s,"
          " hooks %.2f s (wall; CPU %.2f, %.2f, %.2f, %.2f s)" % (
              TIME_ROUNDS, t["native twin"]["wall"][0], t["instrumented"]["wall"][0],
              t["sampled"]["wall"][0], t["hooks"]["wall"][0], t["native twin"]["cpu"][0],
              t["instrumented"]["cpu"][0], t["sampled"]["cpu"][0], t["hooks"]["cpu"][0]))
    print("  sampled/instrumented wall %s [%.2f-%.2f], CPU %.2fx; hooks/instrumented wall"
          " %.2fx, CPU %.2fx; sampled/native twin wall %.2fx, CPU %.2fx" % (
              ("%.2fx" % wall) + (" / %.1f / %s" % (row.slowdown, "met" if wall <=
                                                     row.slowdown else "NOT met")
                                  if row.slowdown else ""),
              t["sampled/instrumented wall"][1], t["sampled/instrumented wall"][2],
              t["sampled/instrumented cpu"][0], t["hooks/instrumented wall"][0],
              t["hooks/instrumented cpu"][0], t["sampled/native twin wall"][0],
              t["sampled/native twin cpu"][0]), flush=True)
    return {"row": row, "runs": runs, "noise": n, "pooled": pooled, "tvd": tvd, "arc": arc,
            "arc_out": arc_out, "tops": tops, "time": t}


def met(measured, goal):
    return "" if goal is None else ", met" if measured <= goal else ", not met"


def markdown(results):
    """The summary, as bench/README.md's tables: accuracy, then time."""
    print("\n| program | calls | sampled TVD [range] | goal | pooled | sampled vs sampled |"
          " hooks compensated | no-op hooks | perf vs perf | sampled worst arc [range] |"
          " into no function recursion runs through | hooks compensated |")
    print("|" + "---|" * 12)
    for x in results:
        row, runs = x["row"], x["runs"]
        tvd, arc = statistics.median(x["tvd"]["sampled"]), statistics.median(x["arc"]["sampled"])
        print("| %s | %.0f M | %s %% | %s | %.1f %% | %s | %.1f %% | %.1f %% | %.1f %% |"
              " %s%s | %s | %.1f |" % (
                  row.name, statistics.median(r["calls"] for r in runs) / 1e6,
                  spread(x["tvd"]["sampled"]).strip(),
                  "%.0f %%%s" % (row.tvd, met(tvd, row.tvd)) if row.tvd else "none",
                  100 * x["pooled"]["self_tvd"], pct(x["noise"]["sampled"]),
                  statistics.median(x["tvd"]["compensated"]),
                  100 * median_of(runs, "noop_hooks", "self_tvd"), 100 * x["noise"]["perf"],
                  spread(x["arc"]["sampled"]).strip(), met(arc, row.arc),
                  spread(x["arc_out"]).strip(), statistics.median(x["arc"]["compensated"])))
    print("\n| program | native twin | instrumented | sampled | hooks | sampled / instrumented,"
          " wall [range] | CPU | hooks / instrumented, wall | sampled / native twin, wall |")
    print("|" + "---|" * 9)
    for x in results:
        t, row = x["time"], x["row"]
        ratio = t["sampled/instrumented wall"]
        print("| %s | %.2f s | %.2f s | %.2f s | %.2f s | %.2fx [%.2f-%.2f]%s | %.2fx | %.2fx |"
              " %.2fx |" % ((row.name,) + tuple(t[k]["wall"][0] for k in (
                  "native twin", "instrumented", "sampled", "hooks")) + ratio +
                  (met(ratio[0], row.slowdown), t["sampled/instrumented cpu"][0],
                   t["hooks/instrumented wall"][0], t["sampled/native twin wall"][0])))
    tops = [x for x in results if x["tops"]]
    if tops:
        print("\n| build | perf's top function | sampled | hooks compensated |")
        print("|---|---|---|---|")
        for x in tops:
            tp = x["tops"]
            print("| %s | %s | %s%s | %s |" % (
                x["row"].name, tp["perf"], tp["sampled"],
                ", met" if tp["sampled"] == tp["perf"] else ", not met", tp["compensated"]))


def main():
    subprocess.run(["make", "-s", "-C", ROOT, "profviz.so", "profviz", "bench-progs"],
                   check=True)
    if not ONLY:
        native_time.main()
        print()
    print("truth: perf on each program's native twin, %d samples or more a measurement; "
          "medians of %d runs [their range]%s" % (
              SAMPLES, RUNS, "; on CPU " + os.environ["TRUTH_CPU"]
              if os.environ.get("TRUTH_CPU") else ""))
    print("each goal against the default, sampled time (measured / goal / met); the hooks'"
          " clock beside it")
    results = [table_row(row) for row in programs() if wanted(row.name)]
    markdown(results)


if __name__ == "__main__":
    main()
