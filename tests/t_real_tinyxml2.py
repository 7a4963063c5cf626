#!/usr/bin/env python3
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


r = h.run([exe], workdir=workdir())
plain = h.run([exe], preload=False, workdir=workdir())
t.eq(r.rc, 0, "xmltest passes its own checks under the preload")
t.ok(b"Fail 0" in r.stdout, "none of its checks fails")
t.eq(without_timing(r.stdout), without_timing(plain.stdout), "its output is unchanged")
p = r.json()
n, wrong = callgrind.compare(exe, p, plain.workdir)
t.ok(n >= 300, "profile covers tinyxml2's functions (%d)" % n)
t.ok(not wrong, "every function's calls equal callgrind's (%d functions)" % n, "\n".join(wrong))
t.ok(p.func("tinyxml2::XMLElement::ParseDeep(char*, tinyxml2::StrPair*, int*)") is not None,
     "C++ member functions demangled")
t.ok(p.arc_calls("tinyxml2::XMLNode::ParseDeep(char*, tinyxml2::StrPair*, int*)",
                 "tinyxml2::XMLElement::ParseDeep(char*, tinyxml2::StrPair*, int*)") > 0,
     "virtual recursive calls have arcs")
t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0), "no unmatched hooks")
ok, err = h.dot_renders(r.file("prof.dot"))
t.ok(ok, "its graph renders", err)
t.done()
