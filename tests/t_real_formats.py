#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every format and the command on a real program: tinyxml2's test suite
(C++), run through `profviz run`, each file read by its own reader, and
`profviz convert` writing each again, byte for byte, from the JSON."""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
import harness as h

t = h.Tap()
src, why = h.fetch_source("tinyxml2")
if not src:
    t.skip("tinyxml2 from Debian sources", why)
    t.done()
PROFVIZ = os.path.join(h.ROOT, "profviz")
exe = os.path.join(h.BUILD, "tinyxml2-xmltest")
if not os.path.exists(exe):
    os.makedirs(h.BUILD, exist_ok=True)
    subprocess.run(["g++"] + h.INSTRUMENT + h.NO_INLINE + ["-w", "-I", src, "-o", exe,
                                                          os.path.join(src, "xmltest.cpp"),
                                                          os.path.join(src, "tinyxml2.cpp")],
                   check=True)
work = tempfile.mkdtemp(prefix="profviz-formats-")
shutil.copytree(os.path.join(src, "resources"), os.path.join(work, "resources"))
FORMATS = ["json", "dot", "folded", "callgrind", "pb.gz", "speedscope.json"]
env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}


def cmd(*args):
    return subprocess.run([PROFVIZ] + list(args), capture_output=True, text=True, cwd=work,
                          env=env, timeout=300)


r = cmd("run", "-o", ",".join("x." + f for f in FORMATS), "--", exe)
with t.case("run"):
    t.eq(r.returncode, 0, "xmltest passes under profviz run")
    t.eq([l for l in r.stderr.splitlines() if "profile in" in l],
         ["profviz: profile in x." + f for f in FORMATS], "profviz run names every file")
p = json.load(open(os.path.join(work, "x.json")))
total = p["run_total"][0]
funcs = {f["name"]: f for f in p["functions"]}
t.ok(len(funcs) > 300, "a real profile: %d functions" % len(funcs))

with t.case("callgrind_annotate"):
    a = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no",
                        "--show-percs=no", os.path.join(work, "x.callgrind")],
                       capture_output=True, text=True)
    t.eq(a.stderr, "", "nothing on stderr")
    m = re.search(r"^([\d,]+)(?: \(.*\))?\s+PROGRAM TOTALS", a.stdout, re.M)
    t.ok(m and int(m.group(1).replace(",", "")) == total, "its total is the run's",
         a.stdout[:600])
    rows = {}
    for line in a.stdout.splitlines():
        mm = re.match(r"^\s*([\d,]+)\s+\S*?:(.+?)(?: \[.*\])?$", line)
        if mm:
            rows[mm.group(2)] = int(mm.group(1).replace(",", ""))
    hot = sorted(funcs.values(), key=lambda f: -f["total"][0])[:20]
    bad = [(f["name"], rows.get(f["name"]), f["total"][0]) for f in hot
           if rows.get(f["name"]) != f["total"][0]]
    t.eq(bad, [], "the 20 hottest functions' inclusive costs are the JSON's totals")

with t.case("go tool pprof"):
    home = tempfile.mkdtemp(prefix="profviz-go-")
    genv = dict(os.environ, HOME=home, GOCACHE=os.path.join(home, "c"),
                GOPATH=os.path.join(home, "g"), PPROF_TMPDIR=home, GOTOOLCHAIN="local")
    g = subprocess.run(["go", "tool", "pprof", "-top", "-unit=ns", "-nodecount=5",
                        os.path.join(work, "x.pb.gz")], capture_output=True, text=True, env=genv,
                       timeout=120)
    t.eq(g.stderr.strip(), "", "nothing on stderr")
    # Each path's figures are rounded on their own: a unit each at most.
    m = re.search(r"of (\d+)ns total", g.stdout)
    t.ok(m and abs(int(m.group(1)) - total) <= len(p["paths"]), "its total is the run's",
         g.stdout[:400])
    first = re.search(r"^\s*(\d+)ns\s+\S+%\s+\S+%\s+\d+ns\s+\S+%\s+(.+)$", g.stdout, re.M)
    hottest = max(funcs.values(), key=lambda f: f["self"][0])
    t.ok(first and first.group(2) == hottest["name"] and
         abs(int(first.group(1)) - hottest["self"][0]) <= len(p["paths"]),
         "its hottest self is the JSON's", g.stdout[:800])

with t.case("speedscope"):
    import jsonschema
    schema = json.load(open(os.path.join(h.ROOT, "tests", "js", "node_modules", "speedscope",
                                         "dist", "release", "file-format-schema.json")))
    doc = json.load(open(os.path.join(work, "x.speedscope.json")))
    errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]
    t.eq(errors[:3], [], "valid by speedscope's own schema")
    weights = sum(doc["profiles"][0]["weights"])
    t.ok(abs(weights - total) <= len(doc["profiles"][0]["weights"]),
         "its weights add up to the run (%d of %d)" % (weights, total))

with t.case("convert: the same files from the JSON"):
    again = [os.path.join(work, "again." + f) for f in FORMATS]
    c = cmd("convert", os.path.join(work, "x.json"), *again)
    t.eq(c.returncode, 0, "profviz convert")
    for f, path in zip(FORMATS, again):
        mine, theirs = open(path, "rb").read(), open(os.path.join(work, "x." + f), "rb").read()
        if f == "pb.gz":
            mine, theirs = gzip.decompress(mine), gzip.decompress(theirs)
        t.ok(mine == theirs, "convert: ." + f + " as the runtime wrote it")

with t.case("the command on a real profile"):
    rep = cmd("report", "--top", "10", os.path.join(work, "x.json"))
    t.ok(rep.returncode == 0 and hottest["name"] in rep.stdout, "report shows the hottest")
    name = "tinyxml2::XMLElement::ParseDeep(char*, tinyxml2::StrPair*, int*)"
    out = os.path.join(work, "focus.dot")
    d = cmd("dot", "--focus", name, "-o", out, os.path.join(work, "x.json"))
    t.eq(d.returncode, 0, "dot --focus on a member function, by its whole name")
    ok, err = h.dot_renders(out)
    t.ok(ok, "the focused graph renders", err)
    d = cmd("dot", "--root", "tinyxml2::XMLDocument::Identify", os.path.join(work, "x.json"))
    t.ok(d.returncode == 0 and "tinyxml2::XMLDocument::Identify\\n100.00%" in d.stdout,
         "dot --root by the name without parameters: 100% at the root", d.stderr)
with t.case("merge and diff on real profiles"):
    second = os.path.join(work, "y.json")
    r2 = cmd("run", "-q", "-o", second, "--", exe)
    t.eq(r2.returncode, 0, "a second run")
    both = os.path.join(work, "both.json")
    m = cmd("merge", "-o", both, os.path.join(work, "x.json"), second)
    t.eq(m.returncode, 0, "merge of the two runs")
    q = json.load(open(second))
    mm = json.load(open(both))
    def calls_by_name(prof):
        # A C++ destructor's variants share a name: summed, as a reader would.
        out = {}
        for f in prof["functions"]:
            out[(f["module"], f["name"])] = out.get((f["module"], f["name"]), 0) + f["calls"]
        return out
    xc, qc, mc = calls_by_name(p), calls_by_name(q), calls_by_name(mm)
    bad = [k[1] for k in mc if mc[k] != xc.get(k, 0) + qc.get(k, 0)]
    t.eq(bad, [], "merged calls are the sum of both runs' (%d functions)" % len(mm["functions"]))
    t.eq([pr["pid"] for pr in mm["processes"]], [p["pid"], q["pid"]], "both processes listed")
    out = os.path.join(work, "diff.dot")
    d = cmd("diff", "-o", out, os.path.join(work, "x.json"), second)
    t.eq(d.returncode, 0, "diff of the two runs")
    ok, err = h.dot_renders(out)
    t.ok(ok, "the change graph renders", err)
    t.ok("new" not in re.findall(r'label="[^"]*"', open(out).read())[0],
         "the same program: nothing new")
t.done()
