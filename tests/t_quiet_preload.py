#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A quiet preload: with LD_PRELOAD set for a whole command line, only the
process that runs instrumented code speaks, once, when it first has
something to profile, and writes its files. timeout, time, a shell and a
wrapper script that execs the program (as libtool's do) run none: they say
nothing (not the notice, not a bad setting, not PROFVIZ_PROGRESS's lines)
and write no file. The program's own stderr is as without profviz."""
import os
import stat
import tempfile
import harness as h

t = h.Tap()
prog = h.build("busy_for", flags=h.NO_INLINE)
NOTICE = "time sampled; writing prof.json"


def wrapper_script(workdir):
    """A wrapper as libtool writes one: a shell script that execs the binary."""
    path = os.path.join(workdir, "busy_for-wrapper")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n# a libtool-like wrapper\nLD_LIBRARY_PATH=/nowhere\n'
                'export LD_LIBRARY_PATH\nexec "%s" "$@"\n' % prog)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def files(r):
    return sorted(n for n in os.listdir(r.workdir) if n.startswith("prof"))


with t.case("through other programs"):
    d = tempfile.mkdtemp(prefix="profviz-wrapper-")
    ways = [("timeout", ["timeout", "60", prog, "200"]),
            ("sh -c", ["sh", "-c", prog + " 200; true"]),
            ("a wrapper script", [wrapper_script(d), "200"])]
    if os.path.exists("/usr/bin/time"):
        ways.append(("/usr/bin/time", ["/usr/bin/time", "-f", "%C", prog, "200"]))
    else:
        t.skip("/usr/bin/time: one notice, one file", "/usr/bin/time is not installed")
    for name, argv in ways:
        r = h.run(argv, outputs="prof.json")
        notices = [l for l in h.profviz_lines(r.stderr) if NOTICE in l]
        t.eq((r.rc, r.stdout), (0, b"done\n"), "%s: the program ran" % name)
        t.eq(len(notices), 1, "%s: one notice (%s)" % (name, h.profviz_lines(r.stderr)))
        t.eq(files(r), ["prof.json"], "%s: one output file" % name)
        plain = h.run(argv, preload=False)
        t.eq(h.strip_profviz(r.stderr), plain.stderr, "%s: stderr otherwise the program's" % name)

with t.case("a bad setting, said once"):
    r = h.run(["sh", "-c", prog + " 100"], env={"PROFVIZ_RATE": "fast"}, outputs="prof.json")
    said = [l for l in h.profviz_lines(r.stderr) if "PROFVIZ_RATE" in l]
    t.eq(len(said), 1, "a bad PROFVIZ_RATE through sh -c: said once (%s)" % said)

with t.case("nothing instrumented"):
    for name, argv in (("sh -c true", ["sh", "-c", "true"]), ("sleep", ["sleep", "0.1"])):
        r = h.run(argv, outputs="prof.json")
        t.eq((r.stderr, files(r)), (b"", []), "%s: nothing said, no file" % name)
    r = h.run(["sh", "-c", "sleep 2.3"], env={"PROFVIZ_PROGRESS": "1"}, outputs="prof.json")
    t.eq(r.stderr, b"", "PROFVIZ_PROGRESS, nothing instrumented: no line")
    r = h.run(["sh", "-c", prog + " 2300"], env={"PROFVIZ_PROGRESS": "1"}, outputs="prof.json")
    lines = [l for l in h.profviz_lines(r.stderr) if "still profiling" in l]
    t.ok(len(lines) >= 2 and all(l.endswith(", 1 thread") for l in lines),
         "PROFVIZ_PROGRESS through sh -c: the program's lines alone (%s)" % lines)
t.done()
