#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Threads: every call of every thread counted, threads still running at exit
merged, and memory bounded by call paths rather than by threads."""
import os
import tempfile
import harness as h

t = h.Tap()
prog = h.build("threads", flags=h.NO_INLINE + ["-pthread"])

with t.case("8 threads"):
    r = h.run([prog, "8", "5000", "0"])
    p = r.json()
    t.eq(r.rc, 0, "program ran")
    t.eq(p.calls("unit_of_work"), 8 * 5000, "8 threads x 5000 calls, every one counted")
    t.eq(p.arc_calls("worker", "unit_of_work"), 8 * 5000, "arc worker->unit_of_work exact")
    t.eq(p.arc_calls(None, "worker"), 8, "thread start routines are called from the root")
    t.ok(p.calls("spin_step") >= 20, "detached thread still running at exit is merged (%d calls)"
         % p.calls("spin_step"))
    t.ok(p.data["threads"] >= 10, "threads counted (%d)" % p.data["threads"])
    self_sum = sum(f["self"][0] for f in p.funcs)
    t.near(self_sum, p.run_total(), 0.01, "selves add up to the run total over threads")

with t.case("10,000 short-lived threads"):
    rss = os.path.join(tempfile.mkdtemp(prefix="profviz-rss-"), "rss.txt")
    r = h.run([prog, "0", "0", "10000", rss])
    p = r.json()
    t.eq(p.calls("short_task"), 10000, "10,000 short-lived threads: every call counted")
    t.eq(p.arc_calls(None, "short_lived"), 10000, "each thread's root arc counted")
    before, after = (int(x) for x in open(rss).read().split())
    if h.SANITIZED:
        # Measured: the sanitizer runtime alone grows RSS ~50 MiB over 10,000 threads.
        t.skip("memory flat over 9,000 thread lifetimes", "the sanitizer keeps per-thread state")
    else:
        t.ok(after - before < 4096, "memory flat over 9,000 thread lifetimes (%d KiB growth)"
             % (after - before))
t.done()
