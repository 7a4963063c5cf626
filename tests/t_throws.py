#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""C++ exceptions thrown and caught every way a program does (one, two and
five frames up, rethrown, through qsort's and std::sort's callbacks, from a
body inlined into the catching function, in two std::thread workers, a
thousand times each), and calls made after each catch: every arc's calls as
the program counted them itself, with gcc, which runs exit hooks while
unwinding, and clang, which runs none (the catch closes what was unwound),
at -O0, -O2 and the README's flags."""
import re
import harness as h

t = h.Tap()
N = 1000
# (label, compiler, the flags that build it): the matrix's, and the README's.
BUILDS = [(m.label, m.cxx, h.INSTRUMENT + list(m.flags)) for m in h.MATRIX] + [
    ("gcc, README flags", "g++", ["-O2", "-g", "-finstrument-functions",
                                  "-finstrument-functions-exclude-file-list=.h,/usr/include/"]),
    ("clang, README flags", "clang++", ["-O2", "-g", "-finstrument-functions-after-inlining",
                                        "-gdwarf-aranges"])]


def base(name):
    return re.sub(r"\(.*", "", name)


for c, compiler, flags in BUILDS:
    with t.case(c):
        exe = h.build("throws", ["throws.cpp"], ["-pthread"], compiler=compiler,
                      instrument=flags,
                      out="%s/throws-%s" % (h.BUILD, re.sub(r"[^\w-]+", "", c)))
        r = h.run([exe, str(N)], outputs="prof.json")
        t.eq(r.rc, 0, "%s: the program ran" % c)
        p = r.json()
        funcs = p.data["functions"]
        arcs = {}
        for a in p.data["arcs"]:
            if a["caller"] is not None:
                key = (base(funcs[a["caller"]]["name"]), base(funcs[a["callee"]]["name"]))
                arcs[key] = (a["calls"], a.get("inlined_calls", 0))
        calls = {base(f["name"]): f["calls"] for f in funcs}
        own = [(x, y, int(n)) for x, y, n in (line.split() for line in r.stdout.decode().split("\n")
                                              if line)]
        after_inlining = "-finstrument-functions-after-inlining" in flags
        excluded = "-finstrument-functions-exclude-file-list=.h,/usr/include/" in flags
        want, got = {}, {}
        for caller, callee, n in own:
            if callee == "inl_throw" and after_inlining:
                continue  # an inlined body has no hooks then
            if callee == "sort_cmp" and not excluded:
                # std::sort is instrumented: its own functions call it
                want[callee], got[callee] = n, calls.get(callee)
                continue
            want[(caller, callee)] = n
            got[(caller, callee)] = arcs.get((caller, callee), (0, 0))[0]
        t.eq(got, want, "%s: every arc's calls as the program counted them" % c)
        if not after_inlining:
            t.eq(arcs.get(("inl_host", "inl_throw"), (0, 0))[1], 2 * N,
                 "%s: the body inlined into inl_host, which threw, counted inlined" % c)
        t.eq(p.data["stray_exits"], 0, "%s: no stray exit" % c)
t.done()
