#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where perf_event_open is refused (a container's seccomp profile, an
unprivileged user under perf_event_paranoid 3), a thread has no ring: its
first CPU is timed at its hooks, its switches told by its rseq area, and the
sampler's looks take over after. Short runs are then as right as with the
ring, a read blocked outside libc's waits is not work, and a libc without
rseq still gets the looks. Run under tests/progs/noperf.c, whose seccomp
filter refuses perf_event_open with EACCES."""
import re
import harness as h

t = h.Tap()
noperf = h.build("noperf", instrument=[])
shares = h.build("sampled_shares", flags=h.NO_INLINE + ["-pthread"])
MS = 1000000
TIMED_START_NS = 50 * MS  # PV_TIMED_START_NS (timedstart.h)


def numbers(stdout):
    """'name 12 other 34' on stdout as {name: 12, other: 34}."""
    words = stdout.decode().split()
    return {k: int(v) for k, v in zip(words[0::2], words[1::2]) if re.fullmatch(r"-?\d+", v)}


def self_ns(p, name):
    f = p.func(name)
    return f["self"][0] if f else 0


def timed_ns(p, name):
    f = p.func(name)
    return f.get("timed_ns", 0) if f else 0


def split_shares(p, truth):
    """heavy's and light's shares of the two, profiled and measured by the
    program's own clock."""
    got = {f: self_ns(p, f) for f in ("heavy", "light")}
    real = {"heavy": truth["heavy_ns"], "light": truth["light_ns"]}
    return ({f: 100.0 * got[f] / max(1, sum(got.values())) for f in got},
            {f: 100.0 * real[f] / sum(real.values()) for f in real})


# 1. 30 ms of CPU, heavy and light 3:1, and a plain read (not a wrapped
# wait) blocked 100 ms: all of it inside the first PV_TIMED_START_NS, so
# timed whole. A span is the wall time between two hooks when the thread
# never left its CPU (exact), else what the thread's CPU clock moved: the
# only error is the few hundred ns of hook around each of some 60 calls,
# 0.1 points; 1 point is ten times that.
with t.case("a short run, perf refused"):
    argv = [shares, "split", "30", "100"]
    r = h.run([noperf] + argv, outputs="prof.json")
    truth = numbers(r.stdout)
    t.eq((r.rc, truth.get("read"), truth.get("child")), (0, 1, 0),
         "the program ran as without profviz")
    t.ok(any("perf_event_open" in line and "timed at their hooks" in line
             for line in h.profviz_lines(r.stderr)), "the refusal said, and what stands in")
    p = r.json()
    s = p.data["sampling"]
    t.eq(s["samples"], 0, "no look charged anything: the run was timed whole")
    t.ok(s["timed_ns"] >= 0.9 * (truth["heavy_ns"] + truth["light_ns"]),
         "timed: %.1f ms, the work %.1f ms" % (s["timed_ns"] / MS,
                                             (truth["heavy_ns"] + truth["light_ns"]) / MS))
    got, want = split_shares(p, truth)
    for f in ("heavy", "light"):
        t.ok(abs(got[f] - want[f]) <= 1, "%s's share %.2f %% within 1 point of its own clock's "
             "%.2f %%" % (f, got[f], want[f]))
        t.eq(timed_ns(p, f), self_ns(p, f), "%s's time all timed" % f)
    blocked = self_ns(p, "wait_for_pipe")
    t.ok(blocked < 1 * MS, "the read blocked 100 ms outside libc's waits: %.3f ms of CPU "
         "(its own clock %.3f ms)" % (blocked / MS, truth["wait_ns"] / MS))

# 2. 300 ms: the first PV_TIMED_START_NS timed, then the looks. A look
# charges the CPU since the one before to where it finds the thread, so the
# error is at the split's 10 boundaries between functions, at most a look
# period each (t_sampled_safety's case 1): 3 points, or more where the
# looks came rarer (a sanitizer's sampler pays more for each, and stretches
# its period to keep within its budget), from the period they came at.
with t.case("a longer run: timed, then looked at"):
    r = h.run([noperf, shares, "split", "300", "20"], outputs="prof.json")
    truth = numbers(r.stdout)
    p = r.json()
    s = p.data["sampling"]
    period_ms = 1000.0 * s["wall_seconds"] / max(1, s["looks"])
    bound = max(3.0, 100.0 * 10 * 1.5 * period_ms / 300)
    t.ok(TIMED_START_NS <= s["timed_ns"] < TIMED_START_NS + 100 * MS,
         "the first 50 ms of CPU timed (%.1f ms), no more than a call beyond"
         % (s["timed_ns"] / MS))
    t.ok(s["samples"] > 0, "then the looks charged (%d)" % s["samples"])
    got, want = split_shares(p, truth)
    for f in ("heavy", "light"):
        t.ok(abs(got[f] - want[f]) <= bound, "%s's share %.2f %% within %.1f points of its own "
             "clock's %.2f %% (looks %.2f ms apart)" % (f, got[f], bound, want[f], period_ms))
    charged = self_ns(p, "heavy") + self_ns(p, "light")
    own = truth["heavy_ns"] + truth["light_ns"]
    t.ok(abs(charged - own) <= 0.05 * own, "the CPU charged to them %.1f ms, their own clock's "
         "%.1f ms: counted once" % (charged / MS, own / MS))

# 3. Threads: each times its own start.
with t.case("threads, perf refused"):
    r = h.run([noperf, shares, "threads", "2", "20"], outputs="prof.json")
    p = r.json()
    workers = [f for f in p.data["functions"] if f["name"].startswith("work_")]
    t.ok(len(workers) == 2 and all(f.get("timed_ns", 0) > 10 * MS for f in workers),
         "both threads' work timed: %s" % ", ".join(
             "%s %.1f ms" % (f["name"], f.get("timed_ns", 0) / MS) for f in workers))

# 4. No rseq area (glibc told not to register one): the looks alone.
with t.case("no rseq: the looks"):
    r = h.run([noperf, shares, "split", "30", "20"], outputs="prof.json",
              env={"GLIBC_TUNABLES": "glibc.pthread.rseq=0"})
    p = r.json()
    t.eq(r.rc, 0, "the program ran")
    t.eq(p.data["sampling"].get("timed_ns", 0), 0, "nothing timed")
    t.ok(p.data["sampling"]["looks"] > 0, "the sampler looked")

t.done()
