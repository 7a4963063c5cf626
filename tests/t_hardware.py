#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hardware counters through rdpmc, where this machine has a PMU: counts grow,
cycles track ref-cycles, and a loop of known length retires its instructions
within 1%. Where there is no PMU every test says it is skipped, and why."""
import harness as h

t = h.Tap()
prog = h.build("counters", flags=h.NO_INLINE)
TESTS = ["rdpmc backend chosen", "counts grow", "cycles close to ref-cycles",
         "known loop's instructions within 1%", "instructions and cycles give an IPC"]

probe = h.run([prog, "10"], env={"PROFVIZ_EVENTS": "cycles"})
why = [l for l in h.profviz_lines(probe.stderr) if "cannot be counted" in l]
if why:
    for name in TESTS:
        t.skip(name, "no hardware PMU here: " + why[0].split("cannot be counted: ")[1].split(";")[0])
    t.done()

with t.case("instructions,cycles,ref-cycles"):
    r = h.run([prog, "10"], env={"PROFVIZ_EVENTS": "instructions,cycles,ref-cycles"})
    p = r.json()
    t.eq(p.data["backends"][0], "rdpmc", TESTS[0])
    t.ok(all(v > 0 for v in p.func("heavy")["total"]), TESTS[1])
    cyc, ref = p.run_total(1), p.run_total(2)
    t.ok(0.3 < cyc / ref < 3, TESTS[2] + " (%.2f)" % (cyc / ref))
    expected = 2 * 10000000 + 1
    t.near(p.func("known_loop")["self"][0], expected, 0.01, TESTS[3])
    t.ok("IPC " in open(r.file("prof.dot")).read(), TESTS[4])
t.done()
