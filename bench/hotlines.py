#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What hot lines cost, and how well they split (make bench-hotlines).

Drives build/bench/hotlines (bench/hotlines.c: the runtime's own PC ring and
table). Cost: workers spin a fixed number of iterations (about 1 s of CPU
each) with nothing else running (none), beside a thread that wakes every
1 ms and does nothing (looker: the sampler thread the runtime has anyway),
and beside that thread draining every worker's PC ring into the table at
each wake-up (rings); the three in rotated order, HOTLINES_REPS rounds
(default 7), the process's CPU time compared; HOTLINES_THREADS workers
(default "1 2"), at each of HOTLINES_PERIODS (ns, default "4000000 1000000
100000"). Split: two functions 3:1 on one
thread, spin3's share of their PCs (75 % of their CPU time), HOTLINES_SPLIT_RUNS
runs (default 3) with the ring's period fixed, and as many with it drawn anew
at random after each sample (the descriptor kept for PERF_EVENT_IOC_PERIOD)."""
import os
import statistics
import subprocess
import sys

EXE = os.path.join("build", "bench", "hotlines")
REPS = int(os.environ.get("HOTLINES_REPS", "7"))
PERIODS = [int(n) for n in os.environ.get("HOTLINES_PERIODS", "4000000 1000000 100000").split()]
THREADS = [int(n) for n in os.environ.get("HOTLINES_THREADS", "1 2").split()]
MODES = ["none", "looker", "rings"]
SPLIT_RUNS = int(os.environ.get("HOTLINES_SPLIT_RUNS", "3"))


def period_text(ns):
    return "%g ms" % (ns / 1e6) if ns >= 1000000 else "%g us" % (ns / 1e3)


def run(*args):
    out = subprocess.run([EXE] + [str(a) for a in args], capture_output=True, text=True,
                         check=True).stdout.strip()
    print(out, flush=True)
    return dict(kv.split("=", 1) for kv in out.split() if "=" in kv)


def cost(period, threads, iterations):
    cpu = {m: [] for m in MODES}
    samples, lost, profiled = [], [], []
    for rep in range(REPS):
        order = MODES[rep % 3:] + MODES[:rep % 3]
        for m in order:
            r = run("cost", m, period, threads, iterations)
            cpu[m].append(float(r["cpu_s"]))
            if m == "rings":
                samples.append(int(r["samples"]))
                lost.append(int(r["lost"]))
                # The workers' CPU time, sampling's own cost in them included.
                profiled.append(float(r["cpu_s"]) - float(r["looker_cpu_s"]))
    work = [cpu["none"][i] for i in range(REPS)]
    ring_over_looker = [(cpu["rings"][i] - cpu["looker"][i]) / work[i] for i in range(REPS)]
    ring_over_none = [(cpu["rings"][i] - cpu["none"][i]) / work[i] for i in range(REPS)]
    per_sample = [1e6 * (cpu["rings"][i] - cpu["looker"][i]) / max(samples[i], 1)
                  for i in range(REPS)]
    return {
        "samples_per_cpu_s": statistics.median(samples[i] / profiled[i] for i in range(REPS)),
        "lost": max(lost),
        "over_looker": 100 * statistics.median(ring_over_looker),
        "over_looker_range": (100 * min(ring_over_looker), 100 * max(ring_over_looker)),
        "over_none": 100 * statistics.median(ring_over_none),
        "per_sample_us": statistics.median(per_sample),
    }


def main():
    if not os.path.exists(EXE):
        sys.exit("build it first: make build/bench/hotlines")
    rate = float(run("rate")["iterations_per_cpu_s"])
    iterations = int(rate)  # about 1 s of CPU per worker
    rows = []
    for period in PERIODS:
        for threads in THREADS:
            rows.append((period, threads, cost(period, threads, iterations)))
    splits = []
    for period in PERIODS:
        for unit in (20000, 200000):
            for how in ("fixed", "jitter"):
                extra = ["jitter"] if how == "jitter" else []
                got = [run("split", period, 2000, unit, *extra) for _ in range(SPLIT_RUNS)]
                splits.append((period, unit, how, [float(g["share3"]) for g in got],
                               statistics.median(int(g["samples"]) for g in got)))
    print("\n| period | threads | samples per CPU-s | lost | extra CPU over the sampler thread, "
          "median (range) | extra CPU over nothing | us of CPU per sample |")
    print("|---|---|---|---|---|---|---|")
    for period, threads, c in rows:
        print("| %s | %d | %.0f | %d | %+.2f %% (%+.2f to %+.2f) | %+.2f %% | %.1f |" % (
            period_text(period), threads, c["samples_per_cpu_s"], c["lost"], c["over_looker"],
            c["over_looker_range"][0], c["over_looker_range"][1], c["over_none"],
            c["per_sample_us"]))
    print("\n| period | 3:1 pair, iterations per call | period | samples | spin3's share of the "
          "pair's PCs (75 %% of their CPU time), %d runs of 2 s |" % SPLIT_RUNS)
    print("|---|---|---|---|---|")
    for period, unit, how, shares, samples in splits:
        print("| %s | %d and %d | %s | %d | %s |" % (
            period_text(period), 3 * unit, unit, how, samples,
            ", ".join("%.1f %%" % e for e in shares)))


if __name__ == "__main__":
    main()
