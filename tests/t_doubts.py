#!/usr/bin/env python3
"""When the hooks took much of the raw run, the profile says its times are in
doubt (the graph's caption, `profviz report`) and names the busiest
functions cheaper than their hooks, with the gcc flag that leaves them out of
instrumentation. The advice is followed here: the program rebuilt with that
flag has none of those functions, and its profile no longer doubts itself
(tiny has one short function; in real programs with many, leaving out the
busiest cuts the hooks' cost but leaves the rest as uncertain: README)."""
import json
import os
import re
import subprocess
import harness as h

PROFVIZ = os.path.join(h.ROOT, "profviz")
CALLS = "3000000"
t = h.Tap()


def report(run):
    return subprocess.run([PROFVIZ, "report", "--color", "never", run.file("prof.json")],
                          capture_output=True, text=True)


def hooks_share(run):
    with open(run.file("prof.json")) as f:
        d = json.load(f)
    if not d.get("compensated"):
        return 0.0
    return 1 - d["run_total"][0] / d["raw_run_total"][0]


exe = h.build("tiny", flags=h.NO_INLINE)
with t.case("a program of tiny calls"):
    r = h.run([exe, CALLS])
    t.eq(r.rc, 0, "tiny runs")
    share = hooks_share(r)
    # A 2-multiply leaf and a loop around it, against two counter reads a call.
    t.ok(share >= 0.4, "the hooks took 40%% of the raw run or more (%.0f%%)" % (100 * share))
    dot = open(r.file("prof.dot")).read()
    m = re.search(r"the hooks took (\d+)% of the raw run: the times of functions that cost "
                  r"less than their hooks \(([0-9.]+)(?: ns)? a call\) are uncertain", dot)
    t.ok(m is not None, "the graph's caption says the times are uncertain")
    if m:
        t.ok(abs(int(m.group(1)) - 100 * share) <= 1,
             "with the hooks' share of the JSON's totals (%s%%)" % m.group(1))
    rep = report(r)
    t.eq(rep.returncode, 0, "profviz report reads it")
    m = re.search(r"The hooks took (\d+)% of the raw run.*?the busiest:\n\s+calls\s+self a call"
                  r"\s+function\n(.*?)\nTo cut the hooks' cost.*?\n"
                  r"  -finstrument-functions-exclude-function-list=(\S+)\n", rep.stdout, re.S)
    t.ok(m is not None, "the report lists the busiest functions cheaper than their hooks,"
         " and the flag", diag=rep.stdout[-1500:])
    if m:
        rows = m.group(2).splitlines()
        t.ok(rows and rows[0].split()[-1] == "leaf",
             "the busiest is the leaf, called %s times" % CALLS, diag=m.group(2))
        t.eq(rows[0].split()[0], CALLS, "with its call count")
        flag_names = m.group(3).split(",")
        t.ok("leaf" in flag_names and "main" not in flag_names and "section" not in flag_names,
             "the flag names the leaf, not main nor section, called once (%s)" % m.group(3))

        # Following the advice: the same program built with the flag.
        out = os.path.join(h.BUILD, "tiny-without-leaf")
        fixed = h.build("tiny", flags=h.NO_INLINE + [
            "-finstrument-functions-exclude-function-list=" + m.group(3)], out=out)
        r2 = h.run([fixed, CALLS])
        t.eq(r2.rc, 0, "the rebuilt program runs")
        names = {f["name"] for f in r2.json().data["functions"]}
        t.ok("leaf" not in names and "section" in names,
             "gcc left the leaf out of instrumentation: %s" % sorted(names))
        share2 = hooks_share(r2)
        t.ok(share2 < 0.4, "the hooks now take %.1f%% of the raw run" % (100 * share2))
        rep2 = report(r2)
        t.ok(rep2.returncode == 0 and "The hooks took" not in rep2.stdout,
             "and the report no longer doubts the times")
        t.ok("are uncertain" not in open(r2.file("prof.dot")).read(),
             "nor does the caption")

with t.case("read back, by event"):
    # A saved profile says each event's kind: cycles are spent as time is,
    # and doubted; a count of things done is not. One saved before kinds
    # were recorded (no "kinds") is judged by its events' names.
    with open(r.file("prof.json")) as f:
        saved = json.load(f)
    t.eq(saved["kinds"], ["time"], "the TSC is saved as a time")
    older = dict(saved)
    del older["kinds"]
    for name, kinds, doubted in (("cycles", None, True), ("cpu-cycles", None, True),
                                 ("instructions", None, False), ("r003c", ["cycles"], True),
                                 ("cycles", ["count"], False)):
        path = os.path.join(r.workdir, name + ".json")
        with open(path, "w") as f:
            json.dump(dict(older, events=[name], units=["count"],
                           **({"kinds": kinds} if kinds else {})), f)
        rep = subprocess.run([PROFVIZ, "report", "--color", "never", path],
                             capture_output=True, text=True)
        t.ok(rep.returncode == 0 and ("The hooks took" in rep.stdout) == doubted,
             "%s%s read back: %s" % (name, " (saved as %s)" % kinds[0] if kinds else "",
                                     "times in doubt" if doubted else "no doubt said"),
             diag=rep.stderr[-500:])

with t.case("not compensated"):
    r = h.run([exe, CALLS], env={"PROFVIZ_COMPENSATE": "0"})
    rep = report(r)
    t.ok(rep.returncode == 0 and "The hooks took" not in rep.stdout,
         "a raw profile has no calibrated cost to judge by: no doubts said")
    t.ok("are uncertain" not in open(r.file("prof.dot")).read(), "nor in the caption")
t.done()
