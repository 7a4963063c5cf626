#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A SIGTERM handler that calls exit() while threads come and go: the signal
lands in threads handing their data over as they end, and the exit dump that
the handler's exit() reaches never waits for a lock its own thread holds.
Every run ends with the handler's status and a profile."""
import subprocess
import harness as h

t = h.Tap()
prog = h.build("term_churn", flags=h.NO_INLINE + ["-pthread"])
RUNS = 8
for i in range(RUNS):
    with t.case("run %d" % (i + 1)):
        try:
            r = h.run([prog, "5"], timeout=20)
        except subprocess.TimeoutExpired:
            t.ok(False, "run %d: the handler's exit() ends the process (it hung)" % (i + 1))
            continue
        t.eq(r.rc, 3, "run %d: the handler's exit() ends the process with its status" % (i + 1))
        t.eq(r.stdout, b"started\n", "run %d: same stdout" % (i + 1))
        p = r.json()
        t.eq(p.calls("main_work"), 1000, "run %d: main's calls counted" % (i + 1))
        t.ok(p.calls("churn") >= 5 and p.calls("path0") >= 5 * 326,
             "run %d: the ended threads' calls are in (%d threads)" % (i + 1, p.calls("churn")))
t.done()
