#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The callgrind format (.callgrind, or a base name callgrind.out*), read by
callgrind_annotate: its totals, every function's self and inclusive cost
and every arc's call count are the JSON profile's of the same run, recursion
included; and the call counts are those of callgrind's own file for the
same program, read by the same reader."""
import collections
import os
import re
import subprocess
import harness as h

t = h.Tap()
ROOT = "???:(program)"  # where the file's calls from uninstrumented code come from
EVENTS = "tsc,task-clock"


def annotate(path, *options):
    """callgrind_annotate's reading of path, with every function shown:
    (totals, {file:function: costs}, {(caller, callee): (calls, costs)},
    stderr). Run from / so that it keeps the paths whole."""
    p = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", "--show-percs=no"] +
                       list(options) + [os.path.abspath(path)], capture_output=True, text=True,
                       cwd="/")
    if p.returncode != 0:
        raise RuntimeError("callgrind_annotate failed: " + p.stderr)
    number = r"(?:[\d,]+|\.)"
    row = re.compile(r"^\s*((?:%s\s+)+)(<|\*|>)?\s*(\S.*?)(?: \(([\d,]+)x\))?(?: \[[^\]]*\])?$"
                     % number)
    totals, funcs, arcs, callers = None, {}, {}, []
    for line in p.stdout.splitlines():
        m = row.match(line)
        if not m:
            continue
        costs = [0 if c == "." else int(c.replace(",", "")) for c in m.group(1).split()]
        mark, name = m.group(2), m.group(3)
        if name == "PROGRAM TOTALS":
            totals = costs
        elif mark == "<":
            callers.append((name, int(m.group(4).replace(",", "")), costs))
        elif mark == ">":
            continue
        elif ":" in name:  # a function, after its callers
            funcs[name] = costs
            for caller, calls, c in callers:
                arcs[(caller, name)] = (calls, c)
            callers = []
    return totals, funcs, arcs, p.stderr


def name_of(f):
    return "%s:%s" % (f.get("file") or "???", f["name"])


def json_functions(p, key):
    """{file:function: summed costs} as callgrind_annotate names them."""
    out = {}
    for f in p.funcs:
        v = out.setdefault(name_of(f), [0] * len(f[key]))
        for i, x in enumerate(f[key]):
            v[i] += x
    return out


def json_arcs(p):
    """{(caller, callee): (calls, summed totals)} by annotate's names."""
    out = {}
    for a in p.data["arcs"]:
        caller = ROOT if a["caller"] is None else name_of(p.by_id[a["caller"]])
        key = (caller, name_of(p.by_id[a["callee"]]))
        calls, total = out.get(key, (0, [0] * len(a["total"])))
        out[key] = (calls + a["calls"], [x + y for x, y in zip(total, a["total"])])
    return out


def diff(got, want, near=0):
    """The entries of two {key: costs} that differ (by more than near)."""
    return ["%s: file %r, JSON %r" % (k, got.get(k), want.get(k))
            for k in sorted(set(got) | set(want), key=str)
            if got.get(k) is None or want.get(k) is None or
            any(abs(x - y) > near for x, y in zip(got[k], want[k]))]


ROUNDS = 3
exe = h.build("cg_main", ["cg_main.c", "cg_other.c"], flags=h.NO_INLINE)
r = h.run([exe, str(ROUNDS)], outputs="x.json,x.callgrind,callgrind.out.%p",
          env={"PROFVIZ_EVENTS": EVENTS, "PROFVIZ_TIME": "hooks"})
p = r.json("x.json")
cg = r.file("x.callgrind")

with t.case("header"):
    lines = open(cg).read().splitlines()
    t.eq(lines[:3], ["# callgrind format", "version: 1", "creator: profviz"],
         "format line, version and creator first")
    head = dict(l.split(": ", 1) for l in lines if re.match(r"^(cmd|pid|positions|events):", l))
    t.eq(head.get("cmd"), p.data["program"], "cmd: is the program")
    t.eq(head.get("pid"), str(p.data["pid"]), "pid: is the run's")
    t.eq(head.get("positions"), "line", "positions: line")
    t.eq(head.get("events"), "tsc task_clock", "events: one identifier per event, in order")
    t.ok(any(l.startswith("event: task_clock : task-clock") and "(ns)" in l for l in lines),
         "event: line gives the event's own name and unit")
    t.ok(re.match(r"^totals: \d+ \d+$", lines[-1]), "totals: at the end, one value per event",
         lines[-1])
    fl = {l.split(") ", 1)[1] for l in lines if re.match(r"^c?fl=\(\d+\) ", l)}
    t.ok(any(x.endswith("/cg_main.c") for x in fl) and any(x.endswith("/cg_other.c") for x in fl),
         "each source file named once, both files", sorted(fl))

with t.case("callgrind.out.%p"):
    named = r.file("callgrind.out.%d" % p.data["pid"])
    t.ok(os.path.exists(named), "callgrind.out.%p is written, %p expanded", os.listdir(r.workdir))
    t.ok(open(named).read() == open(cg).read(), "... in the callgrind format (as x.callgrind)")

with t.case("self costs (callgrind_annotate --inclusive=no)"):
    totals, funcs, _, err = annotate(cg, "--inclusive=no")
    t.eq(err, "", "callgrind_annotate says nothing on stderr")
    t.eq(totals, p.data["run_total"], "its PROGRAM TOTALS are the run total, per event")
    ours = {k: v for k, v in funcs.items() if k != ROOT}
    bad = diff(ours, json_functions(p, "self"))
    t.ok(not bad, "every function's self cost, per event, is the JSON's (%d functions)" % len(ours),
         "\n".join(bad))

with t.case("inclusive costs and calls (callgrind_annotate --inclusive=yes --tree=caller)"):
    totals, funcs, arcs, err = annotate(cg, "--inclusive=yes", "--tree=caller")
    t.eq(err, "", "callgrind_annotate says nothing on stderr")
    t.eq(totals, p.data["run_total"], "its PROGRAM TOTALS are the run total, per event")
    # Its calls carry the root arcs' totals, each converted apart from the
    # run total: one unit of rounding apart per arc.
    roots = sum(1 for a in p.data["arcs"] if a["caller"] is None)
    bad = diff({ROOT: funcs.get(ROOT)}, {ROOT: p.data["run_total"]}, near=roots)
    t.ok(not bad, "(program), the uninstrumented callers, is the run, to the roundings",
         "\n".join(bad))
    ours = {k: v for k, v in funcs.items() if k != ROOT}
    bad = diff(ours, json_functions(p, "total"))
    t.ok(not bad, "every function's inclusive cost, per event, is the JSON's total (%d)" % len(ours),
         "\n".join(bad))
    fact = [k for k in funcs if k.endswith(":fact")]
    t.ok(fact and funcs[fact[0]] == p.func("fact")["total"] and
         funcs[fact[0]][0] <= p.run_total(), "recursive fact: inclusive counted once",
         "%r vs %r" % (fact and funcs[fact[0]], p.func("fact")["total"]))
    want = json_arcs(p)
    got_calls = {k: v[0] for k, v in arcs.items()}
    want_calls = {k: v[0] for k, v in want.items()}
    t.eq(got_calls, want_calls, "every arc's call count is the JSON's (%d arcs)" % len(want))
    t.eq(sorted(n for (a, b), n in got_calls.items() if a == b), [ROUNDS * 5],
         "the recursive arc fact -> fact is there, with its count")
    # Each function's incoming arcs are written to add up to its total: the
    # roundings of converting arcs and functions apart go onto one of them,
    # at most one unit per arc into the callee.
    into = collections.Counter(b for _, b in want)
    bad = [line for k in want for line in
           diff({k: arcs.get(k, (0, None))[1]}, {k: want[k][1]}, near=into[k[1]])]
    t.ok(not bad, "every arc's inclusive cost is the JSON's, to the roundings", "\n".join(bad))

with t.case("sources callgrind_annotate can open"):
    # Built as build systems do: from a directory of its own, the source
    # named relative to it. Annotated from elsewhere, with no --include.
    rel = os.path.join(h.BUILD, "cg-relative")
    subprocess.run(["gcc"] + h.INSTRUMENT + h.NO_INLINE + ["-o", rel, "../progs/cg_main.c",
                    "../progs/cg_other.c"], cwd=h.PROGS, check=True)
    rr = h.run([rel, "1"], outputs="rel.json,rel.callgrind", env={"PROFVIZ_TIME": "hooks"})
    files = {f.get("file") for f in rr.json("rel.json").funcs if f["module"] == rel}
    t.eq(files, {os.path.join(h.PROGS, "cg_main.c"), os.path.join(h.PROGS, "cg_other.c")},
         "each function's file is the whole path, from the unit's directory")
    a = subprocess.run(["callgrind_annotate", "--auto=yes", rr.file("rel.callgrind")],
                       capture_output=True, text=True, cwd="/")
    source = open(os.path.join(h.PROGS, "cg_other.c")).read().splitlines()
    body = [l.strip() for l in source if l.startswith("\t") and len(l.strip()) > 12]
    t.ok(a.returncode == 0 and "could not be found" not in a.stdout and
         body and body[0] in a.stdout, "callgrind_annotate --auto=yes annotates both sources",
         a.stdout[-1500:] + a.stderr)

with t.case("call counts as in callgrind's own file"):
    real = os.path.join(r.workdir, "real.callgrind")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + real, exe,
                    str(ROUNDS)], cwd=r.workdir, env=env, capture_output=True, check=True)
    program = {name_of(f) for f in p.funcs if f["module"] == os.path.realpath(exe)}

    def program_arcs(path):
        """{(caller, callee): calls} between the program's functions, the
        deeper recursion levels (callgrind's f'2) summed into f and any
        caller outside the program as None."""
        counts = collections.Counter()
        for (caller, callee), (calls, _) in annotate(path, "--tree=caller")[2].items():
            caller, callee = (re.sub(r"'\d+$", "", x) for x in (caller, callee))
            if callee in program:
                counts[(caller if caller in program else None, callee)] += calls
        return counts

    mine, truth = program_arcs(cg), program_arcs(real)
    t.ok(len(mine) >= 15 and len(truth) >= 15,
         "arcs between the program's functions: %d, callgrind's %d" % (len(mine), len(truth)))
    bad = ["%s -> %s: profviz %d, callgrind %d" % (k[0], k[1], mine[k], truth[k])
           for k in sorted(set(mine) | set(truth), key=str) if mine[k] != truth[k]]
    t.ok(not bad, "each arc's call count is callgrind's own", "\n".join(bad))

t.done()
