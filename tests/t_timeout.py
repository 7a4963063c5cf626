#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A timeout handler that siglongjmps out while the runtime is extending the
call-path tree (the thread BUSY in a slow path): the abandoned slow path
leaves the tree and stack whole, and the thread profiles again at once."""
import re
import harness as h

t = h.Tap()
if h.SANITIZER == "thread":
    t.skip("timeout handlers", "TSan takes the program's handlers over and runs them later, "
           "at points of its own, outside profviz's trampoline")
    t.done()
prog = h.build("timeout", flags=h.NO_INLINE)
LANDINGS = 100
with t.case("timeouts landing in the runtime"):
    r = h.run([prog, str(LANDINGS)])
    m = re.match(rb"rounds (\d+) landed in the runtime (\d+)\n$", r.stdout)
    t.ok(r.rc == 0 and m, "the program ran to its end", r.stdout + r.stderr)
    rounds, landed = int(m.group(1)), int(m.group(2))
    t.eq(landed, LANDINGS, "the signal interrupted profviz.so's code %d times" % LANDINGS)
    p = r.json()
    sig = (p.func("<signal SIGALRM>") or {}).get("id")
    recorded = sum(a["calls"] for a in p.data["arcs"] if a["callee"] == sig)
    t.ok(recorded < rounds, "some signals landed while the thread was BUSY (%d of %d "
         "deliveries recorded)" % (recorded, rounds))
    t.eq(p.arc_calls("main", "after"), 1000, "every call after the last timeout recorded")
    t.eq(p.arc_calls("main", "work_until_timeout"), rounds, "one round of work per timeout")
    t.eq((p.data["resyncs"], p.data["stray_exits"]), (rounds, 0),
         "each timeout's jump resynchronised the stack exactly once, no stray exits")
    levels = [sum(f["calls"] for f in p.funcs if re.match(l + "[0-7]$", f["name"]))
              for l in "abcde"] + [p.calls("leaf")]
    t.ok(levels[0] > 0 and all(a >= b for a, b in zip(levels, levels[1:])),
         "each level called at most as often as the one above it", levels)
    t.ok(all(f["self"][0] <= f["total"][0] * 1.002 for f in p.funcs),
         "no function's self exceeds its total (activations counted right)")
t.done()
