#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""profviz diff: one program run twice, once with more work in grows(), less in
shrinks(), and only_after() in place of only_before(). The graph's colours,
marks and every number in its labels are checked against figures computed
here from the two JSON profiles; then --normalize, a profile against itself,
a program moved to another directory, the table, and the files it refuses."""
import colorsys
import os
import re
import shutil
import harness as h

# The subject is profviz diff on short runs whose every function has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
prog = h.build("dm_change", flags=h.NO_INLINE)


profviz = h.command


load = h.load_json


NODE = re.compile(r'^  (f\d+|root) \[label="((?:[^"\\]|\\.)*)", (.*)\];$')
EDGE = re.compile(r'^  (f\d+|root) -> (f\d+) \[label="((?:[^"\\]|\\.)*)", (.*)\];$')
ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,]+)')


def attrs(text):
    return {k: v.strip('"') for k, v in ATTR.findall(text)}


def parse_numbers(lines):
    """What a label says: share (B's, or A's after "was"), self share, points,
    own change (None when not shown), calls A and B."""
    out = {"own": None, "self": None, "tag": None}
    for line in lines:
        if line in ("new", "removed", "nested"):
            out["tag"] = line
        elif re.fullmatch(r"(was )?[\d.]+%", line):
            out["share"] = float(line.split()[-1][:-1])
        elif re.fullmatch(r"\(-?[\d.]+%\)", line):
            out["self"] = float(line[1:-2])
        elif " pts" in line:
            parts = line.split(", ")
            out["pts"] = float(parts[0].split()[0])
            if len(parts) > 1:
                out["own"] = parts[1]
        elif re.fullmatch(r"[+-][\d.]+%", line):
            out["own"] = line
        elif line.endswith("\u00d7"):
            a, b = line.rstrip("\u00d7").split(" \u2192 ")
            out["calls"] = (int(a), int(b))
    return out


def parse_graph(text):
    """(caption, nodes by name, edges by (caller name or None, callee name))."""
    ids, nodes, edges, caption = {}, {}, {}, ""
    for line in text.splitlines():
        if line.startswith("  graph ["):
            caption = line
        m = NODE.match(line)
        if m:
            lines = m.group(2).split("\\n")
            name = None if m.group(1) == "root" else lines[0]
            ids[m.group(1)] = name
            nodes[name] = dict(parse_numbers(lines[1:]), attrs=attrs(m.group(3)), lines=lines)
            continue
        m = EDGE.match(line)
        if m:
            lines = [l.strip() for l in m.group(3).split("\\l") if l.strip()]
            e = dict(parse_numbers(lines), attrs=attrs(m.group(4)))
            if e["tag"] is None:  # an arc says new or removed by its line alone
                e["tag"] = {"bold": "new", "dashed": "removed"}.get(e["attrs"].get("style"))
            edges[(ids[m.group(1)], ids[m.group(2)])] = e
    return caption, nodes, edges


def by_name(d):
    """name -> (present, calls, self, total) of the first event, summed."""
    out = {}
    for f in d["functions"]:
        _, c, s, tot = out.get(f["name"], (1, 0, 0, 0))
        out[f["name"]] = (1, c + f["calls"], s + f["self"][0], tot + f["total"][0])
    return out


def arcs_by_name(d):
    out = {}
    for a in d["arcs"]:
        k = (None if a["caller"] is None else d["functions"][a["caller"]]["name"],
             d["functions"][a["callee"]]["name"])
        _, c, _, tot = out.get(k, (1, 0, 0, 0))
        out[k] = (1, c + a["calls"], 0, tot + a["total"][0])
    return out


def expected(a, b, scale, ref):
    """The figures a label must show for A's and B's (present, calls, self, total)."""
    pa, ca, sa, ta = a
    pb, cb, sb, tb = b
    e = {"calls": (ca, cb), "pts": 100 * (tb - scale * ta) / ref}
    e["share"] = 100 * (tb if pb else scale * ta) / ref
    e["self"] = 100 * (sb if pb else scale * sa) / ref
    e["own"] = 100 * (tb - scale * ta) / (scale * ta) if pa and pb and ta else None
    e["tag"] = "removed" if not pb else "new" if not pa else None
    return e


def own_ok(shown, want):
    if want is None:
        return shown is None
    if shown is None or not shown.endswith("%"):
        return False
    decimals = len(shown[:-1].split(".")[1]) if "." in shown else 0
    return abs(float(shown[:-1]) - want) <= 0.51 * 10 ** -decimals + 1e-9


def mismatched(got, want, with_self=True):
    """The figures of one label that differ from those wanted, as text."""
    bad = []
    for k in ("share", "pts") + (("self",) if with_self else ()):
        if got.get(k) is None or abs(got[k] - want[k]) > 0.0051:
            bad.append("%s %r, want %.4f" % (k, got.get(k), want[k]))
    if not own_ok(got["own"], want["own"]):
        bad.append("own %r, want %r" % (got["own"], want["own"]))
    if got.get("calls") != want["calls"]:
        bad.append("calls %r, want %r" % (got.get("calls"), want["calls"]))
    if got["tag"] != want["tag"] and got["tag"] != "nested":
        bad.append("tag %r, want %r" % (got["tag"], want["tag"]))
    return bad


def check_numbers(what, da, db, nodes, edges, scale):
    ref = scale * da["run_total"][0]
    fa, fb = by_name(da), by_name(db)
    none = (0, 0, 0, 0)
    bad = []
    for name in set(fa) | set(fb):
        if name in nodes:
            bad += ["%s: %s" % (name, m) for m in
                    mismatched(nodes[name], expected(fa.get(name, none), fb.get(name, none),
                                                     scale, ref))]
    t.ok(not bad and len(nodes) == len(set(fa) | set(fb)) + 1,
         "%s: every box's share, self share, points, own change and calls as computed "
         "from the JSONs (%d boxes)" % (what, len(nodes)), "\n".join(bad))
    aa, ab = arcs_by_name(da), arcs_by_name(db)
    bad = []
    for k in set(aa) | set(ab):
        if k not in edges:
            bad.append("%r missing" % (k,))
        else:
            bad += ["%r: %s" % (k, m) for m in
                    mismatched(edges[k], expected(aa.get(k, none), ab.get(k, none), scale,
                                                  ref), with_self=False)]
    t.ok(not bad, "%s: every arc's share, points, own change and calls as computed (%d arcs)"
         % (what, len(edges)), "\n".join(bad))
    root = nodes.get(None, {})
    want = expected((1, 0, 0, da["run_total"][0]), (1, 0, 0, db["run_total"][0]), scale, ref)
    t.ok(abs(root.get("share", -1) - want["share"]) < 0.0051 and
         abs(root.get("pts", -1) - want["pts"]) < 0.0051,
         "%s: the program's oval: B's run %.2f%%, %+.2f pts" % (what, want["share"],
                                                                 want["pts"]), root)


def hls(node):
    r, g, b = (int(node["attrs"]["fillcolor"][i:i + 2], 16) / 255 for i in (1, 3, 5))
    hue, light, sat = colorsys.rgb_to_hls(r, g, b)
    return hue * 360, light, sat


def reddish(node):
    hue, _, sat = hls(node)
    return sat > 0.2 and (hue < 20 or hue > 340)


def blue_or_green(node):
    hue, _, sat = hls(node)
    return sat > 0.2 and 90 < hue < 260


def renders(what, path):
    ok, err = h.dot_renders(path)
    t.ok(ok, "%s: dot -Tsvg renders it, nothing on stderr" % what, err)


work = h.run([prog, "before"], outputs="a.json").workdir
h.run([prog, "after"], outputs="b.json", workdir=work)
A, B = os.path.join(work, "a.json"), os.path.join(work, "b.json")
da, db = load(A), load(B)

with t.case("diff"):
    out = os.path.join(work, "d.dot")
    # No thresholds: on a busy machine a small function's time can be anything.
    r = profviz("diff", "-n", "0", "-e", "0", A, B, "-o", out)
    t.eq(r.returncode, 0, "diff -o: exit 0")
    caption, nodes, edges = parse_graph(open(out).read())
    renders("diff", out)
    t.ok(reddish(nodes["grows"]), "the regressed function is red (%s, hue %.0f)" %
         (nodes["grows"]["attrs"]["fillcolor"], hls(nodes["grows"])[0]))
    t.ok(blue_or_green(nodes["shrinks"]), "the improved function is blue or green (%s)" %
         nodes["shrinks"]["attrs"]["fillcolor"])
    t.ok(nodes["grows"]["pts"] > 0 and nodes["shrinks"]["pts"] < 0,
         "... with a gain and a loss of points")
    new, gone = nodes["only_after"], nodes["only_before"]
    t.ok(new["tag"] == "new" and "bold" in new["attrs"]["style"],
         "the function only in B: marked new, bold outline", new)
    t.ok(gone["tag"] == "removed" and "dashed" in gone["attrs"]["style"],
         "the function only in A: marked removed, dashed outline", gone)
    t.ok(edges[("main", "only_before")]["attrs"].get("style") == "dashed" and
         edges[("main", "only_after")]["attrs"].get("style") == "bold",
         "their arcs dashed and bold")
    check_numbers("diff", da, db, nodes, edges, 1.0)
    t.ok("percentages are of A's total" in caption and "a.json" in caption and
         "b.json" in caption, "the caption names both files and what the shares are of")
    t.ok(r.stdout.startswith("A (before): " + A) and "grows" in r.stdout and
         "digraph" not in r.stdout, "-o: the table of changes on stdout", r.stdout)
    rows = {l.split()[-1]: l for l in r.stdout.splitlines() if " pts " in l}
    want = 100 * (by_name(db)["grows"][3] - by_name(da)["grows"][3]) / da["run_total"][0]
    sizes = [abs(float(l.split()[0])) for l in rows.values()]
    t.ok("grows" in rows and abs(float(rows["grows"].split()[0]) - want) < 0.0051 and
         sizes == sorted(sizes, reverse=True),
         "the table: largest changes first, grows %+.2f pts" % want, r.stdout)
    t.ok("new" in rows.get("only_after", "") and "removed" in rows.get("only_before", ""),
         "the table marks new and removed functions")

with t.case("normalize"):
    out = os.path.join(work, "n.dot")
    r = profviz("diff", "--normalize", "-n", "0", "-e", "0", A, B, "-o", out)
    caption, nodes, edges = parse_graph(open(out).read())
    scale = db["run_total"][0] / da["run_total"][0]
    t.ok(r.returncode == 0 and "normalized" in caption and "%.4f" % scale in caption,
         "--normalize: said in the caption, with the factor %.4f" % scale, caption)
    check_numbers("--normalize", da, db, nodes, edges, scale)
    t.ok(nodes[None]["pts"] == 0 and abs(nodes[None]["share"] - 100) < 0.0051,
         "--normalize: the totals are equal (the program: 100%, +0.00 pts)", nodes[None])
    _, plain, _ = parse_graph(open(os.path.join(work, "d.dot")).read())
    fa, fb = by_name(da), by_name(db)
    moved = (expected(fa["steady"], fb["steady"], 1, da["run_total"][0])["pts"] -
             expected(fa["steady"], fb["steady"], scale, db["run_total"][0])["pts"])
    t.ok(abs(plain["steady"]["pts"] - nodes["steady"]["pts"] - moved) < 0.011,
         "--normalize moves the points as computed (steady: %+.2f plain, %+.2f normalized)" %
         (plain["steady"]["pts"], nodes["steady"]["pts"]))
    renders("--normalize", out)

with t.case("itself"):
    out = os.path.join(work, "same.dot")
    r = profviz("diff", B, B, "-o", out)
    caption, nodes, edges = parse_graph(open(out).read())
    t.ok(r.returncode == 0 and all(hls(n)[2] == 0 for n in nodes.values()),
         "a profile against itself: every box grey",
         [n["attrs"]["fillcolor"] for n in nodes.values()])
    t.ok(all(n["pts"] == 0 and n["lines"][-2].startswith("+0.00 pts") for n in nodes.values())
         and all(e["pts"] == 0 for e in edges.values()),
         "... every box and arc +0.00 pts", [n["lines"] for n in nodes.values()])
    t.ok(all(n["tag"] is None for n in nodes.values()) and
         all(n["calls"][0] == n["calls"][1] for n in nodes.values() if "calls" in n),
         "... nothing new or removed, the same calls")
    t.ok("no function's total changed" in r.stdout, "... and the table says so", r.stdout)
    renders("itself", out)

with t.case("moved"):
    # The same program from another directory: its module path differs,
    # its file name does not, and its functions still match.
    other = os.path.join(work, "elsewhere")
    os.makedirs(other, exist_ok=True)
    moved = shutil.copy(prog, os.path.join(other, os.path.basename(prog)))
    h.run([moved, "before"], outputs="c.json", workdir=work)
    C = os.path.join(work, "c.json")
    dc = load(C)
    r = profviz("diff", A, C)
    _, nodes, _ = parse_graph(r.stdout)
    t.ok(dc["functions"][0]["module"] != da["functions"][0]["module"] and r.returncode == 0 and
         "grows" in nodes and not any(n["tag"] for n in nodes.values()),
         "a program moved elsewhere: matched by its file name, nothing new or removed",
         [n["tag"] for n in nodes.values()])
    t.ok(r.stdout.startswith("digraph"), "no -o: the graph on stdout")

with t.case("renamed"):
    # Two builds of one program named differently: the program's own
    # functions match by name, and the diff says so.
    renamed = shutil.copy(prog, os.path.join(work, "dm_change_v2"))
    h.run([renamed, "before"], outputs="v2.json", workdir=work)
    V2 = os.path.join(work, "v2.json")
    r = profviz("diff", "-n", "0", "-e", "0", A, V2)
    _, nodes, _ = parse_graph(r.stdout)
    t.ok(r.returncode == 0 and "grows" in nodes and not any(n["tag"] for n in nodes.values()),
         "a program renamed: its functions matched by name, nothing new or removed",
         [(k, n["tag"]) for k, n in nodes.items()])
    t.ok("A ran dm_change and B dm_change_v2: their own functions are matched by name"
         in r.stderr, "... and the diff says so", r.stderr)
    r = profviz("diff", A, C)
    t.ok("matched by name" not in r.stderr, "the same name: nothing said", r.stderr)

if h.SANITIZER != "thread":  # TSan's runtime takes libc's waits first (t_waits)
    with t.case("waits"):
        # The waits apart by default, as report and dot show them; --waits in
        # compares them with the work.
        waits = h.build("waits", flags=h.NO_INLINE + ["-pthread"])
        wa = h.run([waits], outputs="wa.json", workdir=work).file("wa.json")
        wb = h.run([waits], outputs="wb.json", workdir=work).file("wb.json")
        r = profviz("diff", "-n", "0", "-e", "0", "--nodes", "0", wa, wb)
        t.ok(r.returncode == 0 and "<blocked:" not in r.stdout and "pause_a_bit" in r.stdout,
             "waits apart by default: the work compared, no wait in the graph", r.stdout[-600:])
        r = profviz("diff", "--report", "--top", "0", wa, wb)
        t.ok("<blocked:" not in r.stdout, "... nor in the table", r.stdout[-600:])
        r = profviz("diff", "--waits", "in", "-n", "0", "-e", "0", "--nodes", "0", wa, wb)
        t.ok(r.returncode == 0 and "<blocked: nanosleep>" in r.stdout,
             "--waits in: the waits compared too", r.stdout[-600:])
        r = profviz("diff", "--waits", "inside", wa, wb)
        t.ok(r.returncode == 2 and "--waits" in r.stderr, "--waits with another word: 2",
             r.stderr)

with t.case("thresholds and report"):
    r = profviz("diff", "-n", "5", "-e", "5", A, B)
    caption, nodes, edges = parse_graph(r.stdout)
    fa, fb, ref = by_name(da), by_name(db), da["run_total"][0]
    want = sorted(n for n in set(fa) | set(fb)
                  if max(fa.get(n, (0,) * 4)[3], fb.get(n, (0,) * 4)[3]) / ref >= 0.05)
    t.eq(sorted(n for n in nodes if n), want,
         "-n 5: the functions with 5% of the run in A or in B")
    hidden = len(set(fa) | set(fb)) - len(want)
    t.ok("hidden: %d function%s," % (hidden, "" if hidden == 1 else "s") in caption,
         "... and the caption counts those hidden")
    t.ok(all(k[0] in nodes and k[1] in nodes for k in edges),
         "... arcs only between boxes shown")
    r = profviz("diff", "--report", A, B)
    t.ok(r.returncode == 0 and r.stdout.startswith("A (before)") and "digraph" not in r.stdout,
         "--report alone: the table only", r.stdout[:200])
    r = profviz("diff", "--report", "--top", "2", A, B)
    t.eq(len([l for l in r.stdout.splitlines() if " pts " in l]), 2, "--top 2: two rows")

with t.case("refused"):
    h.run([prog, "after"], outputs="clock.json", workdir=work,
          env={"PROFVIZ_EVENTS": "task-clock"})
    clock = os.path.join(work, "clock.json")
    out = os.path.join(work, "never.dot")
    r = profviz("diff", A, clock, "-o", out)
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and A in lines[0] and clock in lines[0] and
         "task-clock" in lines[0] and not os.path.exists(out),
         "different events: exit 2, one line naming both files and their events",
         r.stderr)
    for what, text in [("empty", ""), ("truncated", open(B).read()[:1500]),
                       ("foreign", '{"a":1}')]:
        path = os.path.join(work, "bad-%s.json" % what)
        with open(path, "w") as f:
            f.write(text)
        for args in ([A, path], [path, B]):
            r = profviz("diff", *args, "-o", out)
            lines = r.stderr.strip().splitlines()
            t.ok(r.returncode == 2 and len(lines) == 1 and path in lines[0] and
                 r.stdout == "" and not os.path.exists(out),
                 "%s file %s: exit 2, one line naming it, nothing written" %
                 (what, "second" if args[1] == path else "first"), r.stderr)
    missing = os.path.join(work, "missing.json")
    r = profviz("diff", A, missing)
    t.ok(r.returncode == 2 and missing in r.stderr and r.stdout == "",
         "missing file: exit 2, named", r.stderr)
    r = profviz("diff", A)
    t.ok(r.returncode == 2 and "usage" in r.stderr, "one file: usage, exit 2")
    r = profviz("diff", A, B, "-o", os.path.join(work, "d.json"))
    t.ok(r.returncode == 2 and ".dot" in r.stderr, "-o d.json: exit 2, the graph is .dot")
    r = profviz("diff", "--help")
    t.ok(r.returncode == 0 and "--normalize" in r.stdout, "--help")

t.done()
