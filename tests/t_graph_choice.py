#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which boxes and arcs the graph draws, decided on a profile written by
hand (the choice is profviz's alone, whatever the host's clocks): under the
cap, the functions where the time is spent, with the hottest path to each,
not the wrappers whose totals are large; the caption names the largest self
it hides; and an arc that closes a cycle is drawn, however little of its own
it has (an interpreter's hot loop through a function already open)."""
import json
import os
import re
import tempfile
import harness as h

t = h.Tap()

# name: (self, total, calls); arcs: (caller, callee, calls, nested, total).
FUNCS = {
    "main": (1, 100, 1),
    "wrap_a": (0, 30, 1), "wrap_a2": (0, 30, 1), "leaf_a": (30, 30, 1),
    "wrap_b": (0, 29, 1), "wrap_b2": (0, 29, 1),
    "b1": (11, 11, 1), "b2": (10, 10, 1), "b3": (8, 8, 1),
    "free_nodes": (20, 20, 1),
    "run": (10, 20, 1000), "call": (10, 20, 1000),
}
ARCS = [
    (None, "main", 1, 0, 100),
    ("main", "wrap_a", 1, 0, 30), ("wrap_a", "wrap_a2", 1, 0, 30), ("wrap_a2", "leaf_a", 1, 0, 30),
    ("main", "wrap_b", 1, 0, 29), ("wrap_b", "wrap_b2", 1, 0, 29),
    ("wrap_b2", "b1", 1, 0, 11), ("wrap_b2", "b2", 1, 0, 10), ("wrap_b2", "b3", 1, 0, 8),
    ("main", "free_nodes", 1, 0, 20),
    # The interpreter's cycle: run calls call, which calls run again, 999
    # of 1000 times into an open run: that arc's own total is almost nothing.
    ("main", "run", 1, 0, 20), ("run", "call", 1000, 0, 20), ("call", "run", 1000, 999, 0.01),
]
MS = 1000000


def profile(path):
    names = sorted(FUNCS, key=lambda n: (-FUNCS[n][1], n))
    ids = {n: i for i, n in enumerate(names)}
    doc = {"format": "profviz-1", "program": "/hand/made", "pid": 1, "events": ["time"],
           "units": ["ns"], "kinds": ["sampled"], "run_total": [100 * MS], "threads": 1,
           "functions": [{"id": ids[n], "name": n, "module": "/hand/made",
                          "address": "0x%x" % (0x1000 + 16 * ids[n]), "kind": "plain",
                          "calls": FUNCS[n][2], "self": [FUNCS[n][0] * MS],
                          "total": [FUNCS[n][1] * MS]} for n in names],
           "arcs": [{"caller": None if a is None else ids[a], "callee": ids[b], "calls": c,
                     "nested_calls": nested, "total": [int(total * MS)]}
                    for a, b, c, nested, total in ARCS]}
    with open(path, "w") as f:
        json.dump(doc, f)


def graph(path, *options):
    d = h.command("dot", *options, path)
    boxes = dict(re.findall(r'^  (f\d+) \[label="([^"\\]*?)\\n', d.stdout, re.M))
    arcs = {(boxes.get(a, a), boxes.get(b, b)): attrs for a, b, attrs in
            re.findall(r"^  (f\d+|root) -> (f\d+) \[(.*)\];$", d.stdout, re.M)}
    return d, set(boxes.values()), arcs


path = os.path.join(tempfile.mkdtemp(prefix="profviz-test-"), "hand.json")
profile(path)

with t.case("the cap draws where the time is spent"):
    d, boxes, arcs = graph(path, "--nodes", "6")
    t.eq(d.returncode, 0, "profviz dot", d.stderr)
    t.eq(boxes, {"main", "wrap_a", "wrap_a2", "leaf_a", "free_nodes", "run"},
         "6 boxes: the largest selves (leaf_a 30 %, free_nodes 20 %) with the paths to them, "
         "then what fits (b1's path is 3 boxes, call's 2, run's 1), not wrap_b and wrap_b2, "
         "whose totals are larger and whose selves are 0")
    t.ok(re.search(r"the largest self hidden: b1 \(11\.00%\)", d.stdout),
         "the caption names the largest self it hides", d.stdout[-800:])
    t.ok(re.search(r"only 6 functions shown, the largest selves and the hottest paths to them: "
                   r"6 more are above the threshold", d.stdout), "and says how it chose",
         d.stdout[-800:])

with t.case("room for all: every box over the threshold"):
    d, boxes, arcs = graph(path, "--nodes", "0")
    t.eq(boxes, set(FUNCS), "no cap: all %d" % len(FUNCS))
    t.ok("the largest self hidden" not in d.stdout, "nothing hidden, nothing named")

with t.case("an arc that closes a cycle"):
    d, boxes, arcs = graph(path, "--nodes", "0")
    back = arcs.get(("call", "run"), "")
    t.ok("1000\u00d7" in back and "style=dashed" in back,
         "call -> run, 999 of its 1000 calls into an open run and 0.01 % of its own: drawn, "
         "dashed, with its calls", arcs)

t.done()
