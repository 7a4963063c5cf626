#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Software events as a user meets them: the scheduler's events
(context-switches, cpu-migrations) happen only in the kernel, so they are
counted there, or left out with the reason, never read as a silent 0; and
events read with a system call per hook say at start-up what that costs."""
import os
import re
import shutil
import subprocess
import tempfile
import harness as h

t = h.Tap()
prog = h.build("waits", flags=h.NO_INLINE + ["-pthread"])


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read())


with t.case("context-switches"):
    r = h.run([prog], env={"PROFVIZ_EVENTS": "context-switches", "PROFVIZ_COMPENSATE": "0"})
    notice = h.profviz_lines(r.stderr)
    if os.geteuid() != 0 and paranoid() > 1:
        t.ok(any("it happens only in the kernel" in l for l in notice),
             "refused here, with the reason", notice)
    else:
        t.ok(any("context-switches (read, kernel included)" in l for l in notice),
             "counted with the kernel, and the notice says so", notice)
        p = r.json()
        t.ok(p.run_total() > 0, "the sleeps and waits switched context (%d)" % p.run_total())
        if h.SANITIZER != "thread":  # TSan takes nanosleep first (t_waits)
            t.ok(p.func("<blocked: nanosleep>")["total"][0] > 0,
                 "... inside the sleeps (%d)" % p.func("<blocked: nanosleep>")["total"][0])

with t.case("cost per call said"):
    r = h.run([prog], env={"PROFVIZ_EVENTS": "task-clock,page-faults"})
    notice = " ".join(h.profviz_lines(r.stderr))
    m = re.search(r"a system call per hook: about ([\d.]+) us per call", notice)
    t.ok(m and float(m.group(1)) > 0, "the notice gives the cost per call (%s)" % notice)
    r = h.run([prog], env={"PROFVIZ_EVENTS": "tsc"})
    t.ok("system call per hook" not in " ".join(h.profviz_lines(r.stderr)),
         "... and says nothing of the kind for the TSC")

# As a user that perf_event_paranoid keeps out of the kernel.
with t.case("not permitted"):
    if os.geteuid() != 0 or not shutil.which("setpriv") or paranoid() < 2:
        t.skip("refused with the reason", "needs root (to become nobody), setpriv and "
               "perf_event_paranoid >= 2 (it is %d)" % paranoid())
    else:
        d = tempfile.mkdtemp(prefix="profviz-nobody-")
        os.chmod(d, 0o777)
        exe = os.path.join(d, "waits")
        so = os.path.join(d, "profviz.so")
        shutil.copy(prog, exe)
        shutil.copy(h.PRELOAD, so)
        for f in (exe, so):
            os.chmod(f, 0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
        env.update(LD_PRELOAD=so, PROFVIZ_EVENTS="context-switches,task-clock",
                   PROFVIZ_OUTPUT=os.path.join(d, "prof.json"))
        p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                            exe], cwd=d, env=env, capture_output=True, text=True)
        t.ok("'context-switches' cannot be counted: it happens only in the kernel, which "
             "perf_event_paranoid=%d does not let this user count" % paranoid() in p.stderr,
             "refused with the reason", p.stderr)
        t.eq(p.stdout, "done\n", "the program ran as ever")
# PROFVIZ_PROGRESS: a line now and then, only when asked for.
with t.case("progress"):
    busy = h.build("busy_for", flags=h.NO_INLINE)
    r = h.run([busy, "2300"], env={"PROFVIZ_PROGRESS": "1"})
    lines = [l for l in h.profviz_lines(r.stderr) if "still profiling" in l]
    t.ok(len(lines) >= 2 and lines[0].startswith("profviz: still profiling: 1 s so far, 1 thread"),
         "asked for: a line a second (%r)" % lines)
    t.eq((r.rc, r.stdout), (0, b"done\n"), "the program ran as ever")
    r = h.run([busy, "1300"])
    t.ok(not any("still profiling" in l for l in h.profviz_lines(r.stderr)),
         "not asked for: nothing")
    r = h.run([busy, "10"], env={"PROFVIZ_PROGRESS": "soon"})
    t.ok("profviz: PROFVIZ_PROGRESS='soon' is not a number of seconds from 0 to 86400; "
         "using 0" in r.stderr.decode(), "a bad value is named, and none used", r.stderr)
t.done()
