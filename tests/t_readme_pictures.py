#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's pictures are what the demo draws today. `make pictures`
draws viz/demo.png from viz/demo.dot (the graph the demo's run wrote) and
viz/screenshot.png from the page of viz/screenshot.json (that run's
profile), and commits both sources beside them. Here the demo's program
runs again under profviz, as `make demo` runs it, and what the code
decides must be the same in both sources: the functions, their calls, the
arcs and theirs, the calls inlined, and the caption's kind of measure. The
sampled times and shares are not compared: they move from run to run. The
README must show both pictures."""
import os
import re
import struct
import subprocess
import tempfile
import harness as h

t = h.Tap()
VIZ = os.path.join(h.ROOT, "viz")
EXAMPLES = os.path.join(h.ROOT, "examples")
DEMO_DOT = os.path.join(VIZ, "demo.dot")
DEMO_PNG = os.path.join(VIZ, "demo.png")
SHOT_JSON = os.path.join(VIZ, "screenshot.json")
SHOT_PNG = os.path.join(VIZ, "screenshot.png")
REDO = "make pictures draws them again"


def png_size(path):
    """(width, height) from a PNG's header."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def dot_graph(text):
    """What the code decides in a graph the dot writer wrote: each box's
    name and calls, each arc's ends and calls, and the caption's event line
    (the kind of measure). Times and shares are left out."""
    labels = dict(re.findall(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"', text, re.M))

    def calls(parts):
        last = parts[-1].strip() if parts else ""
        return last if last.endswith("×") else None
    names = {k: v.split("\\n")[0] for k, v in labels.items()}
    boxes = sorted((names[k], calls(v.split("\\n"))) for k, v in labels.items())
    arcs = sorted((names.get(a, a), names.get(b, b),
                   calls([p for p in lab.split("\\l") if p.strip()]))
                  for a, b, lab in re.findall(r'^\s*(\w+) -> (\w+) \[label="((?:[^"\\]|\\.)*)"',
                                              text, re.M))
    caption = re.search(r'^\s*graph \[.*?label="((?:[^"\\]|\\.)*)"', text, re.M)
    event = [l for l in (caption.group(1).split("\\l") if caption else []) if l.startswith("event")]
    return {"boxes": boxes, "arcs": arcs, "event": event}


def json_profile(doc):
    """What the code decides in a profile: its events, their backends and
    kinds, each function's calls and inlined calls, each arc's."""
    names = {f["id"]: f["name"] for f in doc["functions"]}
    return {
        "events": list(zip(doc["events"], doc["backends"], doc.get("kinds", []))),
        "functions": sorted((f["name"], f["calls"], f.get("inlined_calls", 0))
                            for f in doc["functions"]),
        "arcs": sorted((names.get(a["caller"], "<uninstrumented>"), names[a["callee"]], a["calls"],
                        a.get("inlined_calls", 0)) for a in doc["arcs"]),
    }


def differences(got, want):
    """The parts of two summaries that differ, for the diagnostic."""
    return "\n".join("%s: committed %r, today %r" % (k, got[k], want[k])
                     for k in want if got.get(k) != want[k])


with t.case("the README shows them"):
    readme = open(os.path.join(h.ROOT, "README.md")).read()
    for picture in ("viz/demo.png", "viz/screenshot.png"):
        t.ok(re.search(r"!\[[^\]]*\]\(%s\)" % re.escape(picture), readme),
             "README.md shows %s" % picture)
    for f in (DEMO_DOT, DEMO_PNG, SHOT_JSON, SHOT_PNG):
        t.ok(os.path.exists(f), "%s is committed" % os.path.relpath(f, h.ROOT))

with t.case("demo.png is demo.dot drawn"):
    out = os.path.join(tempfile.mkdtemp(prefix="profviz-pictures-"), "demo.png")
    subprocess.run(["dot", "-Tpng", DEMO_DOT, "-o", out], check=True, capture_output=True)
    t.eq(png_size(DEMO_PNG), png_size(out),
         "viz/demo.png has the size dot -Tpng draws viz/demo.dot at (%s)" % REDO)

# The demo's program, built as make demo builds it (its compiler line,
# examples/wordfreq.flags), into a directory of its own, and run with the
# demo's arguments.
subprocess.run(["make", "-s", "-C", EXAMPLES, "wordfreq.flags"], check=True, capture_output=True)
compile_line = open(os.path.join(EXAMPLES, "wordfreq.flags")).read().split()
version = subprocess.run([compile_line[0], "--version"], capture_output=True, text=True).stdout
not_gcc = "clang" in version and "the pictures are of gcc's build (make pictures), the demo " \
    "here is built with clang" or None
# The demo makes 220 million calls: minutes under a sanitizer's runtime,
# and the plain check holds the same pictures.
not_here = not_gcc or (h.SANITIZED and "the demo's 220 million calls under a sanitized "
                       "runtime take minutes; make check holds the pictures" or None)
makefile = open(os.path.join(EXAMPLES, "Makefile")).read()
args = re.search(r"examples/wordfreq ([^>\n]*?) *>", makefile).group(1).split()

with t.case("today's demo"):
    if not_here:
        t.skip("the demo's graph and profile against the committed ones", not_here)
    else:
        build = os.path.join(h.BUILD, "readme-pictures")
        os.makedirs(build, exist_ok=True)
        exe = os.path.join(build, "wordfreq")
        subprocess.run(compile_line + ["-o", exe, os.path.join(EXAMPLES, "wordfreq.c")],
                       check=True)
        r = h.run([exe] + args, outputs="prof.dot,prof.json")
        t.ok(r.rc == 0, "the demo's program under profviz, as make demo runs it: %s" %
             " ".join(["wordfreq"] + args), r.stderr)
        today = dot_graph(open(r.file("prof.dot")).read())
        t.ok(today["boxes"] and today["arcs"] and today["event"], "today's graph read", today)
        committed = dot_graph(open(DEMO_DOT).read())
        for part in ("boxes", "arcs", "event"):
            t.eq(committed[part], today[part],
                 "viz/demo.dot (viz/demo.png): the demo's %s today (%s)" % (part, REDO))
        today = json_profile(h.load_json(r.file("prof.json")))
        committed = json_profile(h.load_json(SHOT_JSON))
        t.ok(committed == today, "viz/screenshot.json (viz/screenshot.png): the demo's "
             "functions, calls, arcs and events today (%s)" % REDO, differences(committed, today))
t.done()
