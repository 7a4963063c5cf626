#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lib/ in layers, one way (lib/README.md): base <- model <- output <- {runtime,
cmd}. Every include names its folder, and each folder includes only what the
table allows; the command links no runtime code. Each check is also run on a
planted violation, so that a check that cannot fail is seen."""
import os
import re
import shutil
import subprocess
import tempfile
import harness as h

t = h.Tap()
LIB = os.path.join(h.ROOT, "lib")

# What each folder may include from lib/ (its own folder included).
MAY_INCLUDE = {
    "base": {"base"},
    "model": {"base", "model"},
    "output": {"base", "model", "output"},
    "runtime": {"base", "model", "output", "runtime"},
    "runtime/wrap": {"base", "model", "output", "runtime"},
    "cmd": {"base", "model", "output", "cmd"},
}
# System headers a folder may not use: the model knows events by their
# kind, never by perf's attributes.
FORBIDDEN_SYSTEM = {"model": {"linux/perf_event.h"}, "output": {"linux/perf_event.h"},
                    "cmd": {"linux/perf_event.h"}}
# The public header (include/), which the runtime implements.
PUBLIC = {"profviz.h": {"runtime"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def folder_of(rel):
    """The layer a file under lib/ belongs to: 'runtime/wrap', 'model', ..."""
    parts = rel.split(os.sep)
    if parts[0] == "runtime" and len(parts) > 2 and parts[1] == "wrap":
        return "runtime/wrap"
    return parts[0] if len(parts) > 1 else None


def violations(lib):
    """Every include under lib that breaks the table, as 'file: why'."""
    found = []
    for root, _, files in os.walk(lib):
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".S")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, lib)
            folder = folder_of(rel)
            if folder is None:
                found.append("%s: a source outside every layer's folder" % rel)
                continue
            with open(path, errors="replace") as f:
                text = f.read()
            for kind, header in INCLUDE.findall(text):
                if kind == "<":
                    if header in FORBIDDEN_SYSTEM.get(folder, ()):
                        found.append("%s: <%s> is not %s's" % (rel, header, folder))
                    continue
                top = header.split("/")[0]
                if folder in PUBLIC.get(header, ()):
                    continue
                if "/" not in header:
                    found.append('%s: "%s" does not name its folder' % (rel, header))
                elif top == "runtime" and header.startswith("runtime/wrap/") and \
                        folder != "runtime/wrap" and rel != os.path.join("runtime", "runtime.c"):
                    found.append('%s: "%s": only runtime.c starts the wrappers' % (rel, header))
                elif top not in MAY_INCLUDE[folder]:
                    found.append('%s: "%s": %s may not use %s' % (rel, header, folder, top))
    return found


with t.case("includes"):
    found = violations(LIB)
    t.eq(found, [], "every include under lib/ names its folder and keeps to the table")
    # The same check on a copy with one violation planted per rule.
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "lib")
        shutil.copytree(LIB, copy, ignore=shutil.ignore_patterns("*.md", "*.js"))
        plants = {
            "model/profile.c": '#include "runtime/cct.h"\n',
            "output/dot.c": '#include "cmd/cmd.h"\n',
            "base/arena.c": '#include "model/event.h"\n',
            "cmd/dot.c": '#include "runtime/counters.h"\n',
            "model/report.c": '#include <linux/perf_event.h>\n',
            "output/json.c": '#include "report.h"\n',
            "runtime/thread.c": '#include "runtime/wrap/wrap.h"\n',
        }
        for rel, line in plants.items():
            with open(os.path.join(copy, rel), "a") as f:
                f.write(line)
        planted = violations(copy)
        t.ok(sorted({v.split(":")[0] for v in planted}) == sorted(plants),
             "a violation planted in each of %d files is found, and nothing else" % len(plants),
             diag="\n".join(planted))


def symbols(binary, defined):
    flags = ["--defined-only"] if defined else ["-u"]
    out = subprocess.run(["nm", "-C"] + flags + [binary], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


RUNTIME_ONLY = re.compile(r"^pv_(counters|cct|thread|fd|guard|hook|runtime|stack)_")

with t.case("the command"):
    cmd = os.path.join(h.ROOT, "profviz")
    leaked = sorted(s for s in symbols(cmd, True) if RUNTIME_ONLY.match(s))
    t.eq(leaked, [], "the command holds no runtime code (nm profviz)")
    # The same pattern finds the runtime's code where it is: in profviz.so.
    t.ok(any(RUNTIME_ONLY.match(s) for s in symbols(h.PRELOAD, True)),
         "... the check finds such code in profviz.so")
    ldd = subprocess.run(["ldd", cmd], capture_output=True, text=True).stdout
    t.ok("libdw" not in ldd and "libelf" not in ldd,
         "the command needs neither libdw nor libelf", diag=ldd)



def objects_and_edges(planted=None):
    """The plain build's objects of lib/ and the command's own (profviz.o),
    and which objects each one calls or reads (nm: undefined symbols to
    where they are defined). Only the project's own names count: a libc
    name the wrappers define is libc's to every other object (t_seam.py
    watches those). planted: {name: object} added as lib/'s objects."""
    build = os.path.join(h.ROOT, "build", "plain")
    objs = h.built_objects(build) + [os.path.join(build, "profviz.o")]
    names = {}
    for name, o in (planted or {}).items():
        names[o] = name
        objs.append(o)
    defined, needs = {}, {}
    for o in objs:
        needs[o] = set()
        for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U" and f[1].startswith(("pv_", "profviz_")):
                needs[o].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRVW":
                defined.setdefault(f[2], o)
    def rel(o):
        if o in names:
            return names[o]
        r = os.path.relpath(o, os.path.join(build, "lib"))[:-2]
        return "profviz" if r == os.path.join("..", "profviz") else r
    return {rel(o): {rel(defined[s]) for s in needs[o] if s in defined and defined[s] != o}
            for o in objs}


def layer_of(obj):
    """The layer an object of objects_and_edges() belongs to; the command's
    own is cmd's."""
    parts = obj.split("/")
    return "cmd" if obj == "profviz" else \
        "runtime/wrap" if parts[:2] == ["runtime", "wrap"] else parts[0]


def calls_up(graph):
    """Every edge from an object into a layer its own may not use (runtime.c
    into its wrappers is the entry's: checked below)."""
    def may(a, b):
        la, lb = layer_of(a), layer_of(b)
        return lb in MAY_INCLUDE[la] or lb == la or (lb == "runtime/wrap" and la == "runtime")
    return sorted("%s -> %s" % (a, b) for a in graph for b in graph[a] if not may(a, b))


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


with t.case("no call up a layer"):
    # The includes' table, held at the symbols: a call declared by hand,
    # with no include, is found too.
    t.eq(calls_up(objects_and_edges()), [], "no object calls or reads a layer above its own, "
         "the command's profviz.o included")
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "planted.c"), os.path.join(tmp, "planted.o")
        with open(src, "w") as f:
            f.write("struct pv_report;\nint pv_write_json(void *out, const struct pv_report *r);\n"
                    "int planted(void) { return pv_write_json(0, 0); }\n")
        subprocess.run(["gcc", "-c", "-o", obj, src], check=True)
        t.eq(calls_up(objects_and_edges({"model/planted": obj})),
             ["model/planted -> output/json"],
             "... a call from the model into an output's writer, declared without an include, "
             "is found")

with t.case("no cycles"):
    graph = objects_and_edges()
    t.ok(len(graph) > 50, "the objects of every layer are found (%d)" % len(graph))
    # Inside the runtime, the one circle allowed is its entry (start-up and
    # threads, dumps, dlclose, windows: one process-wide state) and the wrappers it
    # starts, which call back into it (as libmcount's mcount.c and wrap.c
    # do); anything else would be the runtime calling its own libc
    # wrappers, or two files that should be one.
    entry = {"runtime/runtime", "runtime/dump", "runtime/unload", "runtime/window"}
    allowed = lambda c: all(o in entry or o.startswith("runtime/wrap/") for o in c)
    bad = [c for c in cycles(graph) if not allowed(c)]
    t.eq(bad, [], "no circle of objects but the runtime's entry with its wrappers")
    # The wrappers are started by runtime.c alone, through pv_wrap_*.
    def callers_of_wrap(g):
        return sorted(o for o in g if not o.startswith("runtime/wrap/") and
                      o != "runtime/runtime" and any(w.startswith("runtime/wrap/") for w in g[o]))
    t.eq(callers_of_wrap(graph), [], "no object but runtime.c calls into runtime/wrap/")
    t.eq(callers_of_wrap(dict(graph, **{"runtime/thread": {"runtime/wrap/signals"}})),
         ["runtime/thread"], "... a call planted is found")
    planted = dict(graph)
    planted["model/profile"] = graph["model/profile"] | {"output/json"}
    planted["output/json"] = graph["output/json"] | {"model/profile"}
    t.ok(["model/profile", "output/json"] in cycles(planted), "... a circle planted is found")

t.done()
