#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""profviz merge: the profiles of a parent and its forked children summed into
one, checked against the inputs read here (functions, arcs and call paths by
name), the processes it records, a merge with itself, profiles from runs at
other addresses, and the files it must refuse."""
import glob
import json
import os
import harness as h

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
prog = h.build("dm_fork", flags=h.NO_INLINE)


profviz = h.command


load = h.load_json


def name_of(d, fid):
    return None if fid is None else d["functions"][fid]["name"]


def functions(d):
    """name -> (calls, self, total, raw_self, raw_total)"""
    return {f["name"]: (f["calls"], f["self"], f["total"], f["raw_self"], f["raw_total"])
            for f in d["functions"]}


def arcs(d):
    """(caller name or None, callee name) -> (calls, nested_calls, total)"""
    return {(name_of(d, a["caller"]), name_of(d, a["callee"])):
            (a["calls"], a["nested_calls"], a["total"]) for a in d["arcs"]}


def paths(d):
    """(names from the root down) -> (calls, self, total, raw_self)"""
    out, names = {}, []
    for p in d["paths"]:
        chain = (names[p["parent"]] if p["parent"] is not None else ()) + \
            (d["functions"][p["function"]]["name"],)
        names.append(chain)
        out[chain] = (p["calls"], p["self"], p["total"], p["raw_self"])
    return out


def add(x, y):
    """Sum two records field by field (numbers and per-event lists)."""
    return tuple([a + b for a, b in zip(u, v)] if isinstance(u, list) else u + v
                 for u, v in zip(x, y))


def summed(tables):
    out = {}
    for table in tables:
        for k, v in table.items():
            out[k] = add(out[k], v) if k in out else v
    return out


def mismatches(got, want):
    return ["%r: got %r, want %r" % (k, got.get(k), want.get(k))
            for k in sorted(set(got) | set(want), key=repr) if got.get(k) != want.get(k)]


def refused(r, out, names, what):
    """exit 2, one line on stderr naming each of names, no output written."""
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and all(n in lines[0] for n in names) and
         not os.path.exists(out), "%s: exit 2, one line naming %s, nothing written" %
         (what, " and ".join(os.path.basename(n) for n in names)),
         "rc %d, stderr %r, output exists: %s" % (r.returncode, r.stderr, os.path.exists(out)))


def parent_of(paths):
    """The parent's profile: the one process that entered main."""
    return [p for p in paths
            if any(f["name"] == "main" and f["calls"] == 1 for f in load(p)["functions"])][0]


run = h.run([prog], outputs="prof.%p.json")
inputs = sorted(glob.glob(run.file("prof.*.json")))
t.eq((run.rc, len(inputs)), (0, 4), "the parent and its three children each wrote a profile")
datas = [load(p) for p in inputs]
merged_path = run.file("all.json")

with t.case("merge"):
    r = profviz("merge", "-o", merged_path, *inputs)
    t.ok(r.returncode == 0 and r.stderr == "", "merge of 4 processes: exit 0, nothing on stderr",
         r.stderr)
    m = load(merged_path)
    names = [f["name"] for f in m["functions"]]
    t.eq(len(names), len(set(names)), "each function once, whatever its address in each process")
    t.eq(mismatches(functions(m), summed(functions(d) for d in datas)), [],
         "every function's calls, self, total, raw_self and raw_total: the sum of the inputs'")
    t.eq(mismatches(arcs(m), summed(arcs(d) for d in datas)), [],
         "every arc's calls, nested calls and total: the sum of the inputs'")
    t.eq(mismatches(paths(m), summed(paths(d) for d in datas)), [],
         "every call path's calls, self, total and raw_self: the sum of the inputs'")
    t.ok(all(p["parent"] is None or p["parent"] < i for i, p in enumerate(m["paths"])),
         "every path after its parent")
    t.ok("via_b" in names and ("child", "via_b") in arcs(m) and
         ("child", "work_a") in arcs(m) and ("main", "work_a") in arcs(m),
         "work only some processes did is in, and a function reached by several paths")
    t.eq(sorted((p["pid"], p["from"], p["program"]) for p in m["processes"]),
         sorted((d["pid"], path, d["program"]) for d, path in zip(datas, inputs)),
         "processes: each input's program, pid and file")
    t.eq(m["run_total"], [sum(x) for x in zip(*(d["run_total"] for d in datas))],
         "run_total: the sum of the runs'")
    t.eq(m["raw_run_total"], [sum(x) for x in zip(*(d["raw_run_total"] for d in datas))],
         "raw_run_total: the sum of the runs'")
    t.eq(m["threads"], sum(d["threads"] for d in datas), "threads: summed")
    t.eq(len(m["per_thread"]), sum(len(d["per_thread"]) for d in datas),
         "per_thread: the inputs' lists one after the other")
    t.eq(m["wall_seconds"], max(d["wall_seconds"] for d in datas), "wall_seconds: the longest")
    t.eq((m["pid"], m["program"]), (datas[0]["pid"], datas[0]["program"]),
         "pid and program: the first profile's")
    t.eq(m["compensated"], all(d["compensated"] for d in datas), "compensated as all were")
    totals = [f["total"][0] for f in m["functions"]]
    t.ok(totals == sorted(totals, reverse=True) and
         [f["id"] for f in m["functions"]] == list(range(len(names))),
         "functions hottest first, ids their positions")
    rep = profviz("report", "--top", "0", merged_path)
    t.ok(rep.returncode == 0 and "child_only" in rep.stdout and
         "merged from %d processes" % len(m["processes"]) in rep.stdout.splitlines()[0],
         "profviz report reads the merged profile, and says how many processes",
         rep.stderr + rep.stdout[:300])
    svg = profviz("dot", "-o", run.file("all.dot"), merged_path)
    ok, err = h.dot_renders(run.file("all.dot"))
    t.ok(svg.returncode == 0 and ok, "its graph renders", svg.stderr + err)

with t.case("merge with itself"):
    twice = run.file("twice.json")
    r = profviz("merge", "-o", twice, inputs[0], inputs[0])
    d, m = datas[0], load(twice)

    def doubled(table):
        return {k: add(v, v) for k, v in table.items()}
    t.ok(r.returncode == 0 and not mismatches(functions(m), doubled(functions(d))) and
         not mismatches(arcs(m), doubled(arcs(d))) and
         not mismatches(paths(m), doubled(paths(d))),
         "a profile merged with itself: every count and cost doubled",
         r.stderr + "\n".join(mismatches(functions(m), doubled(functions(d)))))
    t.eq(len(m["processes"]), 2, "... and lists the process twice")

with t.case("merge of a merge"):
    again = run.file("again.json")
    r = profviz("merge", "-o", again, merged_path, inputs[1])
    m = load(again)
    t.eq(sorted((p["pid"], p["from"]) for p in m["processes"]),
         sorted([(d["pid"], p) for d, p in zip(datas, inputs)] +
                [(datas[1]["pid"], inputs[1])]),
         "a merged input brings its own processes, with the files they came from")
    t.eq(mismatches(functions(m), summed([functions(load(merged_path)), functions(datas[1])])),
         [], "... and its sums")

with t.case("other addresses"):
    # Two runs of the program load it at other addresses (ASLR): the same
    # functions still match, by module and name.
    other = h.run([prog], outputs="prof.%p.json")
    parent1 = parent_of(inputs)
    parent2 = parent_of(glob.glob(other.file("prof.*.json")))
    d1, d2 = load(parent1), load(parent2)
    moved = {f["name"]: f["address"] for f in d1["functions"]} != \
        {f["name"]: f["address"] for f in d2["functions"]}
    out = run.file("runs.json")
    r = profviz("merge", "-o", out, parent1, parent2)
    m = load(out)
    t.eq(sorted(f["name"] for f in m["functions"]),
         sorted(set(f["name"] for f in d1["functions"] + d2["functions"])),
         "two runs at other addresses: one function per name (addresses %s)" %
         ("differ" if moved else "the same: no ASLR here"))
    t.eq(mismatches(functions(m), summed([functions(d1), functions(d2)])), [],
         "... each the sum of both runs'")

with t.case("different events"):
    clock = h.run([prog], outputs="prof.%p.json", env={"PROFVIZ_EVENTS": "task-clock"})
    clock_parent = parent_of(glob.glob(clock.file("prof.*.json")))
    out = run.file("mixed.json")
    r = profviz("merge", "-o", out, inputs[0], clock_parent)
    refused(r, out, [inputs[0], clock_parent], "tsc with task-clock")
    t.ok("task-clock" in r.stderr and datas[0]["events"][0] in r.stderr,
         "... the message names both files' events", r.stderr)

with t.case("different programs"):
    # Another program's profile: refused, unless --force, which says so.
    other_prog = h.build("cmd_shapes", flags=h.NO_INLINE)
    stranger = h.run([other_prog], outputs="stranger.json", workdir=run.workdir)
    foreign = stranger.file("stranger.json")
    out = run.file("strangers.json")
    r = profviz("merge", "-o", out, inputs[0], foreign)
    refused(r, out, [foreign], "another program's profile")
    t.ok("cmd_shapes" in r.stderr and "dm_fork" in r.stderr and "--force" in r.stderr,
         "... the message names both programs and --force", r.stderr)
    r = profviz("merge", "--force", "-o", out, inputs[0], foreign)
    m = load(out)
    t.ok(r.returncode == 0 and "warning" in r.stderr and "cmd_shapes" in r.stderr,
         "--force: merged, with a warning naming the other program", r.stderr)
    t.eq(sorted(os.path.basename(p["program"]) for p in m["processes"]),
         sorted(["dm_fork", "cmd_shapes"]), "... and the processes name both programs")

with t.case("bad files"):
    bad = {
        "empty": "",
        "truncated": open(inputs[1]).read()[:2000],
        "foreign": '{"a":1}',
        "not an object": "[1, 2]",
        "wrong types": json.dumps(dict(datas[1], functions={"x": 1})),
        "bad reference": json.dumps(dict(datas[1], arcs=[{"caller": None, "callee": 9999,
                                                          "calls": 1, "total": [1]}])),
    }
    for what, text in bad.items():
        path = run.file("bad-%s.json" % what.replace(" ", "-"))
        with open(path, "w") as f:
            f.write(text)
        out = run.file("never.json")
        # The bad file second: the first is already merged when it is read.
        refused(profviz("merge", "-o", out, inputs[0], path), out, [path], what)
    missing = run.file("no-such.json")
    refused(profviz("merge", "-o", out, missing, inputs[0]), out, [missing], "missing file")

with t.case("usage"):
    r = profviz("merge", inputs[0], inputs[1])
    t.ok(r.returncode == 2 and "-o" in r.stderr, "no -o: exit 2, says it is required",
         r.stderr)
    out = run.file("all.xyz")
    r = profviz("merge", "-o", out, inputs[0])
    t.ok(r.returncode == 2 and ".json" in r.stderr and not os.path.exists(out),
         "-o with no known extension: exit 2 before reading anything", r.stderr)
    r = profviz("merge", "--help")
    t.ok(r.returncode == 0 and "usage: profviz merge" in r.stdout, "--help")
    r = profviz("merge", "-o", run.file("one.json"), inputs[2])
    m = load(run.file("one.json"))
    t.ok(r.returncode == 0 and mismatches(functions(m), functions(datas[2])) == [] and
         [p["pid"] for p in m["processes"]] == [datas[2]["pid"]],
         "one profile alone: the same figures, and its process listed")

t.done()
