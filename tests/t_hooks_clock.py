#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PROFVIZ_TIME=hooks times calls with the TSC: wall time. When the threads'
work took more of it than the CPU they ran (by more than the two clocks
disagree), the graph's caption and the report's heading say how much of the
times was off the CPU; when it did not, they say nothing."""
import json
import re
import harness as h

t = h.Tap()
prog = h.build("offcpu", flags=h.NO_INLINE)
SAID = r"the hooks' clock is the wall's: the threads' work took ([\d.]+) ms where they ran " \
       r"([\d.]+) ms of CPU, so ([\d.]+) ms of these times is time off their CPU"

with t.case("a block outside libc's waits"):
    r = h.run([prog, "200"], outputs="prof.json,prof.dot", env={"PROFVIZ_TIME": "hooks"})
    t.eq(r.rc, 0, "the program ran")
    caption = open(r.file("prof.dot")).read()
    m = re.search(SAID, caption)
    t.ok(m and float(m.group(3)) >= 190, "the caption says the 200 ms block is in the times",
         caption[-1200:])
    rep = h.command("report", r.file("prof.json"))
    t.ok(re.search(SAID, rep.stdout.split("\n\n")[0]), "so does the report's heading",
         rep.stdout[:1000])

with t.case("no time off the CPU"):
    # The same profile, its threads' CPU made their times: nothing to say.
    doc = json.load(open(r.file("prof.json")))
    for x in doc["per_thread"]:
        x["cpu_seconds"] = x.get("raw_total", x["total"])[0] / 1e9
    path = r.file("on_cpu.json")
    json.dump(doc, open(path, "w"))
    rep = h.command("report", path)
    d = h.command("dot", path)
    t.ok(rep.returncode == 0 and not re.search(SAID, rep.stdout) and
         not re.search(SAID, d.stdout), "neither the report nor the graph says it",
         rep.stdout[:600])

with t.case("sampled time"):
    r = h.run([prog, "200"], outputs="prof.json")
    rep = h.command("report", r.file("prof.json"))
    t.ok(not re.search(SAID, rep.stdout), "sampled time counts only CPU: nothing said")
t.done()
