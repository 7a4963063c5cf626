#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A signal handler whose calls take the shadow stack past a point where it
grows: the stack grows in place, so the interrupted frames, and the
trampoline's hold on them, stay valid. Every call is counted, under the
signal's node, and the program ends as it would have."""
import harness as h

t = h.Tap()
if h.SANITIZER == "thread":
    t.skip("signal handlers deep in a thread", "TSan runs the program's handlers later, "
           "at points of its own, outside profviz's trampoline")
    t.done()
prog = h.build("sigdeep", flags=h.NO_INLINE + ["-pthread"])

# (depth the signal arrives at, frames the handler adds, what it crosses)
CASES = [(4000, 200, "the first growth, inside the handler"),
         (8000, 9000, "two growths, inside the handler"),
         (4093, 10, "the growth at the signal's own frame")]
for depth, extra, what in CASES:
    with t.case(what):
        r = h.run([prog, str(depth), str(extra)])
        plain = h.run([prog, str(depth), str(extra)], preload=False)
        t.eq(r.rc, 0, "%s: the program ends as without the preload" % what)
        t.eq(r.stdout, plain.stdout, "%s: same stdout" % what)
        p = r.json()
        t.eq(p.calls("descend"), depth + 1, "%s: the interrupted recursion counted" % what)
        t.eq(p.calls("handler_descend"), extra + 1, "%s: the handler's recursion counted" % what)
        t.eq(p.arc_calls("on_usr1", "handler_descend"), 1, "%s: the handler's first call" % what)
        t.eq(p.arc_calls("<signal SIGUSR1>", "on_usr1"), 1,
             "%s: the handler runs under the signal's node" % what)
        t.eq(p.arc_calls("descend", "<signal SIGUSR1>"), 1,
             "%s: the signal's node under the interrupted function" % what)
        t.eq((p.data["losses"]["unrecorded_calls"], p.data["stray_exits"], p.data["resyncs"]),
             (0, 0, 0), "%s: nothing lost, the shadow stack consistent" % what)
t.done()
