#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A timeout handler that siglongjmps out while the runtime is extending the
call-path tree. A signal that lands there waits until the runtime's work
is done (sigdefer.h): every delivery is recorded. One whose handler was
installed with SA_RESETHAND cannot wait: it runs inside the runtime's slow
path, unrecorded, and its longjmp abandons that path, which leaves the tree
and stack whole, and the thread profiles again at once."""
import re
import harness as h

t = h.Tap()
if h.TSAN_RUNS_HANDLERS:
    t.skip("timeout handlers", h.TSAN_RUNS_HANDLERS)
    t.done()
prog = h.build("timeout", flags=h.NO_INLINE)
LANDINGS = 100
for mode in ("", "resethand"):
    name = mode or "waits"
    with t.case("timeouts landing in the runtime: " + name):
        r = h.run([prog, str(LANDINGS)] + ([mode] if mode else []))
        m = re.match(rb"rounds (\d+) landed in the runtime (\d+)\n$", r.stdout)
        t.ok(r.rc == 0 and m, "%s: the program ran to its end" % name, r.stdout + r.stderr)
        rounds, landed = int(m.group(1)), int(m.group(2))
        t.eq(landed, LANDINGS, "%s: the signal interrupted profviz.so's code %d times"
             % (name, LANDINGS))
        p = r.json()
        sig = (p.func("<signal SIGALRM>") or {}).get("id")
        recorded = sum(a["calls"] for a in p.data["arcs"] if a["callee"] == sig)
        lost = p.data["losses"]["unrecorded_calls"]
        if mode:
            t.ok(recorded < rounds, "%s: some ran inside the runtime, unrecorded (%d of %d "
                 "deliveries recorded)" % (name, recorded, rounds))
            t.eq(recorded + lost // 2, rounds, "%s: each of the others counted lost, with its "
                 "handler's call (%d calls)" % (name, lost))
        else:
            t.eq((recorded, lost), (rounds, 0), "%s: every delivery recorded, once the "
                 "runtime's work was done" % name)
        t.eq(p.arc_calls("main", "after"), 1000, "%s: every call after the last timeout "
             "recorded" % name)
        t.eq(p.arc_calls("main", "work_until_timeout"), rounds,
             "%s: one round of work per timeout" % name)
        t.eq((p.data["resyncs"], p.data["stray_exits"]), (rounds, 0),
             "%s: each timeout's jump resynchronised the stack exactly once, no stray exits"
             % name)
        levels = [sum(f["calls"] for f in p.funcs if re.match(l + "[0-7]$", f["name"]))
                  for l in "abcde"] + [p.calls("leaf")]
        t.ok(levels[0] > 0 and all(a >= b for a, b in zip(levels, levels[1:])),
             "%s: each level called at most as often as the one above it" % name, levels)
        t.ok(all(f["self"][0] <= f["total"][0] * 1.002 for f in p.funcs),
             "%s: no function's self exceeds its total (activations counted right)" % name)
t.done()
