#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Arcs in the default view as the profile has them. A program that waits
once is shown with its waits apart, a view rebuilt from the call paths,
where the runtime keeps a recursion's calls on the path that entered it:
the view takes each arc's calls from the profile, so fib -> fib and
pong -> ping stay, and run -> fib and run -> ping keep their one call."""
import re
import subprocess
import harness as h

t = h.Tap()
prog = h.build("wait_recursion", flags=h.NO_INLINE)


def report_arcs(path, *options):
    """{(caller, callee): calls} of profviz report's arcs table."""
    out = subprocess.run([h.PROFVIZ, "report", *options, path], capture_output=True,
                         text=True, check=True).stdout
    arcs = {}
    for line in out.splitlines():
        m = re.match(r"\s*\S+%\s+\S+\s+(\d+)\s+(\S+) -> (\S+)", line)
        if m:
            arcs[(m.group(2), m.group(3))] = int(m.group(1))
    return arcs


if h.SANITIZER == "thread":
    t.skip("arcs with the waits apart", "TSan's runtime intercepts libc's waits before profviz")
else:
    with t.case("recursion in a program that waits"):
        r = h.run([prog, "15"], outputs="prof.json")
        p = r.json()
        want = {(a, b): p.arc_calls(a, b) for a, b in (("run", "fib"), ("fib", "fib"),
                                                       ("run", "ping"), ("ping", "pong"),
                                                       ("pong", "ping"))}
        t.eq((want[("run", "fib")], want[("run", "ping")]), (1, 1),
             "the profile: run calls fib and ping once")
        t.ok(want[("fib", "fib")] > 1000 and want[("pong", "ping")] > 10,
             "... and the recursion's calls are on its own arcs", want)
        path = r.file("prof.json")
        for options in ((), ("--waits", "in")):
            got = report_arcs(path, *options)
            t.eq({k: got.get(k) for k in want}, want,
                 "report %s: every arc's calls as the profile's" % (" ".join(options) or
                                                                    "(waits apart)"))
t.done()
