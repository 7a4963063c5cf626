#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A signal handler that ends the process where the signal landed: exit()
or _exit() from inside it writes the profile from a copy of the process,
as a death by signal does, so that a lock the interrupted code holds
(malloc's arena, in the middle of an allocation) can cost the profile, said
on stderr, but never hangs the program, which it did one run in four. And a
death by signal under sampled time leaves its profile (the copy has none of
the threads' PC rings, which the writer read and died on)."""
import os
import signal
import subprocess
import harness as h

t = h.Tap()
prog = h.build("handler_exit", flags=h.NO_INLINE + ["-pthread"])
RUNS = 10

# Under TSan the program's handler runs outside the trampoline, so profviz
# cannot tell that the exit() is a handler's (and TSan's own checks fail
# when the writer frees memory inside its free).
if h.TSAN_RUNS_HANDLERS:
    t.skip("exit() from a handler that interrupted malloc", h.TSAN_RUNS_HANDLERS)
else:
    with t.case("exit() from a handler that interrupted malloc"):
        written = 0
        for i in range(RUNS):
            try:
                r = h.run([prog, "malloc"], outputs="prof.json", timeout=20)
            except subprocess.TimeoutExpired:
                t.ok(False, "malloc, run %d: the process ends (it hung)" % (i + 1))
                continue
            t.eq((r.rc, r.stdout), (0, b""), "malloc, run %d: it ends with the handler's "
                 "status" % (i + 1))
            lost = [l for l in h.profviz_lines(r.stderr) if "no profile" in l]
            there = os.path.exists(r.file("prof.json"))
            written += there
            t.ok(there != bool(lost) and all("waited for a lock" in l for l in lost),
                 "malloc, run %d: a profile, or a line saying why not" % (i + 1), r.stderr)
        print("# malloc: %d profiles of %d runs (the others lost to malloc's lock, said)"
              % (written, RUNS))

for mode in ("busy", "_exit"):
    with t.case("%s from a handler in the program's code" % mode):
        r = h.run([prog, mode], outputs="prof.json", timeout=20)
        t.eq(r.rc, 0, "%s: the handler's status" % mode)
        p = r.json()
        t.eq((p.calls("<signal SIGALRM>"), p.calls("on_alarm")), (1, 1),
             "%s: the profile has the handler's call" % mode, skip=h.TSAN_RUNS_HANDLERS)
        t.ok(p.calls("step") > 0, "%s: and the work before it" % mode)

with t.case("a death by signal under sampled time"):
    err, status, d, pstatus = h.ends_as_without(t, "segv", [prog, "segv"])
    t.eq(h.describe_status(status).split()[:2], ["signal", str(int(signal.SIGSEGV))],
         "segv: it dies of SIGSEGV")
    t.eq([l for l in h.profviz_lines(err) if "no profile" in l], [], "segv: no profile lost")
    there = os.path.exists(os.path.join(d, "prof.json"))
    t.ok(there, "segv: the profile written", err)
    if there:
        p = h.Run.for_files(d).json()
        sampling = p.data["sampling"]
        t.ok(p.calls("step") > 0 and (sampling["samples"] > 0 or sampling.get("timed_ns", 0) > 0),
             "segv: its calls and its time, sampled or timed (%d samples, %s ns timed)"
             % (sampling["samples"], sampling.get("timed_ns")))
t.done()
