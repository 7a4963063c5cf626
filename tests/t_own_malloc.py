#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program that brings its own malloc, instrumented like the rest of it,
and allocates in a constructor before main. Start-up must neither recurse
into itself through the program's allocator (it used to wait forever on its
own pthread_once) nor call that allocator at all, whatever PROFVIZ_EVENTS
makes start-up read; and the profile shows the allocator's calls exactly as
the program made them."""
import subprocess
import harness as h

t = h.Tap()
if h.SANITIZED:
    # The sanitizer's runtime owns malloc: a program cannot bring its own.
    t.skip("own allocator", "a program's own malloc cannot run under a sanitizer")
    t.done()
prog = h.build("own_malloc", flags=h.NO_INLINE)
plain = h.run([prog], preload=False)
t.eq(plain.rc, 0, "the program runs without the preload")
# What the program says it served: "... malloc 1, calloc 1, realloc 4, free 1".
served = dict((w.split()[-2], int(w.split()[-1]))
              for w in plain.stdout.decode().strip().split(";")[1].split(","))

# Each value makes start-up read something else: the default cycles falling
# back to the TSC without a PMU (/proc/cpuinfo, perf_event_paranoid), a
# software event, a PMU's sysfs files for a name it does not have, two events.
CASES = [None, "task-clock", "cycles", "cpu/nosuch=1/", "tsc", "page-faults,task-clock"]
for events in CASES:
    name = "PROFVIZ_EVENTS=%s" % events if events is not None else "default events"
    with t.case(name):
        env = {"PROFVIZ_EVENTS": events} if events is not None else {}
        try:
            r = h.run([prog], env=env, outputs="prof.json", timeout=10)
        except subprocess.TimeoutExpired:
            t.ok(False, "%s: start-up does not hang" % name)
            continue
        t.eq(r.rc, 0, "%s: exit status" % name)
        t.eq(r.stdout, plain.stdout, "%s: the program's allocator served exactly its own calls, "
             "none before its constructor (%s)" % (name, plain.stdout.decode().strip()))
        p = r.json()
        for fn in ("malloc", "calloc", "realloc", "free"):
            t.eq(p.calls(fn), served[fn], "%s: %s calls in the profile as the program made them"
                 % (name, fn))
        t.eq(p.arc_calls("set_up", "malloc"), 1, "%s: the constructor's malloc before main" % name)
        t.eq(p.arc_calls("grow", "realloc"), 4, "%s: realloc from grow" % name)
        t.eq(p.calls("bump"), 6, "%s: the allocator's own helper" % name)

# A name only libpfm4 could know: loading it (dlopen) allocates through the
# program's malloc, which cannot be helped; those calls are still not the
# program's and stay out of the profile, and nothing hangs.
with t.case("libpfm4 name"):
    try:
        r = h.run([prog], env={"PROFVIZ_EVENTS": "no-such-event"}, outputs="prof.json",
                  timeout=10)
        t.eq(r.rc, 0, "unknown event name: exit status")
        p = r.json()
        t.eq([p.calls(fn) for fn in ("malloc", "calloc", "realloc", "free")],
             [served[fn] for fn in ("malloc", "calloc", "realloc", "free")],
             "unknown event name: the profile holds the program's allocator calls only")
        t.ok(any("'no-such-event'" in l for l in h.profviz_lines(r.stderr)),
             "unknown event name: said so")
    except subprocess.TimeoutExpired:
        t.ok(False, "unknown event name: start-up does not hang")
t.done()
