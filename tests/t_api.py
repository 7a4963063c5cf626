#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""include/profviz.h: profviz_dump() writes the profile so far and profiling
goes on; PROFVIZ_NO_INSTRUMENT keeps a function out; without the preload the
program runs as before."""
import os
import harness as h

t = h.Tap()
prog = h.build("api", flags=["-I" + os.path.join(h.ROOT, "include")])
with t.case("preloaded"):
    r = h.run([prog], outputs="prof.json")
    t.eq(r.stdout, b"dumped 0\n", "profviz_dump() returns 0")
    t.eq(r.json("mid.json").calls("step"), 3, "the mid-run profile has the calls so far")
    t.eq(r.json().calls("step"), 5, "profiling went on: the exit profile has them all")
    t.eq(r.json().calls("hidden"), 0, "PROFVIZ_NO_INSTRUMENT keeps a function out")
with t.case("without the preload"):
    plain = h.run([prog], preload=False)
    t.eq((plain.stdout, plain.rc), (b"no profiler\n", 0),
         "without the preload profviz_dump is NULL")
t.done()
