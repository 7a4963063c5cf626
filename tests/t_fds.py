#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program that closes or dup2s over every descriptor, the runtime's perf
event descriptors included: it sees the same descriptor numbers as without
the preload, its files are untouched, and profiling goes on."""
import os
import harness as h

# The subject is per-call counters whose descriptors the program closes: times read by the hooks.
h.hook_time()

t = h.Tap()
prog = h.build("fds", flags=h.NO_INLINE)
EVENTS = {"PROFVIZ_EVENTS": "task-clock,page-faults"}
# A limit with no room above it: the runtime's descriptors then take its top
# eighth (280-319), which the program's loops close (3-1023) or partly dup2
# over (3-299), leaving numbers free for the reopened events and the output.
NOFILE = (320, 320)

for mode in ("loop", "closefrom", "close_range"):
    with t.case(mode):
        r = h.run([prog, mode], env=EVENTS, nofile=NOFILE)
        plain = h.run([prog, mode], preload=False, nofile=NOFILE)
        t.eq(r.stdout, plain.stdout, "%s: same descriptor numbers as without the preload (%s)"
             % (mode, plain.stdout.strip().decode()))
        t.eq(open(r.file("out.txt")).read(), "written by the program\n",
             "%s: the program's file intact" % mode)
        p = r.json()
        t.eq(r.rc, 0, "%s: program ran" % mode)
        t.eq((p.calls("before"), p.calls("after")), (1, 1), "%s: counts exact" % mode)
        # The program times before and after (the same work) on its CPU
        # clock and the monotonic one. task-clock counts the thread's CPU on
        # perf's clock, near the scheduler's (it also counts time the
        # hypervisor stole), and no more than the wall time (to the 500 ppm
        # NTP may slew the monotonic clock by): a count that stopped, or
        # restarted from 0 or from garbage, is outside.
        own = h.own_clocks(h.strip_profviz(r.stderr))
        for f in ("before", "after"):
            got, cpu, wall = p.func(f)["total"][0], own[f + "_cpu_ns"], own[f + "_wall_ns"]
            t.ok(0.5 * cpu <= got <= 1.0005 * wall, "%s: %s's task-clock %.2f ms, for %.2f ms of CPU "
                 "and %.2f ms of wall time%s" % (mode, f, got / 1e6, cpu / 1e6, wall / 1e6,
                                                 ", after the close" if f == "after" else ""))

with t.case("dup2"):
    d = os.path.join(h.BUILD, "fds-dup2")
    for preload in (True, False):
        wd = d + ("-pre" if preload else "-plain")
        os.makedirs(wd, exist_ok=True)
        for old in ("prof.dot", "prof.json"):  # a profile must be this run's
            if os.path.exists(os.path.join(wd, old)):
                os.unlink(os.path.join(wd, old))
        with open(os.path.join(wd, "data.txt"), "w") as f:
            f.write("program data\n")
    r = h.run([prog, "dup2"], env=EVENTS, workdir=d + "-pre", nofile=NOFILE)
    plain = h.run([prog, "dup2"], preload=False, workdir=d + "-plain", nofile=NOFILE)
    t.eq(r.stdout, plain.stdout, "dup2 over the runtime's descriptors: the program reads its "
         "file whole, at offset 0 (%s)" % plain.stdout.strip().decode())
    p = r.json()
    t.eq(p.calls("after"), 1, "dup2: profiling went on")
    t.ok(p.func("after")["total"][0] > 0, "dup2: events reopened and counting")
t.done()
