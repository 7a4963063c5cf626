#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
""""SIGTERM handler calls exit()" while worker threads come and go. The main
thread blocks SIGTERM; workers, two at a time, each take some 2000 new call
paths and end; the program sends itself SIGTERM, which a worker takes
wherever it is: in its own code, in profviz's work on a new path (the
signal waits for it), or ending, its data already handed over (the handler
then gets a state of its own). The handler prints and calls exit(0): each
run ends as without profviz, with the handler's call in the profile."""
import subprocess
import harness as h

t = h.Tap()
prog = h.build("term_workers", flags=h.NO_INLINE + ["-pthread"])
RUNS = 8
ENDED = 6
plain = h.run([prog, str(ENDED)], preload=False, timeout=20)
t.eq((plain.rc, plain.stdout), (0, b"terminated\n"), "without profviz: the handler's output "
     "and status")
for i in range(RUNS):
    with t.case("run %d" % (i + 1)):
        try:
            r = h.run([prog, str(ENDED)], timeout=20)
        except subprocess.TimeoutExpired:
            t.ok(False, "run %d: the handler's exit() ends the process (it hung)" % (i + 1))
            continue
        t.eq((r.rc, r.stdout), (plain.rc, plain.stdout),
             "run %d: the handler's output and status, as without profviz" % (i + 1))
        p = r.json()
        got = (p.calls("<signal SIGTERM>"), p.calls("on_term"))
        t.eq(got, (1, 1), "run %d: the delivery and the handler's call in the profile"
             % (i + 1), skip=h.TSAN_RUNS_HANDLERS)
        t.eq(p.data["losses"]["unrecorded_calls"], 0, "run %d: nothing lost" % (i + 1))
        t.ok(p.calls("worker") >= ENDED and p.calls("path0") >= ENDED * 326,
             "run %d: the ended workers' calls are in (%d workers)" % (i + 1, p.calls("worker")))
t.done()
