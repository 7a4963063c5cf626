#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The process ends while its threads are busy: two recurse 20,000 frames
deep over and over, a spawner keeps starting threads that recurse 9,000 deep
(each growing a fresh shadow stack twice), and main returns. The exit
snapshot reads the running threads' stacks and trees, which never move nor
go away under it: every run ends as the program does, with its profile.
The race it guards against is narrow (a few runs in a hundred crashed
before), hence many runs."""
import harness as h

t = h.Tap()
prog = h.build("busy_exit", flags=h.NO_INLINE + ["-pthread"])
# Under TSan one run takes about 7 s (measured): a couple show exit still works.
RUNS = 2 if h.SANITIZER == "thread" else 10 if h.SANITIZED else 60
bad = []
for i in range(RUNS):
    r = h.run([prog, "20000", "9000", "1000"], timeout=60)
    if r.rc != 0 or not r.stdout.startswith(b"main_work "):
        bad.append("run %d: status %d, stdout %r" % (i + 1, r.rc, r.stdout))
        continue
    p = r.json()
    made = int(r.stdout.split()[1])
    if p.calls("main_work") != made or p.calls("descend") < 2 * 20000:
        bad.append("run %d: main_work %d of %d, descend %d" %
                   (i + 1, p.calls("main_work"), made, p.calls("descend")))
t.eq(bad, [], "%d runs: each ends with status 0 and main's calls exact" % RUNS)
t.done()
