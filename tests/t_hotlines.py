#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hot lines: a sampled run keeps its threads' PCs and writes each
function's hottest source lines (a run with two functions 3:1, each with one
line that holds its time); `profviz report --lines FUNC` (each line's share
of the samples in the function's code, hottest first, with its source text);
and a function's "lines" kept by convert and summed by merge, on a profile
given lines by hand so that every figure is known."""
import copy
import os
import re
import tempfile
import harness as h

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
SOURCE = os.path.join(h.PROGS, "cmd_shapes.c")
tmp = tempfile.mkdtemp(prefix="profviz-lines-")


def profviz(*args):
    return h.command(*args, cwd=tmp)


load = h.load_json


def write(name, doc):
    return h.write_json(tmp, name, doc)


def line_of(text):
    return h.line_of(SOURCE, text)


def one_line_naming(r, path, what):
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and path in lines[0], what,
         "rc %d, stderr %r" % (r.returncode, r.stderr))


HOT_SOURCE = os.path.join(h.PROGS, "hot_lines.c")


def hot_line(name):
    return h.line_of(HOT_SOURCE, "HOT " + name)


def line_samples(f):
    return sum(x["samples"] for x in f.get("lines", []))


# A run's own PCs. heavy and light are busy 3:1 for about 1.5 s of CPU, and
# each spends some three quarters of it in its HOT line (dependent divisions
# beside a loop's increment). At one PC per 4 ms of CPU that is some 280 and
# 95 PCs: the hottest line of each is its HOT line by a wide margin, which
# also shows each PC placed in its own function. How near 3:1 their PCs
# come is the kernel's: it takes a PC at every 4 ms of the thread's CPU,
# with no jitter, and a round of heavy and light (some 19 ms here) may
# repeat in step with that on another machine, when the same instants of
# each round are seen again and again. make bench-hotlines measures that
# split at the runtime's 4 ms, fixed and jittered (bench/README.md, "Hot
# lines"); here both need only have PCs.
hot = h.build("hot_lines", flags=h.NO_INLINE)
with t.case("a sampled run's hot lines"):
    r = h.run([hot, "80"], outputs="prof.json")
    p = r.json()
    fs = {f["name"]: f for f in p.data["functions"]}
    for name in ("heavy", "light"):
        lines = fs[name].get("lines", [])
        t.ok(lines and lines[0]["file"] and lines[0]["file"].endswith("hot_lines.c")
             and lines[0]["line"] == hot_line(name)
             and lines[0]["samples"] >= 0.5 * line_samples(fs[name]),
             "%s: its HOT line (%d) is its hottest, with most of its PCs" % (name, hot_line(name)),
             lines)
    heavy, light = line_samples(fs["heavy"]), line_samples(fs["light"])
    t.ok(heavy > 0 and light > 0, "heavy's PCs and light's: %d and %d (%.2f:1; 3:1 of the CPU)"
         % (heavy, light, heavy / max(light, 1)))
    own = [x for f in p.data["functions"] for x in f.get("lines", [])
           if x["file"] and "/lib/" in x["file"] and x["file"].startswith(h.ROOT)]
    t.eq(own, [], "no line is profviz's own")
    rep = profviz("report", "--lines", "heavy", r.file("prof.json"))
    rows = [l for l in rep.stdout.splitlines() if re.match(r"\s*[\d.]+%", l)]
    t.ok(rep.returncode == 0 and rows and "hot_lines.c:%d" % hot_line("heavy") in rows[0],
         "report --lines heavy names the HOT line first", rep.stdout + rep.stderr)
with t.case("no hot lines when the hooks read the time"):
    r = h.run([hot, "5"], outputs="prof.json", env={"PROFVIZ_TIME": "hooks"})
    t.eq([f["name"] for f in r.json().data["functions"] if f.get("lines")], [],
         "PROFVIZ_TIME=hooks samples no PC")

run = h.run([h.build("cmd_shapes", flags=h.NO_INLINE)], outputs="prof.json")
base = load(run.file("prof.json"))
body, loop = line_of("sink += i;"), line_of("for (unsigned long i = 0; i < n; i++)")
SPIN_LINES = [{"file": SOURCE, "line": body, "samples": 300},
              {"file": SOURCE, "line": loop, "samples": 80},
              {"file": None, "line": 0, "samples": 20}]
doc = copy.deepcopy(base)
spin = next(f for f in doc["functions"] if f["name"] == "spin")
spin["lines"] = SPIN_LINES
with_lines = write("lines.json", doc)

with t.case("report --lines"):
    r = profviz("report", "--lines", "spin", with_lines)
    t.ok(r.returncode == 0, "exit status 0", r.stderr)
    out = r.stdout.splitlines()
    t.ok("the hot lines of spin" in out[0] and "cmd_shapes.c:" in out[0],
         "the heading names the function and where it is", out[0])
    t.ok("400 samples landed in its code" in r.stdout, "it says how many samples the shares "
         "are of", r.stdout)
    rows = [l for l in out if "%" in l and "share" not in l and "samples landed" not in l]
    t.ok([l.split()[0] for l in rows] == ["75.00%", "20.00%", "5.00%"],
         "each line's share of the function's samples, hottest first", r.stdout)
    t.ok("cmd_shapes.c:%d" % body in rows[0] and rows[0].rstrip().endswith("sink += i;"),
         "the hottest line with its place and its source text", rows[0])
    t.ok("cmd_shapes.c:%d" % loop in rows[1] and "for (unsigned long i" in rows[1],
         "the next one", rows[1])
    t.ok("elsewhere in the function" in rows[2], "the rest of its samples last", rows[2])
    t.ok("\033[" not in r.stdout, "no colour into a pipe")
    t.ok("\033[1;31m" in profviz("report", "--lines", "spin", "--color", "always",
                                 with_lines).stdout, "colour when asked")

with t.case("report --lines: a source that is not here"):
    gone = copy.deepcopy(doc)
    for l in next(f for f in gone["functions"] if f["name"] == "spin")["lines"]:
        if l["file"]:
            l["file"] = "/nonexistent/cmd_shapes.c"
    r = profviz("report", "--lines", "spin", write("gone.json", gone))
    t.ok(r.returncode == 0 and "75.00%" in r.stdout and "sink" not in r.stdout,
         "its lines without their text", r.stdout + r.stderr)

with t.case("report --lines: copies"):
    two = copy.deepcopy(doc)
    other = copy.deepcopy(next(f for f in two["functions"] if f["name"] == "spin"))
    other["id"] = len(two["functions"])
    other["address"] = "0x1"
    other["lines"] = [{"file": SOURCE, "line": loop, "samples": 400}]
    two["functions"].append(other)
    r = profviz("report", "--lines", "spin", write("copies.json", two))
    rows = [l for l in r.stdout.splitlines() if "%" in l and "share" not in l
            and "samples landed" not in l]
    t.ok("its 2 copies together" in r.stdout and "800 samples" in r.stdout and
         [l.split()[0] for l in rows] == ["60.00%", "37.50%", "2.50%"] and
         "cmd_shapes.c:%d" % loop in rows[0],
         "a header function's copies: their lines summed", r.stdout + r.stderr)

with t.case("report --lines: what it refuses"):
    r = profviz("report", "--lines", "main", with_lines)
    t.ok(r.returncode == 0 and "no sample landed in its code" in r.stdout,
         "a function without samples in a run that sampled: said, status 0", r.stdout)
    one_line_naming(profviz("report", "--lines", "nosuch", with_lines), with_lines,
                    "no such function: exit 2, one line naming the file")
    # Whether a short run's ring sampled a PC is the kernel's to say: the
    # same profile without its lines is one that sampled none.
    unsampled = copy.deepcopy(load(run.file("prof.json")))
    for f in unsampled["functions"]:
        f.pop("lines", None)
    plain = write("unsampled.json", unsampled)
    r = profviz("report", "--lines", "spin", plain)
    one_line_naming(r, plain, "a run that sampled no PCs: exit 2, one line naming the file")
    t.ok("sampled no program counters" in r.stderr, "... which says so", r.stderr)
    r = profviz("report", "--lines", "spin", "--focus", "alpha", with_lines)
    t.ok(r.returncode == 2 and "--lines is of the whole run: not with --focus" in r.stderr,
         "--lines with --focus: refused, saying why", r.stderr)

with t.case("convert and merge keep the lines"):
    again = os.path.join(tmp, "again.json")
    r = profviz("convert", with_lines, again)
    got = next(f for f in load(again)["functions"] if f["name"] == "spin").get("lines")
    t.eq(got, SPIN_LINES, "convert writes a function's lines as it read them")
    t.ok(all("lines" not in f for f in load(again)["functions"] if f["name"] != "spin"),
         "... and none to functions that had none")
    merged = os.path.join(tmp, "merged.json")
    r = profviz("merge", "-o", merged, with_lines, with_lines)
    got = next(f for f in load(merged)["functions"] if f["name"] == "spin").get("lines")
    t.ok(got == [dict(l, samples=2 * l["samples"]) for l in SPIN_LINES],
         "merge sums each line's samples", "%r\n%s" % (got, r.stderr))
    many = copy.deepcopy(doc)
    next(f for f in many["functions"] if f["name"] == "spin")["lines"] = \
        [{"file": SOURCE, "line": n, "samples": 100 - n} for n in range(1, 21)]
    merged = os.path.join(tmp, "merged20.json")
    profviz("merge", "-o", merged, write("many.json", many), with_lines)
    got = next(f for f in load(merged)["functions"] if f["name"] == "spin")["lines"]
    t.ok(len(got) == 17 and got[-1]["file"] is None and
         sum(l["samples"] for l in got) == sum(100 - n for n in range(1, 21)) + 400,
         "a merge keeps the 16 hottest lines and sums the rest into one", got)
t.done()
