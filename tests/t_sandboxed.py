#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program that installs a seccomp filter killing the process for
perf_event_open, then starts a thread (progs/sandboxed.c), through
prctl(PR_SET_SECCOMP) or seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC (which
filters profviz's own sampler thread too), or whose filter also refuses
prctl, which profviz asks it with: profviz opens no perf event
under a filter, so the program lives, with time sampled and with an event
read per call. What the later thread lacks is said once: its events (it is
not profiled then), or its ring (its time is timed and looked at). The
calls made before and after are the program's."""
import harness as h

t = h.Tap()
ROUNDS = 200  # progs/sandboxed.c's: rec(4) is five calls
exe = h.build("sandboxed", flags=h.NO_INLINE + ["-pthread"])
for how in ("prctl", "tsync", "noprctl"):
    plain = h.run([exe, how], preload=False)
    for label, env, worker_profiled in (("time sampled", {}, True),
                                        ("task-clock per call", {"PROFVIZ_EVENTS": "task-clock"},
                                         False)):
        with t.case("%s, %s" % (how, label)):
            r = h.run([exe, how], outputs="prof.json", env=env)
            t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc),
                 (plain.stdout, plain.stderr, plain.rc),
                 "%s, %s: as without profviz (%s)" % (how, label, plain.stdout.decode().strip()))
            p = r.json()
            t.eq(p.calls("rec"), ROUNDS * 5 * (2 if worker_profiled else 1),
                 "%s, %s: rec's calls, %s" % (how, label, "the thread's too" if worker_profiled
                                              else "before the filter"))
            said = [x for x in h.profviz_lines(r.stderr) if "seccomp filter" in x]
            if worker_profiled and how == "tsync":
                # A filter on profviz's sampler too costs the thread its ring,
                # if the sampler came to open it before the thread ended.
                t.ok(len(said) <= 1, "%s, %s: what the thread lacks, said at most once"
                     % (how, label), said)
            else:
                want = 0 if worker_profiled else 1
                t.ok(len(said) == want, "%s, %s: what the thread lacks, said once" % (how, label)
                     if want else "%s, %s: nothing to say" % (how, label), said)
t.done()
