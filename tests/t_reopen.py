#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""24 threads run instrumented code while main keeps closing every
descriptor from 3 up, the runtime's perf events among them: each thread
opens its events again and counts on. What the profile says stays the
program's: page faults of the same order as in a run that closes nothing
(a clock read for a count, or another thread's event read through a
reused number, gives millions or 1e14), every thread's events reopened,
and no wait the program never made."""
import harness as h

t = h.Tap()
prog = h.build("reopen_race", flags=h.NO_INLINE, libs=["-pthread"])
EVENTS = {"PROFVIZ_EVENTS": "task-clock,page-faults"}
PROGRAM_WAITS = {"<blocked: usleep>", "<blocked: pthread_join>"}


def faults(mode, env=None):
    r = h.run([prog, mode], env=dict(EVENTS, **(env or {})), outputs="prof.json")
    t.eq((r.rc, r.stdout), (0, b"done\n"), "%s: the program runs as without the runtime" % mode)
    p = r.json()
    return r, p, p.data["run_total"][1]


with t.case("reopen"):
    _, _, quiet = faults("keep")
    r, p, closing = faults("close")
    t.ok(closing <= 10 * quiet + 1000,
         "page faults while descriptors are closed: the same order as without (%d, %d without)"
         % (closing, quiet))
    t.eq(p.data["losses"]["counters_lost"], 0, "every thread's events were opened again")
    waits = {f["name"] for f in p.funcs if f["name"].startswith("<blocked")}
    t.ok(waits <= PROGRAM_WAITS, "no wait but the program's own (%s)" % ", ".join(sorted(waits)))
    t.eq(p.calls("leaf"), p.calls("step"), "every call counted (%d)" % p.calls("step"))

with t.case("PROFVIZ_DEBUG=2"):
    r, _, _ = faults("close", {"PROFVIZ_DEBUG": "2"})
    said = [l for l in h.profviz_lines(r.stderr) if "reopened" in l]
    t.ok(said and all(l.startswith("profviz: debug: thread ") for l in said),
         "each reopen is said (%d lines)" % len(said), h.profviz_lines(r.stderr)[:5])
t.done()
