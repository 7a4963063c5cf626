#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measure the sampler candidates side by side (make bench-sampler).

Builds bench/sampler/ into build/bench/sampler/, then for each candidate and
period: samples per CPU-second, the 3:1 split on one thread, four threads of
equal work, CPU overhead against no sampling (paired runs), and the safety
cases. Prints the raw lines, then a markdown table.
SAMPLER_REPS (default 7): paired cost runs; accuracy runs 3 times."""
import os
import resource
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join("build", "bench", "sampler")
CANDIDATES = {
    "timer": ("timer", {}),
    "perf-refresh": ("perf", {"SMP_PERF_MODE": "refresh"}),
    "perf-nofd": ("perf", {"SMP_PERF_MODE": "nofd"}),
    "poll": ("poll", {}),
}
PERIODS = [100000, 1000000]
REPS = int(os.environ.get("SAMPLER_REPS", "7"))


def run(exe, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run([os.path.join(OUT, exe)] + [str(a) for a in args], env=e,
                         capture_output=True, text=True, check=True).stdout
    print(out.strip(), flush=True)
    line = out.strip().splitlines()[-1]
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def measure(name, period):
    exe, env = CANDIDATES[name]
    row = {}
    row["rate"] = float(run(exe + "-measure", ["rate", period], env)["samples_per_cpu_s"])
    row["split"] = max(abs(float(run(exe + "-measure", ["split", period], env)["error_points"]))
                       for _ in range(3))
    th = [run(exe + "-measure", ["threads", period], env) for _ in range(3)]
    row["threads_n"] = max(float(t["worst_vs_1_over_n_points"]) for t in th)
    row["threads_cpu"] = max(float(t["worst_vs_cpu_clock_points"]) for t in th)
    ratios, per_sample = [], []
    for i in range(REPS):
        order = [("none-measure", {}), (exe + "-measure", env)]
        if i % 2:
            order.reverse()
        cpu, samples = {}, {}
        for e, en in order:
            r = run(e, ["cost", period], en)
            cpu[e], samples[e] = float(r["cpu_s"]), int(r["samples"])
        ratios.append(cpu[exe + "-measure"] / cpu["none-measure"])
        extra = cpu[exe + "-measure"] - cpu["none-measure"]
        per_sample.append(1e6 * extra / max(samples[exe + "-measure"], 1))
    row["cost"] = 100 * (statistics.median(ratios) - 1)
    row["per_sample"] = statistics.median(per_sample)
    row["cost_range"] = (100 * (min(ratios) - 1), 100 * (max(ratios) - 1))
    return row


def main():
    subprocess.run([os.path.join(HERE, "build.sh"), OUT], check=True)
    rows = {}
    for period in PERIODS:
        for name in CANDIDATES:
            rows[name, period] = measure(name, period)
    print("\n| candidate | period | samples per CPU-s | 3:1 split, worst error (points, 3 runs) "
          "| 4 equal threads, worst vs 1/N / vs CPU clock (points) | CPU overhead, median (range) | us of CPU per sample |")
    print("|---|---|---|---|---|---|---|")
    for (name, period), r in rows.items():
        print(f"| {name} | {period // 1000} us | {r['rate']:.0f} | {r['split']:.2f} "
              f"| {r['threads_n']:.2f} / {r['threads_cpu']:.2f} "
              f"| {r['cost']:+.1f} % ({r['cost_range'][0]:+.1f} to {r['cost_range'][1]:+.1f}) "
              f"| {r['per_sample']:.1f} |")
    run("lookcost", [])
    print("\nSafety (100 us period):")
    for name, (exe, env) in CANDIDATES.items():
        for case in ["blocked", "fork", "exec", "threads", "threads-noend"]:
            run(exe + "-safety", [case, 100000], env)
        for restart in ["0", "1"]:
            run(exe + "-safety", ["eintr", 100000], dict(env, SMP_RESTART=restart))
    # A thread that blocks every signal, under a small RLIMIT_SIGPENDING: a
    # signal queued per sample fills the queue, then the kernel falls back to
    # SIGIO (fcntl(2), F_SETSIG), whose default action ends the program.
    for name, (exe, env) in CANDIDATES.items():
        e = dict(os.environ)
        e.update(env)
        p = subprocess.run([os.path.join(OUT, exe + "-safety"), "blocked", "100000"], env=e,
                           capture_output=True, text=True,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_SIGPENDING, (1000, 1000)))
        how = (f"killed by {signal.Signals(-p.returncode).name}" if p.returncode < 0
               else f"exit {p.returncode}")
        print(f"name={name} RLIMIT_SIGPENDING=1000 blocked: {how} {p.stdout.strip()}", flush=True)
    # The control: a wall-clock timer signals during the sleeps, so the
    # EINTR test can fail.
    for restart in ["0", "1"]:
        run("timer-safety", ["eintr", 100000], {"SMP_TIMER_CLOCK": "wall", "SMP_RESTART": restart})
    return 0


if __name__ == "__main__":
    sys.exit(main())
