#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Names: static functions in a PIE executable, a shared library's internal
functions, demangled C++ names, and a graph that renders whatever the names."""
import os
import re
import shutil
import subprocess
import harness as h

t = h.Tap()
lib = h.build("libshape", flags=["-fPIC", "-shared"],
              out=os.path.join(h.BUILD, "libshape.so"))
prog = h.build("symbols", flags=["-fPIE", "-pie", "-Wl,-rpath," + h.BUILD],
               libs=[lib])

with t.case("PIE and shared library"):
    r = h.run([prog])
    p = r.json()
    t.eq(r.rc, 0, "program ran")
    t.eq(p.calls("local_static"), 7, "static function in a PIE resolved, 7 calls")
    t.eq(p.func("local_static")["module"], os.path.realpath(prog), "its module is the executable")
    t.eq(p.calls("shape_helper"), 5, "shared library's static function resolved")
    t.eq(p.func("shape_helper")["module"], os.path.realpath(lib), "its module is the library")
    t.eq(p.arc_calls("main", "shape_entry"), 1, "arc into the library")
    t.eq(p.arc_calls("shape_entry", "shape_helper"), 5, "arc inside the library")
    t.ok(p.func("local_static").get("file", "").endswith("symbols.c"),
         "source file from DWARF")
    t.ok(all("?" != f["name"] and f["name"] for f in p.funcs), "no bare '?' names")
    dot = open(r.file("prof.dot")).read()
    t.ok("[libshape.so]" in dot, "library functions carry their module in the graph")

# Stripped: static functions have no symbol left anywhere.
with t.case("stripped"):
    stripped = os.path.join(h.BUILD, "symbols-stripped")
    subprocess.run(["strip", "--strip-all", "-o", stripped, prog], check=True)
    r = h.run([stripped])
    p = r.json()
    unnamed = [f["name"] for f in p.funcs if f["calls"] == 7]
    t.ok(len(unnamed) == 1 and re.match(r"^symbols-stripped\+0x[0-9a-f]+$", unnamed[0]),
         "no symbol: shown as module+0xoffset (%s)" % unnamed)
    t.eq(p.calls("shape_helper"), 5, "the library's functions still named beside it")

with t.case("C++ names"):
    cxx = h.build("cxx", sources=["cxx.cpp"], compiler="g++", flags=h.NO_INLINE)
    r = h.run([cxx], env={"PROFVIZ_NODE_THRESHOLD": "0"})  # every name in the graph
    p = r.json()
    names = [f["name"] for f in p.funcs]
    t.ok("geo::Box<int>::grow(int) const" in names, "member of a template demangled",
         "\n".join(names))
    t.ok("geo::Box<int>::operator<(geo::Box<int> const&) const" in names,
         "operator< demangled")
    t.eq(p.calls("geo::Box<int>::operator<(geo::Box<int> const&) const"), 4, "operator< calls")
    longest = max(names, key=len)
    t.ok(len(longest) > 2000,
         "a very long C++ name is kept whole in JSON (%d chars)" % len(longest))
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "graph with <>\"& and very long names renders without warnings", err)
    dot = open(r.file("prof.dot")).read()
    t.ok(max(len(l) for l in dot.splitlines()) < 16000, "no dot line reaches graphviz's limits")
    t.ok(re.search(r'label="geo::Box<\.\.\.>::operator<\\n', dot) is not None,
         "operator< kept in its box, the template's arguments and parameters elided")
    t.ok(re.search(r'tooltip="geo::Box<int>::operator<\(geo::Box<int> const&\) const\\n', dot)
         is not None, "... and the whole name in its tooltip")

# C++ counts with each compiler and optimisation level.
for combo in h.MATRIX:
    with t.case(combo.label + ": C++ counts"):
        c = combo.label
        built = h.build_with(combo, "cxx", sources=["cxx.cpp"])
        p = h.run([built]).json()
        t.eq(p.calls("geo::Box<int>::operator<(geo::Box<int> const&) const"), 4,
             "%s: operator< calls" % c)
        t.eq(p.calls("geo::Box<int>::grow(int) const"), 4, "%s: grow calls" % c)
        t.eq(p.calls("geo::Box<int>::Box(int)"), 6, "%s: constructor calls (2 + one per grow)" % c)
# clang writes no .debug_aranges unless asked: file:line must come all the same.
with t.case("clang without aranges"):
    if not shutil.which("clang"):
        t.skip("clang: file:line without .debug_aranges", "clang is not installed")
    else:
        exe = os.path.join(h.BUILD, "hotchain-clang-no-aranges")
        subprocess.run(["clang", "-O2", "-g", "-finstrument-functions", "-fno-inline", "-o",
                        exe, os.path.join(h.PROGS, "hotchain.c")], check=True)
        sections = subprocess.run(["readelf", "-S", "-W", exe], capture_output=True,
                                  text=True).stdout
        t.ok(".debug_aranges" not in sections, "the binary has no .debug_aranges")
        p = h.run([exe, "1000"]).json()
        f = p.func("hot_inner") or {}
        t.ok(f.get("file", "").endswith("hotchain.c") and f.get("line", 0) > 0,
             "file:line found from the units' ranges (%s:%s)" % (f.get("file"), f.get("line")))
        t.ok(all(g.get("file") for g in p.funcs if g["module"] == os.path.realpath(exe)),
             "for every function of the program")
t.done()
