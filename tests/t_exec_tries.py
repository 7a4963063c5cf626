#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""exec calls that fail (a shell's search through PATH makes one per
directory): one image replacement leaves one set of .execN files, with the
profile up to the exec that worked; calls that all fail leave none, and the
exit writes the whole run. Names that are not there are not written for at
all; each of the nine exec functions is tried."""
import json
import os
import tempfile
import harness as h

t = h.Tap()
prog = h.build("exec_tries", flags=h.NO_INLINE)
# The program's own PATH search: a directory that is not there, the working
# directory (empty entry), and /dev, which has a "null" that does not execute.
ENV = {"PATH": "/nonexistent-profviz-dir::/dev"}
FAILING = 12  # exec calls in "fail" mode
AT_EXISTING = 7  # of them, at a name that is there


def load(path):
    with open(path) as f:
        return h.Profile(json.load(f))


def as_without_preload(r, mode):
    plain = h.run([prog, mode], preload=False, env=ENV)
    t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc), (plain.stdout, plain.stderr, plain.rc),
         "%s: stdout (each exec's errno), stderr and status as without the preload" % mode)


with t.case("search"):
    r = h.run([prog, "search"], outputs="prof.json,prof.dot", env=ENV)
    t.eq(r.rc, 3, "search: the fourth exec replaced the image")
    as_without_preload(r, "search")
    t.eq(sorted(os.listdir(r.workdir)),
         ["prof.dot", "prof.exec1.dot", "prof.exec1.json", "prof.json"],
         "search: one image replacement, one set of .exec files")
    if os.path.exists(r.file("prof.exec1.json")):
        before = load(r.file("prof.exec1.json"))
        t.eq((before.calls("try_exec"), before.calls("work")), (4, 4),
             "search: the replaced image's profile runs up to the exec that worked")
    after = r.json()
    t.eq((after.calls("work"), after.calls("try_exec")), (1, 0),
         "search: the new image profiles itself")

with t.case("fail"):
    r = h.run([prog, "fail"], outputs="prof.json,prof.dot", env=ENV)
    t.eq(r.rc, 0, "fail: the program goes on after its exec calls fail")
    as_without_preload(r, "fail")
    t.eq(sorted(os.listdir(r.workdir)), ["prof.dot", "prof.json"],
         "fail: no .exec file claims a replacement that never happened")
    p = r.json()
    t.eq((p.calls("try_exec"), p.calls("work")), (FAILING, FAILING + 1),
         "fail: the exit's profile is the whole run, after the failed calls")
    t.ok(p.func("main") and p.func("main")["total"][0] >= p.func("work")["total"][0],
         "fail: main's frame closed at exit, its total covering the work")

with t.case("a second output's .exec1 there already"):
    # A file of an earlier run at prof.exec1.dot, none at prof.exec1.json:
    # the attempts take an N free for both, and taking them back removes
    # only what they wrote.
    d = tempfile.mkdtemp(prefix="profviz-test-")
    with open(os.path.join(d, "prof.exec1.dot"), "w") as f:
        f.write("kept\n")
    r = h.run([prog, "fail"], outputs="prof.json,prof.dot", env=ENV, workdir=d)
    with open(os.path.join(d, "prof.exec1.dot")) as f:
        t.eq(f.read(), "kept\n", "a file the attempts did not write is left as it was")
    t.eq(sorted(os.listdir(d)), ["prof.dot", "prof.exec1.dot", "prof.json"],
         "and none of theirs is left")

# In a directory that is not there every file written for an attempt is
# refused with a message: the messages count the attempts written for.
for mode, written in (("search", 2), ("fail", AT_EXISTING)):
    with t.case("%s: what is written for" % mode):
        r = h.run([prog, mode], outputs="nodir/prof.json", env=ENV)
        said = [l for l in h.profviz_lines(r.stderr) if "cannot write" in l and ".exec" in l]
        t.ok(len(said) == written,
             "%s: only exec calls whose name is there write the image's files (%d)"
             % (mode, written), diag="\n".join(said))
t.done()
