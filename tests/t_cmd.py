#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The profviz command on saved profiles: run, report, dot and convert, each
checked against the JSON the same run wrote; and bad input, which gets one
line naming the file and exit status 2."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import harness as h

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
prog = h.build("cmd_shapes", flags=h.NO_INLINE + ["-fno-optimize-sibling-calls"])
tmp = tempfile.mkdtemp(prefix="profviz-cmd-")


def profviz(*args, cwd=None, env=None):
    return h.command(*args, cwd=cwd or tmp, env=env)


load = h.load_json


def by_name(p):
    return {f["name"]: f for f in p["functions"]}


def one_line_naming(r, path, name):
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and len(lines) == 1 and path in lines[0],
         name, "rc %d, stderr: %r" % (r.returncode, r.stderr))


# ---- run ----
with t.case("run"):
    plain = subprocess.run([prog, "3"], capture_output=True)
    # The tests of the command below need times read per call: a run this
    # short has too few samples to rank anything.
    r = profviz("run", "-o", "a.json,a.dot", "--", prog, "3", env={"PROFVIZ_TIME": "hooks"})
    t.eq(r.returncode, 3, "run: the program's exit status passed through")
    t.eq(r.stdout.encode(), plain.stdout, "run: the program's stdout unchanged")
    said = [l for l in r.stderr.splitlines() if "profile in" in l]
    t.ok(said == ["profviz: profile in a.json", "profviz: profile in a.dot"],
         "run: says where the profile is", r.stderr)
    t.ok(os.path.exists(os.path.join(tmp, "a.json")), "run: the profile is there")
    t.eq(by_name(load(os.path.join(tmp, "a.json")))["shared"]["calls"], 40,
         "run: the program was profiled")
    r = profviz("run", "-o", "k.json", "--", prog, "kill")
    t.eq(r.returncode, -signal.SIGTERM, "run: killed by the signal that killed the program")
    r = profviz("run", "-e", "task-clock", "-o", "tc.json", "--", prog)
    t.eq(load(os.path.join(tmp, "tc.json"))["events"], ["time", "task-clock"],
         "run: -e sets the events read per call, after the sampled time")
    r = profviz("run", "--", os.path.join(tmp, "no-such-program"))
    t.ok(r.returncode == 127 and "cannot run" in r.stderr and "profile in" not in r.stderr,
         "run: a missing program: 127, said, no profile claimed", r.stderr)
    marker = os.path.join(tmp, "ran")
    r = profviz("run", "-o", "bad.xyz", "--", "sh", "-c", "touch " + marker)
    t.ok(r.returncode == 2 and "PROFVIZ_OUTPUT" in r.stderr and not os.path.exists(marker),
         "run: a bad -o is refused before the program runs", r.stderr)
    r = profviz("run", "-o", "a.json", "--", "true")
    t.ok(r.returncode == 0 and "a.json was not written by this run" in r.stderr and
         "profile in" not in r.stderr, "run: an old file at the path is not claimed", r.stderr)
    spaced = os.path.join(tmp, "a b")
    os.makedirs(spaced)
    for f in ("profviz", "profviz.so"):
        shutil.copy(os.path.join(h.ROOT, f), spaced)
    r = subprocess.run([os.path.join(spaced, "profviz"), "run", "--", "true"],
                       capture_output=True, text=True)
    t.ok(r.returncode == 2 and "space or a colon" in r.stderr,
         "run: an install path LD_PRELOAD cannot name is refused", r.stderr)
    t.eq(profviz("run").returncode, 2, "run: no program: exit 2")
    t.ok(profviz("run", "--help").stdout.startswith("usage: profviz run"), "run: --help")

with t.case("run: which runtime"):
    user = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
    built = os.path.realpath(os.path.join(h.ROOT, "profviz.so"))
    r = profviz("run", "-v", "-o", "w.json", "--", prog, "3")
    t.ok(r.returncode == 3 and "profviz run: preloading %s (beside this command)" % built
         in r.stderr, "run -v: in the build tree, the runtime beside the command", r.stderr)
    # Laid out as make install lays it, somewhere else than it was built for.
    relative = re.search(r"\n(\S+) from the command's directory", profviz("run", "--help").stdout)
    moved = os.path.join(tmp, "moved")
    runtime = os.path.normpath(os.path.join(moved, "bin", relative.group(1), "profviz.so"))
    os.makedirs(os.path.dirname(runtime))
    os.makedirs(os.path.join(moved, "bin"), exist_ok=True)
    shutil.copy(PROFVIZ, os.path.join(moved, "bin"))
    shutil.copy(h.PRELOAD, runtime)
    r = subprocess.run([os.path.join(moved, "bin", "profviz"), "run", "-v", "-o", "m.json", "--",
                        prog, "3"], capture_output=True, text=True, cwd=tmp, env=user)
    t.ok(r.returncode == 3 and "preloading %s (installed with this command)" % runtime
         in r.stderr, "run -v: else the runtime installed with it, %s from its own place" %
         relative.group(1), r.stderr)
    t.eq(by_name(load(os.path.join(tmp, "m.json")))["shared"]["calls"], 40,
         "... which profiles the program")
    r = profviz("run", "-v", "-o", "s.json", "--", prog, "3", env={"PROFVIZ_SO": runtime})
    t.ok(r.returncode == 3 and "preloading %s (PROFVIZ_SO)" % runtime in r.stderr,
         "run: PROFVIZ_SO names another", r.stderr)
    r = profviz("run", "-v", "--runtime", runtime, "-o", "f.json", "--", prog, "3",
                env={"PROFVIZ_SO": "/nonexistent/profviz.so"})
    t.ok(r.returncode == 3 and "preloading %s (--runtime)" % runtime in r.stderr,
         "run: --runtime is stronger than PROFVIZ_SO", r.stderr)
    r = profviz("run", "--", prog, env={"PROFVIZ_SO": "/nonexistent/profviz.so"})
    t.ok(r.returncode == 2 and "PROFVIZ_SO /nonexistent/profviz.so: No such file" in r.stderr,
         "run: a PROFVIZ_SO that is not there: said, exit 2", r.stderr)
    lonely = os.path.join(tmp, "lonely")
    os.makedirs(lonely)
    shutil.copy(PROFVIZ, lonely)
    r = subprocess.run([os.path.join(lonely, "profviz"), "run", "--", prog], capture_output=True,
                       text=True, cwd=tmp, env=user)
    t.ok(r.returncode == 2 and "no profviz.so beside this command" in r.stderr and
         "PROFVIZ_SO" in r.stderr, "run: no runtime to find: says where it looked", r.stderr)

# ---- report ----
PROF = os.path.join(tmp, "a.json")
p = load(PROF)
funcs = by_name(p)
run_total = p["run_total"][0]
ROW = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)")

with t.case("report"):
    r = profviz("report", "--exact", "--top", "0", PROF)
    t.eq(r.returncode, 0, "report: exit status")
    rows = {}
    for line in r.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(7)] = m.groups()
    t.eq(sorted(rows), sorted(funcs), "report: every function, once")
    bad = [n for n, g in rows.items()
           if (int(g[2]), int(g[3]), int(g[4])) !=
           (funcs[n]["self"][0], funcs[n]["total"][0], funcs[n]["calls"])
           or abs(float(g[0]) - 100.0 * funcs[n]["self"][0] / run_total) > 0.006
           or abs(float(g[1]) - 100.0 * funcs[n]["total"][0] / run_total) > 0.006]
    t.eq(bad, [], "report: self, total, calls and shares as in the JSON")
    order = [m.group(7) for m in map(ROW.match, r.stdout.splitlines()) if m]
    t.eq(order, sorted(funcs, key=lambda n: (-funcs[n]["self"][0], n)),
         "report: hottest self first")
    r = profviz("report", "--exact", "--sort", "calls", "--top", "3", PROF)
    order = [m.group(7) for m in map(ROW.match, r.stdout.splitlines()) if m]
    t.eq(order, sorted(funcs, key=lambda n: (-funcs[n]["calls"], n))[:3],
         "report: --sort calls --top 3")
    t.ok("more functions" in r.stdout, "report: says rows were left out")
    arcs = [l for l in r.stdout.splitlines() if " -> " in l and l.strip()[0].isdigit()]
    want = sorted(p["arcs"], key=lambda a: -a["total"][0])[:3]
    names = [f["name"] for f in p["functions"]]
    t.eq([l.split()[-1] for l in arcs],
         [names[a["callee"]] for a in want], "report: the hottest arcs")
    t.ok("\033[" not in profviz("report", PROF).stdout, "report: no colour into a pipe")
    t.ok("\033[" in profviz("report", "--color", "always", PROF).stdout,
         "report: colour when asked")
    t.eq(profviz("report", "--sort", "bogus", PROF).returncode, 2, "report: a bad --sort: 2")

with t.case("report: IPC"):
    # Two counted events named as the hardware's, from a real run's file.
    two = os.path.join(tmp, "two.json")
    r = profviz("run", "-e", "task-clock,page-faults", "-o", two, "--", prog,
                env={"PROFVIZ_TIME": "hooks"})
    q = load(two)
    q["events"] = ["instructions", "cycles"]
    q["units"] = ["count", "count"]
    q["kinds"] = ["count", "cycles"]
    fake = os.path.join(tmp, "ipc.json")
    with open(fake, "w") as f:
        json.dump(q, f)
    r = profviz("report", "--exact", "--top", "0", "--event", "cycles", fake)
    rows = [re.search(r"  (\S+)  \(", l).group(1) for l in r.stdout.splitlines()
            if ROW.match(l)]
    qf = {f["name"]: f for f in q["functions"]}
    t.eq(rows, sorted(qf, key=lambda n: (-qf[n]["self"][1], n)),
         "report --event: the table in the second event")
    arcs = [l.split()[-1] for l in r.stdout.splitlines() if " -> " in l and l.strip()[0].isdigit()]
    qn = [f["name"] for f in q["functions"]]
    t.eq(arcs[:5], [qn[a["callee"]] for a in sorted(q["arcs"], key=lambda a: -a["total"][1])][:5],
         "report --event: arcs hottest in it")
    r = profviz("report", "--exact", "--top", "0", fake)
    t.ok("IPC" in r.stdout.splitlines()[3], "report: an IPC column", r.stdout[:400])
    want = {f["name"]: (f["self"][0] / f["self"][1] if f["self"][1] else None)
            for f in q["functions"]}
    got = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^.*\d+\s+(\d+\.\d\d|-)\s+(\S+)", line)
        if m and m.group(2) in want:
            got[m.group(2)] = None if m.group(1) == "-" else float(m.group(1))
    t.ok(got and all((want[n] is None) == (v is None) and (v is None or abs(v - want[n]) < 0.006)
                     for n, v in got.items()), "report: IPC = instructions / cycles of self",
         "%r vs %r" % (got, want))

# ---- dot ----
NODE = re.compile(r'^\s*f\d+ \[label="([^"\\]+)\\n([\d.]+)%\\n\(([\d.]+)%\)\\n(\d+)', re.M)


def nodes(text):
    return {m.group(1): (float(m.group(2)), float(m.group(3)), int(m.group(4)))
            for m in NODE.finditer(text)}


def outermost_totals(p, fname):
    """F's total from the paths: its outermost activations' totals."""
    names = [f["name"] for f in p["functions"]]
    under, total = [], 0
    for path in p["paths"]:
        par = path["parent"]
        inside = par is not None and under[par]
        here = names[path["function"]] == fname
        if here and not inside:
            total += path["total"][0]
        under.append(inside or here)
    return total


with t.case("dot"):
    r = profviz("dot", "-n", "0", "-e", "0", PROF)
    t.eq(r.returncode, 0, "dot: exit status")
    got = nodes(r.stdout)
    t.eq(sorted(got), sorted(funcs), "dot -n 0: every function")
    t.ok(all(abs(got[n][0] - 100.0 * funcs[n]["total"][0] / run_total) < 0.006 for n in got),
         "dot: total shares as in the JSON")
    dotfile = os.path.join(tmp, "again.dot")
    r = profviz("dot", "-n", "5", "-o", dotfile, PROF)
    shown = nodes(open(dotfile).read())
    t.eq(sorted(shown), sorted(n for n in funcs if funcs[n]["total"][0] >= 0.05 * run_total),
         "dot -n 5: what is under 5% is hidden")
    t.ok(h.dot_renders(dotfile)[0], "dot: graphviz renders it without a word")
    r = profviz("dot", "-n", "0", "--nodes", "3", PROF)
    t.eq(len(nodes(r.stdout)), 3, "dot --nodes 3: three boxes")
    t.ok("only 3 functions shown, the largest selves and the hottest paths to them: %d more"
         % (len(funcs) - 3) in r.stdout,
         "dot --nodes: said in the caption")
    plain_fill = re.findall(r'fillcolor="(#\w+)"', profviz("dot", "-n", "0", PROF).stdout)
    self_fill = re.findall(r'fillcolor="(#\w+)"',
                           profviz("dot", "-n", "0", "--self-colour", PROF).stdout)
    t.ok(plain_fill != self_fill, "dot --self-colour: other colours")
    t.eq(profviz("dot", "-o", "x.json", PROF).returncode, 2, "dot: -o must be a .dot")

with t.case("dot --focus"):
    r = profviz("dot", "-n", "0", "-e", "0", "--focus", "shared", PROF)
    got = nodes(r.stdout)
    focus_total = outermost_totals(p, "shared")
    t.eq(sorted(got), sorted(["main", "alpha", "beta", "shared", "work", "spin"]),
         "focus: the callers' chains and the callees, nothing else")
    t.eq(got["shared"][0], 100.0, "focus: shares are of the focus's total")
    alpha_flow = sum(a["total"][0] for a in p["arcs"]
                     if a["caller"] is not None and
                     p["functions"][a["caller"]]["name"] == "alpha" and
                     p["functions"][a["callee"]]["name"] == "shared")
    t.ok(abs(got["alpha"][0] - 100.0 * alpha_flow / focus_total) < 0.006,
         "focus: a caller shows only what it spends through the focus",
         "%r vs %r" % (got["alpha"], 100.0 * alpha_flow / focus_total))
    t.eq((got["alpha"][1], got["main"][1]), (0.0, 0.0), "focus: callers have no self in it")
    t.ok("focused on shared" in r.stdout, "focus: said in the caption")
    rep = profviz("report", "--exact", "--top", "0", "--focus", "shared", PROF)
    rows = {m.group(7): float(m.group(2)) for m in map(ROW.match, rep.stdout.splitlines()) if m}
    t.ok(sorted(rows) == sorted(got) and all(abs(rows[n] - got[n][0]) < 0.006 for n in got) and
         "focused on shared" in rep.stdout,
         "report --focus: the graph's part, the same total shares", rep.stdout + rep.stderr)
    r = profviz("dot", "--focus", "nothing_like_it", PROF)
    one_line_naming(r, PROF, "focus: an unknown function: one line, exit 2")

with t.case("dot --root --depth"):
    r = profviz("dot", "-n", "0", "-e", "0", "--root", "beta", PROF)
    got = nodes(r.stdout)
    t.eq(sorted(got), ["beta", "rec", "shared", "spin", "work"], "root: beta and below")
    t.eq(got["beta"][0], 100.0, "root: shares are of the root's total")
    r = profviz("dot", "-n", "0", "-e", "0", "--root", "beta", "--depth", "1", PROF)
    t.eq(sorted(nodes(r.stdout)), ["beta", "rec", "shared"], "root --depth 1: one level")
    r = profviz("dot", "-n", "0", "-e", "0", "--depth", "1", PROF)
    t.eq(sorted(nodes(r.stdout)), ["alpha", "beta", "main"], "--depth 1 from the program")

    def near(text, want):
        """text ("1.234 ms") is want, to its last digit, and to the rounding
        between paths and functions: each path's raw self is rounded on its
        own, a unit per path at most."""
        value, unit = text.split()
        size = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[unit]
        return abs(float(value) * size - want) <= 0.0005 * size + len(p["paths"])
    alpha = funcs["alpha"]
    raw_run = re.search(r"\(raw total ([\d.]+ \w+)\)", r.stdout)
    raw_alpha = re.search(r'tooltip="alpha\\n[^"]*with the hooks\' own cost: total ([\d.]+ \w+)',
                          r.stdout)
    t.ok(raw_run and raw_alpha and near(raw_run.group(1), p["raw_run_total"][0]) and
         near(raw_alpha.group(1), alpha["raw_total"][0]),
         "--depth: the raw figures are the whole subtree's, cut or not",
         "%s / %s" % (raw_run and raw_run.group(1), raw_alpha and raw_alpha.group(1)))

with t.case("names a user can type"):
    whole = profviz("dot", "-n", "0", "-e", "0", "--focus", "shared", PROF).stdout
    r = profviz("dot", "-n", "0", "-e", "0", "--focus", "hare", PROF)
    t.ok(r.returncode == 0 and nodes(r.stdout) == nodes(whole) and
         "focused on shared" in r.stdout, "--focus: a part of one function's name is that one",
         r.stderr)
    r = profviz("dot", "-n", "0", "-e", "0", "--root", "/^be/", PROF)
    t.ok(r.returncode == 0 and sorted(nodes(r.stdout)) == ["beta", "rec", "shared", "spin", "work"],
         "--root: a /regex/ matching one function", r.stderr)
    rep = profviz("report", "--exact", "--top", "0", "--root", "/t.$/", PROF)
    t.ok(rep.returncode == 0 and "below beta" in rep.stdout,
         "report --root takes a /regex/ too", rep.stderr)

    def refused(r, first, listed, what, nearest_only=False):
        """Exit 2, a first line naming the file and saying why, then the
        candidates listed, one a line (name, then where it is), in order
        (nearest_only: those listed come first)."""
        lines = r.stderr.splitlines()
        names = [l.split()[0] for l in lines[1:]]
        if nearest_only:
            names = names[:len(listed)]
        t.ok(r.returncode == 2 and lines and lines[0].startswith("profviz: " + PROF + ": ") and
             first in lines[0] and names == listed and r.stdout == "", what, r.stderr)
    refused(profviz("dot", "--focus", "/^(alpha|beta)$/", PROF), "matches several functions",
            ["alpha", "beta"] if funcs["alpha"]["total"][0] >= funcs["beta"]["total"][0]
            else ["beta", "alpha"], "a /regex/ matching two: both listed, the hotter first")
    # "e" is in beta, shared, leaf and work: the shortest names first.
    holding = sorted((n for n in funcs if "e" in n), key=lambda n: (len(n), -funcs[n]["total"][0]))
    refused(profviz("dot", "--root", "e", PROF), "'e' is part of several functions", holding,
            "a part of several names: each listed, the nearest (shortest) first")
    refused(profviz("report", "--focus", "shraed", PROF), "no function 'shraed' in the profile; "
            "the nearest:", ["shared"], "a misspelt name: refused, the nearest named")
    refused(profviz("dot", "--focus", "SPIN", PROF), "no function 'SPIN'", ["spin"],
            "a name in other case: refused, that function named first", nearest_only=True)
    refused(profviz("report", "--root", "alhpa", PROF), "the nearest:", ["alpha"],
            "report --root: the same")
    one_line_naming(profviz("dot", "--focus", "/[/", PROF), PROF,
                    "a bad /regex/: one line, exit 2")
    t.ok("not a regular expression" in profviz("dot", "--focus", "/[/", PROF).stderr,
         "... saying it is not a regular expression")

with t.case("dot --event"):
    r = profviz("dot", "-n", "0", "-e", "0", "--event", "page-faults", two)
    got = nodes(r.stdout)
    tf = {f["name"]: f for f in load(two)["functions"]}
    pf_total = load(two)["run_total"][1]
    t.ok(r.returncode == 0 and "event: page-faults" in r.stdout and got and
         all(abs(got[n][0] - 100.0 * tf[n]["total"][1] / pf_total) < 0.006 for n in got),
         "dot --event: the graph in the second event", r.stderr)
    r = profviz("dot", "--event", "cycles", two)
    t.ok(r.returncode == 2 and "task-clock, page-faults" in r.stderr,
         "dot --event: an event the run did not count, and the ones it did", r.stderr)

with t.case("C++ names"):
    cxx = h.build("cxx", sources=["cxx.cpp"], compiler="g++")
    r = profviz("run", "-o", "cxx.json", "--", cxx)
    r = profviz("dot", "-n", "0", os.path.join(tmp, "cxx.json"))
    labels = re.findall(r'label="([^"]*)", fill', r.stdout)
    tips = re.findall(r'tooltip="([^"\\]*)', r.stdout)
    t.ok(any(l.startswith("geo::Box<...>::grow\\n") for l in labels),
         "C++: a box shows the name without parameters and template arguments", labels)
    t.ok(any(tip.startswith("geo::Box<int>::grow(int) const") for tip in tips),
         "C++: the tooltip has the whole name", tips)
    cj = os.path.join(tmp, "cxx.json")
    whole = max((f["name"] for f in load(cj)["functions"]), key=len)
    r = profviz("report", "--top", "0", cj)
    longest = max(len(l) for l in r.stdout.splitlines())
    t.ok(r.returncode == 0 and len(whole) > 1000 and longest < 400 and whole not in r.stdout and
         "Quad<...>::touch(int)" in r.stdout,
         "report: template arguments elided in the tables (%d-character name, longest line %d)"
         % (len(whole), longest), r.stdout[-800:])
    r = profviz("report", "--wide", "--top", "0", cj)
    t.ok(whole in r.stdout, "report --wide: the whole name")
    r = profviz("dot", "--focus", "geo::Box<...>::grow", cj)
    t.ok(r.returncode == 0 and "focused on geo::Box<int>::grow(int) const" in r.stdout,
         "dot --focus takes the name a box shows", r.stdout[-500:] + r.stderr)
    r = profviz("report", "--root", "Quad<...>::touch", cj)
    t.ok(r.returncode == 0, "report --root takes it too", r.stderr)

with t.case("a header's copies, and same-named functions"):
    copies = h.build("copies", sources=["copies.c", "copies_other.c"], flags=h.NO_INLINE)
    cj = os.path.join(tmp, "copies.json")
    profviz("run", "-q", "-o", cj, "--", copies, env={"PROFVIZ_TIME": "hooks"})
    c = load(cj)
    r = profviz("dot", "-n", "0", "-e", "0", "--focus", "helper", cj)
    helper_calls = sum(f["calls"] for f in c["functions"] if f["name"] == "helper")
    got = nodes(r.stdout)
    t.ok(r.returncode == 0 and got.get("helper", (0, 0, 0))[2] == helper_calls and
         got["helper"][0] == 100.0, "focus on a header's function: all its copies (%d calls)"
         % helper_calls, r.stdout[-600:] + r.stderr)
    t.ok("other_file" in got and "main" in got, "... with the callers of each copy")
    r = profviz("dot", "--focus", "step", cj)
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and "names several functions" in lines[0] and
         sum("copies.c:" in l for l in lines) == 1 and
         sum("copies_other.c:" in l for l in lines) == 1,
         "two different functions of one name: refused, each listed with file:line", r.stderr)

with t.case("text from the program and the file"):
    # A path may hold any bytes: the JSON and the graph must stay UTF-8.
    odd = os.path.join(tmp.encode(), b"caf\xe9 \xff")
    os.makedirs(odd)
    shutil.copy(prog, os.path.join(odd, b"prog"))
    subprocess.run([PROFVIZ, "run", "-q", "-o", "odd.json,odd.dot", "--",
                    os.path.join(odd, b"prog")], cwd=odd, capture_output=True)
    oj = os.path.join(odd, b"odd.json").decode(errors="surrogateescape")
    t.eq(profviz("report", oj).returncode, 0, "a program under a non-UTF-8 path: its JSON reads")
    ok, err = h.dot_renders(os.path.join(odd, b"odd.dot").decode(errors="surrogateescape"))
    t.ok(ok, "... and graphviz takes its graph without a word", err)
    # Event names come from the user: quoted, they must stay text.
    q = dict(p)
    q["events"] = ['x", URL="javascript:alert(1)", label="y']
    q["running_ratio"] = [0.5]
    path = os.path.join(tmp, "quoted.json")
    with open(path, "w") as f:
        json.dump(q, f)
    out = os.path.join(tmp, "quoted.dot")
    profviz("dot", "-o", out, path)
    svg = subprocess.run(["dot", "-Tsvg", out], capture_output=True, text=True)
    t.ok(svg.returncode == 0 and not svg.stderr and "href" not in svg.stdout and
         "javascript:alert(1)" in svg.stdout, "an event name with quotes stays inside its label",
         svg.stderr)

with t.case("words"):
    # Counts of one in the singular; every figure in the heading labelled.
    r = profviz("report", PROF)
    head = r.stdout.splitlines()[0]
    t.ok(re.search(r"\d+ functions, \d+ arcs, 1 thread, [\d.]+ s wall$", head),
         "report's heading: counts, and its time labelled wall", head)
    one = dict(p)
    main = one["functions"][0]
    one["functions"] = [dict(main, self=main["total"], raw_self=main["raw_total"])]
    one["arcs"] = [a for a in p["arcs"] if a["caller"] is None]
    root = next(q for q in p["paths"] if q["parent"] is None)
    one["paths"] = [dict(root, self=root["total"], raw_self=root["total"])]
    one["run_total"] = main["total"]
    single = os.path.join(tmp, "single.json")
    with open(single, "w") as f:
        json.dump(one, f)
    r = profviz("report", single)
    t.ok(r.returncode == 0 and ": 1 function, 1 arc," in r.stdout.splitlines()[0],
         "report: 1 function, 1 arc", r.stdout[:300] + r.stderr)
    r = profviz("dot", "-n", "100", "-e", "100", PROF)
    t.ok(re.search(r"hidden: \d+ functions \([\d.]+% self\), \d+ arcs", r.stdout), "dot: plural")
    r = profviz("dot", "--depth", "1", PROF)
    t.ok("1 level of calls shown" in r.stdout, "dot: 1 level of calls", r.stdout[-400:])

# ---- convert ----
with t.case("convert"):
    back = [os.path.join(tmp, "back." + e) for e in ("json", "dot", "folded")]
    r = profviz("convert", PROF, *back)
    t.eq(r.returncode, 0, "convert: exit status")
    t.eq(load(back[0]), p, "convert: the JSON comes back the same")
    runtime = profviz("run", "-o", "w.json,w.dot,w.folded", "--", prog)
    w = os.path.join(tmp, "w.")
    profviz("convert", w + "json", back[1], back[2])
    t.eq(open(back[1]).read(), open(w + "dot").read(), "convert: the same graph as the runtime's")
    t.eq(sorted(open(back[2])), sorted(open(w + "folded")), "convert: the same folded stacks")
    r = profviz("convert", PROF, os.path.join(tmp, "x.unknown"))
    t.ok(r.returncode == 2 and "x.unknown" in r.stderr, "convert: an unknown format: 2")
    # -o as every other command takes it, before or after the profile.
    named = [os.path.join(tmp, "o." + e) for e in ("callgrind", "dot")]
    r = profviz("convert", w + "json", "-o", named[0], "--output", named[1])
    t.ok(r.returncode == 0 and os.path.exists(named[0]) and not os.path.exists("-o"),
         "convert: -o FILE names the output", r.stderr)
    t.eq(open(named[1]).read(), open(w + "dot").read(), "convert: --output writes the graph")
    r = profviz("convert", "-o", os.path.join(tmp, "o2.folded"), w + "json")
    t.eq(sorted(open(os.path.join(tmp, "o2.folded"))), sorted(open(w + "folded")),
         "convert: -o before the profile")
    r = profviz("convert", w + "json")
    t.ok(r.returncode == 2 and "-o FILE" in r.stderr, "convert: no output asked: 2, said", r.stderr)

# ---- bad input ----
with t.case("bad input"):
    # What a user finds beside the profile is not it: say where profiles come from.
    for view in (w + "dot", w + "folded"):
        r = profviz("report", view)
        one_line_naming(r, view, "report on %s: one line" % os.path.basename(view))
        t.ok("not a profile" in r.stderr and "PROFVIZ_OUTPUT=prof.json" in r.stderr
             and "run -o prof.json" in r.stderr,
             "report on %s: says where the JSON comes from" % os.path.basename(view), r.stderr)
    def bad(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path
    whole = open(PROF).read()
    cases = {
        "empty": bad("empty.json", ""),
        "truncated": bad("truncated.json", whole[:len(whole) // 2]),
        "foreign": bad("foreign.json", '{"a": 1}'),
        "not an object": bad("list.json", "[1, 2]"),
        "a bad reference": bad("ref.json", whole.replace('"callee":', '"callee":9999', 1)
                               .replace('"callee":9999', '"callee":99999', 1)),
        "wrong type": bad("type.json", whole.replace('"calls":', '"calls":"x",' '"was":', 1)),
        "missing": os.path.join(tmp, "no-such.json"),
        "a directory": tmp,
    }
    for what, path in cases.items():
        for sub in (["report"], ["dot"], ["convert", None, os.path.join(tmp, "o.json")]):
            args = [a if a is not None else path for a in sub]
            if sub[0] != "convert":
                args.append(path)
            r = profviz(*args)
            one_line_naming(r, path, "%s: %s: one line naming the file, exit 2" % (sub[0], what))
    t.ok(not os.path.exists(os.path.join(tmp, "o.json")), "bad input: nothing written")

with t.case("older revision"):
    old = dict(p)
    old.pop("paths")
    old["revision"] = 1
    path = os.path.join(tmp, "rev1.json")
    with open(path, "w") as f:
        json.dump(old, f)
    t.eq(profviz("report", path).returncode, 0, "revision 1: report reads it")
    r = profviz("dot", "--focus", "shared", path)
    t.ok(r.returncode == 2 and "no call paths" in r.stderr, "revision 1: --focus says why not",
         r.stderr)
    r = profviz("convert", path, os.path.join(tmp, "rev1.folded"), os.path.join(tmp, "rev1.dot"))
    t.ok(r.returncode == 2 and "no call paths" in r.stderr and
         os.path.exists(os.path.join(tmp, "rev1.dot")) and
         not os.path.exists(os.path.join(tmp, "rev1.folded")),
         "revision 1: convert writes the graph, refuses the path format, says why", r.stderr)

with t.case("help"):
    r = profviz("--help")
    t.ok(r.returncode == 0 and all(c in r.stdout for c in ("run", "report", "dot", "convert")),
         "profviz --help lists the commands")
    for c in ("report", "dot", "convert"):
        t.ok(profviz(c, "--help").stdout.startswith("usage: profviz " + c), c + " --help")
        t.eq(profviz("help", c).stdout, profviz(c, "--help").stdout,
             "profviz help %s: its --help" % c)
    t.eq(profviz("frobnicate").returncode, 2, "an unknown command: 2")
    r = profviz("help", "frobnicate")
    t.ok(r.returncode == 2 and "no command or topic 'frobnicate'" in r.stderr,
         "help on no command or topic: said, 2", r.stderr)
    r = profviz("help", "variables")
    t.ok(r.returncode == 0 and "PROFVIZ_RATE" in r.stdout and "Default: what 3% of the CPU" in r.stdout,
         "help variables: each variable with its default", r.stdout)
    everything = profviz("help", "all").stdout
    t.ok(everything.startswith(profviz("--help").stdout) and
         all("\nprofviz %s:\n" % c in everything for c in ("run", "report", "html")) and
         r.stdout in everything, "help all: the overview, every command's help, the variables")

with t.case("version"):
    r = profviz("--version")
    t.ok(r.returncode == 0 and re.fullmatch(r"profviz \d+\.\d+\.\d+\S*\n", r.stdout),
         "--version: 'profviz X.Y.Z...'", r.stdout + r.stderr)
    t.eq(profviz("version").stdout, r.stdout, "profviz version: the same")
    version = r.stdout.split()[-1]
    t.eq(load(os.path.join(tmp, "a.json")).get("profviz_version"), version,
         "the JSON the runtime wrote gives the same version")
    r = profviz("run", "-o", "v.json", "--", prog, "3")
    t.ok(any(l.startswith("profviz: ") and l.endswith("; version " + version)
             for l in r.stderr.splitlines()),
         "and so does the runtime's start-up line", r.stderr)
t.done()
