#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sampled time (tests/sampled.py: a profile as the runtime's sampler will
write it) through everything after the runtime: valid by the schema and read
back whole (revision 3 still read, as zeros); merged (samples and the
sampling account added) and diffed; profviz report's samples column, its
few-samples mark and its short-run sentence; the graph's caption and marks,
checked against the precision computed here, with the waits apart (the
default: shares of the work) and inside (--waits in); and each other format read by
its own reader (callgrind_annotate, go tool pprof, speedscope's schema,
folded stacks)."""
import json
import os
import re
import subprocess
import tempfile
import jsonschema
import harness as h
import sampled

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
SPEEDSCOPE_SCHEMA = os.path.join(h.ROOT, "tests", "js", "node_modules", "speedscope", "dist",
                                 "release", "file-format-schema.json")
tmp = tempfile.mkdtemp(prefix="profviz-sampled-")
GO_HOME = os.path.join(tmp, "go")
GO_ENV = dict(os.environ, HOME=GO_HOME, GOCACHE=os.path.join(GO_HOME, "cache"),
              GOPATH=os.path.join(GO_HOME, "go"), PPROF_TMPDIR=os.path.join(GO_HOME, "tmp"),
              GOFLAGS="", GOTOOLCHAIN="local")


def profviz(*args):
    return h.command(*args, cwd=tmp)


def write(name, doc):
    return h.write_json(tmp, name, doc)


load = h.load_json


def by_name(doc, key):
    return {f["name"]: f[key] for f in doc["functions"]}


def path_values(doc, key):
    """{(names from the root down): value} of each call path."""
    out, chains = {}, []
    for p in doc["paths"]:
        chain = (chains[p["parent"]] if p["parent"] is not None else ()) + \
            (doc["functions"][p["function"]]["name"],)
        chains.append(chain)
        out[chain] = p[key]
    return out


def precision(doc, share=0.10, apart=False):
    """The caption's "good to" figure, in points, as the C code rounds it."""
    return "\u00b1%.2g points" % (100 * sampled.share_error(doc, share, apart))


def ms(ns):
    return "%.1f ms" % (ns / 1e6)


def waits_apart_said(doc):
    """How the report's heading and the graph's caption say the waits are
    apart: the work, then the waits and their share of the wall."""
    run, waits = doc["run_total"][0], sampled.blocked(doc)
    return "work %s; blocked in libc's waits, apart: %s (%.1f%% of the wall: work and waits)" % (
        ms(run - waits), ms(waits), 100.0 * waits / run)


VIEWS = (("apart", True), ("in", False))  # --waits: the default, then the waits inside


SHORT, LONG = sampled.profile(1), sampled.profile(2)
short_path, long_path = write("short.json", SHORT), write("long.json", LONG)
OLD = sampled.revision_3(LONG)
old_path = write("rev3.json", OLD)

with t.case("schema"):
    for what, doc in (("short", SHORT), ("long", LONG), ("revision 3", OLD)):
        errs = h.schema_errors(doc)
        t.ok(not errs, "%s: valid by the schema" % what, "\n".join(errs))
    t.ok(h.schema_errors(dict(LONG, functions=[dict(LONG["functions"][0], kind="idle")])),
         "the schema refuses a kind of function it does not know")
    t.ok(h.schema_errors({k: v for k, v in LONG.items() if k != "sampling"}),
         "the schema refuses revision 4 on without its sampling account")

with t.case("round trip"):
    back = os.path.join(tmp, "back.json")
    r = profviz("convert", long_path, back)
    t.eq((r.returncode, r.stderr), (0, ""), "convert: the sampled profile read and written again")
    got = load(back)
    t.eq(got["sampling"], LONG["sampling"], "the sampling account, every field, read and "
         "written back")
    t.eq(by_name(got, "samples"), by_name(LONG, "samples"), "every function's samples")
    t.eq(by_name(got, "kind"), by_name(LONG, "kind"), "every function's kind (the wait's)")
    t.eq(path_values(got, "samples"), path_values(LONG, "samples"), "every path's samples")
    t.eq((got["kinds"], got["backends"], got["units"]), (LONG["kinds"], LONG["backends"],
                                                         LONG["units"]),
         "the events: time sampled by the sampler, in ns; page-faults read by the hooks")
    t.eq(got, LONG, "the whole profile as it was")

with t.case("revision 3"):
    r = profviz("report", old_path)
    t.ok(r.returncode == 0 and "samples" not in r.stdout and " ?  " not in r.stdout,
         "report: a revision 3 file read; its time is not sampled: no samples, no marks",
         r.stdout + r.stderr)
    again = os.path.join(tmp, "rev3-again.json")
    r = profviz("convert", old_path, again)
    got = load(again)
    t.ok(r.returncode == 0 and got["revision"] == 6, "convert: revision 3 read, 6 written",
         r.stderr)
    t.ok(set(by_name(got, "samples").values()) == {0} and
         set(by_name(got, "kind").values()) == {"plain"} and
         set(path_values(got, "samples").values()) == {0} and
         set(got["sampling"].values()) == {0} and got["kinds"] == ["time", "count"],
         "... with no samples, every function plain, a sampling account of zeros",
         json.dumps(got["sampling"]))

with t.case("report"):
    for (what, doc, path), (waits, apart) in [(d, v) for d in (("short", SHORT, short_path),
                                                            ("long", LONG, long_path))
                                              for v in VIEWS]:
        r = profviz("report", "--top", "0", "--waits", waits, path)
        what = "%s, waits %s" % (what, waits)
        lines = r.stdout.splitlines()
        n = sum(f["samples"] for f in doc["functions"])
        t.ok(r.returncode == 0, "%s: report exit 0" % what, r.stderr)
        t.eq(lines[2], "time sampled at {}: {:,} samples; 0.9% dropped as profviz's own{}"
             .format(sampled.rate_said(doc), n, "" if apart else "; 17.8% of it blocked in libc's waits (measured, "
                     "not sampled)"),
             "%s: the heading says how the time was sampled" % what)
        t.eq(lines[1].endswith(waits_apart_said(doc)), apart,
             "%s: the heading says the work, and the waits apart, only when they are" % what,
             lines[1])
        t.eq(lines[3], "a share of 10% is good to " + precision(doc, apart=apart),
             "%s: and what a share of 10%% is good to" % what)
        header = next((l for l in lines if "self%" in l), "")
        t.ok(re.search(r"per call\s+samples  function$", header), "%s: a samples column" % what,
             header)
        rows = {}
        listed = [f for f in doc["functions"] if not (apart and f["kind"] == "wait")]
        for f in listed:
            row = next((l for l in lines if l.endswith("  " + f["name"]) or
                        "  %s  (" % f["name"] in l), "")
            m = re.search(r" (\d+) (\?| )  " + re.escape(f["name"]), row)
            rows[f["name"]] = (int(m.group(1)), m.group(2) == "?") if m else row
        t.eq(rows, {f["name"]: (f["samples"], f["name"] in sampled.FEW) for f in listed},
             "%s: each function's samples, '?' on those whose self rests on fewer than 10 "
             "(not the wait's, measured; not one with no self)" % what)
        wait = next(f for f in doc["functions"] if f["kind"] == "wait")
        row = "%6.2f%% %12s %12d  main -> %s" % (100.0 * wait["total"][0] / doc["run_total"][0],
                                                  ms(wait["total"][0]), wait["calls"], wait["name"])
        t.eq(("Blocked in libc's waits, apart from the work above (shares of the wall: work and "
              "waits):" in lines, row in lines), (apart, apart),
             "%s: the wait in a table of its own, its share of the wall, only when apart" % what)
        t.ok("? its self rests on fewer than 10 samples (worse than \u00b132% of itself)" in lines,
             "%s: the mark said under the table" % what)
        short_line = [l for l in lines if "short run" in l]
        t.eq(short_line, ["A short run: {:,} samples (under 1000): a function at 1% of it is "
                          "good only to \u00b1{:.0f}% of itself; profile a longer run."
                          .format(n, 100 * sampled.share_error(doc, 0.01, apart) / 0.01)]
             if n < 1000 else [], "%s: a short run said so, a long one not (%d samples)"
             % (what, n))
    r = profviz("report", "--event", "page-faults", long_path)
    t.ok(r.returncode == 0 and "samples" not in r.stdout and "sampled at" not in r.stdout,
         "report in page-faults (read by the hooks): no samples column, no sampling line",
         r.stdout)

with t.case("graph"):
    for (what, doc, path), (waits, apart) in [(d, v) for d in (("short", SHORT, short_path),
                                                            ("long", LONG, long_path))
                                              for v in VIEWS]:
        dot = os.path.join(tmp, "%s-%s.dot" % (what, waits))
        what = "%s, waits %s" % (what, waits)
        r = profviz("dot", "-n", "0", "-e", "0", "--waits", waits, "-o", dot, path)
        t.eq((r.returncode, r.stderr), (0, ""), "%s: profviz dot wrote the graph" % what)
        text = open(dot, encoding="utf-8").read()
        label = re.search(r'label="(.*?)"\];', text).group(1)
        n = sum(f["samples"] for f in doc["functions"])
        t.ok("\\ltime sampled at {}: {:,} samples; 0.9% dropped as profviz's own{}"
             "\\la share of 10% is good to {}\\l".format(
                 sampled.rate_said(doc), n, "" if apart else "; 17.8% of it blocked in libc's waits (measured, not "
                 "sampled)", precision(doc, apart=apart)) in label,
             "%s: the caption: rate, samples, looks dropped, time blocked, precision" % what,
             label)
        t.ok("\\l? after a self share, and a dashed box: its self rests on fewer than 10 "
             "samples (worse than \u00b132% of itself)\\l" in label,
             "%s: the caption says what the mark means" % what)
        t.eq("short run" in label, n < 1000, "%s: a short run said in the caption" % what)
        marked = {f["name"] for f in doc["functions"]
                  if re.search(r'\n  f\d+ \[label="%s\\n[^"]*\?\)\\n[^\n]*style="filled,dashed"'
                               % re.escape(f["name"]), text)}
        t.eq(marked, sampled.FEW, "%s: exactly the few-samples boxes marked and dashed" % what)
        t.eq(text.count("dashed\""), len(sampled.FEW), "%s: no other box or arc dashed" % what)
        r = profviz("dot", "-n", "1", "--waits", waits, "-o", dot, path)
        text = open(dot, encoding="utf-8").read()
        t.ok("dashed\"" not in text and "a dashed box" not in text,
             "%s: -n 1 hides the marked box, and the caption its legend" % what)
        svg = subprocess.run(["dot", "-Tsvg", dot], capture_output=True, text=True, timeout=60)
        t.eq((svg.returncode, svg.stderr), (0, ""), "%s: graphviz draws it, silently" % what)

with t.case("merge"):
    merged = os.path.join(tmp, "merged.json")
    r = profviz("merge", "-o", merged, short_path, long_path)
    t.eq((r.returncode, r.stderr), (0, ""), "merge of two sampled runs: exit 0, nothing said")
    m = load(merged)
    t.eq(by_name(m, "samples"), {k: v + by_name(LONG, "samples")[k]
                                 for k, v in by_name(SHORT, "samples").items()},
         "every function's samples: the sum of the runs'")
    t.eq(path_values(m, "samples"), {k: v + path_values(LONG, "samples")[k]
                                     for k, v in path_values(SHORT, "samples").items()},
         "every path's samples: the sum of the runs'")
    t.eq(m["sampling"], dict({k: SHORT["sampling"][k] + LONG["sampling"][k]
                              for k in SHORT["sampling"]}, rate_hz=1000),
         "the sampling account: the runs' summed, at their rate")
    t.eq(by_name(m, "kind"), by_name(SHORT, "kind"), "each function's kind kept")
    t.eq(m["kinds"], ["sampled", "count"], "the merge is of sampled time")
    other_rate = write("rate500.json", sampled.profile(1, rate_hz=500))
    r = profviz("merge", "-o", os.path.join(tmp, "mixed.json"), short_path, other_rate)
    t.ok(r.returncode == 0 and r.stderr == "" and
         load(os.path.join(tmp, "mixed.json"))["sampling"]["rate_hz"] == 1000,
         "merge of runs sampled at 1000 and 500 Hz: done quietly (each sample carries its "
         "time), at the first one's rate", r.stderr)
    out = os.path.join(tmp, "refused.json")
    r = profviz("merge", "-o", out, long_path, old_path)
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and "time [ns, sampled]" in lines[0] and
         "time [ns]" in lines[0] and not os.path.exists(out),
         "merge of sampled time with time read by the hooks: refused, in one line", r.stderr)

with t.case("diff"):
    r = profviz("diff", "--report", short_path, long_path)
    t.ok(r.returncode == 0 and "compute" in r.stdout, "diff of two sampled runs: the table",
         r.stdout + r.stderr)
    r = profviz("diff", short_path, long_path)
    t.ok(r.returncode == 0 and r.stdout.startswith("digraph"), "... and the graph", r.stderr)

with t.case("callgrind"):
    cg = os.path.join(tmp, "long.callgrind")
    t.eq(profviz("convert", long_path, cg).returncode, 0, "convert to callgrind")
    a = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", cg],
                       capture_output=True, text=True, timeout=60)
    t.eq((a.returncode, a.stderr), (0, ""), "callgrind_annotate reads it, silently")
    t.ok("Sampling: time sampled at %s: 1,848 samples;" % sampled.rate_said(LONG) in a.stdout,
         "callgrind_annotate shows how the time was sampled", a.stdout[:600])
    compute = re.search(r"^\s*([\d,]+) \S+\s+([\d,]+) \S+\s+prog.c:compute ", a.stdout, re.M)
    t.eq(compute and int(compute.group(1).replace(",", "")), 1200 * sampled.MS,
         "compute's self in ns, as the JSON has it")

with t.case("pprof"):
    pb = os.path.join(tmp, "long.pb.gz")
    t.eq(profviz("convert", long_path, pb).returncode, 0, "convert to pprof")

    def pprof(*args):
        p = subprocess.run(["go", "tool", "pprof"] + list(args), env=GO_ENV,
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    rc, out, err = pprof("-top", "-nodefraction=0", "-unit=ms", pb)
    t.eq((rc, err.strip()), (0, ""), "go tool pprof -top reads it, silently")
    t.ok("\nType: time\n" in out, "pprof reads the sampled time with a wait's as time, not "
         "cpu", out[:600])
    t.ok("Duration:" not in out and not re.search(r"Total samples = .*%", out),
         "... with no share of a duration, which would read as the CPU used", out[:600])
    t.ok(re.search(r"^\s+1200ms\s+\S+%\s+\S+%\s+1800ms\s+\S+%\s+compute$", out, re.M),
         "compute: 1200 ms flat, 1800 ms cum, as the JSON has it", out)
    t.ok("a share of 10% is good to " + precision(LONG) in out,
         "pprof shows what a share is good to (a comment)")
    # Without time in a wait, the sampled time is CPU time alone: pprof's cpu.
    busy = json.loads(json.dumps(LONG))
    waits = {f["id"] for f in busy["functions"] if f.get("kind") == "wait"}
    for item in busy["functions"] + busy["paths"]:
        if item.get("id", item.get("function")) in waits:
            item["self"][0] = 0
    busy_pb = os.path.join(tmp, "busy.pb.gz")
    t.eq(profviz("convert", write("busy.json", busy), busy_pb).returncode, 0,
         "convert a run whose waits hold no time")
    rc, out, err = pprof("-top", busy_pb)
    t.ok(rc == 0 and "\nType: cpu\n" in out, "... pprof reads its sampled time as cpu", out[:600])
    rc, out, err = pprof("-top", "-nodefraction=0", "-sample_index=samples", pb)
    t.ok(rc == 0 and "\nType: samples\n" in out and
         re.search(r"^\s+1200\s+\S+%\s+\S+%\s+1800\s+\S+%\s+compute$", out, re.M) and
         re.search(r"^\s+8\s+\S+%\s+\S+%\s+8\s+\S+%\s+rare$", out, re.M),
         "-sample_index=samples: each function's samples (compute 1200, rare 8)", out + err)
    rc, out, err = pprof("-top", "-sample_index=page-faults", pb)
    t.ok(rc == 0 and "\nType: page-faults\n" in out, "the event read by the hooks keeps its name",
         out + err)

with t.case("speedscope and folded"):
    ss = os.path.join(tmp, "long.speedscope.json")
    t.eq(profviz("convert", long_path, ss).returncode, 0, "convert to speedscope")
    doc = load(ss)
    errs = [e.message[:200] for e in
            jsonschema.Draft7Validator(load(SPEEDSCOPE_SCHEMA)).iter_errors(doc)]
    t.eq(errs, [], "valid by speedscope's own schema")
    first = doc["profiles"][0]
    t.ok(first["unit"] == "nanoseconds" and first["name"].endswith("(time, sampled)") and
         sum(first["weights"]) == LONG["run_total"][0],
         "the sampled time's profile in ns, named as sampled, weighing the run",
         {k: first[k] for k in ("name", "unit")})
    fo = os.path.join(tmp, "long.folded")
    t.eq(profviz("convert", long_path, fo).returncode, 0, "convert to folded stacks")
    lines = open(fo).read().splitlines()
    t.ok("main;compute %d" % (1200 * sampled.MS) in lines and
         "main;<blocked: nanosleep> %d" % (400 * sampled.MS) in lines,
         "folded: each path's self in ns", lines)
t.done()
