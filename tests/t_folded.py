#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Folded stacks (.folded) for flame graphs: one line per call path with its
self cost; recursion folded; threads merged; signal handlers under the path
they interrupted."""
import collections
import re
import harness as h

# The subject is the folded writer, on short runs whose every path has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()


def folded(run, name="prof.folded"):
    stacks = collections.Counter()
    for line in open(run.file(name)):
        path, value = line.rstrip("\n").rsplit(" ", 1)
        stacks[path] += int(value)
    return stacks


basic = h.build("basic", flags=h.NO_INLINE)
# A sanitized runtime's hooks cost so much more than fib's own work that
# compensation leaves fib no self, and a path without self has no line.
RAW_UNDER_SAN = {"PROFVIZ_COMPENSATE": "0"} if h.SANITIZED else None
with t.case("basic"):
    r = h.run([basic, "18", "4"], outputs="prof.folded,prof.json", env=RAW_UNDER_SAN)
    s, p = folded(r), r.json()
    t.ok(len(s) > 0 and all(v > 0 for v in s.values()), "one line per path with self cost")
    t.near(sum(s.values()), p.run_total(), 0.001, "paths add up to the run total")
    t.ok("main;fib" in s and not any("fib;fib" in k for k in s), "recursion folded: main;fib only")
    t.near(s["main;fib"], p.func("fib")["self"][0], 0.001, "main;fib carries fib's self cost")
    t.eq(sorted(k for k in s if k.count(";") == 0), ["main"], "main is the only root")
    # speedscope takes the value after the last space, and drops a line
    # whose value has a decimal point.
    lines = open(r.file("prof.folded")).read().splitlines()
    bad = [l for l in lines if not re.fullmatch(r"[^ ](.*[^ ])? [0-9]+", l)]
    t.ok(lines and not bad, "every line 'stack N': an integer, exactly one space before it", bad)


def path_ratio():
    # In CPU time: on the clock, another process's time slices would land
    # on whichever path was running.
    q = folded(h.run([basic, "5", "4"], outputs="prof.folded",
                     env={"PROFVIZ_EVENTS": "task-clock"}))
    return q["main;heavy;work"] / q["main;light;work"]


with t.case("heavy and light paths"):
    ratio = h.median_of_runs(path_ratio)
    t.ok(2.4 < ratio < 3.6, "heavy's work path costs 3x light's in CPU time (median of 3 runs: "
         "%.2f)" % ratio)

with t.case("threads"):
    threads = h.build("threads", flags=h.NO_INLINE + ["-pthread"])
    r = h.run([threads, "4", "20000", "0"], outputs="prof.folded,prof.json")
    s, p = folded(r), r.json()
    t.ok("worker;unit_of_work" in s, "threads' identical paths merged into one line")
    t.near(s["worker;unit_of_work"], p.func("unit_of_work")["self"][0], 0.001,
           "the merged line carries every thread's cost")
    t.near(sum(s.values()), p.run_total(), 0.001, "paths add up to the run total over threads")

if h.SANITIZER == "thread":
    t.skip("signal handler paths", "TSan runs handlers outside profviz's trampoline")
else:
    with t.case("signals"):
        sig = h.build("signals", flags=h.NO_INLINE)
        r = h.run([sig, "300000"], outputs="prof.folded")
        s = folded(r)
        under = [k for k in s if k.endswith("<signal SIGALRM>;on_tick;tick_work")]
        t.ok(any(k.startswith("main;round_of_work") for k in under),
             "a handler's path hangs under the function it interrupted", "\n".join(under))
t.done()
