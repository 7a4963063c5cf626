#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-call cost of the runtime, measured two ways:
- ns per call: paired runs (without and with the preload, alternated), medians;
- instructions per call: callgrind totals at two sizes, so start-up and exit
  cancel, minus the same difference without the preload (deterministic)."""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bench")
# Another runtime to measure, for a before and after: BENCH_PRELOAD=path.
PRELOAD = os.environ.get("BENCH_PRELOAD") or os.path.join(ROOT, "profviz.so")
REPS = int(os.environ.get("BENCH_REPS", "9"))

WORKLOADS = {
    # name: (binary, size for timing, small and large sizes for callgrind)
    # A thread's first calls are timed at a dearer slow path
    # (lib/runtime/timedstart.h) until 50 ms of its CPU or 25,000 calls,
    # whichever comes first: under callgrind, the CPU, at a call that
    # varies from run to run. The sizes are large enough for that to be
    # lost in their difference.
    "fib (recursive)": ("fib", "32", ("25", "30")),
    "mixed (alternating callees)": ("mixed", "300000", ("60000", "600000")),
    "dispatch (64 callees at random)": ("dispatch", "3000000", ("180000", "1800000")),
    "inlined (bodies in the host)": ("inlined", "3000000", ("180000", "1800000")),
}


def env(preload, extra=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = PRELOAD
        e["PROFVIZ_QUIET"] = "1"
    e.update(extra or {})
    return e


def calls_of(binary, size, extra=None):
    d = tempfile.mkdtemp()
    e = env(True, extra)
    e["PROFVIZ_OUTPUT"] = os.path.join(d, "p.json")
    subprocess.run([binary, size], env=e, check=True, stdout=subprocess.DEVNULL)
    with open(e["PROFVIZ_OUTPUT"]) as f:
        return sum(fn["calls"] for fn in json.load(f)["functions"])


def timed(binary, size, preload, extra=None):
    e = env(preload, extra)
    if preload:
        e["PROFVIZ_OUTPUT"] = os.path.join(tempfile.gettempdir(), "profviz-bench.json")
    t0 = time.perf_counter()
    subprocess.run([binary, size], env=e, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def instructions(binary, size, preload, extra=None):
    e = env(preload, extra)
    # callgrind counts every thread's instructions: the sampler's looks,
    # many more in a run slowed 50 times, would read as hook cost.
    if preload:
        e.setdefault("PROFVIZ_RATE", "10")
    if preload:
        e["PROFVIZ_OUTPUT"] = os.path.join(tempfile.gettempdir(), "profviz-bench.json")
    # Inside main only: what the runtime does at exit (the dump, and the
    # symbols it maps, which a run with PCs to map needs and one without
    # does not) would read as the difference between two sizes.
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        "--collect-atstart=no", "--toggle-collect=main",
                        binary, size], env=e, capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1))


def measure(name, binary, size, sizes, extra=None, label=""):
    binary = os.path.join(BIN, binary)
    calls = calls_of(binary, size, extra)
    plain, pre = [], []
    for _ in range(REPS):
        plain.append(timed(binary, size, False))
        pre.append(timed(binary, size, True, extra))
    ns = (statistics.median(pre) - statistics.median(plain)) / calls * 1e9
    # Paired differences, as a spread: how far a single pair can be off.
    diffs = sorted((b - a) / calls * 1e9 for a, b in zip(plain, pre))
    small, large = sizes
    c_small, c_large = calls_of(binary, small, extra), calls_of(binary, large, extra)
    with_pre = instructions(binary, large, True, extra) - instructions(binary, small, True, extra)
    without = instructions(binary, large, False) - instructions(binary, small, False)
    ipc = (with_pre - without) / (c_large - c_small)
    print("%-30s %-6s %10d calls  %6.1f ns/call (pairs %.1f..%.1f)  %6.1f instructions/call"
          % (name, label, calls, ns, diffs[0], diffs[-1], ipc))
    sys.stdout.flush()
    return ns, ipc


def measure_disabled(name, binary, size, sizes):
    """PROFVIZ_DISABLE=1: the hooks still run (the program calls them), and
    should cost little more than glibc's no-op ones. Calls are counted by
    an enabled run, since a disabled one writes nothing."""
    binary = os.path.join(BIN, binary)
    off = {"PROFVIZ_DISABLE": "1"}
    calls = calls_of(binary, size)
    plain, pre = [], []
    for _ in range(REPS):
        plain.append(timed(binary, size, False))
        pre.append(timed(binary, size, True, off))
    ns = (statistics.median(pre) - statistics.median(plain)) / calls * 1e9
    small, large = sizes
    c_small, c_large = calls_of(binary, small), calls_of(binary, large)
    with_pre = instructions(binary, large, True, off) - instructions(binary, small, True, off)
    without = instructions(binary, large, False) - instructions(binary, small, False)
    print("%-30s %-6s %10d calls  %6.1f ns/call  %6.1f instructions/call"
          % (name, "off", calls, ns, (with_pre - without) / (c_large - c_small)))
    sys.stdout.flush()


def read_cost(mode):
    binary = os.path.join(BIN, "readcost")
    runs = []
    for _ in range(REPS):
        out = subprocess.run([binary, mode, "2000000"], capture_output=True, text=True,
                             check=True).stdout.split()
        runs.append(float(out[1]))
    counts = []
    for n in ("100000", "300000"):
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                            binary, mode, n], capture_output=True, text=True, check=True)
        counts.append(int(re.search(r"Collected : (\d+)", p.stderr).group(1)))
    per_read = (counts[1] - counts[0]) / 200000
    print("%-30s %6.1f ns/read (median of %d)  %6.1f instructions/read (loop included)"
          % ("read: " + mode, statistics.median(runs), REPS, per_read))


def main():
    print("profviz hook overhead per instrumented call, over glibc's no-op hooks")
    print("(%d paired runs each; instructions from callgrind, marginal between two sizes)"
          % REPS)
    # The default: time sampled, hooks that count and keep the stack.
    for name, (binary, size, sizes) in WORKLOADS.items():
        measure(name, binary, size, sizes, label="count")
    # PROFVIZ_TIME=hooks: the TSC read at every hook, no sampler.
    for name, (binary, size, sizes) in WORKLOADS.items():
        measure(name, binary, size, sizes, {"PROFVIZ_TIME": "hooks"}, label="tsc")
    measure_disabled("fib, PROFVIZ_DISABLE=1", "fib", "32", ("25", "30"))
    # The read(2) backend on a software event: what a hook costs with a syscall.
    measure("fib (recursive)", "fib", "25", ("21", "22"),
            {"PROFVIZ_EVENTS": "task-clock"}, label="read")
    print()
    print("one counter read, by backend (rdpmc-sim: the production reader on a simulated")
    print("page; a real rdpmc adds the instruction's latency, measured only on a PMU)")
    for mode in ("tsc", "read", "rdpmc-sim"):
        read_cost(mode)


if __name__ == "__main__":
    main()
