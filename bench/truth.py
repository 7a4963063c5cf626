#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The time truth for a profile: where a program's time goes when it runs
without profviz, by sampling, and how far profviz's shares are from it.

usage: truth.py [--freq HZ] [--json OUT] [--noise] [--twin TWIN] -- PROG ARGS...

1. The truth: perf samples TWIN, PROG's native twin (the same sources and
   flags minus -finstrument-functions, bench/realprogs.py builds it), run
   with PROG's arguments under
   `perf record -e cpu-clock -F HZ --call-graph dwarf`, and each sample is
   charged to the innermost frame that is one of the functions profviz
   reports for PROG's executable: a function built without hooks counts in
   its caller, as in the profile. Samples with no such frame (start-up,
   exit) are outside the run.
   Without --twin the truth is PROG itself run without the preload, with
   glibc's no-op hooks, and samples inside them dropped. With --twin that
   run is measured too, against the twin ("no-op hooks"): how far the
   instrumented binary alone is from the program.
2. Runs PROG with profviz preloaded twice: with its default time, sampled
   inside the run by its sampler thread ("sampled"), and with
   PROFVIZ_TIME=hooks, the per-call clock, compensated and raw.
3. Compares self shares by total variation distance over the functions with
   at least 0.5% in either (the rest pooled as one), and the inclusive share of
   every arc the graph shows, in points of the run.
With --noise, a second perf run of the truth against the first gives the
noise floor.

Build PROG with -fno-inline (and the like) so that every instrumented
function is a real frame for the sampler too, as bench/ and the tests do.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRELOAD = os.path.join(ROOT, "profviz.so")
HOOKS = ("__cyg_profile_func_enter", "__cyg_profile_func_exit")
SHOWN = 0.005  # functions at 0.5% or more of the run are compared one by one
ARC_SHOWN = 0.001  # the graph's default arc threshold: 0.1% of the run


def pinned(argv):
    """argv on the one CPU that TRUTH_CPU names, if it names one. The hooks'
    cost, and the program's own, can differ from one (virtual) CPU to another:
    pinning both runs to one compares like with like."""
    cpu = os.environ.get("TRUTH_CPU", "")
    return ["taskset", "-c", cpu] + list(argv) if cpu else list(argv)


def clean_env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith("PROFVIZ_") and k != "LD_PRELOAD"}


# profviz's time sources (PROFVIZ_TIME): its sampler thread, the default,
# and the hooks' per-call clock.
TIMES = ("sampled", "hooks")


def profviz_env(out, time="sampled", preload=PRELOAD):
    """The environment of a run with the preload (this checkout's profviz.so
    unless another is named), writing its profile to out, its time from
    `time` (PROFVIZ_TIME)."""
    env = clean_env()
    env.update(LD_PRELOAD=preload, PROFVIZ_OUTPUT=out, PROFVIZ_QUIET="1", PROFVIZ_TIME=time)
    return env


def profviz_run(argv, workdir, time="sampled", preload=PRELOAD):
    """The profile of argv run with the preload, its time from `time`."""
    out = os.path.join(workdir, "truth-profile.json")
    env = profviz_env(out, time, preload)
    subprocess.run(pinned(argv), env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def perf_samples(argv, freq, workdir, callgraph, offsets=False, env=None):
    """Each sample's stack, innermost first, as (symbol, dso) pairs, or with
    offsets (symbol, dso, offset of the frame's address in the symbol); argv
    run in env (by default without the preload)."""
    data = os.path.join(workdir, "truth-perf.data")
    subprocess.run(pinned(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq),
                           "--call-graph", callgraph, "-o", data] + argv),
                   env=env or clean_env(), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return recorded_samples(data, offsets)


def recorded_samples(data, offsets=False):
    """perf_samples' stacks, from the perf.data file data that perf record
    wrote (removed once read)."""
    fields = "ip,sym,symoff,dso" if offsets else "ip,sym,dso"
    text = subprocess.run(["perf", "script", "-v", "--no-inline", "-i", data, "-F", fields],
                          capture_output=True, text=True, check=True).stdout
    os.unlink(data)
    samples, stack = [], []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            if stack:
                samples.append(stack)
            stack = []
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        sym_dso = parts[1]
        dso = sym_dso[sym_dso.rfind("(") + 1:-1] if sym_dso.endswith(")") else ""
        sym = sym_dso[:sym_dso.rfind("(")].strip() if "(" in sym_dso else sym_dso
        at = re.search(r"\+0x([0-9a-f]+)$", sym)
        frame = (sym[:at.start()] if at else sym, dso)
        stack.append(frame + (int(at.group(1), 16) if at else 0,) if offsets else frame)
    if stack:
        samples.append(stack)
    return samples


# Where a whole stack ends: a thread's or the program's start in libc.
STACK_BOTTOMS = ("__libc_start_call_main", "__libc_start_main", "start_thread", "clone3",
                 "clone")


# The parts gcc splits off a function (its cold path; clones where the flags
# allow them) are its time: perf names them NAME.cold, NAME.part.0 ...
SPLIT_OFF = re.compile(r"(\.(cold|part|isra|constprop|lto_priv)(\.\d+)?)+$")


def instrumented(sym, functions):
    """The instrumented function whose code sym is, or None."""
    if sym in functions:
        return sym
    base = SPLIT_OFF.sub("", sym)
    return base if base in functions else None


def truth_from(samples, program, functions, cycles=None):
    """Self and arc-inclusive sample counts, charged to the program's own
    instrumented functions. cycles, a set if given, gets the functions seen
    between two activations of another (recursion through them)."""
    self_n = collections.Counter()
    arc_n = collections.Counter()
    counted = 0
    for stack in samples:
        if stack and stack[0][0].split("@")[0] in HOOKS:
            continue  # inside a no-op hook or its PLT stub: time the hooks add
        mine = [fn for fn in (instrumented(sym, functions) for sym, dso in stack
                              if dso == program) if fn]
        if not mine:
            continue
        counted += 1
        self_n[mine[0]] += 1
        # Innermost first: each caller is the next one out; the outermost
        # was called from outside (the root) if the unwinder got that far.
        # As profviz counts an arc (README, "What is counted"): a sample is
        # in the arc through which its function's outermost activation was
        # entered, and in no arc into a nested (recursive) one.
        whole = any(sym in STACK_BOTTOMS for sym, _ in stack)
        outermost = {fn: i for i, fn in enumerate(mine)}
        if cycles is not None and len(outermost) < len(mine):
            innermost = {}
            for i, fn in enumerate(mine):
                innermost.setdefault(fn, i)
            for fn, i in innermost.items():
                cycles.update(mine[i + 1:outermost[fn]])
        for fn, i in outermost.items():
            if i + 1 < len(mine):
                arc_n[(mine[i + 1], fn)] += 1
            elif whole:
                arc_n[(None, fn)] += 1
    return counted, self_n, arc_n


def profviz_shares(profile, raw):
    key_self = "raw_self" if raw else "self"
    key_total = "raw_total" if raw else "total"
    funcs = {f["id"]: f for f in profile["functions"]}
    run = sum(a[key_total][0] for a in profile["arcs"] if a["caller"] is None) or 1
    self_share = collections.Counter()
    for f in profile["functions"]:
        self_share[f["name"]] += f[key_self][0] / run
    arcs = collections.Counter()
    for a in profile["arcs"]:
        caller = None if a["caller"] is None else funcs[a["caller"]]["name"]
        arcs[(caller, funcs[a["callee"]]["name"])] += a[key_total][0] / run
    return self_share, arcs


def tvd(p, q):
    """Total variation distance over the functions shown in either, the rest pooled."""
    names = {n for n in set(p) | set(q) if p.get(n, 0) >= SHOWN or q.get(n, 0) >= SHOWN}
    d = sum(abs(p.get(n, 0) - q.get(n, 0)) for n in names)
    rest_p = sum(v for n, v in p.items() if n not in names)
    rest_q = sum(v for n, v in q.items() if n not in names)
    return (d + abs(rest_p - rest_q)) / 2


def worst_arc(p, q, shown):
    """The largest difference, in points of the run, over the arcs shown."""
    worst = (0.0, None)
    for a in shown:
        d = abs(p.get(a, 0) - q.get(a, 0))
        if d > worst[0]:
            worst = (d, a)
    return worst


def perf_vs_perf(a, b):
    """Two comparisons' perf shares against each other: the noise floor."""
    d, _ = worst_arc(a["perf_arcs"], b["perf_arcs"],
                     [k for k, v in b["perf_arcs"].items() if v >= ARC_SHOWN])
    return {"self_tvd": tvd(a["perf_self"], b["perf_self"]), "worst_arc_points": 100 * d}


def shares_of(counted, self_n, arc_n):
    n = counted or 1
    return ({k: v / n for k, v in self_n.items()}, {k: v / n for k, v in arc_n.items()})


RUNS_FOR_SAMPLES = 16  # the most runs pooled to reach the samples asked for


def sampled(argv, freq, workdir, callgraph, functions, least=0, cycles=None):
    """perf's self and arc shares of argv, charged to functions: one run, or
    as many as give `least` samples in all (a native twin runs in a fraction
    of the instrumented binary's time, and a higher rate than perf's usual
    10 kHz makes perf's own work distort the shares)."""
    counted, self_n, arc_n = 0, collections.Counter(), collections.Counter()
    for _ in range(RUNS_FOR_SAMPLES):
        c, s, a = truth_from(perf_samples(argv, freq, workdir, callgraph),
                             os.path.realpath(argv[0]), functions, cycles)
        counted, self_n, arc_n = counted + c, self_n + s, arc_n + a
        if counted >= least:
            break
    return counted, shares_of(counted, self_n, arc_n)


def distance(mine, truth, shown, cycles=()):
    """Self-share TVD and worst shown arc of (self, arcs) shares against the
    truth's; and the worst shown arc into a function outside cycles (the
    functions recursion runs through)."""
    d, arc = worst_arc(mine[1], truth[1], shown)
    d_out, arc_out = worst_arc(mine[1], truth[1], [a for a in shown if a[1] not in cycles])
    return {"self_tvd": tvd(mine[0], truth[0]), "worst_arc_points": 100 * d,
            "worst_arc": list(arc) if arc else None,
            "worst_arc_outside_cycles_points": 100 * d_out,
            "worst_arc_outside_cycles": list(arc_out) if arc_out else None}


def carriers(mine, truth, calls, n=6):
    """What a self-share TVD is made of: the functions furthest from the
    truth, as (name, profviz share, truth share, calls)."""
    return sorted(((name, mine.get(name, 0), truth.get(name, 0), calls.get(name, 0))
                   for name in set(mine) | set(truth)),
                  key=lambda x: -abs(x[1] - x[2]))[:n]


def mean_shares(shares):
    """The shares of several runs pooled, each run weighing the same."""
    pooled = collections.Counter()
    for s in shares:
        for k, v in s.items():
            pooled[k] += v / len(shares)
    return pooled


def pooled(runs, label):
    """label's self shares, and perf's, each pooled over the runs, against each
    other: where sampling noise is what parts them, pooling brings them
    nearer; a bias stays."""
    mine = mean_shares([r[label]["self"] for r in runs])
    truth = mean_shares([r["perf_self"] for r in runs])
    calls = runs[0]["func_calls"]
    return {"self_tvd": tvd(mine, truth), "carriers": carriers(mine, truth, calls)}


def profile_vs_profile(a, b, label):
    """Two runs' self shares of label against each other: profviz's own noise
    (the sampler's, for "sampled")."""
    return tvd(a[label]["self"], b[label]["self"])


# Each time source, the labels its profile gives: (label, raw costs).
LABELS = {"sampled": (("sampled", False),), "hooks": (("raw", True), ("compensated", False))}


def compare(argv, freq=10000, noise=False, callgraph="dwarf,32768", twin=None, least=0,
            times=TIMES):
    """profviz on argv, with each time source of `times`, against perf on
    twin (argv's native twin) or, without one, on argv run without the
    preload; each perf measurement pools runs until it has `least` samples."""
    workdir = tempfile.mkdtemp(prefix="profviz-truth-")
    argv = [os.path.abspath(argv[0])] + list(argv[1:])
    reference = [os.path.abspath(twin[0])] + list(twin[1:]) if twin else argv
    program = os.path.realpath(argv[0])
    profiles = {t: profviz_run(argv, workdir, t) for t in times}
    functions = {f["name"] for p in profiles.values() for f in p["functions"]
                 if f["module"] == program}
    cycles = set()
    counted, truth_shares = sampled(reference, freq, workdir, callgraph, functions, least,
                                    cycles)
    truth_self, truth_arcs = truth_shares
    first = profiles[times[0]]
    func_calls = collections.Counter()
    for f in first["functions"]:
        func_calls[f["name"]] += f["calls"]
    result = {"program": " ".join(argv), "truth": " ".join(reference), "samples": counted,
              "calls": sum(func_calls.values()), "func_calls": func_calls,
              "cycles": sorted(cycles)}
    if "hooks" in profiles:
        result.update(overhead=profiles["hooks"].get("overhead"),
                      clamped=profiles["hooks"].get("clamped"))
    if "sampled" in profiles:
        # The CPU time the sampler charged to functions, of the threads' CPU
        # time: the rest it found inside the hooks and the runtime.
        p = profiles["sampled"]
        result["sampled_charged_seconds"] = p["run_total"][0] * 1e-9
        result["sampled_cpu_seconds"] = sum(t["cpu_seconds"] for t in p.get("per_thread", []))
    graph_arcs = None
    for t in times:
        # An arc all of whose calls were inlined bodies has no frame to
        # sample in the native twin either: perf cannot see it.
        names = {f["id"]: f["name"] for f in profiles[t]["functions"]}
        calls, inlined_calls = collections.Counter(), collections.Counter()
        for a in profiles[t]["arcs"]:
            pair = (names.get(a["caller"]), names[a["callee"]])
            calls[pair] += a["calls"]
            inlined_calls[pair] += a.get("inlined_calls", 0)
        inlined = {k for k, n in calls.items() if n and inlined_calls[k] == n}
        for label, raw in LABELS[t]:
            mine_self, mine_arcs = profviz_shares(profiles[t], raw)
            shown = [a for a, v in mine_arcs.items() if v >= ARC_SHOWN and a[1] in functions
                     and (a[0] is None or a[0] in functions) and a not in inlined]
            if graph_arcs is None or label == "compensated":
                graph_arcs = shown
            result[label] = dict(distance((mine_self, mine_arcs), truth_shares, shown, cycles),
                                 arcs={"%s -> %s" % a: v for a, v in mine_arcs.items()},
                                 self=dict(mine_self),
                                 carriers=carriers(mine_self, truth_self, func_calls),
                                 top=sorted(((n, mine_self.get(n, 0), truth_self.get(n, 0))
                                             for n in set(mine_self) | set(truth_self)),
                                            key=lambda x: -x[2])[:8])
    if twin:
        # The former truth: the instrumented binary with glibc's no-op
        # hooks, over the arcs the (compensated) graph shows.
        _, hooks_shares = sampled(argv, freq, workdir, callgraph, functions, least)
        result["noop_hooks"] = distance(hooks_shares, truth_shares, graph_arcs, cycles)
        result["noop_hooks"]["self"] = hooks_shares[0]
    # perf's own shares, for comparing runs with each other (perf_vs_perf)
    result["perf_self"] = truth_self
    result["perf_arcs"] = {"%s -> %s" % a: v for a, v in truth_arcs.items()}
    if noise:
        _, again = sampled(reference, freq, workdir, callgraph, functions, least)
        result["perf_vs_perf"] = distance(again, truth_shares,
                                          [a for a, v in truth_arcs.items() if v >= ARC_SHOWN])
    shutil.rmtree(workdir, ignore_errors=True)
    return result


def parse_with_program(ap):
    """ap's arguments, the last of them "-- PROG ARGS...": the argv of the
    bench scripts that run a program."""
    ap.add_argument("argv", nargs=argparse.REMAINDER, help="-- PROG ARGS...")
    args = ap.parse_args()
    if args.argv and args.argv[0] == "--":
        args.argv = args.argv[1:]
    if not args.argv:
        ap.error("no program given")
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--freq", type=int, default=10000)
    ap.add_argument("--json", help="write the comparison here")
    ap.add_argument("--noise", action="store_true", help="also perf against perf")
    ap.add_argument("--call-graph", default="dwarf,32768",
                    help="perf's unwinder: fp for programs built with frame pointers")
    ap.add_argument("--samples", type=int, default=0,
                    help="pool perf runs until each measurement has this many samples")
    ap.add_argument("--twin", help="the native twin of PROG, sampled as the truth"
                    " (bench/realprogs.py native_twin builds it)")
    args = parse_with_program(ap)
    twin = [args.twin] + args.argv[1:] if args.twin else None
    r = compare(args.argv, args.freq, args.noise, args.call_graph, twin, args.samples)
    print("%s: %d samples of %s, %d calls" % (r["program"], r["samples"], r["truth"],
                                              r["calls"]))
    for label, key in (("sampled", "sampled"), ("raw", "raw"), ("compensated", "compensated"),
                       ("no-op hooks", "noop_hooks"), ("perf vs perf", "perf_vs_perf")):
        if key in r:
            x = r[key]
            print("  %-12s self-share TVD %5.1f %%   worst arc off by %4.1f points %s"
                  % (label, 100 * x["self_tvd"], x["worst_arc_points"], x["worst_arc"] or ""))
            if "worst_arc_outside_cycles" in x:
                print("  %-12s %22s   outside recursion %4.1f points %s"
                      % ("", "", x["worst_arc_outside_cycles_points"],
                         x["worst_arc_outside_cycles"] or ""))
    print("  %-28s %8s %8s %8s %8s" % ("function", "sampled", "raw", "comp", "perf"))
    for n, _, truth in r["sampled"]["top"]:
        print("  %-28s %7.2f%% %7.2f%% %7.2f%% %7.2f%%" % (
            n[:28], 100 * r["sampled"]["self"].get(n, 0), 100 * r["raw"]["self"].get(n, 0),
            100 * r["compensated"]["self"].get(n, 0), 100 * truth))
    print("  the sampled TVD's carriers: " + ", ".join(
        "%s %.1f/%.1f%% (%d calls)" % (n, 100 * m, 100 * t, c)
        for n, m, t, c in r["sampled"]["carriers"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)


if __name__ == "__main__":
    main()
