#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real C++ program: tinyxml2's own test suite (xmltest), built from
Debian's source package with instrumentation. Demangled names, virtual and
recursive calls, constructors and destructors: every function's call count
must equal callgrind's on the same binary without the preload."""
import os
import re
import shutil
import subprocess
import tempfile
import harness as h
import callgrind

t = h.Tap()
src, why = h.fetch_source("tinyxml2")
if not src:
    t.skip("tinyxml2 from Debian sources", why)
    t.done()

os.makedirs(h.BUILD, exist_ok=True)
exe = os.path.join(h.BUILD, "tinyxml2-xmltest")
if not os.path.exists(exe):
    subprocess.run(["g++"] + h.INSTRUMENT + h.NO_INLINE + ["-w", "-I", src, "-o", exe,
                                                          os.path.join(src, "xmltest.cpp"),
                                                          os.path.join(src, "tinyxml2.cpp")],
                   check=True)


def workdir():
    """A fresh directory holding the resources xmltest reads and writes."""
    d = tempfile.mkdtemp(prefix="profviz-xml-")
    shutil.copytree(os.path.join(src, "resources"), os.path.join(d, "resources"))
    return d


def without_timing(out):
    # xmltest prints how long its parse loop took: the one line that may differ.
    return re.sub(rb"Parsing dream.xml \(\w+\): [0-9.]+ milli-seconds", b"", out)


with t.case("xmltest"):
    r = h.run([exe], workdir=workdir())
    plain = h.run([exe], preload=False, workdir=workdir())
    t.eq(r.rc, 0, "xmltest passes its own checks under the preload")
    t.ok(b"Fail 0" in r.stdout, "none of its checks fails")
    t.eq(without_timing(r.stdout), without_timing(plain.stdout), "its output is unchanged")
    p = r.json()
    n, wrong = callgrind.compare(exe, p, plain.workdir)
    t.ok(n >= 300, "profile covers tinyxml2's functions (%d)" % n)
    t.ok(not wrong, "every function's calls equal callgrind's (%d functions)" % n, "\n".join(wrong))
    n, wrong = callgrind.compare_arcs(exe, p, os.path.join(plain.workdir, "callgrind.out"))
    t.ok(not wrong, "every arc's calls equal callgrind's (%d arcs)" % n, "\n".join(wrong[:40]))
    t.ok(p.func("tinyxml2::XMLElement::ParseDeep(char*, tinyxml2::StrPair*, int*)") is not None,
         "C++ member functions demangled")
    t.ok(p.arc_calls("tinyxml2::XMLNode::ParseDeep(char*, tinyxml2::StrPair*, int*)",
                     "tinyxml2::XMLElement::ParseDeep(char*, tinyxml2::StrPair*, int*)") > 0,
         "virtual recursive calls have arcs")
    t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0), "no unmatched hooks")
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "its graph renders", err)
# Built as the README recommends (inlining on, headers' functions left out):
# gcc leaves rows of a header's line at the address where a .cpp function
# begins, and every function's file:line must still be addr2line's.
with t.case("source lines as addr2line gives them"):
    flagged = os.path.join(h.BUILD, "tinyxml2-xmltest-recommended")
    if not os.path.exists(flagged):
        subprocess.run(["g++", "-O2", "-g", "-finstrument-functions",
                        "-finstrument-functions-exclude-file-list=.h,/usr/include/", "-w",
                        "-I", src, "-o", flagged, os.path.join(src, "xmltest.cpp"),
                        os.path.join(src, "tinyxml2.cpp")], check=True)
    p = h.run([flagged], workdir=workdir(), outputs="prof.json").json()
    mine = [f for f in p.funcs if f["module"] == os.path.realpath(flagged)]
    symbols = subprocess.run(["nm", flagged], capture_output=True, text=True).stdout
    main_at = next(int(l.split()[0], 16) for l in symbols.splitlines() if l.endswith(" main"))
    base = int(p.func("main")["address"], 16) - main_at
    where = subprocess.run(["addr2line", "-e", flagged] +
                           ["%x" % (int(f["address"], 16) - base) for f in mine],
                           capture_output=True, text=True).stdout.splitlines()
    differ = []
    for f, w in zip(mine, where):
        file, _, line = w.partition(" ")[0].rpartition(":")
        if (os.path.basename(file), line) != (os.path.basename(f.get("file") or ""),
                                                str(f.get("line"))):
            differ.append("%s: %s:%s, addr2line %s" % (f["name"], f.get("file"),
                                                       f.get("line"), w))
    t.ok(len(mine) > 100 and not differ, "all %d functions' file:line as addr2line's"
         % len(mine), "\n".join(differ[:10]))
t.done()
