#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""profviz's messages go to the stderr the program had at start-up, never to
a file the program has since opened at fd 2. The program closes 0-2 (or
every descriptor) and opens data files in their place; the profile cannot
be written, and the message saying so must not land in those files."""
import harness as h

t = h.Tap()
prog = h.build("stdio_closed", flags=h.NO_INLINE)
NOWHERE = "/nonexistent-dir/prof.json"
FILES = {"in.txt": "", "out.txt": "descriptors 0 1 2 3\n",
         "err.txt": "the program's own message\n"}


def data(r):
    return {name: open(r.file(name)).read() for name in FILES}


for mode in ("close", "closefrom", "freopen"):
    with t.case(mode):
        plain = h.run([prog, mode], preload=False)
        t.eq(data(plain), FILES, "%s: the program's files without the preload" % mode)
        r = h.run([prog, mode], env={"PROFVIZ_EVENTS": "task-clock"}, outputs=NOWHERE)
        t.eq(r.rc, 0, "%s: exit status" % mode)
        t.eq(data(r), FILES, "%s: its files hold its data alone, at the same descriptors" % mode)
        lines = h.profviz_lines(r.stderr)
        if mode != "closefrom":
            t.ok(any(l.startswith("profviz: cannot write %s: No such file" % NOWHERE)
                     for l in lines), "%s: the message on the start-up stderr" % mode, r.stderr)
        else:
            # The program closed profviz's copy of stderr too: there is no
            # stderr left to tell, and the message is dropped.
            t.ok(len(lines) == 2 and "checked at start-up" in lines[1],
                 "closefrom: only what start-up said reaches stderr (notice and the "
                 "directory check)", lines)
t.done()
