#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An exception that comes out of a body inlined into the function that
catches it (progs/catch_body.cpp). gcc runs the bodies' exit hooks as it
unwinds them: the calls after the catch are main's, exactly. clang runs
none, and the catch cannot tell whether it lies inside a body still open:
those bodies stay open, the calls after the catch may hang from them, and
the profile says so (losses.catches_in_bodies, on stderr and in the
report) rather than nothing."""
import harness as h

t = h.Tap()
ROUNDS = 100  # progs/catch_body.cpp's; every other round throws
for compiler in ("g++", "clang++"):
    with t.case(compiler):
        exe = h.build("catch_body", ["catch_body.cpp"], compiler=compiler,
                      instrument=["-O2", "-g", "-finstrument-functions"],
                      out="%s/catch_body-%s" % (h.BUILD, compiler.rstrip("+")))
        r = h.run([exe], outputs="prof.json")
        plain = h.run([exe], preload=False)
        t.eq((r.stdout, r.rc), (plain.stdout, plain.rc), "%s: as without profviz" % compiler)
        p = r.json()
        left = p.data["losses"]["catches_in_bodies"]
        said = [x for x in h.profviz_lines(r.stderr) if "C++ catches in a function" in x]
        if compiler == "g++":
            t.eq(p.arc_calls("main", "after(int)"), ROUNDS, "g++: after() called from main")
            t.eq((left, said), (0, []), "g++: nothing left open, nothing to say")
        else:
            t.eq(left, ROUNDS // 2, "clang++: each catch that found bodies left open, counted")
            t.ok(len(said) == 1, "clang++: said once", r.stderr)
            out = h.command("report", r.file("prof.json")).stdout
            t.ok("C++ catches in a function" in out, "clang++: the report says it too")
t.done()
