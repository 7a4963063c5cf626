#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Same-named functions: copies of one header function (static, compiled
into two files) are kept apart in the JSON, each with its address, and shown
as one box in the graph; two different static functions that share a name
are two boxes, told apart by file:line."""
import re
import harness as h

t = h.Tap()
prog = h.build("copies", sources=["copies.c", "copies_other.c"], flags=h.NO_INLINE)

with t.case("copies"):
    r = h.run([prog], env={"PROFVIZ_NODE_THRESHOLD": "0", "PROFVIZ_EDGE_THRESHOLD": "0"})
    p = r.json()
    helpers = [f for f in p.funcs if f["name"] == "helper"]
    steps = [f for f in p.funcs if f["name"] == "step"]
    t.eq(len(helpers), 2, "JSON: the two copies of helper kept apart")
    t.eq(sorted(f["calls"] for f in helpers), [5, 6], "... with their own calls (5 and 6)")
    t.ok(len({f["address"] for f in helpers}) == 2 and
         len({(f["file"], f["line"]) for f in helpers}) == 1,
         "... each with its address, one file:line")
    t.eq(len(steps), 2, "JSON: the two step functions")

    dot = open(r.file("prof.dot")).read()
    labels = re.findall(r'f\d+ \[label="([^"]*)"', dot)
    helper_boxes = [l for l in labels if l.split("\\n")[0] == "helper"]
    t.eq(len(helper_boxes), 1, "graph: one helper box (%r)" % helper_boxes)
    t.ok(helper_boxes and "11\u00d7" in helper_boxes[0],
         "... with both copies' calls (5 + 6 = 11)")
    t.ok("2 copies of it" in dot, "... whose tooltip says it stands for 2 copies")
    step_boxes = sorted(l.split("\\n")[1] for l in labels if l.split("\\n")[0] == "step")
    t.ok(len(step_boxes) == 2 and step_boxes[0].startswith("copies.c:") and
         step_boxes[1].startswith("copies_other.c:"),
         "graph: two step boxes, told apart by file:line (%r)" % step_boxes)
    arcs = re.findall(r"(f\d+) -> (f\d+) ", dot)
    t.eq(len(arcs), len(set(arcs)), "graph: one arc per pair of boxes")
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "graph renders", err)
t.done()
