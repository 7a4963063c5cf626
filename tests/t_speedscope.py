#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""speedscope's file format (.speedscope.json): valid by speedscope's own
schema, its numbers those of the JSON profile of the same run, and loaded by
speedscope itself in headless chromium, as is the .folded file."""
import json
import os
import re
import shutil
import subprocess
import jsonschema
import harness as h

# The subject is the speedscope writer, on short runs whose every function has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()
JS = os.path.join(h.ROOT, "tests", "js")
SCHEMA = os.path.join(JS, "node_modules", "speedscope", "dist", "release",
                      "file-format-schema.json")
UNITS = {"ns": "nanoseconds", "count": "none"}
# Each path's cost and each function's are converted to output units apart,
# so sums over paths may be off by one unit per path.


def off_by_rounding(got, want, terms):
    return abs(got - want) <= max(terms, 1)


def contiguous(stacks):
    """Whether every subtree's samples sit side by side (depth-first order)."""
    last_seen = {}
    for i, s in enumerate(stacks):
        for d in range(1, len(s) + 1):
            prefix = tuple(s[:d])
            if prefix in last_seen and last_seen[prefix] != i - 1:
                return False
            last_seen[prefix] = i
    return True


def json_stacks(p, ev):
    """The JSON's call paths with self cost in event ev, as name tuples."""
    paths = p.data["paths"]
    out = {}
    for q in paths:
        if not q["self"][ev]:
            continue
        names, at = [], q
        while at is not None:
            names.append(p.by_id[at["function"]]["name"])
            at = paths[at["parent"]] if at["parent"] is not None else None
        out[tuple(reversed(names))] = q["self"][ev]
    return out


prog = h.build("ss_shapes", flags=h.NO_INLINE + ["-pthread"])
# A clock and a count: one profile each, in their own units.
EVENTS = {"PROFVIZ_EVENTS": "task-clock,page-faults"}
run = h.run([prog], outputs="x.json,x.speedscope.json,x.folded", env=EVENTS)
with t.case("schema"):
    t.eq(run.rc, 0, "the program ran")
    with open(run.file("x.speedscope.json")) as f:
        doc = json.load(f)
    with open(SCHEMA) as f:
        schema = json.load(f)
    errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]
    t.ok(not errors, "valid by speedscope's schema", "\n".join(errors))
    t.eq((doc["$schema"], doc["exporter"], doc["activeProfileIndex"]),
         ("https://www.speedscope.app/file-format-schema.json", "profviz", 0),
         "$schema, exporter and the first profile shown")

    def numbers(x):
        if isinstance(x, dict):
            return [n for v in x.values() for n in numbers(v)]
        if isinstance(x, list):
            return [n for v in x for n in numbers(v)]
        return [x] if isinstance(x, (int, float)) and not isinstance(x, bool) else []
    t.ok(all(isinstance(n, int) for n in numbers(doc)), "integers only")

with t.case("same numbers as the JSON profile"):
    p = run.json("x.json")
    frames = doc["shared"]["frames"]
    t.eq([(f["name"], f.get("file"), f.get("line")) for f in frames],
         [(f["name"], f.get("file"), f.get("line")) for f in p.funcs],
         "one frame per function, with its file and line")
    names = [f["name"] for f in frames]
    profiles = doc["profiles"]
    t.eq([(q["type"], q["name"], q["unit"], q["startValue"], q["endValue"]) for q in profiles],
         [("sampled", "%s (%s)" % (p.data["program"], e), UNITS[u], 0, total)
          for e, u, total in zip(p.data["events"], p.data["units"], p.data["run_total"])],
         "one sampled profile per event: its name, unit, and the run total as its end")
    for ev, q in enumerate(profiles):
        ev_name = p.data["events"][ev]
        stacks = [tuple(names[i] for i in s) for s in q["samples"]]
        weights = q["weights"]
        t.eq(dict(zip(stacks, weights)), json_stacks(p, ev),
             "%s: one sample per call path with self cost, weighted by it" % ev_name)
        t.ok(len(set(stacks)) == len(stacks) and all(w > 0 for w in weights),
             "%s: no path twice, no empty weight" % ev_name)
        t.ok(contiguous(stacks), "%s: samples in depth-first order" % ev_name, stacks)
        t.ok(not any(s.count("walk") > 1 for s in stacks), "%s: recursion folded" % ev_name)
        bad = []
        for f in p.funcs:
            leaf = [w for s, w in zip(stacks, weights) if s[-1] == f["name"]]
            inside = [w for s, w in zip(stacks, weights) if f["name"] in s]
            if not off_by_rounding(sum(leaf), f["self"][ev], len(leaf)):
                bad.append("%s self: %d in samples, %d in JSON" %
                           (f["name"], sum(leaf), f["self"][ev]))
            if not off_by_rounding(sum(inside), f["total"][ev], len(inside)):
                bad.append("%s total: %d in samples, %d in JSON" %
                           (f["name"], sum(inside), f["total"][ev]))
        t.ok(not bad, "%s: every function's self and total, summed from the samples, are "
             "the JSON's" % ev_name, "\n".join(bad))
    clock = profiles[0]
    t.eq([p.calls(n) for n in ("leaf_a", "middle", "walk", "leaf_b", "worker")], [3, 5, 7, 8, 2],
         "the program's shape: its functions' calls")

with t.case("folded: integers, one space"):
    lines = open(run.file("x.folded")).read().splitlines()
    bad = [l for l in lines if not re.fullmatch(r"[^ ](.*[^ ])? [0-9]+", l)]
    t.ok(lines and not bad, "every line 'stack N', one space before an integer", bad)


def sandwich(text):
    """speedscope's sandwich table, {name: (total, self)} as shown."""
    rows = text.split("Symbol Name\n", 1)[1].split("\n")
    return {rows[i + 2].strip(): (rows[i].strip(), rows[i + 1].strip())
            for i in range(0, len(rows) - 2, 3)}


def shown_value(cell):
    """'6.18ms (77%)' or '6,180,817 (77%)' as a number (ns or a count)."""
    m = re.match(r"([\d.,]+)\s*(ns|µs|ms|s)?\s", cell + " ")
    scale = {None: 1, "ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]
    return float(m.group(1).replace(",", "")) * scale


with t.case("speedscope loads them"):
    # As a forked child's file is named: speedscope knows it by its $schema.
    renamed = run.file("x.speedscope.77.json")
    shutil.copy(run.file("x.speedscope.json"), renamed)
    proc = subprocess.run(["node", os.path.join(JS, "load_speedscope.js"),
                           run.file("x.speedscope.json"), run.file("x.folded"), renamed],
                          capture_output=True, text=True, timeout=60)
    t.eq(proc.returncode, 0, "the page ran in chromium: " + proc.stderr.strip()[-300:])
    ss, folded, child = json.loads(proc.stdout)
    t.eq(ss["page_errors"] + folded["page_errors"] + child["page_errors"], [], "no page error")
    t.ok("log: Importing as speedscope json file" in ss["console"],
         ".speedscope.json read as speedscope's own format", ss["console"])
    t.ok("log: Importing as speedscope json file" in child["console"] and
         child["title"] == ss["title"], "... also by its content, under another name",
         child["console"])
    t.ok("log: Importing as collapsed stack format" in folded["console"],
         ".folded read as collapsed stacks", folded["console"])
    t.eq(ss["title"], p.data["program"] + " - speedscope", "the page is named after the program")
    first = "%s (%s) (1/%d)" % (p.data["program"], p.data["events"][0], len(p.data["events"]))
    t.ok(first in ss["text"].splitlines(), "the first event's profile shown, of %d" %
         len(p.data["events"]), ss["text"][:300])
    shown = sandwich(ss["text"])
    t.eq(sorted(shown), sorted(names), "every function listed by speedscope")
    bad = ["%s: shows %s, JSON %d %d" % (n, cells, p.func(n)["total"][0], p.func(n)["self"][0])
           for n, cells in shown.items() if not
           all(abs(shown_value(c) - want) <= 0.01 * want + 10
               for c, want in zip(cells, (p.func(n)["total"][0], p.func(n)["self"][0])))]
    t.ok(not bad, "speedscope's total and self per function are the JSON's (to 3 digits)",
         "\n".join(bad))
    shown = sandwich(folded["text"])
    t.eq(sorted(shown), sorted(names), "from .folded: every function listed")
    bad = ["%s: shows %s, JSON %d %d" % (n, cells, p.func(n)["total"][0], p.func(n)["self"][0])
           for n, cells in shown.items() if not
           all(off_by_rounding(shown_value(c), want, 8)
               for c, want in zip(cells, (p.func(n)["total"][0], p.func(n)["self"][0])))]
    t.ok(not bad, "from .folded: speedscope's total and self per function are the JSON's",
         "\n".join(bad))
t.done()
