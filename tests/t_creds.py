#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the sampler's thread must not change. A program that changes what
its threads may do, as daemons and container tools do, behaves as without
profviz: as root, after setgroups, setresgid
and setresuid to 65534 no task of the process keeps another uid or a
capability (the sampler's thread, which glibc's set*id broadcast does not
reach, ends before each such call and starts again from the caller, with
its ids); unshare(CLONE_NEWUSER), which the kernel refuses to a process
another task shares its memory with, works in the process and in a forked
child. Time is sampled before and after. And a program that lists its
tasks, signals each and waits for each to answer (a "dump every stack"
command) is answered by every task it listed: the sampler's thread is not
among them."""
import os
import shutil
import tempfile
import harness as h

t = h.Tap()
prog = h.build("creds", flags=h.NO_INLINE)


def run(what, preload=True):
    d = tempfile.mkdtemp(prefix="profviz-creds-")
    # The profile is written, and the program's functions named from its
    # binary, once the ids are dropped: both where the new user may (a
    # clone in a directory only root enters would leave them unnamed).
    os.chmod(d, 0o777)
    copy = shutil.copy(prog, os.path.join(d, "creds"))
    return h.run([copy, what], preload=preload, workdir=d, outputs="prof.json")


# ThreadSanitizer's runtime keeps a thread of its own, which no wrapper
# of profviz's takes away: unshare fails and a signal-all waits for it.
TSAN_THREAD = h.SANITIZER == "thread" and "TSan's own thread is in the process"
if os.geteuid() != 0:
    t.skip("credentials", "needs root, to drop")
else:
    for what in ("drop", "unshare"):
        if what == "unshare" and TSAN_THREAD:
            t.skip("unshare", TSAN_THREAD)
            continue
        with t.case(what):
            plain = run(what, preload=False)
            r = run(what)
            t.eq((r.rc, r.stdout), (plain.rc, plain.stdout),
                 "%s: as without profviz (%s)" % (what, plain.stdout.decode().strip()))
            p = r.json()
            t.ok(p.calls("work") >= 2 and p.data["sampling"]["samples"] > 0,
                 "%s: profiled and sampled throughout (%d samples)"
                 % (what, p.data["sampling"]["samples"]))
    t.ok(b"still privileged after the drop: 0" in run("drop", preload=False).stdout,
         "without profviz, nothing privileged is left (the test's own check)")

everyone = h.build("alltasks", flags=h.NO_INLINE, libs=["-lpthread"])
if TSAN_THREAD:
    t.skip("every task listed answers", TSAN_THREAD)
    t.done()
with t.case("every task listed answers"):
    plain = h.run([everyone], preload=False, outputs=None, timeout=60)
    r = h.run([everyone], outputs="prof.json", timeout=60)
    t.eq((r.rc, r.stdout), (plain.rc, plain.stdout),
         "as without profviz (%s)" % plain.stdout.decode().strip())
    t.ok(r.json().calls("busy") >= 4 and r.json().data["sampling"]["samples"] > 0,
         "profiled and sampled")
t.done()
