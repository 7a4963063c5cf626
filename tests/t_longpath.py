#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Output paths up to PATH_MAX - 1 characters, the longest a system call
takes: the file is written (its temporary, beside it, must not need a
longer path), and when it cannot be, the message says why in full."""
import json
import os
import tempfile
import harness as h

PATH_MAX = os.pathconf("/", "PC_PATH_MAX")
t = h.Tap()
prog = h.build("tiny", flags=h.NO_INLINE)


def deep_dir(length, name):
    """A new directory whose path, with "/" + name after it, is length long."""
    d = tempfile.mkdtemp(prefix="profviz-longpath-")
    need = length - len(d) - 1 - len(name)
    while need > 0:
        step = min(200, need)  # "/" and step - 1 characters, or one more at the end
        d = os.path.join(d, "d" * (step - 1)) if step > 1 else d + "x"
        need -= step
    os.makedirs(d)
    return d


def short(line):
    return line if len(line) < 200 else line[:80] + " ... " + line[-80:]


for shorter in (1, 4, 7, 8):
    n = PATH_MAX - shorter
    with t.case("%d characters" % n):
        path = os.path.join(deep_dir(n, "prof.json"), "prof.json")
        t.eq(len(path), n, "%d: the path is that long" % n)
        r = h.run([prog, "1000"], outputs=path)
        t.eq(r.rc, 0, "%d: exit status" % n)
        lines = h.profviz_lines(r.stderr)[1:]
        t.ok(lines == [], "%d: nothing to report" % n, "\n".join(map(short, lines)))
        written = os.path.exists(path)
        t.ok(written, "%d: the profile written" % n)
        if written:
            with open(path) as f:
                t.eq(h.Profile(json.load(f)).calls("section"), 1, "%d: counts exact" % n)
        left = [f for f in os.listdir(os.path.dirname(path)) if f != "prof.json"]
        t.eq(left, [], "%d: no temporary left behind" % n)

with t.case("a long path that cannot be written"):
    n = PATH_MAX - 1
    d = deep_dir(n, "prof.json")
    os.rmdir(d)
    path = os.path.join(d, "prof.json")
    r = h.run([prog, "1000"], outputs=path)
    t.eq(r.rc, 0, "missing directory: exit status")
    want = "profviz: cannot write %s: No such file or directory" % path
    t.ok(want in h.profviz_lines(r.stderr), "missing directory: the whole path and the reason",
         "\n".join(map(short, h.profviz_lines(r.stderr))))
t.done()
