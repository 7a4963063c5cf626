#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the rendered graph shows: the hot chain is the reddest and thickest,
however much of its caller a cold arc carries; an arc that cost nothing of
the event is an ordinary arc, and only calls nested in an open activation of
their callee (recursion) are dashed."""
import colorsys
import json
import os
import re
import subprocess
import generated
import harness as h

# The subject is the graph's drawing, on short runs whose every arc has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()
prog = h.build("hotchain", flags=h.NO_INLINE)


def rendered_edges(run):
    """(caller name, callee name) -> the edge's attributes, from graphviz's
    own rendering of prof.dot."""
    out = subprocess.run(["dot", "-Tjson", run.file("prof.dot")], capture_output=True,
                         text=True, check=True).stdout
    g = json.loads(out)
    names = {o["_gvid"]: o["name"] for o in g.get("objects", [])}
    labels = {o["name"]: o.get("label", "") for o in g.get("objects", [])}

    def fn(node):
        name = names[node]
        return "(root)" if name == "root" else labels[name].split("\\n")[0]
    return {(fn(e["tail"]), fn(e["head"])): e for e in g.get("edges", [])}


def hue(edge):
    """0 (red) .. 240 (blue), of the edge's colour."""
    c = edge["color"].lstrip("#")
    r, g, b = (int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return 360 * colorsys.rgb_to_hls(r, g, b)[0]


with t.case("hot chain"):
    r = h.run([prog, "20000000"], env={"PROFVIZ_EDGE_THRESHOLD": "0",
                                       "PROFVIZ_NODE_THRESHOLD": "0"})
    edges = rendered_edges(r)
    hot, cold = edges.get(("hot_outer", "hot_inner")), edges.get(("cold_parent", "cold_child"))
    t.ok(hot and cold, "both arcs rendered (%s)" % sorted(edges))
    hot_shares = [e for k, e in edges.items() if k[0] in ("(root)", "main", "hot_outer",
                                                          "hot_inner")
                  and k[1] in ("main", "hot_outer", "hot_inner", "spin")]
    others = [e for k, e in edges.items() if e not in hot_shares and "dashed" not in
              e.get("style", "")]
    widest_other = max(float(e.get("penwidth", 1)) for e in others)
    t.ok(all(float(e["penwidth"]) > widest_other for e in hot_shares),
         "the hot chain's arcs are the thickest (%s vs %.2f)"
         % ([e["penwidth"] for e in hot_shares], widest_other))
    t.ok(all(hue(e) < min(hue(o) for o in others) for e in hot_shares),
         "... and the reddest (hues %s vs %.0f at least)"
         % ([round(hue(e)) for e in hot_shares], min(hue(o) for o in others)))
    label = (cold or {}).get("label", "")
    of_caller = re.search(r"([\d.]+)% of caller", label)
    t.ok(of_caller and float(of_caller.group(1)) > 95,
         "the cold arc's label still says it carries its caller's time (%s)" % label)
    rec = edges.get(("recurse", "recurse"))
    t.ok(rec is not None and "dashed" in rec.get("style", ""), "the recursion is dashed")

with t.case("an event that does not move"):
    # Page faults: quick() faults in nothing, so its arc costs 0 of the event.
    r = h.run([prog, "1000"], env={"PROFVIZ_EVENTS": "page-faults", "PROFVIZ_COMPENSATE": "0"})
    p = r.json()
    a = p.arc("main", "quick")
    t.ok(a and a["total"][0] == 0 and a["nested_calls"] == 0 and a["calls"] == 3,
         "main -> quick: 3 calls, none nested, costing no page faults (%r)" % a)
    t.eq(p.arc("recurse", "recurse")["nested_calls"], 5, "recurse -> recurse: 5 nested calls")
    edges = rendered_edges(r)
    q = edges.get(("main", "quick"))
    t.ok(q is None or "dashed" not in q.get("style", ""),
         "main -> quick is not drawn as nested (%r)" % (q and q.get("style")))
    t.ok(q is None, "... and, costing nothing, falls under the arc threshold")

with t.case("source paths normalised"):
    # Compiled as build systems often name sources: through "..", with ".".
    odd = os.path.join(h.BUILD, "hotchain-odd-path")
    subprocess.run(["gcc"] + h.INSTRUMENT + h.NO_INLINE + ["-o", odd,
                    "../progs/./hotchain.c"], cwd=h.PROGS, check=True)
    p = h.run([odd, "1000"]).json()
    f = (p.func("hot_inner") or {}).get("file", "")
    # Joined to the directory the compiler ran in, and cleaned: a reader
    # opened elsewhere finds it.
    t.eq(f, os.path.join(h.PROGS, "hotchain.c"), "the file as one clean, whole path")
    dot = open(h.run([odd, "1000"]).file("prof.dot")).read()
    t.ok("/../" not in dot and "/./" not in dot, "no '..' or '.' left in the graph's tooltips")

with t.case("one cap, one rule: the runtime's graph, profviz dot's and the page's"):
    # 101 functions over the node threshold: the cap decides, and it must
    # decide alike in all three. In CPU time, so that a time slice given to
    # another process cannot push a function under the threshold.
    r = h.run([generated.wide_fan()], env={"PROFVIZ_EVENTS": "task-clock"})
    prof = r.file("prof.json")
    box_names = lambda text: sorted(re.findall(r'^  f\d+ \[label="([^"\\]*?)\\n', text, re.M))
    at_exit = box_names(open(r.file("prof.dot")).read())
    again = h.command("dot", prof)
    page = r.file("prof.html")
    made = h.command("html", "-o", page, prof)
    svg = open(page, encoding="utf-8").read() if made.returncode == 0 else ""
    laid = sorted(re.findall(r'<title>f\d+</title>\s*<g id="a_node\d+"><a[^>]*>\s*(?:<[^>]+>\s*)+?'
                             r'<text[^>]*>([^<]*)</text>', svg))
    over = sum(f["total"][0] >= 0.005 * r.json().run_total() for f in r.json().funcs)
    cap = re.search(r"only (\d+) functions shown, the largest selves and the hottest paths to "
                    r"them: (\d+) more", again.stdout)
    t.ok(cap and int(cap.group(1)) == len(at_exit) and int(cap.group(2)) == over - len(at_exit),
         "the default cap: %s boxes drawn of the %d over the threshold, the rest said"
         % (cap and cap.group(1), over), again.stdout[-600:])
    t.eq(box_names(again.stdout), at_exit, "profviz dot draws the runtime's boxes")
    t.eq(laid, at_exit, "profviz html lays out the same boxes", made.stderr)
    converted = r.file("again.dot")
    h.command("convert", prof, converted)
    t.eq(box_names(open(converted).read()), at_exit, "so does profviz convert's .dot")
    t.ok(len(at_exit) < over, "... fewer than the functions over the threshold (%d of %d)"
         % (len(at_exit), over))

t.done()
