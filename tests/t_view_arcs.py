#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Arcs in the default view as the profile has them. A program that waits
once is shown with its waits apart, a view rebuilt from the call paths,
where the runtime keeps a recursion's calls on the path that entered it,
and each path the recursive calls it made, as folds: fib -> fib and
pong -> ping stay, and run -> fib and run -> ping keep their one call, in
the whole run and in every part of it (--focus, --root)."""
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
        folds = [f for x in p.data["paths"] for f in x.get("folds", [])]
        t.eq(sum(calls for _, calls in folds), want[("fib", "fib")] + want[("pong", "ping")] +
             p.arc_calls("ping", "ping") + p.arc_calls("pong", "pong"),
             "the paths keep the recursive calls folded into them, as folds")
        t.eq(h.schema_errors(p.data), [], "valid by the schema, folds and all")
        for options in ((), ("--waits", "in")):
            got = report_arcs(path, *options)
            t.eq({k: got.get(k) for k in want}, want,
                 "report %s: every arc's calls as the profile's" % (" ".join(options) or
                                                                    "(waits apart)"))
        # A part of the run is rebuilt from the paths alone: the folds give
        # the recursion's arcs back there too.
        for options, arcs in ((("--focus", "fib"), (("run", "fib"), ("fib", "fib"))),
                              (("--root", "run"), tuple(want)),
                              (("--focus", "pong", "--waits", "in"),
                               (("ping", "pong"), ("pong", "ping")))):
            got = report_arcs(path, *options)
            t.eq({k: got.get(k) for k in arcs}, {k: want[k] for k in arcs},
                 "report %s: the arcs' calls as the profile's" % " ".join(options))
        # Two runs merged: their folds merge with their paths.
        merged = r.file("merged.json")
        m = h.command("merge", "-o", merged, path, path)
        t.eq(m.returncode, 0, "profviz merge", m.stderr)
        got = report_arcs(merged, "--focus", "fib")
        t.eq({k: got.get(k) for k in (("run", "fib"), ("fib", "fib"))},
             {("run", "fib"): 2, ("fib", "fib"): 2 * want[("fib", "fib")]},
             "merged, then focused: twice each arc's calls")
t.done()
