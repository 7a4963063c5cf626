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


# heavy and light alternate, heavy doing 3 times light's work, and the
# program reads its own task-clock around each call, the clock the hooks
# read here: the truth, measured in the same run. A work path's line holds
# the task-clock between its hooks' reads, less the calibrated callee part,
# so it is what the program read, less what lies outside those reads but
# inside the program's: the caller's hooks, part of work's, and the
# program's own clock reads, 10-50 us a call here (idle or loaded; time the
# thread waits for a CPU is in neither clock). 0.2 ms a call is allowed.
ROUNDS = 4
PER_CALL_NS = 200000

with t.case("heavy and light paths"):
    r = h.run([basic, "5", str(ROUNDS), "clocks"], outputs="prof.folded,prof.json",
              env={"PROFVIZ_EVENTS": "task-clock"})
    s, p, own = folded(r), r.json(), h.own_clocks(r.stdout)
    t.eq(p.data["events"], ["task-clock"], "the hooks read task-clock, the one event")
    for f in ("heavy", "light"):
        line = s["main;%s;work" % f]
        path = [x for x in p.data["paths"] if p.by_id[x["function"]]["name"] == "work"
                and p.by_id[p.data["paths"][x["parent"]]["function"]]["name"] == f]
        t.ok(len(path) == 1 and line > 0 and abs(line - path[0]["self"][0]) <= 1,
             "main;%s;work carries its path's self, %d ns" % (f, line),
             "line %d, paths %r" % (line, path))
        gap = own[f + "_task_clock_ns"] - line
        t.ok(-ROUNDS <= gap <= ROUNDS * PER_CALL_NS,
             "main;%s;work: %.3f ms, the %.3f ms the program read around %s's %d calls, less "
             "%.1f us a call (at most %d)" % (f, line / 1e6, own[f + "_task_clock_ns"] / 1e6, f,
                                             ROUNDS, gap / 1e3 / ROUNDS, PER_CALL_NS // 1000))

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
