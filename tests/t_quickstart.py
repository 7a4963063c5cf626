#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's quick start: the flags it gives for each compiler are the
ones `make demo` builds with, and they do what the README says: the
program's own functions are profiled, a header's inlined helper is not.
What it and the demo name first to look at the graph is there after `make
demo` on a fresh machine."""
import os
import re
import shlex
import shutil
import subprocess
import harness as h

t = h.Tap()
readme = open(os.path.join(h.ROOT, "README.md")).read()
blocks = [b.split("```", 1)[0] for b in readme.split("```sh")[1:]]
# The compile lines, and the run's first lines: each in the README's first
# shell block that has them.
block = next((b for b in blocks if "# gcc:" in b and "# clang:" in b), "")
run_block = next((b for b in blocks if re.search(r"LD_PRELOAD=\S*profviz\.so \./prog\n", b)), "")


def flags_after(comment):
    """The flags of the command under "# gcc:" or "# clang:", without the
    compiler, the optimisation level, -g, the sources and -o."""
    text = block.split(comment, 1)[1].split("\n#", 1)[0].replace("\\\n", " ")
    words = shlex.split(text.strip().splitlines()[0] if "\\" not in text else text)
    return [w for w in words[1:] if w.startswith("-f") or w.startswith("-gdwarf")]


gcc_flags = flags_after("# gcc:")
clang_flags = flags_after("# clang:")
t.ok("-finstrument-functions" in gcc_flags and
     any(f.startswith("-finstrument-functions-exclude-file-list=") for f in gcc_flags),
     "README: gcc's quick-start flags", block)
t.ok("-finstrument-functions-after-inlining" in clang_flags, "README: clang's flags", block)

with t.case("make demo builds with them"):
    subprocess.run(["make", "-s", "-C", os.path.join(h.ROOT, "examples"), "wordfreq.flags"],
                   check=True, capture_output=True)
    used = open(os.path.join(h.ROOT, "examples", "wordfreq.flags")).read().split()
    compiler = "clang" if "clang" in used[0] else "gcc"
    want = clang_flags if compiler == "clang" else gcc_flags
    t.eq([f for f in want if f not in used], [], "the demo (%s) uses the README's flags" % compiler)

with t.case("what to look at the graph with"):
    deps = open(os.path.join(h.ROOT, ".ci", "install-deps.sh")).read()
    packages = deps.split('PKGS="', 1)[1].split('"', 1)[0].split()

    def installed_by_deps(command):
        """The Debian package command comes from, if make deps installs it."""
        path = shutil.which(command)
        owner = path and subprocess.run(["dpkg-query", "-S", path], capture_output=True,
                                         text=True).stdout.split(":")[0]
        return owner if owner in packages else None
    after = re.split(r"LD_PRELOAD=\S*profviz\.so \./prog\n", run_block, 1)[1].splitlines()[0]
    viewer = after.split()[0]
    t.ok(installed_by_deps(viewer), "README: the first viewer named, %r, is installed by make "
         "deps" % viewer, after)
    demo = open(os.path.join(h.ROOT, "examples", "Makefile")).read()
    said = re.search(r'@echo "wrote ([^:]*):" \\\n\s*"open (\S+)', demo)
    made = said and [w.strip(",") for w in said.group(1).split() if w.startswith("prof.")]
    t.ok(said and said.group(2) in made, "make demo: the first thing it says to open is a file "
         "it wrote (%s)" % (said and said.group(2)), demo)

for compiler, flags in (("gcc", gcc_flags), ("clang", clang_flags)):
    with t.case(compiler):
        out = os.path.join(h.BUILD, "quickstart-" + compiler)
        os.makedirs(h.BUILD, exist_ok=True)
        subprocess.run([compiler, "-O2", "-g"] + flags + ["-I", h.PROGS, "-o", out,
                        os.path.join(h.PROGS, "quickstart.c")], check=True)
        r = h.run([out], outputs="prof.json")
        p = r.json()
        t.eq(p.calls("own_work"), 100, "%s: the program's own function, every call" % compiler)
        t.ok(p.func("qs_twice") is None, "%s: the header's helper is not hooked" % compiler,
             ", ".join(f["name"] for f in p.funcs))
        t.ok(p.func("own_work")["file"].endswith("quickstart.c"),
             "%s: file:line found" % compiler)
t.done()
