#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every way to end: the profile is written with the open frames closed at the
time of death, and the program ends exactly as it would have."""
import os
import signal
import harness as h

# The subject is frames closed with their cost at death: times read by the hooks.
h.hook_time()

t = h.Tap()
prog = h.build("life", flags=h.NO_INLINE)


def run_raw(mode, preload, sigint_ignored=False):
    return h.run_to_death([prog, mode], preload, sigint_ignored=sigint_ignored)


describe = h.describe_status


CASES = [("return", None), ("exit", None), ("_exit", None), ("quick_exit", None),
         ("abort", signal.SIGABRT), ("segv", signal.SIGSEGV), ("term", signal.SIGTERM),
         ("int", signal.SIGINT), ("handler", None)]
for mode, sig in CASES:
    with t.case(mode):
        err, status, d, pstatus = h.ends_as_without(t, mode, [prog, mode])
        path = os.path.join(d, "prof.json")
        if not t.ok(os.path.exists(path), "%s: profile written" % mode):
            continue
        prof = h.Run.for_files(d).json()
        t.eq(prof.calls("step"), 5, "%s: calls before the event counted" % mode)
        if mode != "return":
            ev = prof.func("event_here")
            t.ok(ev is not None and ev["total"][0] > 0 and
                 prof.func("outer")["total"][0] >= ev["total"][0],
                 "%s: frames open at death are closed with their cost" % mode)

with t.case("SIGINT ignored"):
    out, err, status, d = run_raw("ignored", True, sigint_ignored=True)
    t.ok(b"SIGINT ignored" in out and b"survived" in out and describe(status) == "exit 2",
         "an ignored fatal signal stays ignored", out)
with t.case("the program's own handler"):
    out, err, status, d = run_raw("handler", True)
    t.ok(b"reads back its handler: yes" in out, "the program reads back its own handler", out)
    t.ok(b"handler 15" in out, "the program's handler runs, not the runtime's", out)
t.done()
