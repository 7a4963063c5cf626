#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program that becomes a daemon (progs/daemonize.c: daemon(3); fork,
setsid, fork, /dev/null onto 0-2; and /dev/null onto 0-2 first, which has
profviz keep a copy, then fork and setsid) holds no copy of its starter's
stderr: the
starter reads that stderr to its end while the daemon still runs (a shell's
$(...) returns), and the daemon's descriptors lead nowhere near it. The
daemon is still profiled."""
import glob
import os
import subprocess
import tempfile
import time

import harness as h

t = h.Tap()
exe = h.build("daemonize", flags=h.NO_INLINE)
for how in ("daemon", "setsid", "kept"):
    with t.case(how):
        d = tempfile.mkdtemp(prefix="profviz-test-")
        result = os.path.join(d, "result")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
        env.update(h.BASE_ENV)
        env.update(LD_PRELOAD=h.PRELOAD_LIST, PROFVIZ_OUTPUT="prof.json")
        p = subprocess.Popen([exe, how, result], cwd=d, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        ours = os.readlink("/proc/self/fd/%d" % p.stderr.fileno())
        try:
            err, ended = p.communicate(timeout=30)[1], True
        except subprocess.TimeoutExpired:
            ended = False
            p.kill()
        t.ok(ended, "%s: the starter's stderr ends while the daemon waits" % how)
        open(result + ".go", "w").close()
        for _ in range(3000):
            if os.path.exists(result) and open(result).read().endswith("done\n"):
                break
            time.sleep(0.01)
        lines = open(result).read().splitlines() if os.path.exists(result) else []
        t.ok(lines[-1:] == ["done"], "%s: the daemon ran to its end" % how, lines)
        held = [x for x in lines if x.split(" ", 1)[-1] == ours]
        t.eq(held, [], "%s: none of the daemon's descriptors is its starter's stderr (%s)"
             % (how, ours))
        def daemons(path):
            return any(x["name"] == "report" and x["calls"] == 1
                       for x in h.load_json(path)["functions"])
        found = []
        for _ in range(3000):
            found = [f for f in glob.glob(os.path.join(d, "prof*.json")) if daemons(f)]
            if found:
                break
            time.sleep(0.01)
        t.ok(found, "%s: the daemon's own profile, its report counted" % how)
t.done()
