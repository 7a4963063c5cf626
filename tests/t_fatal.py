#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deaths by signal that must still leave the profile, the process dying
exactly as it would have (same signal, core dump, stdout and stderr): a
fatal signal while another thread, or the dying one, holds the runtime's
lock; crash reporters' handlers (SA_RESETHAND, a handler that returns from
abort(), abort() with SIGABRT ignored); a small alternate signal stack;
every signal whose default action ends the process; a program that handles
or ignores SIGCHLD. And what remains: a lock the writer cannot re-create,
held by another thread, costs the profile, said on stderr."""
import os
import signal
import harness as h

# The subject is frames closed with their cost at death: times read by the hooks.
h.hook_time()

t = h.Tap()
fatal = h.build("fatal", flags=h.NO_INLINE)
fatal_lock = h.build("fatal_lock", flags=h.NO_INLINE + ["-pthread"])
# fatal_lock replaces malloc, which a sanitizer's runtime must own.
NO_OWN_MALLOC = "the program replaces malloc" if h.SANITIZED else None


describe = h.describe_status


def dies_as_without(name, argv, want_sig):
    """The run with the runtime ends as the one without; its profile, or None."""
    err, status, d, pstatus = h.ends_as_without(t, name, argv)
    t.eq(describe(pstatus).split()[:2], ["signal", str(int(want_sig))],
         "%s: without the runtime, the program dies by signal %d" % (name, want_sig))
    t.eq([l for l in h.profviz_lines(err) if "no profile" in l], [],
         "%s: no notice of a lost profile" % name)
    if not t.ok(os.path.exists(os.path.join(d, "prof.json")), "%s: profile written" % name):
        return None
    p = h.Run.for_files(d).json()
    t.eq(p.calls("step"), 5, "%s: the calls before the death counted" % name)
    ev, outer = p.func("event_here"), p.func("outer")
    t.ok(ev is not None and outer is not None and ev["total"][0] > 0 and
         outer["total"][0] >= ev["total"][0],
         "%s: the frames open at the death are closed with their cost" % name)
    return p


# Issue 9, item 4: the copy of the dying process that writes the profile has only the
# thread that forked it; a lock another thread held stays held there.
for mode in ("elsewhere", "here"):
    name = "SIGTERM while a thread holds the runtime's lock (%s)" % mode
    if NO_OWN_MALLOC:
        t.skip(name, NO_OWN_MALLOC)
        continue
    with t.case(name):
        p = dies_as_without(name, [fatal_lock, mode], signal.SIGTERM)
        if p:
            t.eq(p.calls("work"), 3, "%s: the worker's calls counted once" % name)
            t.eq(p.data["threads"], 2, "%s: both threads in the profile" % name)

# What remains: a lock of the program's (its allocator's, here) that another
# thread held at the fork. The copy waits for it for good: the runtime sees
# that it does, and the process dies then, without a profile.
def writer_stuck(name):
    err, status, d, pstatus = h.ends_as_without(t, name, [fatal_lock, "allocator"])
    t.ok(any("no profile: its writer waited for a lock" in l for l in h.profviz_lines(err)),
         "%s: profviz says why there is no profile" % name, err)


name = "SIGTERM while a thread holds the allocator's lock"
if NO_OWN_MALLOC:
    t.skip(name, NO_OWN_MALLOC)
else:
    with t.case(name):
        writer_stuck(name)

# Issue 9, item 8: crash reporters.
REPORTERS = [("resethand", signal.SIGTERM), ("resethand-segv", signal.SIGSEGV),
             ("abort-handler", signal.SIGABRT), ("abort-ignored", signal.SIGABRT)]
for mode, sig in REPORTERS:
    with t.case(mode):
        p = dies_as_without(mode, [fatal, mode], sig)
        if p and mode != "abort-ignored":
            t.eq(p.calls("reporter"), 1, "%s: the reporter's run counted" % mode)

# Issue 9, item 9: an 8 KiB alternate signal stack.
for sig in (signal.SIGSEGV, signal.SIGTERM):
    name = "%s on an 8 KiB sigaltstack" % sig.name
    with t.case(name):
        dies_as_without(name, [fatal, "altstack", str(int(sig))], sig)

# Issue 9, item 10: the fatal signals beyond the classic ones.
OTHERS = [signal.SIGPROF, signal.SIGIO, signal.SIGPWR, signal.SIGSTKFLT, signal.SIGRTMIN,
          signal.SIGRTMIN + 5, signal.SIGRTMAX]
for sig in OTHERS:
    name = "death by signal %d" % sig
    with t.case(name):
        dies_as_without(name, [fatal, "raise", str(int(sig))], sig)

# The copy that writes the profile is no child the program can see: no
# SIGCHLD for its handler, nor reaped behind the runtime's back.
for mode, sig in (("children-ignored", signal.SIGPWR), ("children-handled", signal.SIGABRT)):
    with t.case(mode):
        dies_as_without(mode, [fatal, mode], sig)
t.done()
