#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Why the sampled time is where it is against the native twin: how much
is the sampler's noise, how much where it charges the code around the
hooks' calls, and how much the instrumented code's own extra work.

usage: sampled_bias.py [--runs K] [--samples N] --twin TWIN -- PROG ARGS...

1. Noise: profviz's sampled self shares pooled over 1, 2, 5 ... K runs
   (each run weighing the same) against perf on the twin pooled over two
   measurements of N samples. A TVD that falls as runs are pooled was
   sampling noise; where it levels off is the bias.
2. The code around the hooks' calls: perf samples PROG without the
   preload (glibc's no-op hooks), and each sample is charged three ways:
   - "no-op hooks": to the function whose code runs, samples inside a hook
     or its PLT stub dropped (bench/truth.py's "no-op hooks");
   - "as the sampler charges": the thread publishes its new node only
     inside the hooks, so a function's code before its enter hook's call
     returns (its prologue: saving registers, the hook's arguments) and
     after its exit hook's call (restoring them) counts in its caller, the
     enter hook's PLT stub in the caller, the exit hook's in the function;
   - "that code left out": those samples dropped, as a sampler that saw the
     interrupted PC could.
   Each against the twin, and "as the sampler charges" against the pooled
   sampled profile: near each other if the sampler does what it should.
3. Where the instrumented binary's time goes, in shares of its samples:
   the hooks, their PLT stubs, prologues and epilogues, the bodies.
4. A second thread: perf on the twin with one idle thread more
   (realprogs.threaded_twin), against the twin and against the pooled
   sampled profile. profviz's sampler is a thread, and once a process has
   two, glibc locks in malloc and stdio.
5. The profiled run itself: perf samples PROG with the preload, and its
   samples are charged as in 2 (profviz's own code as the hooks), pooled
   over a few runs, against those runs' own sampled profiles (the sampler
   checked against the interrupted PC of the same runs) and against the
   twin ("that code left out": what a sampler that saw the PC could give).
The functions furthest from the twin are listed with each attribution.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import tempfile

import realprogs
import truth

ENTER, EXIT = truth.HOOKS


def hook_of(sym, dso):
    """ENTER or EXIT for a hook's PLT stub (sym@plt) or a hook; "runtime"
    for the rest of profviz's code; else None."""
    base = sym.split("@")[0]
    if base in truth.HOOKS:
        return base
    return "runtime" if dso.endswith("/profviz.so") else None


def regions(binary):
    """{function: (prologue end, [(epilogue start, end)])} in offsets from
    the function's start: the prologue ends where the enter hook's call
    returns; an epilogue runs from where an exit hook's call returns to the
    next ret, inclusive."""
    text = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", binary],
                          capture_output=True, text=True, check=True).stdout
    head = re.compile(r"^([0-9a-f]+) <(.*)>:$")
    insn = re.compile(r"^\s*([0-9a-f]+):\s*(\S+)\s*(.*)$")
    found, name, start, pending, prologue, epilogues, after = {}, None, 0, None, 0, [], None
    for line in text.splitlines():
        m = head.match(line)
        if m:
            if name:
                found[name] = (prologue, epilogues)
            name, start, prologue, epilogues, pending, after = m.group(2), int(m.group(1), 16), \
                0, [], None, None
            continue
        m = insn.match(line)
        if not m or not name:
            continue
        at = int(m.group(1), 16) - start
        if pending:  # this instruction is where the hook's call returns
            if pending == ENTER and not prologue:
                prologue = at
            elif pending == EXIT:
                after = at
            pending = None
        if m.group(2).startswith("call") and ("<%s@plt>" % ENTER in m.group(3) or
                                              "<%s>" % ENTER in m.group(3)):
            pending = ENTER
        elif m.group(2).startswith("call") and ("<%s@plt>" % EXIT in m.group(3) or
                                                "<%s>" % EXIT in m.group(3)):
            pending = EXIT
        elif m.group(2).startswith("ret") and after is not None:
            epilogues.append((after, at + 1))
            after = None
    if name:
        found[name] = (prologue, epilogues)
    return found


def where(fn, offset, regs):
    """'prologue', 'epilogue' or 'body' for an offset in fn's own code."""
    prologue, epilogues = regs.get(fn, (0, []))
    if offset < prologue:
        return "prologue"
    if any(a <= offset < b for a, b in epilogues):
        return "epilogue"
    return "body"


def attribute(samples, program, functions, regs):
    """The no-op binary's samples charged the three ways, and where its time went."""
    ways = {k: collections.Counter() for k in ("no-op hooks", "as the sampler charges",
                                                 "that code left out")}
    parts = collections.Counter()
    for stack in samples:
        mine = [(truth.instrumented(sym, functions), i) for i, (sym, dso, _) in enumerate(stack)
                if dso == program]
        mine = [(fn, i) for fn, i in mine if fn]
        if not mine:
            continue
        leaf_sym, leaf_dso, leaf_off = stack[0]
        hook = hook_of(leaf_sym, leaf_dso)
        fn, i = mine[0]
        caller = mine[1][0] if len(mine) > 1 else None
        if hook:
            part = "PLT stubs" if leaf_sym.endswith("@plt") else "hooks"
            parts[part] += 1
            if part == "PLT stubs":
                to = caller if hook == ENTER else fn
                if to:
                    ways["as the sampler charges"][to] += 1
            continue
        part = where(stack[0][0], leaf_off, regs) if i == 0 else "body"
        parts[part] += 1
        ways["no-op hooks"][fn] += 1
        if part == "body":
            ways["as the sampler charges"][fn] += 1
            ways["that code left out"][fn] += 1
        elif caller:
            ways["as the sampler charges"][caller] += 1
    return ways, parts


def shares(counts):
    n = sum(counts.values()) or 1
    return {k: v / n for k, v in counts.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="sampled profiles to pool")
    ap.add_argument("--samples", type=int, default=8000, help="each perf measurement's")
    ap.add_argument("--twin", required=True, help="the native twin of PROG")
    args = truth.parse_with_program(ap)
    argv = [os.path.abspath(args.argv[0])] + args.argv[1:]
    twin = [os.path.abspath(args.twin)] + args.argv[1:]
    program = os.path.realpath(argv[0])
    workdir = tempfile.mkdtemp(prefix="profviz-bias-")

    profiles = [truth.profviz_run(argv, workdir) for _ in range(args.runs)]
    functions = {f["name"] for p in profiles for f in p["functions"] if f["module"] == program}
    calls = collections.Counter()
    for f in profiles[0]["functions"]:
        calls[f["name"]] += f["calls"]
    sampled_runs = [truth.profviz_shares(p, False)[0] for p in profiles]
    perf = truth.mean_shares([truth.sampled(twin, 10000, workdir, "dwarf,32768", functions,
                                            args.samples)[1][0] for _ in range(2)])
    charged = sum(p["run_total"][0] for p in profiles) * 1e-9
    cpu = sum(t["cpu_seconds"] for p in profiles for t in p["per_thread"])
    print("%s: %d sampled runs (%.2f s charged of %.2f s of CPU), perf on the twin %d samples"
          " x 2" % (" ".join(args.argv), args.runs, charged / args.runs, cpu / args.runs,
                    args.samples))
    print("1. sampled, pooled over k runs, against the twin (self-share TVD):")
    k = 1
    while k <= args.runs:
        tvds = [truth.tvd(truth.mean_shares(sampled_runs[i:i + k]), perf)
                for i in range(0, args.runs - k + 1, k)]
        print("   k=%-3d %5.1f %% (median of %d disjoint pools)" % (
            k, 100 * sorted(tvds)[len(tvds) // 2], len(tvds)))
        k = {1: 2, 2: 5}.get(k, k * 2)
    pooled = truth.mean_shares(sampled_runs)
    print("   all %d: %.1f %%" % (args.runs, 100 * truth.tvd(pooled, perf)))

    regs = regions(program)
    noop = []
    while sum(len(run) for run in noop) < 2 * args.samples and len(noop) < 16:
        noop.append(truth.perf_samples(argv, 10000, workdir, "dwarf,32768", offsets=True))
    ways, parts = attribute([s for run in noop for s in run], program, functions, regs)
    print("2. perf on the instrumented binary without the preload (%d samples), charged:"
          % sum(parts.values()))
    for label, counts in ways.items():
        mine = shares(counts)
        print("   %-24s %5.1f %% from the twin   %5.1f %% from the pooled sampled profile" % (
            label, 100 * truth.tvd(mine, perf), 100 * truth.tvd(mine, pooled)))
    total = sum(parts.values()) or 1
    print("3. the instrumented binary's samples: " + ", ".join(
        "%s %.1f %%" % (p, 100 * parts[p] / total)
        for p in ("body", "prologue", "epilogue", "PLT stubs", "hooks")))
    threaded = truth.mean_shares([truth.sampled(
        realprogs.threaded_twin(args.argv), 10000, workdir, "dwarf,32768", functions,
        args.samples)[1][0] for _ in range(2)])
    print("4. the twin with an idle thread: %.1f %% from the twin, %.1f %% from the pooled"
          " sampled profile" % (100 * truth.tvd(threaded, perf), 100 * truth.tvd(threaded, pooled)))
    noop_s, model = shares(ways["no-op hooks"]), shares(ways["as the sampler charges"])
    left = shares(ways["that code left out"])
    print("   %-26s %8s %8s %8s %8s %8s %8s %10s" % (
        "function", "twin", "sampled", "no-op", "as charged", "left out", "thread", "calls"))
    for name, _, _, _ in truth.carriers(pooled, perf, calls, 12):
        print("   %-26s %7.2f%% %7.2f%% %7.2f%% %9.2f%% %7.2f%% %7.2f%% %10d" % (
            name[:26], 100 * perf.get(name, 0), 100 * pooled.get(name, 0),
            100 * noop_s.get(name, 0), 100 * model.get(name, 0), 100 * left.get(name, 0),
            100 * threaded.get(name, 0), calls.get(name, 0)))
    profiled(argv, program, functions, regs, perf, workdir)
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    os.rmdir(workdir)


PROFILED_RUNS = 4


def profiled(argv, program, functions, regs, perf, workdir):
    """Section 5: perf on the profiled runs, against their own profiles."""
    out = os.path.join(workdir, "profiled.json")
    ways, parts, mine = collections.defaultdict(list), collections.Counter(), []
    for _ in range(PROFILED_RUNS):
        run = truth.perf_samples(argv, 10000, workdir, "dwarf,32768", offsets=True,
                                 env=truth.profviz_env(out))
        w, p = attribute(run, program, functions, regs)
        for label, counts in w.items():
            ways[label].append(shares(counts))
        parts += p
        with open(out) as f:
            mine.append(truth.profviz_shares(json.load(f), False)[0])
    mine = truth.mean_shares(mine)
    total = sum(parts.values()) or 1
    print("5. perf on %d profiled runs (%d samples with a frame of PROG): " % (
        PROFILED_RUNS, total) + ", ".join("%s %.1f %%" % (p, 100 * parts[p] / total)
                                          for p in ("body", "prologue", "epilogue", "PLT stubs",
                                                    "hooks")) + " (hooks: profviz's code)")
    print("   their sampled profiles: %.1f %% from the twin" % (100 * truth.tvd(mine, perf)))
    for label in ("as the sampler charges", "that code left out"):
        x = truth.mean_shares(ways[label])
        print("   %-24s %5.1f %% from the twin   %5.1f %% from their sampled profiles" % (
            label, 100 * truth.tvd(x, perf), 100 * truth.tvd(x, mine)))


if __name__ == "__main__":
    main()
