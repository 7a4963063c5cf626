#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""profviz html: the page made from a real profile, driven in Debian's
chromium (tests/js/html_check.js): no errors, no network, search, focus,
hot path, table sorting, the icicle's zoom and the threshold sliders, each
checked against the JSON profile of the same run; the hot path of a
function called on two paths (each step's share along its call path, as
the JSON's paths have it); a 701-function page;
the profile embedded intact even when its strings hold "</script>"; a page
of sampled time (its samples, marks and precision); a page with calls the
compiler inlined (where they ran, in the table and the panel; the arcs
marked); and the command's errors (bad JSON, no dot on PATH)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import generated
import harness as h
import sampled

# The subject is the page, on short runs whose every function has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
NODE_DIR = os.path.join(h.ROOT, "tests", "js")
tmp = tempfile.mkdtemp(prefix="profviz-html-")
shots = os.path.join(tmp, "shots")
os.makedirs(shots)
FLAGS = h.NO_INLINE


def profviz(*args, env=None):
    return h.command(*args, cwd=tmp, env=env)


def embedded(page, element_id):
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % element_id, page, re.S)
    return json.loads(m.group(1)) if m else None


def slider_expect(page, prof, node_min, arc_min, keep=None):
    """What the sliders at node_min/arc_min (% of the run; None: the bottom)
    should leave drawn, from the JSON: boxes (a box's total is its copies'
    sum) and arcs (summed between two boxes) among those graphviz laid out,
    arcs with a hidden end hidden, nested arcs by their ends only; the box
    keep (focused) stays, with its arcs to boxes drawn. (nodes, edges, count
    text)."""
    run = prof["run_total"][0]
    boxes = embedded(page, "boxes")
    laid_nodes = set(re.findall(r"<title>(f\d+)</title>", page))
    laid_edges = {k.replace("&#45;&gt;", "->")
                  for k in re.findall(r"<title>((?:f\d+|root)&#45;&gt;f\d+)</title>", page)}
    share = lambda total: 100 * min(total, run) / run
    box_total, arcs = {}, {}
    for i, f in enumerate(prof["functions"]):
        box_total["f%d" % boxes[i]] = box_total.get("f%d" % boxes[i], 0) + f["total"][0]
    for a in prof["arcs"]:
        k = ("root" if a["caller"] is None else "f%d" % boxes[a["caller"]]) + "->f%d" % boxes[a["callee"]]
        e = arcs.setdefault(k, [0, 0, 0, a["caller"] is None])
        e[0] += a["total"][0]
        e[1] += a["calls"]
        e[2] += a["nested_calls"]
    nodes = {"root"} | {k for k in laid_nodes
                        if node_min is None or k == keep or share(box_total[k]) >= node_min}
    edges = set()
    for k in laid_edges:
        total, calls, nested, from_root = arcs[k]
        nested = not from_root and calls > 0 and nested == calls
        if set(k.split("->")) <= nodes and (arc_min is None or nested or keep in k.split("->")
                                            or share(total) >= arc_min):
            edges.add(k)
    n = lambda k, one: "%d %s%s" % (k, one, "" if k == 1 else "s")
    hidden = len(laid_nodes) + 1 - len(nodes), len(laid_edges) - len(edges)
    return nodes, edges, "hidden by the sliders: %s, %s" % (n(hidden[0], "function"), n(hidden[1], "arc"))


def slider_checks(what, page, prof, state, node_min, arc_min, keep=None):
    nodes, edges, count = slider_expect(page, prof, node_min, arc_min, keep)
    t.eq(set(state["nodes"]), nodes, "%s: exactly the boxes of share >= the node slider drawn" % what)
    t.eq(set(state["edges"]), edges, "%s: exactly the arcs of share >= the arc slider, both ends "
         "drawn" % what)
    t.eq(state["count"], count, "%s: the count says %r" % (what, count))
    return nodes, edges


def one_line(r, name, *words):
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and all(w in lines[0] for w in words), name,
         "rc %d, stderr: %r" % (r.returncode, r.stderr))


# The program lives where its path holds "</script>" and "<!--": every
# string of the profile naming it must come through the page intact.
odd = os.path.join(tmp, "w<!--x<", "script>")
os.makedirs(odd)
prog = h.build("vw_hot", flags=FLAGS, out=os.path.join(odd, "vw_hot"))
# In CPU time, so that its hot chain is the program's whatever the load: on
# the clock, a time slice given to another process lands on whichever
# function was running, and side_one's half a millisecond can outweigh
# alpha's 4.5.
run = h.run([prog], outputs="prof.json", workdir=tmp, env={"PROFVIZ_EVENTS": "task-clock"})
HOT_JSON = os.path.join(tmp, "prof.json")
prof = json.load(open(HOT_JSON))
funcs = prof["functions"]
name_of = [f["name"] for f in funcs]
ids = {f["name"]: i for i, f in enumerate(funcs)}
# beta's hot lines, as a run that samples PCs writes them.
BETA_LINES = [{"file": "/src/vw_hot.c", "line": 31, "samples": 60},
              {"file": "/src/vw_hot.c", "line": 32, "samples": 30},
              {"file": None, "line": 0, "samples": 10}]
funcs[ids["beta"]]["lines"] = BETA_LINES
json.dump(prof, open(HOT_JSON, "w"))

with t.case("command"):
    r = profviz("html", "-o", "hot.html", HOT_JSON)
    t.eq((r.returncode, r.stderr), (0, ""), "html: exit 0, nothing said")
    page = open(os.path.join(tmp, "hot.html"), encoding="utf-8").read()
    t.eq(embedded(page, "profile"), prof, "html: the profile embedded intact (its '</script>' escaped)")
    boxes = embedded(page, "boxes")
    t.ok(isinstance(boxes, list) and len(boxes) == len(funcs), "html: a box for each function id")
    t.ok(not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page),
         "html: nothing loaded from elsewhere")
    viz = os.path.join(h.ROOT, "viz")
    inlined = [n for n in os.listdir(viz) if n.endswith((".js", ".css"))]
    t.ok(inlined and not [n for n in inlined if re.search(r"</(script|style)",
                                                           open(os.path.join(viz, n)).read(), re.I)],
         "html: no viz/ file could end the element it is inlined in")
    # The graph's boxes are the dot writer's: the same names under the same keys.
    d = profviz("dot", HOT_JSON)
    dot_names = dict(re.findall(r'^  (f\d+) \[label="([^"\\]*)', d.stdout, re.M))
    svg_names = dict(re.findall(r'<title>(f\d+)</title>\s*<g id="a_node\d+"><a[^>]*>\s*(?:<[^>]+>\s*)+?'
                                r'<text[^>]*>([^<]*)</text>', page))
    t.ok(dot_names and svg_names == dot_names, "html: the SVG's boxes are the dot writer's",
         "%r\n%r" % (svg_names, dot_names))
    t.ok(all(name_of[i] == dot_names.get("f%d" % b, name_of[i]) for i, b in enumerate(boxes)),
         "html: each function's box has its name")

with t.case("copies"):
    # A header's static function: two ids in the JSON, one box in the graph.
    cp = h.build("copies", sources=["copies.c", "copies_other.c"], flags=FLAGS)
    h.run([cp], outputs="copies.json", workdir=tmp)
    cprof = json.load(open(os.path.join(tmp, "copies.json")))
    r = profviz("html", "-n", "0", "-e", "0", "-o", "copies.html", os.path.join(tmp, "copies.json"))
    cpage = open(os.path.join(tmp, "copies.html"), encoding="utf-8").read()
    cboxes = embedded(cpage, "boxes")
    source = [(f["name"], f.get("file"), f.get("line")) for f in cprof["functions"]]
    helpers = [i for i, f in enumerate(cprof["functions"]) if f["name"] == "helper"]
    t.ok(len(helpers) == 2 and cboxes[helpers[0]] == cboxes[helpers[1]],
         "copies: the two ids of one header function share a box", (helpers, cboxes))
    t.eq(len(set(cboxes)), len(set(source)), "copies: a box per function as its source defines it")
    label = re.search(r"<title>f%d</title>.*?<text[^>]*>([^<]*)</text>" % cboxes[helpers[0]], cpage, re.S)
    t.ok(label and label.group(1) == "helper", "copies: that box is helper's in the SVG")

with t.case("errors"):
    bad = os.path.join(tmp, "bad.json")
    open(bad, "w").write('{"format": "profviz-1", "functions": [')
    one_line(profviz("html", "-o", "bad.html", bad), "bad JSON: exit 2, one line naming the file", bad)
    t.ok(not os.path.exists(os.path.join(tmp, "bad.html")), "bad JSON: no page")
    nodot = os.path.join(tmp, "empty-bin")
    os.makedirs(nodot)
    one_line(profviz("html", "-o", "nodot.html", HOT_JSON, env={"PATH": nodot}),
             "dot missing from PATH: exit 2, one line saying so", "dot", "graphviz")
    t.ok(not os.path.exists(os.path.join(tmp, "nodot.html")), "dot missing: no page")
    t.eq(profviz("html", HOT_JSON).returncode, 2, "no -o: exit 2")

# ~700 functions in a tree, every box in the graph. (How soon the page is
# usable is make bench's: bench/scale.py.) In CPU time too: its whole run
# is under a millisecond on the clock, less than one time slice given to
# another process, which would then leave a handful of boxes above the
# sliders. In task-clock each call costs about as much as any other (what
# a short function keeps of its hooks, compensate.h), so the shares follow
# the tree: a function calling three leaves 4/700 of the run (0.57 %), the
# one above it 13/700 (1.9 %); the sliders go to 0.2 % and 1 %.
many = generated.page_tree()
h.run([many], outputs="many.json", workdir=tmp, env={"PROFVIZ_EVENTS": "task-clock"})
MANY_JSON = os.path.join(tmp, "many.json")
many_prof = json.load(open(MANY_JSON))
r = profviz("html", "-n", "0", "-e", "0", "--nodes", "0", "-o", "many.html", MANY_JSON)
t.eq(r.returncode, 0, "html: the 701-function page, every function a box", r.stderr)

# The same profile as if the hooks had taken two thirds of the raw run: its
# page says the times are uncertain (lib/model/trust.h), in the bar.
doubted = dict(prof, compensated=True, raw_run_total=[3 * prof["run_total"][0]] +
               prof["raw_run_total"][1:])
json.dump(doubted, open(os.path.join(tmp, "doubt.json"), "w"))
with t.case("doubt"):
    t.ok(prof.get("overhead"), "the run was calibrated (its overhead per call is in the JSON)")
    r = profviz("html", "-o", "doubt.html", os.path.join(tmp, "doubt.json"))
    t.eq(r.returncode, 0, "html: the doubted profile's page", r.stderr)
    made = embedded(open(os.path.join(tmp, "doubt.html"), encoding="utf-8").read(), "thresholds")
    t.ok(made["doubt"].startswith("the hooks took 67% of the raw run: "),
         "html: the page is made with the caption's sentence", made)
    hot_share = 1 - prof["run_total"][0] / prof["raw_run_total"][0] if prof["compensated"] else 0
    t.eq(embedded(page, "thresholds")["doubt"] is not None, hot_share >= 0.4,
         "html: the run's own page doubts only if the hooks took 40%% of it (%.0f%%)"
         % (100 * hot_share))

# A short run of sampled time (tests/sampled.py): its page shows the samples.
SAMPLED = sampled.profile(1)
json.dump(SAMPLED, open(os.path.join(tmp, "sampled.json"), "w"))
with t.case("sampled"):
    r = profviz("html", "-n", "0", "-e", "0", "-o", "sampled.html", os.path.join(tmp, "sampled.json"))
    t.eq(r.returncode, 0, "html: a page of sampled time", r.stderr)
    made = embedded(open(os.path.join(tmp, "sampled.html"), encoding="utf-8").read(), "thresholds")
    t.ok(made["few"] == 10 and made["sampling"].startswith("time sampled at 1000 Hz (got 1,009 a CPU-second): 924 samples;")
         and made["doubt"].startswith("a short run: 924 samples"),
         "html: the page is made with the few-samples limit, the sampling and the short run", made)
    # Its wait (200 ms of 1124) apart from the work (924 ms): the page
    # embeds the profile as it shows it, that view.
    shown = embedded(open(os.path.join(tmp, "sampled.html"), encoding="utf-8").read(), "profile")
    wait_in = next(f for f in SAMPLED["functions"] if f["kind"] == "wait")
    wait_shown = next(f for f in shown["functions"] if f["kind"] == "wait")
    t.eq((shown["run_total"], shown.get("waited"), wait_shown["total"]),
         ([924 * sampled.MS, SAMPLED["run_total"][1]], [200 * sampled.MS, 0], wait_in["total"]),
         "html: the page's profile is the work's, its waits apart (\"waited\"), a wait's own kept")
    t.eq(h.schema_errors(shown), [], "html: that profile is valid profviz-1")
    r = profviz("html", "--waits", "in", "-n", "0", "-e", "0", "-o", "sampled_in.html",
                os.path.join(tmp, "sampled.json"))
    t.eq(r.returncode, 0, "html --waits in: the page", r.stderr)
    t.eq(embedded(open(os.path.join(tmp, "sampled_in.html"), encoding="utf-8").read(), "profile"),
         SAMPLED, "html --waits in: the profile embedded as it was")
    r = profviz("html", "--waits", "inside", "-o", "bad.html", os.path.join(tmp, "sampled.json"))
    one_line(r, "html --waits inside: exit 2, one line saying what it takes", "--waits", "'apart' or 'in'")

# Calls the compiler inlined: progs/inlined.c built as is (gcc -O2).
INLINED_ROUNDS = 200
inl = h.build("inlined")
h.run([inl, str(INLINED_ROUNDS)], outputs="inlined.json", workdir=tmp)
inl_prof = json.load(open(os.path.join(tmp, "inlined.json")))
with t.case("inlined"):
    r = profviz("html", "-n", "0", "-e", "0", "-o", "inlined.html", os.path.join(tmp, "inlined.json"))
    t.eq(r.returncode, 0, "html: a page with inlined calls", r.stderr)
    inl_boxes = embedded(open(os.path.join(tmp, "inlined.html"), encoding="utf-8").read(), "boxes")
    inl_ids = {f["name"]: i for i, f in enumerate(inl_prof["functions"])}
    inl_edge = "f%d->f%d" % (inl_boxes[inl_ids["sum_kinds"]], inl_boxes[inl_ids["kind_of"]])



def made_profile(rows, program="/opt/made/prog"):
    """A profile made by hand from its call paths, in ns of a clock read by
    the hooks: rows of (path from the root as names, self ns, calls), each
    after its parent. Functions and arcs are summed from the paths (no
    recursion: every path counts in its function's total), hottest first,
    as the writer orders them."""
    names = []
    for path, _, _ in rows:
        if path[-1] not in names:
            names.append(path[-1])
    total = {}
    for path, self_ns, _ in rows:
        for depth in range(1, len(path) + 1):
            total[path[:depth]] = total.get(path[:depth], 0) + self_ns
    func = {n: dict(self=0, total=0, calls=0) for n in names}
    arc = {}
    for path, self_ns, calls in rows:
        f = func[path[-1]]
        f["self"] += self_ns
        f["total"] += total[path]
        f["calls"] += calls
        a = arc.setdefault((path[-2] if len(path) > 1 else None, path[-1]), dict(total=0, calls=0))
        a["total"] += total[path]
        a["calls"] += calls
    order = sorted(names, key=lambda n: (-func[n]["total"], -func[n]["calls"], n))
    ids = {n: i for i, n in enumerate(order)}
    run = sum(total[path] for path, _, _ in rows if len(path) == 1)
    index = {path: i for i, (path, _, _) in enumerate(rows)}
    return {
        "format": "profviz-1", "revision": 4, "program": program, "pid": 77,
        "events": ["tsc"], "backends": ["tsc"], "units": ["ns"], "kinds": ["time"],
        "running_ratio": [1], "run_total": [run], "compensated": False, "raw_run_total": [run],
        "threads": 1, "wall_seconds": run / 1e9, "stray_exits": 0, "resyncs": 0,
        "losses": {"unrecorded_calls": 0, "merge_failures": 0, "lost_records": 0,
                   "counters_lost": 0, "rekeys_incomplete": 0},
        "functions": [{"id": ids[n], "name": n, "module": program, "address": "0x%x" % (0x401000 + 64 * i),
                       "file": "prog.c", "line": 10 * (i + 1), "kind": "plain",
                       "calls": func[n]["calls"], "samples": 0, "self": [func[n]["self"]],
                       "total": [func[n]["total"]], "raw_self": [func[n]["self"]],
                       "raw_total": [func[n]["total"]]} for i, n in enumerate(order)],
        "per_thread": [],
        "arcs": sorted(({"caller": None if caller is None else ids[caller], "callee": ids[callee],
                         "calls": a["calls"], "nested_calls": 0, "total": [a["total"]],
                         "raw_total": [a["total"]]} for (caller, callee), a in arc.items()),
                       key=lambda a: -a["total"][0]),
        "paths": [{"parent": index[path[:-1]] if len(path) > 1 else None, "function": ids[path[-1]],
                   "calls": calls, "samples": 0, "self": [self_ns], "total": [total[path]],
                   "raw_self": [self_ns]} for path, self_ns, calls in rows],
    }


def cct_hot_path(prof):
    """The hot path along the calling-context tree: from the root, the
    heaviest child path at each step whose function is not on it yet, while
    it costs anything. [(function name, the path's total, its calls)]."""
    paths, names = prof["paths"], [f["name"] for f in prof["functions"]]
    steps, on, parent = [], set(), None
    while True:
        kids = sorted((p for p in paths if p["parent"] == parent and p["function"] not in on),
                      key=lambda p: -p["total"][0])
        if not kids or kids[0]["total"][0] <= 0:
            return steps
        p = kids[0]
        steps.append((names[p["function"]], p["total"][0], p["calls"]))
        on.add(p["function"])
        parent = paths.index(p)


# shared is called on two paths: through heavy, where its time is mostly
# inner_a's, and through light, where it is inner_b's. The arc
# shared -> inner_b is the heavier over the whole run (50 ms to 43), but
# along the hot path (main, heavy, shared) inner_a is, with 40 ms of its
# arc's 43: the panel must follow the path, with each step's share of the
# run there.
MS = 1000000
TWO_PATHS = made_profile([
    (("main",), 1 * MS, 1),
    (("main", "heavy"), 1 * MS, 1),
    (("main", "heavy", "shared"), 10 * MS, 400),
    (("main", "heavy", "shared", "inner_a"), 40 * MS, 4000),
    (("main", "heavy", "shared", "inner_b"), 5 * MS, 300),
    (("main", "light"), 1 * MS, 1),
    (("main", "light", "shared"), 2 * MS, 100),
    (("main", "light", "shared", "inner_a"), 3 * MS, 200),
    (("main", "light", "shared", "inner_b"), 45 * MS, 2700),
])
json.dump(TWO_PATHS, open(os.path.join(tmp, "two_paths.json"), "w"))
with t.case("two paths"):
    r = profviz("html", "-n", "0", "-e", "0", "-o", "two_paths.html", os.path.join(tmp, "two_paths.json"))
    t.eq(r.returncode, 0, "html: a page of a function called on two paths", r.stderr)

cfg = os.path.join(tmp, "cfg.json")
# The sliders go just above side_three's share (hiding its box) and then
# above main->side_one's (hiding arcs between boxes still drawn): shares
# from this run, since timing moves them a little.
RUN = prof["run_total"][0]
share_of = lambda v: 100 * v / RUN
s3 = share_of(funcs[ids["side_three"]]["total"][0])
side_one_arc = share_of(next(a["total"][0] for a in prof["arcs"]
                             if a["caller"] == ids["main"] and a["callee"] == ids["side_one"]))
json.dump({"hot": os.path.join(tmp, "hot.html"), "many": os.path.join(tmp, "many.html"),
           "doubt": os.path.join(tmp, "doubt.html"), "sampled": os.path.join(tmp, "sampled.html"),
           "sampledIn": os.path.join(tmp, "sampled_in.html"),
           "inlined": os.path.join(tmp, "inlined.html"), "inlinedEdge": inl_edge,
           "twoPaths": os.path.join(tmp, "two_paths.html"),
           "shots": shots, "nodeAbove": s3, "arcAbove": side_one_arc}, open(cfg, "w"))
b = subprocess.run(["node", os.path.join(NODE_DIR, "html_check.js"), cfg], capture_output=True,
                   text=True, cwd=NODE_DIR, timeout=120)
try:
    seen = json.loads(b.stdout)
except ValueError:
    seen = {"exception": "no JSON from html_check.js: %s %s" % (b.stdout[-2000:], b.stderr[-2000:])}
t.ok("exception" not in seen or not seen["exception"], "browser: every step ran", seen.get("exception"))
print("# screenshots in " + shots)

with t.case("browser"):
    s = seen["seen"]
    t.eq(s["errors"], [], "browser: no page errors")
    t.eq(s["console"], [], "browser: no console errors or warnings")
    t.eq(s["requests"], [], "browser: no network requests")
    t.eq(seen["title"], "profviz: vw_hot", "browser: the program's name in the bar")
    d = seen.get("doubtSummary") or {}
    t.ok(d.get("text", "").endswith(" \u00b7 times uncertain") and
         (d.get("doubt") or "").startswith("the hooks took 67% of the raw run"),
         "browser: a doubted profile's bar says so, the sentence on hover", d)
    t.eq((seen.get("hotSummary") or {}).get("doubt") is not None, hot_share >= 0.4,
         "browser: the run's own bar, only if the hooks took 40% of it")
    sp = seen.get("sampled") or {}
    t.ok(sp.get("summary", "").startswith("time 924.000 ms") and " \u00b7 924 samples" in sp["summary"]
         and (sp.get("sampling") or "").startswith(
             "time sampled at 1000 Hz (got 1,009 a CPU-second): 924 samples;")
         and "\na share of 10% is good to \u00b1" in sp["sampling"],
         "sampled page: the bar says the work and the samples, how they were taken on hover", sp)
    t.ok(" \u00b7 waits apart: 17.79% of wall" in sp.get("summary", "") and
         (sp.get("waits") or "").startswith("Shares are of the work (924.000 ms). Time blocked in "
                                            "libc's waits (200.000 ms) is apart"),
         "sampled page: the bar says the waits are apart, 200 ms of the 1124 ms wall", sp.get("waits"))
    # compute's total is 900 ms: of the work (924 ms) by default, of the
    # wall with the waits inside (1124 ms); the wait's 200 ms of the wall.
    t.eq(sorted(r[:2] for r in sp.get("totals", []) if r[0] in ("compute", "<blocked: nanosleep>")),
         [["<blocked: nanosleep>", "17.79% of wall"], ["compute", "97.40%"]],
         "sampled page: the table's shares of the work, a wait's of the wall")
    si = seen.get("sampledIn") or {}
    t.ok(si.get("summary", "").startswith("time 1.124 s") and not si.get("waits"),
         "sampled page, --waits in: the bar says the run with its waits, and no waits apart", si)
    t.eq(sorted(r[:2] for r in si.get("totals", []) if r[0] in ("compute", "<blocked: nanosleep>")),
         [["<blocked: nanosleep>", "17.79%"], ["compute", "80.07%"]],
         "sampled page, --waits in: the table's shares of the run with its waits")
    t.ok((sp.get("doubt") or "").startswith("a short run: 924 samples (under 1000)"),
         "sampled page: a short run's bar says its times are uncertain", sp.get("doubt"))
    t.eq(sp.get("dashed"), sorted(sampled.FEW), "sampled page: exactly the few-samples boxes dashed")
    t.ok("<blocked: nanosleep>" in sp.get("labels", []),
         "sampled page: a wait's box shows its name, '<blocked: nanosleep>'", sp.get("labels"))
    st = sp.get("table") or {}
    t.ok("Samples" in st.get("heads", []) and
         "Samples" not in [h.split(" ")[0] for h in seen.get("hotHeads", [])],
         "table: a Samples column for sampled time only", (st.get("heads"), seen.get("hotHeads")))
    want = sorted([f["name"], "%d%s" % (f["samples"], " ?" if f["name"] in sampled.FEW else ""),
                   f["name"] in sampled.FEW] for f in SAMPLED["functions"])
    t.eq(sorted(st.get("rows", [])), want, "table: each function's samples, '?' on the few")
    pn = sp.get("panel") or {}
    t.ok("samples\t4 ? (self \u00b150%)" in pn.get("rare", "") and
         "samples\t600 (self \u00b14%)" in pn.get("compute", "") and
         "samples\tnone: its self is blocked time, measured" in pn.get("wait", "") and
         "self\t200.000 ms (17.79% of wall)" in pn.get("wait", ""),
         "panel: samples behind the self and what it is good to; '?' when few; a wait's "
         "measured", pn)

    il = seen.get("inlined") or {}
    n = INLINED_ROUNDS * 1000
    t.ok("Inlined" not in [x.split(" ")[0] for x in seen.get("hotHeads", [])] and
         "Inlined" in (il.get("table") or {}).get("heads", []),
         "table: an Inlined column only when the profile has inlined calls")
    t.eq(sorted(r[:2] for r in (il.get("table") or {}).get("rows", []) if r[1]),
         sorted([["kind_of", "inlined into sum_kinds"],
                 ["weight", "%s calls inlined into sum_kinds" % format(n, ",")]]),
         "table: where each function's inlined calls ran, all of them or some")
    ip = il.get("panel") or {}
    t.ok("\ninlined into sum_kinds\n" in ip.get("kind_of", ""),
         "panel: a function inlined everywhere says into what", ip.get("kind_of"))
    t.ok(re.search(r"\nkind_of\t[^\n]*\t%s, inlined$" % format(n, ","), ip.get("sum_kinds", ""), re.M) and
         re.search(r"\nweight\t[^\n]*\t%s, inlined$" % format(n, ","), ip.get("sum_kinds", ""), re.M),
         "panel: the host's callees say their calls were inlined", ip.get("sum_kinds"))
    t.ok(re.search(r"\nsum_kinds\t[^\n]*\t%s, inlined$" % format(n, ","), ip.get("weight", ""), re.M) and
         re.search(r"\nmain\t[^\n]*\t%s$" % format(INLINED_ROUNDS, ","), ip.get("weight", ""), re.M) and
         "\n%s calls inlined into sum_kinds\n" % format(n, ",") in ip.get("weight", ""),
         "panel: of a function inlined at some calls, which arc was, and how many", ip.get("weight"))
    t.ok(inl_edge in il.get("dashed", []), "graph: the inlined arc is dashed", il.get("dashed"))
    t.ok("calls\t%s, inlined" % format(n, ",") in il.get("edgeTip", ""),
         "hover on that arc: its calls, inlined", il.get("edgeTip"))

    f = funcs[ids["gamma"]]
    want = [f["name"], "%s:%d" % (f["file"], f["line"]), prog, "calls"]
    t.ok(seen["tip"] and all(w in seen["tip"] for w in want),
         "hover: full name, file:line, module (with its '</script>'), calls", seen["tip"])

    pz = seen["panZoom"]
    t.ok(pz["zoomed"][2] < pz["before"][2] and pz["panned"][2] == pz["zoomed"][2] and
         pz["panned"][0] != pz["zoomed"][0], "graph: the wheel zooms in, a drag pans", pz)

    for q, pred in (("substring", lambda n: "side_" in n.lower()),
                    ("regex", lambda n: re.search(r"^(alpha|beta)$", n))):
        want = sorted(n for n in name_of if pred(n))
        got = seen["search"][q]
        t.ok(got["count"] == str(len(want)) and sorted(got["marked"]) == want and len(want) > 1,
             "search (%s): says %d, marks them" % (q, len(want)), got)
    t.ok(seen["search"]["bad"]["text"] == "not a regular expression"
         and not seen["search"]["bad"]["marked"], "search: a bad /regex/ said, nothing marked")

    # focus: beta, its callers and callees kept, the rest faded
    fo = seen["focus"]
    callers = {name_of[a["caller"]] for a in prof["arcs"] if a["callee"] == ids["beta"]
               and a["caller"] is not None}
    callees = {name_of[a["callee"]] for a in prof["arcs"] if a["caller"] == ids["beta"]}
    labels = {n["label"] for n in fo["nodes"]}
    kept = {n["label"] for n in fo["nodes"] if n["opacity"] == 1}
    faded = {n["label"] for n in fo["nodes"] if n["opacity"] < 0.5}
    t.eq(kept, ({"beta"} | callers | callees) & labels, "focus: beta, its callers and callees stay")
    t.eq(faded, labels - kept, "focus: every other box fades")
    t.ok(callers and callees and set(fo["panel"].get("Callers", [])) == callers
         and set(fo["panel"].get("Callees", [])) == callees,
         "focus: the panel lists the callers and callees", fo["panel"])
    t.ok(fo["crumbs"].endswith("beta") and fo["second"].count("\u203a") == 2
         and fo["crumbBack"] == fo["crumbs"], "focus: the breadcrumb trail and going back by it", fo)
    t.eq(fo["afterEscape"], 0, "focus: Escape, nothing faded")
    t.eq(fo["lines"], {"heading": "Hot lines (100 samples)",
                       "rows": [["60.00%", "vw_hot.c:31"], ["30.00%", "vw_hot.c:32"],
                                ["10.00%", "elsewhere in it"]]},
         "focus: the panel shows its hot lines, each line's share, hottest first")

    # hot path: from the root the heaviest call path at each step, by the JSON
    chain = [name for name, _, _ in cct_hot_path(prof)]
    t.eq(chain[:4], ["main", "alpha", "beta", "gamma"], "hot path: the program's hot chain, by the JSON")
    root = os.path.basename(prog) + " (program)"
    want = [[a, b] for a, b in zip([root] + chain, chain)]
    t.eq(sorted(seen["hot"]["edges"]), sorted(want), "hot path: exactly its arcs marked in the graph")
    t.eq(seen["hot"]["panel"], chain, "hot path: listed step by step")

    # The hot path of a function called on two paths: the steps the call
    # paths take, each with the share of the run and the calls of its own
    # path (not its arc's over the whole run), as the JSON's paths have them.
    tp = seen.get("twoPaths") or {}
    steps = cct_hot_path(TWO_PATHS)
    run2 = TWO_PATHS["run_total"][0]
    t.eq([s[0] for s in steps], ["main", "heavy", "shared", "inner_a"],
         "two paths: the call paths' hot chain goes to inner_a, below heavy's shared")
    t.eq(tp.get("panel"), [[n, "%.2f%%, %s\u00d7" % (100 * total / run2, format(calls, ","))]
                           for n, total, calls in steps],
         "two paths: the panel lists those steps, each with its path's share of the run and calls")
    t.eq(sorted(tp.get("edges", [])), sorted([["prog (program)", "main"], ["main", "heavy"],
                                               ["heavy", "shared"], ["shared", "inner_a"]]),
         "two paths: the graph marks the arcs of those steps")
    arc_ab = {(TWO_PATHS["functions"][a["caller"]]["name"] if a["caller"] is not None else None,
               TWO_PATHS["functions"][a["callee"]]["name"]): a for a in TWO_PATHS["arcs"]}
    sa = arc_ab[("shared", "inner_a")]
    t.eq((tp.get("titles") or [None] * 4)[3], "all calls from shared: %.2f%% of the run, %s\u00d7"
         % (100 * sa["total"][0] / run2, format(sa["calls"], ",")),
         "two paths: hovering a step says what its arc costs over the whole run")

    tb = seen["table"]
    order = lambda key: [name_of[i] for i in sorted(range(len(funcs)), key=key)]
    t.eq(tb["bySelf"], order(lambda i: (-funcs[i]["self"][0], i)), "table: every function, by self")
    t.eq(tb["byCalls"], order(lambda i: (-funcs[i]["calls"], i)), "table: by calls")
    t.eq(tb["byCallsUp"], order(lambda i: (funcs[i]["calls"], i)), "table: by calls, ascending")
    t.ok(tb["coldNote"], "table: a function the graph leaves out: said so")
    t.eq(tb["rowFocus"], {"graphShown": True, "focused": ["side_one"]}, "table: a row focuses the graph")

    ic = seen["icicle"]
    t.ok(ic["before"]["w"] < ic["width"] / 2 and ic["after"]["x"] == 0
         and abs(ic["after"]["w"] - ic["width"]) < 0.5, "icicle: a frame clicked fills the width", ic)
    t.ok(abs(ic["zoomedOut"]["w"] - ic["before"]["w"]) < 0.5 and
         abs(ic["mainAfter"]["w"] - ic["mainBefore"]["w"]) < 0.5, "icicle: the top frame zooms out", ic)

    sl = seen["sliders"]
    st = sl["start"]
    t.ok(st["atMin"] and st["nodeText"] == "0.5%" and st["arcText"] == "0.1%"
         and "-n" in st["tooltip"] and "laid out" in st["tooltip"],
         "sliders: start at the page's thresholds (-n 0.5, -e 0.1), the tooltip says why", st)
    all_nodes, all_edges = slider_checks("sliders at the bottom", page, prof, st, None, None)
    t.eq(all_nodes, {"root"} | set(re.findall(r"<title>(f\d+)</title>", page)),
         "sliders at the bottom: every box laid out is drawn")
    nv, av = sl["node"]["node"], sl["both"]["arc"]
    key3 = "f%d" % boxes[ids["side_three"]]
    t.ok(s3 < nv <= 50 and sl["node"]["nodeText"] == "%g%%" % nv,
         "node slider: moved to %g%%, above side_three's %.2f%%, and says so" % (nv, s3), sl["node"])
    nodes, _ = slider_checks("node slider at %g%%" % nv, page, prof, sl["node"], nv, None)
    t.ok(key3 not in nodes, "node slider at %g%%: side_three hidden" % nv)
    t.ok(sl["both"]["node"] == nv and side_one_arc < av <= 50 and sl["both"]["arcText"] == "%g%%" % av,
         "arc slider: moved to %g%%, above main->side_one's %.2f%%, the node slider kept"
         % (av, side_one_arc), sl["both"])
    _, edges = slider_checks("node %g%%, arcs %g%%" % (nv, av), page, prof, sl["both"], nv, av)
    n_only = slider_expect(page, prof, nv, None)[1]
    t.ok(n_only - edges, "arc slider at %g%%: hides arcs whose ends are drawn" % av, n_only - edges)
    want_hidden = [n for n in name_of if "side_" in n and "f%d" % boxes[ids[n]] not in nodes]
    t.ok(sl["search"]["hidden"] == str(len(want_hidden)) and want_hidden and
         "%d of them hidden by the sliders" % len(want_hidden) in sl["search"]["text"],
         "search: says how many matches the sliders hide", sl["search"])
    fo = sl["focused"]
    slider_checks("focus on side_three, under the node slider", page, prof, fo, nv, av, keep=key3)
    t.ok(key3 in fo["nodes"] and fo["graphShown"] and fo["note"] and "Under the node slider" in fo["note"],
         "focus on a hidden function: its box shown, the panel says why", fo.get("note"))
    t.ok([e for e in fo["edges"] if key3 in e.split("->")],
         "focus on a hidden function: its arcs under the arc slider shown too", fo["edges"])
    slider_checks("Escape from that focus", page, prof, sl["unfocused"], nv, av)
    hot_keys = ["root->f%d" % boxes[ids[chain[0]]]] + ["f%d->f%d" % (boxes[ids[a]], boxes[ids[b]])
                                                       for a, b in zip(chain, chain[1:])]
    t.eq(sorted(sl["hot"]["edges"]), sorted(hot_keys), "hot path with the sliders moved: its arcs marked")
    t.eq(len(sl["hot"]["panel"]), len(chain), "hot path with the sliders moved: listed step by step")
    t.ok(sl["back"]["atMin"] and set(sl["back"]["nodes"]) == all_nodes and set(sl["back"]["edges"]) == all_edges
         and sl["back"]["count"] == "hidden by the sliders: 0 functions, 0 arcs",
         "sliders back at the bottom: everything drawn again", sl["back"]["count"])

    many_page = open(os.path.join(tmp, "many.html"), encoding="utf-8").read()
    ms = seen["many"]["sliders"]
    t.ok(ms["start"]["atMin"] and ms["start"]["nodeText"] == "0%" and ms["start"]["count"] ==
         "hidden by the sliders: 0 functions, 0 arcs", "large page: made with -n 0 -e 0, the sliders start at 0%",
         ms["start"])
    mb = ms["both"]
    nodes, edges = slider_checks("large page, node %g%%, arcs %g%%" % (mb["node"], mb["arc"]), many_page,
                                 many_prof, mb, mb["node"], mb["arc"])
    n_only = slider_expect(many_page, many_prof, mb["node"], None)[1]
    t.ok(mb["node"] == 0.2 and mb["arc"] == 1 and 50 < len(nodes) < 600 and n_only - edges,
         "large page: node slider 0.2%%, arcs 1%%: some boxes kept, some arcs between them hidden"
         " (%d, %d)" % (len(nodes), len(n_only - edges)), (mb["node"], mb["arc"]))
    slider_checks("large page, back at the bottom", many_page, many_prof, ms["back"], None, None)

    mn = seen["many"]
    t.eq((mn["rows"], mn["boxes"]), (len(many_prof["functions"]), len(many_prof["functions"]) + 1),
         "large page: every function in the table and the graph")
    t.ok(mn["frames"] > 100, "large page: the icicle drawn (%d frames)" % mn["frames"])

t.done()
