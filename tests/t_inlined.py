#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Calls the compiler inlined, in every output, on a real program built by
gcc -O2 and clang -O2 (progs/inlined.c: kind_of inlined at every call,
weight at all but a pointer's): the graph, rendered by graphviz, dashes an
arc whose every call was inlined and says so in its label, and a function
inlined everywhere says into what; `profviz dot` says the same from the
JSON; `profviz report` marks both in its tables; callgrind_annotate, go
tool pprof, speedscope's schema and the folded format still read the
profile as they read any other; `profviz convert` keeps the counts."""
import os
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import callgrind
import harness as h

t = h.Tap()
ROUNDS = 20000  # 1000 inlined calls of each a round: some 100 ms of sampled time
INLINED = ROUNDS * 1000
EVERYTHING = {"PROFVIZ_NODE_THRESHOLD": "0", "PROFVIZ_EDGE_THRESHOLD": "0"}
FORMATS = "prof.json,prof.dot,prof.callgrind,prof.pb.gz,prof.speedscope.json,prof.folded"
SVG = "{http://www.w3.org/2000/svg}"


def svg_of(dot_path):
    """graphviz's SVG of a .dot file: {title: (texts, dashed)} for every
    node ("f3") and edge ("f1->f3")."""
    p = subprocess.run(["dot", "-Tsvg", dot_path], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        return None, p.stderr
    out = {}
    for g in ET.fromstring(p.stdout).iter(SVG + "g"):
        kind, title = g.get("class"), g.find(SVG + "title")
        if kind not in ("node", "edge") or title is None:
            continue
        texts = [(x.text or "").strip() for x in g.iter(SVG + "text")]
        dashed = any(x.get("stroke-dasharray") for x in g.iter(SVG + "path"))
        out[title.text] = (texts, dashed)
    return out, ""


def boxes(svg):
    """{function name: (its box's title, its lines)}."""
    return {texts[0]: (key, texts) for key, (texts, _) in svg.items() if "->" not in key}


# The line the caption and the report's heading give the functions whose
# calls the compiler melted into a host: weight and kind_of into sum_kinds
# (weight's real calls from main are its own; clang may inline libc's atol
# into main too, and then names each with its host).
ADVICE = "; to time them apart, PROFVIZ_INLINED=frames or -fno-inline"


def melted_line(text):
    """The line that names the melted functions, or ''."""
    lines = [x for x in re.split(r"\\l|\n", text) if "ran inlined into" in x]
    return lines[0] if lines else ""


def names_melted(line):
    return (line.endswith(ADVICE) and
            re.match(r"weight( \(in sum_kinds\))?(, | and )kind_of( \(in sum_kinds\))?", line)
            and "sum_kinds" in line)


for compiler in ("gcc", "clang"):
    exe = h.build("inlined", compiler=compiler,
                  out=os.path.join(h.BUILD, "inlined" if compiler == "gcc" else "inlined-clang"))
    r = h.run([exe, str(ROUNDS)], outputs=FORMATS, env=EVERYTHING)
    p = r.json()
    with t.case(compiler + ": the run"):
        t.eq(r.rc, 0, "the program ran")
        t.eq([(n, p.calls(n), p.func(n).get("inlined_calls", 0)) for n in ("kind_of", "weight")],
             [("kind_of", INLINED, INLINED), ("weight", INLINED + ROUNDS, INLINED)],
             "kind_of inlined at every call, weight at all but the pointer's")

    with t.case(compiler + ": the graph, rendered"):
        svg, err = svg_of(r.file("prof.dot"))
        t.ok(svg is not None, "graphviz renders it, saying nothing", err)
        svg = svg or {}
        by_name = boxes(svg)
        host, kind, weight = (by_name.get(n, (None, []))
                              for n in ("sum_kinds", "kind_of", "weight"))
        edge = svg.get("%s->%s" % (host[0], kind[0]), ([], False))
        t.ok(edge[1] and "%d×, inlined" % INLINED in edge[0],
             "sum_kinds -> kind_of: dashed, its label says its calls were inlined", diag=edge)
        t.eq(kind[1][-1:], ["inlined into sum_kinds"], "kind_of's box says into what")
        partly = svg.get("%s->%s" % (host[0], weight[0]), ([], False))
        pointer = svg.get("%s->%s" % (by_name.get("main", (None,))[0], weight[0]), ([], True))
        t.ok(partly[1] and not pointer[1] and not any("inlined" in x for x in pointer[0]),
             "weight: dashed from sum_kinds, not from main's pointer", diag=(partly, pointer))
        t.ok(not any("inlined" in x for x in weight[1]),
             "weight's box, called for real too, does not say inlined", diag=weight[1])
        legend = open(r.file("prof.dot")).read()
        t.ok("dashed arc, 'inlined': calls the compiler inlined" in legend,
             "the caption says what a dashed 'inlined' arc is")
        t.ok(names_melted(melted_line(legend)),
             "the caption names the functions melted into their host, and how to time them "
             "apart", diag=legend[-1500:])

    with t.case(compiler + ": profviz dot"):
        d = h.command("dot", "-n", "0", "-e", "0", r.file("prof.json"))
        t.ok(d.returncode == 0 and "\\ninlined into sum_kinds\"" in d.stdout and
             re.search(r'-> f\d+ \[label="[^"]*%d×, inlined\\l", style=dashed' % INLINED,
                       d.stdout),
             "profviz dot says the same from the JSON", diag=d.stderr)

    with t.case(compiler + ": profviz diff"):
        d = h.command("diff", "-n", "0", "-e", "0", r.file("prof.json"), r.file("prof.json"))
        arc = re.search(r'-> f\d+ \[label="  inlined\\l  [^"]*%d \u2192 %d\u00d7\\l"[^\]]*'
                        r'style=dashed' % (INLINED, INLINED), d.stdout)
        t.ok(d.returncode == 0 and arc and "\\ninlined\\n" in d.stdout and
             "dashed arc, \\\"inlined\\\"" in d.stdout,
             "its graph dashes the inlined arc, says so in the arc and the box, and the "
             "caption says what that is", diag=(d.stderr, d.stdout[:1500]))

    with t.case(compiler + ": profviz report"):
        rep = h.command("report", "--color", "never", "--top", "0", r.file("prof.json"))
        t.eq(rep.returncode, 0, "profviz report")
        t.ok(names_melted(melted_line(rep.stdout.split("\n\n")[0])), "its heading names them too",
             diag=rep.stdout[:800])
        rows = {m.group(1): m.group(2) for m in re.finditer(
            r"^.*?  (\w+)  \(inlined\.c:\d+\)(.*)$", rep.stdout, re.M)}
        t.eq((rows.get("kind_of"), rows.get("weight"), rows.get("sum_kinds")),
             ("  inlined into sum_kinds", "  %d calls inlined into sum_kinds" % INLINED, ""),
             "the flat profile says which functions' calls were inlined, and into what")
        t.ok(re.search(r"\s%d  sum_kinds -> kind_of  \(inlined\)$" % INLINED, rep.stdout, re.M)
             and re.search(r"\s%d  main -> weight$" % ROUNDS, rep.stdout, re.M),
             "the arcs say which were inlined", diag=rep.stdout[-1200:])

    with t.case(compiler + ": other formats, read by their readers"):
        # callgrind: an inlined arc is an arc with its calls and cost.
        a = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                            "--auto=no", "--show-percs=no", r.file("prof.callgrind")],
                           capture_output=True, text=True, cwd="/")
        m = re.search(r"^([\d,]+)(?: \(.*\))?\s+PROGRAM TOTALS", a.stdout, re.M)
        t.ok(a.returncode == 0 and a.stderr == "" and m and
             int(m.group(1).replace(",", "")) == p.data["run_total"][0],
             "callgrind_annotate reads it, saying nothing, its total the run's", diag=a.stderr)
        counts = callgrind.arc_counts(r.file("prof.callgrind"))
        t.eq((counts.get(("sum_kinds", "kind_of")), counts.get(("main", "weight"))),
             (INLINED, ROUNDS), "its calls= are the arcs' counts, inlined ones too")
        # pprof
        home = tempfile.mkdtemp(prefix="profviz-go-")
        genv = dict(os.environ, HOME=home, GOCACHE=os.path.join(home, "c"),
                    GOPATH=os.path.join(home, "g"), PPROF_TMPDIR=home, GOTOOLCHAIN="local")
        g = subprocess.run(["go", "tool", "pprof", "-traces", r.file("prof.pb.gz")],
                           capture_output=True, text=True, env=genv, timeout=120)
        t.ok(g.returncode == 0 and g.stderr.strip() == "" and "sum_kinds" in g.stdout,
             "go tool pprof reads it, saying nothing", diag=g.stderr[-500:])
        # speedscope
        import jsonschema
        schema = h.load_json(os.path.join(h.ROOT, "tests", "js", "node_modules", "speedscope",
                                          "dist", "release", "file-format-schema.json"))
        doc = h.load_json(r.file("prof.speedscope.json"))
        errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]
        t.eq(errors[:3], [], "valid by speedscope's schema")
        # folded: kind_of has no self (its host's): no line of its own
        lines = open(r.file("prof.folded")).read().splitlines()
        t.ok(lines and all(re.fullmatch(r"[^ ](.*[^ ])? [0-9]+", x) for x in lines) and
             sum(int(x.rsplit(" ", 1)[1]) for x in lines) == p.data["run_total"][0] and
             not any(x.startswith("main;sum_kinds;kind_of ") for x in lines),
             "folded: 'stack N' lines adding up to the run, none for a path without self",
             diag=lines)

    with t.case(compiler + ": convert keeps them"):
        again = os.path.join(r.workdir, "again.json")
        c = h.command("convert", r.file("prof.json"), again)
        q = h.load_json(again) if c.returncode == 0 else {}

        def inlined_of(doc):
            return [[x.get("inlined_calls") for x in doc.get(k, [])]
                    for k in ("functions", "arcs", "paths")]
        t.eq(inlined_of(q), inlined_of(p.data), "inlined_calls of every record, read and "
             "written again")


def arcs_of(p):
    """{(caller, callee): (calls, inlined calls)}."""
    name = lambda i: None if i is None else p.by_id[i]["name"]
    return {(name(a["caller"]), name(a["callee"])): (a["calls"], a.get("inlined_calls", 0))
            for a in p.data["arcs"]}


NEST_ROUNDS = 200
BODIES = {("host", "outer"), ("outer", "inner"), ("jumper", "bail")}
for compiler in ("gcc", "clang"):
    exe = h.build("inlined_nest", compiler=compiler,
                  out=os.path.join(h.BUILD, "inlined_nest-" + compiler))
    truth = h.build("inlined_nest", compiler=compiler, flags=["-DOUT_OF_LINE"],
                    out=os.path.join(h.BUILD, "inlined_nest-out-" + compiler))
    with t.case(compiler + ": nested, called from, left by longjmp"):
        want = arcs_of(h.run([truth, str(NEST_ROUNDS)], outputs="prof.json").json())
        r = h.run([exe, str(NEST_ROUNDS)], outputs="prof.json")
        p = r.json()
        got = arcs_of(p)
        t.eq({k: v[0] for k, v in got.items()}, {k: v[0] for k, v in want.items()},
             "the same arcs and calls as with every body a call of its own")
        t.eq({k: v[1] for k, v in got.items() if k in BODIES},
             {k: v[0] for k, v in got.items() if k in BODIES},
             "the inlined bodies' calls counted as inlined, the nested one's too")
        t.eq(got.get(("outer", "real_leaf"), (0, -1))[1], 0,
             "a real call from inside an inlined body is a call, under that body")
        t.eq(p.data["stray_exits"], 0, "no stray exit, the body left by longjmp included")
        t.eq([p.func(n)["self"][0] for n in ("outer", "inner", "bail")], [0, 0, 0],
             "an inlined body's self is its host's")
    with t.case(compiler + ": PROFVIZ_INLINED=frames"):
        r = h.run([exe, str(NEST_ROUNDS)], outputs="prof.json", env={"PROFVIZ_INLINED": "frames"})
        p = r.json()
        got = arcs_of(p)
        t.eq({k: v[0] for k, v in got.items()}, {k: v[0] for k, v in want.items()},
             "the same arcs and calls")
        t.eq([k for k, v in got.items() if v[1]], [], "none counted as inlined")
        t.eq(h.strip_profviz(r.stderr), b"", "no message: a value it takes")
        rep = h.command("report", "--color", "never", r.file("prof.json"))
        t.ok(rep.returncode == 0 and "ran inlined" not in rep.stdout,
             "the report's heading names nothing melted: each body timed as its own")

# C++ member functions, a recursion through an inlined body, and a signal
# handler running while a body is open, with both compilers at -O0 and -O2
# (always_inline inlines at -O0 too).
MORE_ROUNDS = 1000
MORE_BODIES = {("round_of(Tally&, int)", "Tally::bump(int)"),
               ("round_of(Tally&, int)", "Tally::value() const"),
               ("round_of(Tally&, int)", "poke(int)"), ("walk(int)", "step(int)"),
               ("on_usr1", "note(int)"), ("note(int)", "Tally::bump(int)"),
               ("main", "Tally::value() const")}
MORE_CALLS = {("main", "round_of(Tally&, int)"), ("round_of(Tally&, int)", "walk(int)"),
              ("step(int)", "walk(int)"), ("<signal SIGUSR1>", "on_usr1")}
for combo in h.MATRIX:
    c = combo.label
    exe = h.build_with(combo, "inlined_more", sources=["inlined_more.cpp"])
    truth = h.build("inlined_more", ["inlined_more.cpp"], list(combo.flags) + ["-DOUT_OF_LINE"],
                    compiler=combo.cxx,
                    out=os.path.join(h.BUILD, "inlined_more-out-" + c.replace(" ", "")))
    with t.case(c + ": C++, recursion through a body, a handler inside one"):
        want = arcs_of(h.run([truth, str(MORE_ROUNDS)], outputs="prof.json").json())
        r = h.run([exe, str(MORE_ROUNDS)], outputs="prof.json")
        plain = h.run([exe, str(MORE_ROUNDS)], preload=False)
        t.eq((r.stdout, r.rc), (plain.stdout, plain.rc), "%s: output unchanged" % c)
        p = r.json()
        got = arcs_of(p)
        t.eq({k: v[0] for k, v in got.items()}, {k: v[0] for k, v in want.items()},
             "%s: the same arcs and calls as with every body a call of its own, the "
             "signal's delivery from inside the open body included" % c)
        t.eq({k: got.get(k, (0, 0))[1] for k in MORE_BODIES | MORE_CALLS},
             {k: got.get(k, (0, 0))[0] if k in MORE_BODIES else 0
              for k in MORE_BODIES | MORE_CALLS},
             "%s: the bodies' calls counted as inlined, the real calls' not" % c)
        t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0),
             "%s: no stray exit, no resynchronisation" % c)
t.done()
