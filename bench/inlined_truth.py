#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-inlined: the real programs built as the README says (gcc,
-O2, its exclusion lists, no -fno-inline: the optimiser inlines and keeps
the inlined bodies' hooks) against their native twins, with one or more
profviz runtimes (--preload), so that a runtime from before inlined bodies
were told apart and today's are measured on the same runs.

usage: inlined_truth.py [--preload [LABEL=]PATH]... [--runs N] [--rounds N]
                        [--samples N] [--only lua,sqlite] [--counts lua,tinyxml2]

For each program (SQLite speedtest1, tinyxml2 parse+walk, lua mix.lua):

1. Shares: RUNS runs, each profiling the program once with every runtime
   (sampled time, the default) and sampling its native twin with perf
   (bench/truth.py: pooled runs until SAMPLES samples, each charged to the
   innermost instrumented function), one perf truth for all the runtimes
   of a run. Self-share TVD against it, median [range]; perf's top five
   self functions and each runtime's, pooled over the runs, and whether
   they are the same set.
2. The share of calls that were inlined bodies: the sum of the functions'
   inlined_calls over all their calls, from the profile (a runtime that
   does not tell them apart records none).
3. Time: ROUNDS rounds, each running (a) the instrumented binary without
   the preload, (b) it under each runtime, (c) the native twin, in an order
   rotated from round to round; medians of wall and CPU time (user + system,
   every thread's), and of the ratios b/a and b/c taken within each round.
   With two runtimes or more, each one's profiled time against the first's,
   and its overhead (b - a, CPU) against the first's.

Then, for the programs --counts names, exact counts: the same sources built
with the README's flags plus every no-inline flag (each hook call a real
call, realprogs.no_inline_twin) run under callgrind, whose per-function call
counts must equal each runtime's on the README build, where a function's
calls are its real and its inlined ones. The functions compared are those
either profile reports for its executable (the no-inline build's, profiled
too, names the functions its hooks see).

The figures are this machine's, taken while it does what else it does:
the load average is printed before and after."""
import argparse
import collections
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import callgrind  # noqa: E402
import realprogs  # noqa: E402
import slowdown  # noqa: E402
import truth  # noqa: E402

PROGRAMS = (("sqlite", "SQLite speedtest1 --size 20", realprogs.build_sqlite_speedtest1),
            ("tinyxml2", "tinyxml2 parse+walk (C++)", realprogs.build_tinyxml2_parse),
            ("lua", "lua, workloads/mix.lua", realprogs.build_lua))
TOP = 5


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def own_functions(profile, exe):
    """{name: (calls, inlined calls)} of the profile's functions of exe, copies
    of one name summed."""
    exe = os.path.realpath(exe)
    funcs = collections.defaultdict(lambda: [0, 0])
    for f in profile["functions"]:
        if f["module"] == exe:
            funcs[f["name"]][0] += f["calls"]
            funcs[f["name"]][1] += f.get("inlined_calls", 0)
    return funcs


def inlined_share(profile):
    calls = sum(f["calls"] for f in profile["functions"])
    return sum(f.get("inlined_calls", 0) for f in profile["functions"]) / (calls or 1)


def one_run(argv, twin, preloads, samples, workdir):
    """Every runtime's profile of argv, and one perf truth of twin for them all."""
    profiles = {label: truth.profviz_run(argv, workdir, "sampled", path)
                for label, path in preloads}
    functions = set()
    for p in profiles.values():
        functions |= set(own_functions(p, argv[0]))
    counted, (perf_self, _) = truth.sampled(twin, 10000, workdir, "dwarf,32768", functions,
                                            samples)
    run = {"samples": counted, "perf_self": perf_self, "profiles": profiles,
           "functions": functions}
    for label, p in profiles.items():
        mine = truth.profviz_shares(p, False)[0]
        run[label] = {"self": mine, "self_tvd": truth.tvd(mine, perf_self),
                      "calls": sum(f["calls"] for f in p["functions"]),
                      "inlined_share": inlined_share(p),
                      # What the sampler charged to functions, of the threads'
                      # CPU time: the rest it found inside the hooks.
                      "charged": p["run_total"][0] * 1e-9 / (sum(
                          t["cpu_seconds"] for t in p.get("per_thread", [])) or 1)}
    return run


def noop_hooks(argv, functions, samples, workdir, perf_self):
    """The instrumented binary without the preload (glibc's no-op hooks, the
    samples inside them dropped) against the twin's truth: how far the
    build's own code is from the program, whatever profviz does."""
    _, (mine, _) = truth.sampled(argv, 10000, workdir, "dwarf,32768", functions, samples)
    return mine, truth.tvd(mine, perf_self)


def instructions(argv, env):
    """Every thread's instructions in a run of argv under callgrind: a cost
    that the machine's other work does not move. The sampler looks 10 times
    a second, as bench/bench.py has it, so that its looks in a run slowed
    some 50 times do not read as the hooks' cost."""
    env = dict(env, PROFVIZ_RATE="10") if "LD_PRELOAD" in env else env
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] +
                       argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def calls_of(run, label, argv):
    return {name: calls for name, (calls, _) in
            own_functions(run["profiles"][label], argv[0]).items()}


def top(shares, n=TOP):
    return [k for k, _ in sorted(shares.items(), key=lambda kv: -kv[1])[:n]]


def kinds(argv, twin, preloads, workdir):
    """(label, argv, environment) of each run a round times: the instrumented
    binary, it under each runtime, the native twin."""
    out = os.path.join(workdir, "timed.json")
    return [("instrumented", argv, truth.clean_env())] + \
        [(label, argv, truth.profviz_env(out, "sampled", path)) for label, path in preloads] + \
        [("native twin", twin, truth.clean_env())]


def timed_rounds(argv, twin, preloads, n, workdir):
    """{kind: [(wall, cpu)]}: n rounds of the instrumented binary, it under
    each runtime and the native twin, their order rotated each round."""
    kinds_ = kinds(argv, twin, preloads, workdir)
    times = {k: [] for k, _, _ in kinds_}
    for i in range(n):
        shift = i % len(kinds_)
        for kind, args, env in kinds_[shift:] + kinds_[:shift]:
            times[kind].append(slowdown.timed(args, env))
    return times


def ratio(times, a, b, which):
    """Median, min and max over the rounds of a's time over b's."""
    return slowdown.summary([x[which] / y[which] for x, y in zip(times[a], times[b])])


def overhead_ratio(times, a, b):
    """Median over the rounds of a's CPU overhead over the instrumented
    binary's, against b's."""
    return slowdown.summary([(x[1] - i[1]) / ((y[1] - i[1]) or 1e-9) for x, y, i in
                             zip(times[a], times[b], times["instrumented"])])


def measure(key, name, builder, preloads, args, workdir):
    argv, why = builder(readme="gcc")
    if not argv:
        print("%s: skipped (%s)" % (name, why), flush=True)
        return None
    twin = realprogs.native_twin(argv)
    runs = [one_run(argv, twin, preloads, args.samples, workdir) for _ in range(args.runs)]
    labels = [label for label, _ in preloads]
    perf_pooled = truth.mean_shares([r["perf_self"] for r in runs])
    perf_top = top(perf_pooled)
    result = {"key": key, "name": name, "argv": argv, "twin": twin,
              "samples": min(r["samples"] for r in runs), "perf_top": perf_top,
              "perf_pooled": perf_pooled, "runtimes": {},
              "perf_vs_perf": statistics.median(truth.tvd(a["perf_self"], b["perf_self"])
                                                for a, b in itertools.combinations(runs, 2))
              if len(runs) > 1 else None}
    print("%s: %s against %s, %d runs, %d perf samples or more each; perf vs perf TVD %s"
          % (name, " ".join(argv), os.path.basename(twin[0]), len(runs), result["samples"],
             "-" if result["perf_vs_perf"] is None else "%.1f %%" % (
                 100 * result["perf_vs_perf"])))
    print("  perf's top %d: %s" % (TOP, ", ".join("%s %.1f%%" % (f, 100 * perf_pooled[f])
                                                  for f in perf_top)))
    for label in labels:
        tvds = [100 * r[label]["self_tvd"] for r in runs]
        pooled = truth.mean_shares([r[label]["self"] for r in runs])
        mine_top = top(pooled)
        x = {"tvd": slowdown.summary(tvds), "tvds": tvds, "top": mine_top,
             "top_same": set(mine_top) == set(perf_top),
             "top_same_runs": sum(set(top(r[label]["self"])) == set(top(r["perf_self"]))
                                  for r in runs),
             "pooled_tvd": 100 * truth.tvd(pooled, perf_pooled),
             "self_vs_self": statistics.median(
                 100 * truth.tvd(a[label]["self"], b[label]["self"])
                 for a, b in itertools.combinations(runs, 2)) if len(runs) > 1 else None,
             "carriers": truth.carriers(pooled, perf_pooled, calls_of(runs[-1], label, argv)),
             "calls": statistics.median(r[label]["calls"] for r in runs),
             "inlined_share": statistics.median(r[label]["inlined_share"] for r in runs),
             "charged": statistics.median(r[label]["charged"] for r in runs),
             "pooled": pooled}
        result["runtimes"][label] = x
        print("  %-8s self TVD %.1f %% [%.1f-%.1f] (pooled %.1f %%, run against run %s);"
              " %.1f M calls, inlined bodies %.1f %%" % (
                  (label,) + x["tvd"] + (x["pooled_tvd"], "-" if x["self_vs_self"] is None
                                         else "%.1f %%" % x["self_vs_self"],
                                         x["calls"] / 1e6, 100 * x["inlined_share"])))
        print("  %-8s the sampler charged %.0f %% of the threads' CPU time to functions" % (
            "", 100 * x["charged"]))
        print("  %-8s pooled TVD's carriers (profviz/perf %%, calls): %s" % ("", ", ".join(
            "%s %.1f/%.1f (%d)" % (f, 100 * m, 100 * t, c) for f, m, t, c in x["carriers"])))
        print("  %-8s top %d %s perf's (%d of %d runs): %s" % (
            "", TOP, "= " if x["top_same"] else "!=", x["top_same_runs"], len(runs),
            ", ".join("%s %.1f%%" % (f, 100 * pooled[f]) for f in mine_top)), flush=True)
    if args.noop:
        mine, d = noop_hooks(argv, runs[0]["functions"], args.samples, workdir,
                             runs[0]["perf_self"])
        result["noop_tvd"] = 100 * d
        print("  no-op hooks (the instrumented binary under perf, against run 1's truth):"
              " self TVD %.1f %%; its carriers: %s" % (100 * d, ", ".join(
                  "%s %.1f/%.1f" % (f, 100 * m, 100 * t) for f, m, t, _ in
                  truth.carriers(mine, runs[0]["perf_self"], {}))), flush=True)
    if args.instructions:
        result["instructions"] = ins = {k: instructions(a, e) for k, a, e in
                                        kinds(argv, twin, preloads, workdir)}
        calls = result["runtimes"][labels[0]]["calls"]
        print("  instructions (callgrind, every thread): instrumented %.2f G, native twin %.2f G;"
              " %s" % (ins["instrumented"] / 1e9, ins["native twin"] / 1e9, "; ".join(
                  "%s %.2f G, b/a %.2fx, b/c %.2fx, %.1f a call over a" % (
                      label, ins[label] / 1e9, ins[label] / ins["instrumented"],
                      ins[label] / ins["native twin"], (ins[label] - ins["instrumented"]) / calls)
                  for label in labels)), flush=True)
    times = timed_rounds(argv, twin, preloads, args.rounds, workdir)
    result["times"] = times
    t = {"a": "instrumented", "c": "native twin"}
    print("  time, medians of %d rounds (wall / CPU): instrumented %.2f / %.2f s, native twin"
          " %.2f / %.2f s" % (args.rounds, statistics.median(w for w, _ in times[t["a"]]),
                              statistics.median(c for _, c in times[t["a"]]),
                              statistics.median(w for w, _ in times[t["c"]]),
                              statistics.median(c for _, c in times[t["c"]])))
    for label in labels:
        x = result["runtimes"][label]
        x["b/a wall"], x["b/a cpu"] = (ratio(times, label, t["a"], w) for w in (0, 1))
        x["b/c wall"], x["b/c cpu"] = (ratio(times, label, t["c"], w) for w in (0, 1))
        x["wall"] = statistics.median(w for w, _ in times[label])
        x["cpu"] = statistics.median(c for _, c in times[label])
        line = "  %-8s %.2f / %.2f s; b/a wall %.2fx [%.2f-%.2f], CPU %.2fx; b/c wall %.2fx" \
            " [%.2f-%.2f], CPU %.2fx" % ((label, x["wall"], x["cpu"]) + x["b/a wall"] +
                                         (x["b/a cpu"][0],) + x["b/c wall"] +
                                         (x["b/c cpu"][0],))
        if label != labels[0]:
            x["vs first wall"], x["vs first cpu"] = (ratio(times, label, labels[0], w)
                                                     for w in (0, 1))
            x["overhead vs first"] = overhead_ratio(times, label, labels[0])
            line += "; against %s: wall %.2fx, CPU %.2fx, CPU overhead (b - a) %.2fx" % (
                labels[0], x["vs first wall"][0], x["vs first cpu"][0],
                x["overhead vs first"][0])
        print(line, flush=True)
    if key in args.counts:
        result["counts"] = exact_counts(argv, preloads, workdir)
    for r in runs:
        del r["profiles"]
    result["runs"] = runs
    return result


def same_named(argv, where):
    """argv with its program copied to WHERE/prog: the runs compared then have
    argv[0] of one length (lua keeps it as a string, interned when short)."""
    os.makedirs(where, exist_ok=True)
    exe = os.path.join(where, "prog")
    shutil.copy2(argv[0], exe)
    return [exe] + list(argv[1:])


def exact_counts(argv, preloads, workdir):
    """Each runtime's per-function calls on the README build against
    callgrind's on the no-inline build of the same sources, each binary run
    under one name. A second run with the last runtime tells which counts
    vary from run to run whatever counts them."""
    readme = same_named(argv, os.path.join(workdir, "a"))
    plain = same_named(realprogs.no_inline_twin(argv), os.path.join(workdir, "b"))
    out = os.path.join(workdir, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + plain,
                   env=truth.clean_env(), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    cg = collections.Counter()
    for name, n in callgrind.call_counts(out, plain[0]).items():
        cg[truth.SPLIT_OFF.sub("", name)] += n
    last = preloads[-1][1]
    hooked = set(own_functions(truth.profviz_run(plain, workdir, "sampled", last), plain[0]))

    def counted(profile):
        mine, inlined = collections.Counter(), collections.Counter()
        for name, (calls, inl) in own_functions(profile, readme[0]).items():
            mine[truth.SPLIT_OFF.sub("", name)] += calls
            inlined[truth.SPLIT_OFF.sub("", name)] += inl
        return mine, inlined
    again, _ = counted(truth.profviz_run(readme, workdir, "sampled", last))
    result = {}
    for label, path in preloads:
        mine, inlined = counted(truth.profviz_run(readme, workdir, "sampled", path))
        names = set(mine) | hooked
        wrong = sorted((n, mine[n], inlined[n], cg[n], again[n]) for n in names
                       if mine[n] != cg[n])
        varying = sum(m != a for _, m, _, _, a in wrong)
        result[label] = {"compared": len(names), "equal": len(names) - len(wrong),
                         "varying": varying, "calls": sum(mine[n] for n in names),
                         "callgrind_calls": sum(cg[n] for n in names),
                         "inlined": sum(inlined.values()),
                         "inlined_in_equal": sum(inlined[n] for n in names if mine[n] == cg[n]),
                         "wrong": wrong}
        print("  counts, %s against callgrind on %s: %d of %d functions equal (%d of their"
              " %d inlined calls); of the others, %d vary from run to run; %d calls in all,"
              " callgrind %d" % (
                  label, os.path.basename(realprogs.no_inline_twin(argv)[0]),
                  len(names) - len(wrong), len(names), result[label]["inlined_in_equal"],
                  result[label]["inlined"], varying, result[label]["calls"],
                  result[label]["callgrind_calls"]))
        for n, m, i, c, a in wrong:
            print("    %s: profviz %d (%d inlined), callgrind %d%s" % (
                n, m, i, c, "" if m == a else "; another run %d" % a))
    return result


def markdown(results, labels):
    print("\n| program | runtime | self TVD, median [range] | pooled | top 5 = perf's |"
          " inlined bodies, of calls | b/a wall [range] | b/a CPU | b/c wall | b/c CPU |")
    print("|" + "---|" * 10)
    for r in results:
        for label in labels:
            x = r["runtimes"][label]
            print("| %s | %s | %.1f %% [%.1f-%.1f] | %.1f %% | %s (%d of %d runs) | %s |"
                  " %.2fx [%.2f-%.2f] | %.2fx | %.2fx | %.2fx |" % (
                      (r["name"], label) + x["tvd"] + (x["pooled_tvd"],
                                                       "yes" if x["top_same"] else "no",
                                                       x["top_same_runs"], len(r["runs"]),
                                                       "%.1f %%" % (100 * x["inlined_share"])
                                                       if x["inlined_share"] else "-") +
                      x["b/a wall"] + (x["b/a cpu"][0], x["b/c wall"][0], x["b/c cpu"][0])))
    print("\n| program | runtime | instructions, b / a | b / c | over a, a call | CPU charged to"
          " functions | no-op hooks' self TVD |")
    print("|" + "---|" * 7)
    for r in results:
        ins = r.get("instructions")
        for label in labels:
            print("| %s | %s | %s | %s | %s | %.0f %% | %s |" % (
                r["name"], label, "%.3fx" % (ins[label] / ins["instrumented"]) if ins else "-",
                "%.2fx" % (ins[label] / ins["native twin"]) if ins else "-",
                "%.1f" % ((ins[label] - ins["instrumented"]) / r["runtimes"][label]["calls"])
                if ins else "-", 100 * r["runtimes"][label]["charged"],
                "%.1f %%" % r["noop_tvd"] if "noop_tvd" in r else "-"))
    print("\n| program | perf's top 5 (native twin) | " +
          " | ".join("%s's top 5" % label for label in labels) + " |")
    print("|" + "---|" * (2 + len(labels)))
    for r in results:
        print("| %s | %s | %s |" % (r["name"], ", ".join(r["perf_top"]), " | ".join(
            ", ".join(r["runtimes"][label]["top"]) for label in labels)))
    if len(labels) > 1:
        print("\n| program | runtime | TVD against %s's | profiled wall against %s's | CPU |"
              " CPU overhead (b - a) against %s's | instructions over a, against %s's |"
              % ((labels[0],) * 4))
        print("|---|---|---|---|---|---|---|")
        for r in results:
            base = r["runtimes"][labels[0]]
            for label in labels[1:]:
                x = r["runtimes"][label]
                ins = r.get("instructions")
                print("| %s | %s | %.2fx | %.2fx | %.2fx | %.2fx | %s |" % (
                    r["name"], label, x["tvd"][0] / (base["tvd"][0] or 1e-9),
                    x["vs first wall"][0], x["vs first cpu"][0], x["overhead vs first"][0],
                    "%.3fx" % ((ins[label] - ins["instrumented"]) /
                               (ins[labels[0]] - ins["instrumented"])) if ins else "-"))


def preload_arg(text):
    label, _, path = text.rpartition("=")
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise argparse.ArgumentTypeError("no " + path)
    return (label or os.path.basename(os.path.dirname(path)), path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preload", type=preload_arg, action="append",
                    help="[LABEL=]PATH of a profviz.so; the first is the one the others are"
                    " compared with (default: this checkout's)")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("INLINED_RUNS", "5")))
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("INLINED_ROUNDS", "5")))
    ap.add_argument("--samples", type=int, default=int(os.environ.get("TRUTH_SAMPLES",
                                                                       "8000")))
    ap.add_argument("--only", default=os.environ.get("INLINED_ONLY", ""),
                    help="comma-separated: sqlite, tinyxml2, lua")
    ap.add_argument("--counts", default=os.environ.get("INLINED_COUNTS", "lua,tinyxml2"),
                    help="the programs whose counts callgrind checks")
    ap.add_argument("--no-noop", dest="noop", action="store_false",
                    help="skip perf on the instrumented binary with glibc's no-op hooks")
    ap.add_argument("--no-instructions", dest="instructions", action="store_false",
                    help="skip the instruction counts (callgrind, one run of each)")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    args.counts = [x for x in args.counts.split(",") if x]
    preloads = args.preload or [("this", truth.PRELOAD)]
    only = [x for x in args.only.split(",") if x]
    print("load average %s; runtimes: %s" % (load(), ", ".join(
        "%s = %s" % p for p in preloads)), flush=True)
    workdir = tempfile.mkdtemp(prefix="profviz-inlined-")
    results = [r for key, name, builder in PROGRAMS if not only or key in only
               for r in [measure(key, name, builder, preloads, args, workdir)] if r]
    print("load average %s" % load())
    markdown(results, [label for label, _ in preloads])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=list)
    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
