#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program of 20,000 functions and 120,000 distinct arcs: every function
is named and every count is exact. How long writing it takes (seconds once:
symbol look-ups scanned the whole symbol table each) is make bench's
(bench/scale.py)."""
import generated
import harness as h

N = generated.MANY_N
t = h.Tap()
prog = generated.many_functions()
with t.case("20,000 functions"):
    r = h.run([prog])
    t.eq(r.rc, 0, "exit code 0")
    p = r.json()
    names = {f["name"] for f in p.funcs}
    want = {"f%d" % i for i in range(N)} | {"main"}
    t.eq(len(names ^ want), 0, "every function named (%d)" % len(want))
    t.ok(all(f["calls"] == 6 for f in p.funcs if f["name"] != "main"),
         "every function called 6 times")
    ids = {f["id"]: f["name"] for f in p.funcs}
    arcs = {(ids.get(a["caller"]), ids[a["callee"]]): a["calls"] for a in p.data["arcs"]}
    want_arcs = {(None, "main"): 1}
    for i in range(N):
        want_arcs[("main", "f%d" % i)] = 1
        for o in generated.MANY_OFFSETS:
            want_arcs[("f%d" % i, "f%d" % ((i + o) % N))] = 1
    t.eq(len(arcs), len(want_arcs), "%d distinct arcs" % len(want_arcs))
    wrong = [k for k in want_arcs if arcs.get(k) != want_arcs[k]]
    t.eq(wrong[:5], [], "every arc with its exact count")
t.done()
