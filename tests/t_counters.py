#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counters in use: the read(2) backend with real software events, the
start-up line, event messages, and several events at once."""
import re
import harness as h

# The subject is per-call counters: times read by the hooks.
h.hook_time()

t = h.Tap()
prog = h.build("counters", flags=h.NO_INLINE)

with t.case("start-up line"):
    r = h.run([prog, "1"], env={})
    line = h.profviz_lines(r.stderr)
    t.eq(len(line), 1, "one start-up line by default")
    t.ok(bool(re.match(r"profviz: events (cycles \((rdpmc|read)\)|tsc \(no PMU( \(virtualized\))?:"
                       r" using tsc\)); writing prof\.dot, prof\.json; version \S+$",
                       line[0] if line else "")),
         "start-up line names the backend and why", line)

N = 3000
# heavy and light alternate 4 times, heavy doing 3 times light's work, and
# the program reads its own task-clock around each call: the truth for the
# second event, measured in the same run. A work arc holds the task-clock
# between its hooks' reads, less the calibrated callee part: what the
# program read, less what lies outside the hooks' reads but inside its own
# (the caller's hooks, part of work's, the program's clock reads), 10-50 us
# a call here, idle or loaded (time the thread waits for a CPU is in
# neither clock). 0.2 ms a call is allowed.
ROUNDS, PER_CALL_NS = 4, 200000
with t.case("page-faults,task-clock"):
    r = h.run([prog, str(N), "clocks"], env={"PROFVIZ_EVENTS": "page-faults,task-clock"})
    own = h.own_clocks(r.stdout)
    p = r.json()
    d = p.data
    t.eq(d["events"], ["page-faults", "task-clock"], "events in the order given")
    t.eq(d["backends"], ["read", "read"], "software events are read with read(2) here")
    t.eq(d["units"], ["count", "ns"], "units: faults are counts, task-clock is ns")
    t.eq(d["kinds"], ["count", "time"], "kinds: faults are a count, task-clock a time")
    t.ok(h.profviz_lines(r.stderr)[0].startswith(
        "profviz: events page-faults (read), task-clock (read); a system call per hook"),
        "start-up line lists each event's backend", r.stderr)
    faults = p.func("touch_pages")["self"][0]
    if h.SANITIZER == "thread":
        t.skip("touch_pages of %d pages shows %d page faults" % (N, faults),
               "TSan's shadow memory faults in the same function")
    else:
        t.ok(N <= faults <= N * 1.02 + 10, "touch_pages of %d pages shows %d page faults"
             % (N, faults))
    others = sum(f["self"][0] for f in p.funcs if f["name"] in ("light", "heavy", "work"))
    t.ok(others < 20, "functions that touch no new memory show few faults (%d)" % others)
    for f in ("heavy", "light"):
        got, read = p.arc(f, "work")["total"][1], own[f + "_task_clock_ns"]
        t.ok(got > 0 and -ROUNDS <= read - got <= ROUNDS * PER_CALL_NS,
             "task-clock: %s->work %.3f ms, the %.3f ms the program read around %s's %d calls, "
             "less %.1f us a call (at most %d)" % (f, got / 1e6, read / 1e6, f, ROUNDS,
                                                   (read - got) / 1e3 / ROUNDS,
                                                   PER_CALL_NS // 1000))
    t.near(sum(f["self"][1] for f in p.funcs), p.run_total(1), 0.001,
           "selves add up to the run total for the second event too")
    t.eq(d["running_ratio"], [1, 1], "software events are never multiplexed")
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "multi-event graph renders", err)
    dot = open(r.file("prof.dot")).read()
    t.ok("task-clock: " in dot, "second event shown in the boxes")
    t.ok("event: page-faults [count] via read, task-clock via read" in dot,
         "graph label names the events and backends")

with t.case("a bad event"):
    r = h.run([prog, "10"], env={"PROFVIZ_EVENTS": "tsc,nosuch,context-switches"})
    p = r.json()
    t.eq(p.data["events"], ["tsc", "context-switches"], "a bad event is left out, the rest kept")
    t.ok(any("'nosuch': unknown event" in l for l in h.profviz_lines(r.stderr)),
         "the bad event is named on stderr")
    t.eq(r.rc, 0, "and the program is unaffected")
    t.ok(p.func("heavy")["total"][0] > 0, "tsc alongside a perf event still measures time")

with t.case("nothing usable"):
    r = h.run([prog, "10"], env={"PROFVIZ_EVENTS": "nosuch"})
    t.eq(r.json().data["events"], ["tsc"], "nothing usable requested: falls back to tsc")
t.done()
