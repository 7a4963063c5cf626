#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-cpu: how well profviz's sampled CPU time matches the truth on
threads that work in short bursts between waits, and on runs too short for
many samples, with one or more runtimes (--preload) on the same workloads,
so that a runtime before a change and after it are measured side by side.

usage: cpu_time.py [--preload [LABEL=]PATH]... [--runs N] [--short-runs N]
                   [--seconds S] [--only bursty,short] [--without-perf]
                   [--json OUT]

The workloads (bench/cpu/) are built as the README says for gcc (-O2 -g
-finstrument-functions -finstrument-functions-exclude-file-list=.h,/usr/include/),
with their measured functions kept as real frames (noinline, noclone), and
each has a native twin: the same command minus the flags that instrument
(realprogs.native_twin's rule). Every profviz run is a default one: only
LD_PRELOAD, PROFVIZ_OUTPUT (prof.json) and PROFVIZ_QUIET are set.

1. Bursty (bench/cpu/bursty.c): each thread runs work(), burning B us of its
   own CPU, then wait_io(), which waits about 1 ms, for SECONDS of wall
   time; the wait is poll(NULL, 0, 1), a pthread_cond_timedwait 1 ms ahead,
   or epoll_wait with a 1 ms timeout; B is 100, 200 or 1000 us; one variant
   runs two such threads at once. The truth: perf record -e cpu-clock -F
   10000 --call-graph dwarf on the native twin, each sample charged to the
   innermost of the program's instrumented functions (bench/truth.py), and
   the program's own thread CPU clock around work() and around the wait
   call (of the worker threads' CPU time), written by the program to a side
   file, in a run of the twin without perf (and in the one under it: perf's
   work at the thread's switches is the thread's CPU time too) and in each
   profiled run. profviz:
   self shares of work and wait_io of the CPU time the profile charged to
   functions (its waits' blocked time apart, as the graph shows it), the
   median of RUNS runs, and its distance from perf's in points.
2. Short (bench/cpu/short.c): heavy() and light() alternated, 3:1 in CPU
   per pair, then rare() once with 1/19 of the CPU (5.3 %); 20 ms of CPU in
   all, and a 2 ms variant; SHORT_RUNS runs of each under each runtime.
   Per run: heavy/(heavy+light) of prof.json's sampled self times, rare's
   share of the CPU charged to functions, the samples (sampling.samples);
   the truth is 0.75 and 5.3 % by construction, and the program's own
   thread CPU clock in each function (its side file); and the CPU time the
   profile charged to functions against the program's own clock's in them.

The goals (printed beside the figures, measured / goal / met): bursty, the
work share within 5 points of perf's; short, 20 ms: median split 0.75 +-
0.05, every run's within +-0.10, rare's median share 5.3 +- 2 points and
rare drawn (non-zero) in every run; 2 ms: heavy and light non-zero in
every run, median split 0.75 +- 0.10. The figures are this machine's,
taken while it does what else it does: the load average is printed before
and after. If perf cannot sample here, the program's own clock is the
bursty truth instead, and the output says so."""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import realprogs  # noqa: E402
import truth  # noqa: E402

SOURCES = os.path.join(ROOT, "bench", "cpu")
BUILD = os.path.join(ROOT, "build", "bench-cpu")
# The README's gcc flags, and warnings on.
FLAGS = realprogs.README_FLAGS["gcc"] + ["-Wall", "-Wextra", "-pthread"]
PERF_FREQ = 10000
CALL_GRAPH = "dwarf,16384"  # the workloads' stacks are a few frames deep

# (wait, burst us, threads) of each bursty variant.
BURSTY = [(wait, burst, 1) for wait in ("poll", "cond", "epoll") for burst in (100, 200, 1000)]
BURSTY.append(("poll", 200, 2))
SHORT_US = (20000, 2000)

WORK_GOAL = 5.0  # points of perf's work share
SPLIT = 0.75
RARE = 100.0 / 19  # per cent


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def build(name, native=False):
    """build/bench-cpu/NAME (or NAME-native, the twin), when out of date; the
    path and the command that builds it."""
    src = os.path.join(SOURCES, name + ".c")
    out = os.path.join(BUILD, name + ("-native" if native else ""))
    flags = [f for f in FLAGS if not (native and f.startswith(realprogs.INSTRUMENT_FLAGS))]
    cmd = ["gcc"] + flags + ["-o", out, src]
    stamp = out + ".cmd"
    newest = max(os.path.getmtime(os.path.join(SOURCES, f)) for f in os.listdir(SOURCES))
    fresh = os.path.exists(out) and os.path.exists(stamp) and \
        open(stamp).read() == repr(cmd) and os.path.getmtime(out) >= newest
    if not fresh:
        os.makedirs(BUILD, exist_ok=True)
        subprocess.run(cmd, check=True)
        with open(stamp, "w") as f:
            f.write(repr(cmd))
    return out, cmd


def own_clock(path):
    """The key=value line a workload wrote of its own clock."""
    with open(path) as f:
        return {k: v if k == "wait" else int(v) for k, v in
                (kv.split("=", 1) for kv in f.read().split())}


def profviz_env(out, preload):
    """A default run's environment: the preload and where its profile goes."""
    env = truth.clean_env()
    env.update(LD_PRELOAD=preload, PROFVIZ_OUTPUT=out, PROFVIZ_QUIET="1")
    return env


def profviz_command(argv):
    """How a profiled run is made, for the output."""
    env = profviz_env("prof.json", "RUNTIME")
    return " ".join(["%s=%s" % (k, env[k]) for k in ("LD_PRELOAD", "PROFVIZ_OUTPUT",
                                                      "PROFVIZ_QUIET")] + argv)


def shown(cmd):
    """A command with this checkout's paths relative to it."""
    return " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in cmd)


# The profiled runs' launcher: [] or noperf (--without-perf).
LAUNCHER = []


def noperf():
    """build/bench-cpu/noperf (tests/progs/noperf.c): runs a program where
    perf_event_open is refused, as a container's seccomp profile does."""
    src = os.path.join(ROOT, "tests", "progs", "noperf.c")
    out = os.path.join(BUILD, "noperf")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(BUILD, exist_ok=True)
        subprocess.run(["gcc", "-O2", "-o", out, src], check=True)
    return out


def profiled(argv, preload, workdir):
    """The prof.json of a default run of argv under preload."""
    out = os.path.join(workdir, "prof.json")
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run(LAUNCHER + argv, env=profviz_env(out, preload), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def cpu_shares(profile, exe):
    """{name: share} of the CPU time the profile charged to functions (self,
    event 0, the sampled time), waits' blocked time left out; the samples
    behind each; the functions of exe. No shares when nothing was charged."""
    selves, samples = {}, {}
    exe = os.path.realpath(exe)
    for f in profile["functions"]:
        if f.get("kind") == "wait":
            continue
        selves[f["name"]] = selves.get(f["name"], 0) + f["self"][0]
        samples[f["name"]] = samples.get(f["name"], 0) + f.get("samples", 0)
    total = sum(selves.values())
    mine = {f["name"] for f in profile["functions"] if f["module"] == exe}
    return {k: v / total for k, v in selves.items()} if total else {}, samples, mine


def perf_shares(argv, functions, workdir):
    """perf's self shares of argv (the twin) charged to functions, and its
    samples; None if perf cannot sample here."""
    try:
        samples = truth.perf_samples(argv, PERF_FREQ, workdir, CALL_GRAPH)
    except (OSError, subprocess.CalledProcessError):
        return None
    counted, self_n, _ = truth.truth_from(samples, os.path.realpath(argv[0]), functions)
    if not counted:
        return None
    return {k: v / counted for k, v in self_n.items()}, counted


def summary(xs):
    return (statistics.median(xs), min(xs), max(xs))


def bursty(preloads, args, workdir):
    exe, cmd = build("bursty")
    twin, twin_cmd = build("bursty", native=True)
    side = os.path.join(workdir, "own.txt")
    print("bursty: built with %s\n  and its native twin with %s" % (shown(cmd), shown(twin_cmd)))
    print("  profviz: %s, %d runs each" % (profviz_command(
        [shown([exe]), "WAIT", "B", "THREADS", str(args.seconds), "OWN"]), args.runs))
    print("  perf: perf record -e cpu-clock -F %d --call-graph %s %s WAIT B THREADS %s OWN"
          % (PERF_FREQ, CALL_GRAPH, shown([twin]), args.seconds), flush=True)
    results = []
    for wait, burst, threads in BURSTY:
        wl = [wait, str(burst), str(threads), str(args.seconds), side]
        name = "%s, %d us%s" % (wait, burst, ", 2 threads" if threads > 1 else "")
        runs = {label: [] for label, _ in preloads}
        functions = set()
        for r in range(args.runs):
            shift = r % len(preloads)
            for label, path in preloads[shift:] + preloads[:shift]:
                p = profiled([exe] + wl, path, workdir)
                shares, samples, mine = cpu_shares(p, exe)
                functions |= mine
                runs[label].append({"work": shares.get("work", 0),
                                    "wait": shares.get("wait_io", 0),
                                    "work_samples": samples.get("work", 0),
                                    "wait_samples": samples.get("wait_io", 0),
                                    "samples": p.get("sampling", {}).get("samples", 0),
                                    "own": own_clock(side)})
        perf = perf_shares([twin] + wl, functions, workdir) if args.perf else None
        under_perf = own_split(own_clock(side)) if perf else None
        # The twin's own clock, without perf: perf's work at each of the
        # thread's switches is the thread's CPU time too.
        subprocess.run([twin] + wl, env=truth.clean_env(), check=True)
        twin_own = own_clock(side)
        result = {"name": name, "wait": wait, "burst_us": burst, "threads": threads,
                  "twin_own": own_split(twin_own), "twin_own_under_perf": under_perf,
                  "runtimes": {}}
        if perf:
            result["perf"] = {"work": perf[0].get("work", 0), "wait": perf[0].get("wait_io", 0),
                              "samples": perf[1]}
        # The truth the distance is taken from: perf's, else the twin's own clock.
        ref = result.get("perf") or result["twin_own"]
        print("%s: %s work %.1f %%, wait %.1f %%%s; own clock of the twin: work %.1f %%,"
              " wait %.1f %% (%d bursts)%s" % (
                  name, "perf" if perf else "(no perf) truth = own clock,", 100 * ref["work"],
                  100 * ref["wait"], " (%d samples)" % perf[1] if perf else "",
                  100 * result["twin_own"]["work"], 100 * result["twin_own"]["wait"],
                  twin_own["bursts"], ", under perf: work %.1f %%, wait %.1f %%" % (
                      100 * under_perf["work"], 100 * under_perf["wait"]) if perf else ""))
        for label, _ in preloads:
            rs = runs[label]
            x = {"work": summary([r["work"] for r in rs]),
                 "wait": summary([r["wait"] for r in rs]),
                 "samples": statistics.median(r["samples"] for r in rs),
                 "work_samples": statistics.median(r["work_samples"] for r in rs),
                 "own": {k: statistics.median(own_split(r["own"])[k] for r in rs)
                         for k in ("work", "wait")},
                 "runs": rs}
            x["work_off"] = 100 * (x["work"][0] - ref["work"])
            x["wait_off"] = 100 * (x["wait"][0] - ref["wait"])
            x["met"] = abs(x["work_off"]) <= WORK_GOAL
            result["runtimes"][label] = x
            print("  %-8s work %.1f %% [%.1f-%.1f], wait_io %.1f %%: work %+.1f points from the"
                  " truth (goal +-%g: %s); samples a run %d (in work %d); own clock of these"
                  " runs: work %.1f %%, wait %.1f %%" % (
                      label, 100 * x["work"][0], 100 * x["work"][1], 100 * x["work"][2],
                      100 * x["wait"][0], x["work_off"], WORK_GOAL,
                      "met" if x["met"] else "not met", x["samples"], x["work_samples"],
                      100 * x["own"]["work"],
                      100 * x["own"]["wait"]), flush=True)
        results.append(result)
    return results


def own_split(own):
    """Shares of work() and of the wait calls in the worker threads' CPU
    time, by the program's own clock."""
    cpu = own["threads_ns"] or 1
    return {"work": own["work_ns"] / cpu, "wait": own["wait_ns"] / cpu}


def short(preloads, args, workdir):
    exe, cmd = build("short")
    side = os.path.join(workdir, "own.txt")
    print("short: built with %s\n  profviz: %s, %d runs each" % (
        shown(cmd), profviz_command([shown([exe]), "TOTAL_US", "OWN"]), args.short_runs),
        flush=True)
    results = []
    for total in SHORT_US:
        runs = {label: [] for label, _ in preloads}
        for r in range(args.short_runs):
            shift = r % len(preloads)
            for label, path in preloads[shift:] + preloads[:shift]:
                p = profiled([exe, str(total), side], path, workdir)
                shares, samples, _ = cpu_shares(p, exe)
                h, li = shares.get("heavy", 0), shares.get("light", 0)
                own = own_clock(side)
                own_ns = own["heavy_ns"] + own["light_ns"] + own["rare_ns"]
                runs[label].append({
                    "split": h / (h + li) if h + li else None, "heavy": h, "light": li,
                    "rare": shares.get("rare", 0),
                    "samples": p.get("sampling", {}).get("samples", 0),
                    # Charged to none of the three (main, which only calls them).
                    "other": 1 - h - li - shares.get("rare", 0) if shares else None,
                    "own_split": own["heavy_ns"] / (own["heavy_ns"] + own["light_ns"]),
                    "own_rare": own["rare_ns"] / own_ns,
                    # The CPU time charged to functions, against what the
                    # program's own clock measured in them.
                    "charged": sum(f["self"][0] for f in p["functions"]
                                   if f.get("kind") != "wait") / own_ns})
        result = {"total_us": total, "runtimes": {}}
        for label, _ in preloads:
            rs = runs[label]
            splits = [r["split"] for r in rs if r["split"] is not None]
            x = {"splits": [r["split"] for r in rs],
                 "split": summary(splits) if splits else (None,) * 3,
                 "both": sum(r["heavy"] > 0 and r["light"] > 0 for r in rs),
                 "within": sum(s is not None and abs(s - SPLIT) <= 0.10 for s in splits),
                 "rare": summary([r["rare"] for r in rs]),
                 "rare_drawn": sum(r["rare"] > 0 for r in rs),
                 "rare_near": sum(abs(100 * r["rare"] - RARE) <= 2 for r in rs),
                 "samples": summary([r["samples"] for r in rs]),
                 "other": statistics.median(r["other"] for r in rs if r["other"] is not None)
                 if any(r["other"] is not None for r in rs) else None,
                 "other_runs": sum(r["other"] is not None and r["other"] > 0.005 for r in rs),
                 "own_split": statistics.median(r["own_split"] for r in rs),
                 "own_rare": statistics.median(r["own_rare"] for r in rs),
                 "charged": statistics.median(r["charged"] for r in rs),
                 "n": len(rs)}
            x["goals"] = short_goals(total, x)
            result["runtimes"][label] = x
            print("%g ms, %-8s heavy/(heavy+light) per run: %s" % (
                total / 1000, label, " ".join("-" if s is None else "%.2f" % s
                                              for s in x["splits"])))
            print("  median %s [%s-%s], within 0.75 +-0.10 in %d runs; heavy and light both"
                  " non-zero in %d of %d runs; rare"
                  " %.1f %% [%.1f-%.1f], drawn in %d of %d runs, within 5.3 +-2 points in %d;"
                  " samples a run %d [%d-%d]; charged %.2f times the own clock's CPU in the"
                  " functions, not to heavy, light or rare %s (over 0.5 %% in %d runs); own"
                  " clock: split %.3f, rare"
                  " %.1f %%; goals: %s" % (
                      fmt(x["split"][0]), fmt(x["split"][1]), fmt(x["split"][2]), x["within"],
                      x["both"],
                      x["n"], 100 * x["rare"][0], 100 * x["rare"][1], 100 * x["rare"][2],
                      x["rare_drawn"], x["n"], x["rare_near"], x["samples"][0],
                      x["samples"][1], x["samples"][2], x["charged"],
                      "-" if x["other"] is None else "%.1f %%" % (100 * x["other"]),
                      x["other_runs"],
                      x["own_split"], 100 * x["own_rare"],
                      "; ".join("%s %s" % (g, "met" if ok else "not met")
                                for g, ok in x["goals"])), flush=True)
        results.append(result)
    return results


def fmt(x):
    return "-" if x is None else "%.2f" % x


def short_goals(total, x):
    """[(goal, met)] of a short run's figures."""
    med, lo, hi = x["split"]
    every = med is not None and x["both"] == x["n"]
    if total == 20000:
        return [("median 0.75+-0.05", med is not None and abs(med - SPLIT) <= 0.05),
                ("every run 0.75+-0.10", every and lo >= SPLIT - 0.10 and hi <= SPLIT + 0.10),
                ("rare median 5.3+-2 points", abs(100 * x["rare"][0] - RARE) <= 2),
                ("rare drawn in every run", x["rare_drawn"] == x["n"])]
    return [("heavy and light non-zero in every run", every),
            ("median 0.75+-0.10", med is not None and abs(med - SPLIT) <= 0.10)]


def markdown(bursty_results, short_results, labels, perf):
    if bursty_results:
        truth_name = "perf" if perf else "own clock (twin)"
        print("\n| bursty workload | %s: work / wait_io | own clock, twin: work / wait | runtime |"
              " profviz work, median [range] | profviz wait_io | work - %s, points | goal"
              " | wait_io - %s | samples a run | own clock, profiled: work / wait |"
              % (truth_name, truth_name, truth_name))
        print("|" + "---|" * 11)
        for r in bursty_results:
            ref = r.get("perf") or r["twin_own"]
            for label in labels:
                x = r["runtimes"][label]
                print("| %s | %.1f / %.1f %%%s | %.1f / %.1f %% | %s | %.1f %% [%.1f-%.1f] |"
                      " %.1f %% | %+.1f | 5, %s | %+.1f | %d | %.1f / %.1f %% |" % (
                          r["name"], 100 * ref["work"], 100 * ref["wait"],
                          " (%d samples)" % r["perf"]["samples"] if "perf" in r else "",
                          100 * r["twin_own"]["work"], 100 * r["twin_own"]["wait"], label,
                          100 * x["work"][0], 100 * x["work"][1], 100 * x["work"][2],
                          100 * x["wait"][0], x["work_off"], "met" if x["met"] else "not met",
                          x["wait_off"], x["samples"], 100 * x["own"]["work"],
                          100 * x["own"]["wait"]))
    if short_results:
        print("\n| short run | runtime | heavy/(heavy+light), median [min-max] | both non-zero"
              " | rare, median [min-max] | rare drawn | samples a run, median [min-max] |"
              " charged / own clock's CPU | to none of the three (main), median; runs over 0.5 %"
              " | own clock: split, rare | goals |")
        print("|" + "---|" * 11)
        for r in short_results:
            for label in labels:
                x = r["runtimes"][label]
                print("| %g ms of CPU | %s | %s [%s-%s] | %d of %d | %.1f %% [%.1f-%.1f] |"
                      " %d of %d | %d [%d-%d] | %.2f | %s; %d | %.3f, %.1f %% | %s |" % (
                          r["total_us"] / 1000, label, fmt(x["split"][0]), fmt(x["split"][1]),
                          fmt(x["split"][2]), x["both"], x["n"], 100 * x["rare"][0],
                          100 * x["rare"][1], 100 * x["rare"][2], x["rare_drawn"], x["n"],
                          x["samples"][0], x["samples"][1], x["samples"][2], x["charged"],
                          "-" if x["other"] is None else "%.1f %%" % (100 * x["other"]),
                          x["other_runs"], x["own_split"],
                          100 * x["own_rare"], "; ".join(
                              "%s: %s" % (g, "met" if ok else "not met")
                              for g, ok in x["goals"])))


def preload_arg(text):
    label, _, path = text.rpartition("=")
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise argparse.ArgumentTypeError("no " + path)
    return (label or os.path.basename(os.path.dirname(path)), path)


def perf_works(workdir):
    """Whether perf samples cpu-clock with call graphs here, and why not."""
    if not shutil.which("perf"):
        return False, "no perf (apt-get install linux-perf)"
    data = os.path.join(workdir, "probe.data")
    p = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "--call-graph", CALL_GRAPH,
                        "-o", data, "true"], capture_output=True, text=True)
    return (p.returncode == 0, p.stderr.strip().splitlines()[-1] if p.returncode and
            p.stderr.strip() else "perf record failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preload", type=preload_arg, action="append",
                    help="[LABEL=]PATH of a profviz.so, once per runtime (default: this"
                    " checkout's)")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("CPU_RUNS", "3")),
                    help="profiled runs of each bursty variant, per runtime")
    ap.add_argument("--short-runs", type=int, default=int(os.environ.get("CPU_SHORT_RUNS", "20")),
                    help="runs of each short variant, per runtime")
    ap.add_argument("--seconds", type=float, default=1.5, help="each bursty run's wall time")
    ap.add_argument("--only", default=os.environ.get("CPU_ONLY", ""),
                    help="comma-separated: bursty, short")
    ap.add_argument("--no-perf", dest="perf", action="store_false",
                    help="the program's own clock as the bursty truth, without perf")
    ap.add_argument("--without-perf", action="store_true",
                    default=bool(os.environ.get("CPU_WITHOUT_PERF")),
                    help="profile where perf_event_open is refused (a seccomp filter):"
                    " profviz's fallback")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    if args.without_perf:
        LAUNCHER.append(noperf())
    preloads = args.preload or [("this", truth.PRELOAD)]
    only = [x for x in args.only.split(",") if x]
    workdir = tempfile.mkdtemp(prefix="profviz-cpu-")
    if args.perf:
        args.perf, why = perf_works(workdir)
        if not args.perf:
            print("perf cannot sample here (%s): the bursty truth is the program's own clock"
                  % why)
    print("command: python3 %s" % " ".join(
        shlex.quote(a) for a in [os.path.relpath(os.path.abspath(sys.argv[0]))] + sys.argv[1:]))
    print("%d CPUs, Linux %s, load average %s; runtimes: %s" % (
        os.cpu_count(), os.uname().release, load(), ", ".join("%s = %s" % p for p in preloads)),
        flush=True)
    b = bursty(preloads, args, workdir) if not only or "bursty" in only else []
    s = short(preloads, args, workdir) if not only or "short" in only else []
    print("load average %s" % load())
    markdown(b, s, [label for label, _ in preloads], args.perf)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bursty": b, "short": s, "preloads": preloads}, f, indent=1)
    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
