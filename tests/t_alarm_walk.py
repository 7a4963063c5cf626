#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A timeout done the classic way: an interval timer's SIGALRM handler
siglongjmps back to the main loop 30 times while the interrupted code takes
call paths never taken before (a random walk through 64 functions, 7 deep),
so the signal often lands while the runtime adds to its tree. Such a signal
is set aside and sent again as the runtime's work ends: every handler run
is recorded. A handler installed with SA_RESETHAND cannot wait (its action is
the default again already): it runs where it landed, unrecorded, and its
calls are counted as lost, in the JSON, on stderr, in the graph's caption and
in profviz report."""
import re
import harness as h

t = h.Tap()
if h.TSAN_RUNS_HANDLERS:
    t.skip("timeout handlers", h.TSAN_RUNS_HANDLERS)
    t.done()
prog = h.build("alarm_walk", flags=h.NO_INLINE)
ALARMS = 30


def alarms(r):
    """(handler runs, of which the signal interrupted profviz.so's code)."""
    m = re.match(rb"alarms (\d+), in profviz (\d+)\n$", r.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def deliveries(p):
    sig = (p.func("<signal SIGALRM>") or {}).get("id")
    return sum(a["calls"] for a in p.data["arcs"] if a["callee"] == sig)


with t.case("an interval timer's handler jumps out of new call paths"):
    plain = h.run([prog, str(ALARMS)], preload=False)
    t.eq(alarms(plain), (ALARMS, 0), "without profviz: %d handler runs" % ALARMS)
    r = h.run([prog, str(ALARMS)])
    ran, in_runtime = alarms(r)
    t.eq((r.rc, ran), (0, ALARMS), "with profviz: the same %d runs, and the same end" % ALARMS)
    t.ok(in_runtime > 0, "the signal interrupted profviz's own code (%s of %d times)"
         % (in_runtime, ALARMS))
    p = r.json()
    t.eq((p.calls("on_alarm"), deliveries(p)), (ALARMS, ALARMS),
         "every handler run recorded, under its <signal SIGALRM> node")
    t.eq(p.data["losses"]["unrecorded_calls"], 0, "nothing counted as lost")
    t.eq((p.data["resyncs"], p.data["stray_exits"], p.calls("after")), (ALARMS, 0, 1),
         "each jump resynchronised the stack once, no stray exits, the call after recorded")
    t.eq(h.strip_profviz(r.stderr), plain.stderr, "the program's stderr unchanged")

with t.case("a handler that cannot wait (SA_RESETHAND)"):
    r = h.run([prog, str(ALARMS), "resethand"])
    t.eq((r.rc, alarms(r)[0]), (0, ALARMS), "resethand: %d handler runs" % ALARMS)
    p = r.json()
    lost = p.data["losses"]["unrecorded_calls"]
    recorded = deliveries(p)
    # An unrecorded run loses two calls: its delivery and on_alarm's.
    t.eq((recorded + lost // 2, lost % 2), (ALARMS, 0),
         "resethand: each run recorded, or its delivery and its call counted lost "
         "(%d recorded, %d calls lost)" % (recorded, lost))
    t.eq(p.calls("on_alarm"), recorded, "resethand: the recorded runs' calls")
    t.ok(lost > 0, "resethand: some landed inside profviz (%d calls lost)" % lost)
    said = "the profile is incomplete: %d calls unrecorded (by signal handlers that ran " \
           "inside profviz's own work" % lost
    t.ok(any(said in line for line in h.profviz_lines(r.stderr)), "resethand: said on stderr",
         r.stderr)
    t.ok(said in open(r.file("prof.dot")).read(), "resethand: said in the graph's caption")
    report = h.command("report", r.file("prof.json"))
    t.ok(report.returncode == 0 and said in report.stdout, "resethand: said by profviz report",
         report.stdout[:2000])
t.done()
