#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A large real C program: SQLite's speedtest1 on its amalgamation (some
1,150 functions and 20 million calls at --size 5), from Debian's source
package.
Every function's and every arc's call count must equal callgrind's on the
same binary without the preload; and the rendered graph must read as it
claims: arcs coloured and thickened by their share of the run, dashed only
when all their calls were nested in an open activation of the callee, and
no two boxes alike."""
import collections
import colorsys
import json
import os
import re
import subprocess
import sys
import harness as h
import callgrind

SIZE = "5"  # callgrind takes about 15 s on it
ARGS = ["--size", SIZE, "--memdb", "--verify"]

t = h.Tap()
src, why = h.fetch_source("sqlite3")
if not src:
    t.skip("sqlite3 from Debian sources", why)
    t.done()


sys.path.insert(0, os.path.join(h.ROOT, "bench"))
import realprogs  # noqa: E402

# The same build as the benchmarks' (bench/realprogs.py), cached in build/progs.
argv, why = realprogs.build_sqlite_speedtest1()
if not argv:  # the source is here: a build that fails is a failure
    t.ok(False, "speedtest1 builds: %s" % why)
    t.done()
exe = argv[0]


def without_timing(out):
    # speedtest1 prints how long each step took: the only text that may differ.
    return re.sub(rb" +[0-9.]+s$", b"", out, flags=re.M)


def rendered_graph(run):
    """graphviz's rendering of prof.dot: (boxes by graphviz id, edges)."""
    out = subprocess.run(["dot", "-Tjson", run.file("prof.dot")], capture_output=True,
                         text=True, check=True).stdout
    g = json.loads(out)
    return {o["_gvid"]: o for o in g.get("objects", [])}, g.get("edges", [])


def source_of(box):
    """(name, file, line) of a box, from its tooltip (name, file:line, ...);
    None for the program's root."""
    if box["name"] == "root":
        return None
    parts = box["tooltip"].split("\\n")
    m = re.match(r"(.*):(\d+)$", parts[1])
    return (parts[0], m.group(1), int(m.group(2))) if m else (parts[0], None, 0)


# The arc threshold of the low-threshold runs, in % of the run.
EDGE_THRESHOLD = 0.01


def merged_arcs(p):
    """The profile's arcs summed per (caller, callee) source definition, as
    the graph shows one box per definition: {(caller, callee): [calls,
    nested calls, total]}; and each definition's total."""
    key = {f["id"]: (f["name"], f.get("file"), f.get("line", 0)) for f in p.funcs}
    arcs = collections.defaultdict(lambda: [0, 0, 0])
    totals = collections.Counter()
    for f in p.funcs:
        totals[key[f["id"]]] += f["total"][0]
    for a in p.data["arcs"]:
        m = arcs[(key.get(a["caller"]), key[a["callee"]])]
        m[0] += a["calls"]
        m[1] += a["nested_calls"]
        m[2] += a["total"][0]
    return arcs, totals


def arc_name(k):
    return "%s -> %s" % (k[0][0] if k[0] else "(root)", k[1][0])


def hue(edge):
    """0 (red) .. 240 (blue), of the edge's colour."""
    c = edge["color"].lstrip("#")
    r, g, b = (int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return 360 * colorsys.rgb_to_hls(r, g, b)[0]


def check_graph(r, p, what, edge_threshold):
    """The graph checks shared by the runs; returns the edges with their
    arcs from the JSON: [(edge, (caller, callee), [calls, nested, total])]."""
    boxes, edges = rendered_graph(r)
    arcs, totals = merged_arcs(p)
    labels = collections.Counter(b.get("label") for b in boxes.values())
    same = [l for l, n in labels.items() if n > 1]
    t.ok(not same, "%s: no two boxes have the same text (%d boxes)" % (what, len(boxes)), same)
    shown = []
    for e in edges:
        k = (source_of(boxes[e["tail"]]), source_of(boxes[e["head"]]))
        shown.append((e, k, arcs.get(k)))
    unknown = [k for e, k, a in shown if a is None]
    t.ok(not unknown, "%s: every arc drawn is an arc of the JSON (%d)" % (what, len(shown)),
         unknown[:10])
    shown = [s for s in shown if s[2] is not None]
    # Dashed exactly when every call was nested in an open activation of
    # the callee, or some were and what is its own is under the arc
    # threshold (drawn for the cycle it closes); other partly nested arcs
    # have a total of their own.
    least = edge_threshold / 100 * p.run_total()
    wrong = ["%s: calls %d, nested %d, total %d, style %r" % (arc_name(k), a[0], a[1], a[2],
                                                              e.get("style"))
             for e, k, a in shown
             if ("dashed" in e.get("style", "")) !=
             (k[0] is not None and a[1] > 0 and (a[1] == a[0] or a[2] < least))]
    t.ok(not wrong, "%s: dashed are the arcs whose every call was nested, or that close a "
         "cycle with too little of their own, only they (%d of %d)"
         % (what, sum("dashed" in e.get("style", "") for e, _, _ in shown), len(shown)), wrong)
    return shown, totals


with t.case("speedtest1 --size " + SIZE):
    # Thresholds low enough to draw some arcs that were nested for part of
    # their calls only: SQLite's expression walkers recurse through them.
    # Arcs of 0.01 % of a run this short have no samples: the times the
    # hooks read give every one its cost. Every box over the threshold
    # drawn: no cap.
    r = h.run([exe] + ARGS, env={"PROFVIZ_NODE_THRESHOLD": "0.03", "PROFVIZ_NODES": "0",
                                 "PROFVIZ_EDGE_THRESHOLD": str(EDGE_THRESHOLD),
                                 "PROFVIZ_TIME": "hooks"})
    plain = h.run([exe] + ARGS, preload=False)
    t.eq(r.rc, 0, "speedtest1 runs to its end under the preload")
    t.ok(b"Verification Hash:" in r.stdout, "it checked its own results")
    t.eq(without_timing(r.stdout), without_timing(plain.stdout),
         "its output (and results' hash) is unchanged")
    t.eq(h.strip_profviz(r.stderr), plain.stderr, "its stderr too")
    p = r.json()
    t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0), "no unmatched hooks")
    t.eq(sum(p.data["losses"].values()), 0, "nothing lost (%r)" % p.data["losses"])
    n, wrong = callgrind.compare(exe, p, plain.workdir, ARGS)
    calls = sum(f["calls"] for f in p.funcs)
    t.ok(n >= 1000, "profile covers SQLite's functions (%d, %d calls)" % (n, calls))
    t.ok(not wrong, "every function's calls equal callgrind's (%d functions)" % n,
         "\n".join(wrong))
    n, wrong = callgrind.compare_arcs(exe, p, os.path.join(plain.workdir, "callgrind.out"))
    t.ok(n >= 2000, "profile has SQLite's arcs (%d)" % n)
    t.ok(not wrong, "every arc's calls equal callgrind's (%d arcs)" % n, "\n".join(wrong[:40]))

    shown, totals = check_graph(r, p, "low thresholds", EDGE_THRESHOLD)
    partly = [k for e, k, a in shown if 0 < a[1] < a[0]]
    t.ok(len(partly) >= 3, "arcs nested for part of their calls only are drawn (%d)"
         % len(partly))
    run = p.run_total()
    solid = [(e, k, a) for e, k, a in shown if "dashed" not in e.get("style", "")]
    share = {id(e): a[2] / run for e, k, a in solid}
    # Width and colour follow the arc's share of the run, whatever share of
    # its caller it carries.
    wrong = ["%s: share %.4f, penwidth %s" % (arc_name(k), share[id(e)], e["penwidth"])
             for e, k, a in solid
             if abs(float(e["penwidth"]) - max(4 * share[id(e)], 0.5)) > 0.006]
    t.ok(not wrong, "each arc's width is 4 x its share of the run, 0.5 at least (%d arcs)"
         % len(solid), wrong[:20])
    wrong = ["%s: share %.4f, hue %.1f" % (arc_name(k), share[id(e)], hue(e))
             for e, k, a in solid if abs(hue(e) - 240 * (1 - share[id(e)])) > 2]
    t.ok(not wrong, "... and its colour the boxes' scale at that share (blue 240 .. red 0)",
         wrong[:20])
    hottest = max(solid, key=lambda s: share[id(s[0])])
    below = [s for s in solid if share[id(s[0])] < share[id(hottest[0])] - 0.01]
    t.ok(below and all(float(hottest[0]["penwidth"]) > float(e["penwidth"]) and
                       hue(hottest[0]) < hue(e) for e, _, _ in below),
         "the hottest arc (%s) is the widest and reddest" % arc_name(hottest[1]))
    inner = sorted((s for s in solid if s[1][0] is not None), key=lambda s: -share[id(s[0])])
    top = inner[:10]
    t.ok(all(float(e["penwidth"]) >= float(o["penwidth"]) and hue(e) <= hue(o) + 1
             for e, _, _ in top for o, _, _ in inner[10:]),
         "the ten arcs with the largest share are the widest and reddest of the %d shown"
         % len(inner))
    wrong = []
    for e, k, a in inner:
        m = re.search(r"([\d.]+)% of caller", e["label"])
        want = 100 * a[2] / totals[k[0]] if totals[k[0]] else 0
        if not m or abs(float(m.group(1)) - want) > 0.051:
            wrong.append("%s: %r, want %.1f" % (arc_name(k), e["label"], want))
    t.ok(not wrong, "each label says its share of the caller", wrong[:20])

with t.case("an event most arcs cost nothing of"):
    # Page faults: most arcs fault in nothing; with no arc threshold they are
    # drawn, and must be drawn as ordinary arcs.
    args = ["--size", "1", "--memdb", "--verify"]
    r = h.run([exe] + args, env={"PROFVIZ_EVENTS": "page-faults", "PROFVIZ_EDGE_THRESHOLD": "0",
                                 "PROFVIZ_NODE_THRESHOLD": "1", "PROFVIZ_NODES": "0"})
    t.eq(r.rc, 0, "speedtest1 runs to its end")
    p = r.json()
    if p.data["events"] != ["page-faults"]:
        t.skip("arcs costing nothing", "page-faults cannot be counted here (%r)"
               % p.data["events"])
    else:
        shown, _ = check_graph(r, p, "page faults", 0)
        idle = [(e, k, a) for e, k, a in shown if a[2] == 0 and a[1] == 0]
        t.ok(len(idle) >= 10, "arcs that cost no page fault are drawn (%d)" % len(idle))
        t.ok(all("dashed" not in e.get("style", "") for e, _, _ in idle), "... none of them dashed")
t.done()
