#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A thread still running when the profile is written (a pool's worker
blocked in a condition wait at exit, every thread at a profviz_dump()): its
open calls are counted as if they returned then, in every event, whatever
reads it (sampled time, the TSC, task-clock through read(2) from another
thread). So its work hangs from its root, no self or total exceeds the run,
and a thread's run is near the CPU it used. A thread whose events cannot be
read then (the program closed them) is said to be cut short: in the JSON,
on stderr, in the graph's caption and in profviz report. A profile whose run
total is below its selves' sum (written before this) never draws a share
over 100 %, and says why."""
import json
import os
import re
import harness as h

t = h.Tap()
prog = h.build("live_worker", flags=h.NO_INLINE + ["-I" + os.path.join(h.ROOT, "include")],
               libs=["-pthread"])
TASK_CLOCK = {"PROFVIZ_EVENTS": "task-clock"}


def run(mode, env, outputs="prof.json,prof.dot"):
    r = h.run([prog, mode], env=env, outputs=outputs)
    t.eq((r.rc, r.stdout), (0, b"done\n"), "%s: the program runs as without the runtime" % mode)
    return r


def worker_thread(p):
    """The thread that crunched: the one that used the most CPU."""
    return max(p.data["per_thread"], key=lambda x: x["cpu_seconds"] or 0)


def check_totals(p, what):
    """No self or total above the run's, in any event, and the selves add up
    to it (to the rounding)."""
    d = p.data
    for e, name in enumerate(d["events"]):
        run_total = d["run_total"][e]
        over = [f["name"] for f in p.funcs if max(f["self"][e], f["total"][e]) > run_total]
        t.ok(run_total > 0 and not over,
             "%s, %s: no self or total above the run's (%d): %s" % (what, name, run_total, over))
        selves = sum(f["self"][e] for f in p.funcs)
        slack = len(p.funcs) + len(d["arcs"])
        t.ok(abs(selves - run_total) <= slack,
             "%s, %s: the selves add up to the run (%d, run %d)" % (what, name, selves, run_total))


def check_worker(p, what, e):
    """The worker's work under its root, and its run between most of its
    CPU and its wall time, whatever the clock."""
    name = p.data["events"][e]
    root, crunch = p.arc(None, "worker"), p.arc("worker", "crunch")
    t.ok(root and crunch and root["total"][e] >= crunch["total"][e] > 0,
         "%s, %s: the worker's subtree hangs from its root (root->worker %s, worker->crunch %s)"
         % (what, name, root and root["total"][e], crunch and crunch["total"][e]))
    w = worker_thread(p)
    cpu, wall = w["cpu_seconds"] * 1e9, w["wall_seconds"] * 1e9
    # task-clock counts on perf's clock, the thread's CPU clock on the
    # scheduler's (which leaves out time stolen by the hypervisor, as much
    # as the host's load makes it): near, not equal. Whatever clock the
    # time was read or sampled on, the thread ran no longer than it lived:
    # its wall time bounds the run. A run that lost the open calls has 0
    # here.
    t.ok(0.7 * cpu <= w["total"][e] <= 1.05 * wall + 1e6,
         "%s, %s: the worker's run is near the CPU it used (%d ns, CPU %d ns, wall %d ns)"
         % (what, name, w["total"][e], cpu, wall))


with t.case("exit, task-clock per call beside sampled time"):
    p = run("exit", TASK_CLOCK).json()
    check_totals(p, "task-clock")
    for e in (0, 1):
        check_worker(p, "task-clock", e)
    t.eq(p.data["losses"]["threads_cut_short"], 0, "task-clock: no thread cut short")
    t.eq(h.schema_errors(p.data), [], "task-clock: the JSON keeps to its schema")

with t.case("exit, task-clock read by the hooks alone"):
    p = run("exit", dict(TASK_CLOCK, PROFVIZ_TIME="hooks")).json()
    check_totals(p, "hooks task-clock")
    check_worker(p, "hooks task-clock", 0)

with t.case("exit, the TSC and sampled time"):
    for env, what in (({"PROFVIZ_TIME": "hooks", "PROFVIZ_EVENTS": "tsc"}, "tsc"),
                      ({}, "sampled")):
        p = run("exit", env).json()
        check_totals(p, what)
        check_worker(p, what, 0)

with t.case("profviz_dump while both threads run"):
    r = run("dump", TASK_CLOCK)
    mid = r.json("mid.json")
    check_totals(mid, "mid-run")
    for e in (0, 1):
        check_worker(mid, "mid-run", e)
    main = mid.arc(None, "main")
    # Its sampled total so far is its wait for the worker (blocked time),
    # and what samples its own little CPU got; under TSan, whose runtime
    # takes pthread_cond_wait over, the wait is not seen, and main's CPU
    # before the dump may have had no sample.
    wait_seen = h.SANITIZER != "thread"
    t.ok(main and main["total"][1] > 0 and (main["total"][0] > 0 or not wait_seen),
         "mid-run: main, still open, has its total so far (%s)" % (main and main["total"]))
    t.ok(r.json().calls("crunch") == 1 and r.json().arc(None, "main")["total"][1] >=
         main["total"][1], "mid-run: profiling went on, main's total at exit is larger")

with t.case("a worker whose events the program closed: cut short"):
    r = run("closefrom", TASK_CLOCK, outputs="prof.json,prof.dot")
    p = r.json()
    w = worker_thread(p)
    cut = [x["tid"] for x in p.data["per_thread"] if x.get("cut_short")]
    t.eq(cut, [w["tid"]], "closed: the worker, and it alone, is cut short in the JSON")
    t.eq(p.data["losses"]["threads_cut_short"], 1, "closed: counted in the losses")
    t.eq(h.schema_errors(p.data), [], "closed: the JSON keeps to its schema")
    said = [l for l in h.profviz_lines(r.stderr) if "1 threads still running whose events "
            "could not be read at the end" in l]
    t.ok(len(said) == 1, "closed: said on stderr", h.profviz_lines(r.stderr))
    check_totals(p, "closed")
    root, crunch = p.arc(None, "worker"), p.arc("worker", "crunch")
    t.ok(root["total"][1] >= crunch["total"][1] > 0,
         "closed: its costs up to its last hook still hang from its root")
    dot = open(r.file("prof.dot")).read()
    t.ok("1 thread still running at the end could not be read then: its open calls' costs "
         "stop at its last hook" in dot and "(cut short: not read at the end)" in dot,
         "closed: the graph's caption says so, and which thread")
    rep = h.command("report", "--color", "never", r.file("prof.json"))
    t.ok("1 thread still running at the end could not be read then" in rep.stdout,
         "closed: profviz report says so", rep.stdout[:600])


def shares_over_100(text):
    return [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", text) if float(x) > 100.0001]


with t.case("a run total below its selves' sum (an older profile)"):
    r = run("exit", TASK_CLOCK, outputs="prof.json")
    doc = r.json().data
    # As the runtime wrote it when a worker's open calls were lost: its
    # thread's run and its root arc 0, so the run's total is main's alone.
    wid = doc["functions"].index(next(f for f in doc["functions"] if f["name"] == "worker"))
    for a in doc["arcs"]:
        if a["caller"] is None and a["callee"] == wid:
            a["total"] = [0] * len(a["total"])
            a["raw_total"] = [0] * len(a["raw_total"])
    for f in doc["functions"]:
        if f["name"] == "worker":
            f["total"] = f["raw_total"] = [0] * len(f["total"])
    doc["run_total"] = [sum(a["total"][e] for a in doc["arcs"] if a["caller"] is None)
                        for e in range(len(doc["events"]))]
    doc["raw_run_total"] = list(doc["run_total"])
    old = h.write_json(r.workdir, "old.json", doc)
    for e in ("time", "task-clock"):
        rep = h.command("report", "--color", "never", "--event", e, "--top", "0", old)
        t.eq(shares_over_100(rep.stdout), [], "old, %s: profviz report shows no share over 100%%"
             % e)
        t.ok("the run's total was" in rep.stdout and "shares are of the selves' sum" in rep.stdout,
             "old, %s: ... and says its run total was below its selves" % e, rep.stdout[:800])
    out = os.path.join(r.workdir, "old.dot")
    d = h.command("dot", "-n", "0", "-e", "0", "-o", out, old)
    dot = open(out).read() if d.returncode == 0 else ""
    t.eq(shares_over_100(dot), [], "old: profviz dot draws no share over 100%")
    t.ok("the run's total was" in dot, "old: ... and its caption says why")
t.done()
