#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pprof's format (.pb.gz), read by go tool pprof: its sample types are calls
and each event; its flat and cum per function, for each, are what the JSON
of the same run says (self, total, calls); its traces are the JSON's call
paths; two runs merged by pprof add up; pprof says nothing on stderr."""
import collections
import gzip
import os
import re
import subprocess
import tempfile

import harness as h

# The subject is the pprof writer's sample types, on short runs whose every function has a cost: times read by the hooks.
h.hook_time()

t = h.Tap()
# A clock and a count, so that both units are written and read.
EVENTS = {"PROFVIZ_EVENTS": "tsc,page-faults"}
GO_HOME = tempfile.mkdtemp(prefix="profviz-pprof-")
GO_ENV = dict(os.environ, HOME=GO_HOME, GOCACHE=os.path.join(GO_HOME, "cache"),
              GOPATH=os.path.join(GO_HOME, "go"), PPROF_TMPDIR=os.path.join(GO_HOME, "tmp"),
              GOFLAGS="", GOTOOLCHAIN="local")
complaints = []  # (command, stderr) of every pprof run that said anything


def pprof(*args):
    """go tool pprof's stdout (bytes for -proto, else text)."""
    cmd = ["go", "tool", "pprof"] + list(args)
    p = subprocess.run(cmd, env=GO_ENV, capture_output=True, timeout=120)
    if p.stderr.strip():
        complaints.append((" ".join(args), p.stderr.decode(errors="replace")))
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), p.stderr.decode(errors="replace")))
    return p.stdout if "-proto" in args else p.stdout.decode()


def unit_flag(unit):
    # pprof scales times to a readable unit; in ns every value is an integer.
    return ["-unit=ns"] if unit == "nanoseconds" else []


def number(text):
    return int(text[:-2] if text.endswith("ns") else text)


TOP_LINE = re.compile(r"^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$")


def top(path, index, unit):
    """{function: (flat, cum)} of pprof -top for one sample type."""
    out = pprof("-top", "-nodecount=100000", "-nodefraction=0", "-sample_index=" + index,
                *unit_flag(unit), path)
    rows = {}
    body = out.split("flat  flat%   sum%        cum   cum%\n", 1)[1]
    for line in body.splitlines():
        m = TOP_LINE.match(line)
        if not m:
            raise ValueError("unexpected -top line: %r" % line)
        rows[m.group(3)] = (number(m.group(1)), number(m.group(2)))
    return rows


def traces(path, index, unit):
    """Counter of ((leaf, ..., root), value) of pprof -traces."""
    out = pprof("-traces", "-sample_index=" + index, *unit_flag(unit), path)
    got = collections.Counter()
    for block in out.split("-----------+-------------------------------------------------------")[1:]:
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines:
            continue
        value, leaf = lines[0].split(None, 1)
        got[(tuple([leaf] + [l.strip() for l in lines[1:]]), number(value))] += 1
    return got


class Expected:
    """What pprof should say, from the JSON of the same run: per sample type
    (calls, then each event), the paths' stacks and values."""

    def __init__(self, profile):
        d = profile.data
        self.profile = profile
        self.types = ["calls"] + d["events"]
        self.units = ["count"] + ["nanoseconds" if u == "ns" else "count" for u in d["units"]]
        names = {f["id"]: f["name"] for f in d["functions"]}
        paths = d["paths"]
        self.samples = []  # (stack leaf first, [calls, self per event])
        for p in paths:
            stack, at = [], p
            while True:
                stack.append(names[at["function"]])
                if at["parent"] is None:
                    break
                at = paths[at["parent"]]
            self.samples.append((tuple(stack), [p["calls"]] + p["self"]))

    def flat_cum(self, i):
        """{function: [flat, cum]} as pprof adds the samples up: flat from the
        samples a function is the leaf of, cum from those it is on, once."""
        rows = collections.defaultdict(lambda: [0, 0])
        for stack, values in self.samples:
            rows[stack[0]][0] += values[i]
            for name in set(stack):
                rows[name][1] += values[i]
        return rows

    def traces(self, i):
        return collections.Counter((stack, values[i]) for stack, values in self.samples)


def shown(rows):
    """pprof leaves out what has neither flat nor cum."""
    return {k: tuple(v) for k, v in rows.items() if v[0] or v[1]}


prog = h.build("pp_shapes", flags=h.NO_INLINE)


def profile_run(rounds):
    r = h.run([prog, str(rounds)], outputs="prof.json,prof.pb.gz", env=EVENTS)
    if r.rc != 0:
        raise RuntimeError("pp_shapes exited %d: %s" % (r.rc, r.stderr.decode(errors="replace")))
    return r, Expected(r.json())


with t.case("one run"):
    r, want = profile_run(1)
    pb = r.file("prof.pb.gz")
    with open(pb, "rb") as f:
        raw = f.read()
    t.ok(raw[:2] == b"\x1f\x8b" and len(gzip.decompress(raw)) > 0, "the file is gzip")

    listing = pprof("-raw", pb)
    types = listing.split("Samples:\n", 1)[1].splitlines()[0].split()
    t.eq(types, ["%s/%s%s" % (kind, unit, "[dflt]" if i == 1 else "")
                 for i, (kind, unit) in enumerate(zip(want.types, want.units))],
         "sample types: calls, then each event with its unit; the first event the default")

    head = pprof("-top", pb)
    t.ok("Type: %s\n" % want.types[1] in head, "pprof shows the first event by default",
         head[:300])
    # pprof prints a duration with the total's share of it, "Total samples
    # = 81ms (35.64%)", which its users read as the CPU the process used:
    # profviz's times are not that. The wall time is said in words instead.
    t.ok("Duration:" not in head and not re.search(r"Total samples = .*%", head),
         "-top: no duration, and no share of it its users would take for CPU use", head[:300])
    m = re.search(r"^profviz: .*, pid \d+: ([0-9.]+) s wall, (\d+) threads?$", head, re.M)
    wall = want.profile.data["wall_seconds"]
    t.ok(m and abs(float(m.group(1)) - wall) <= 0.0005 + 0.01 * wall and
         int(m.group(2)) == want.profile.data["threads"],
         "-top: a comment says the run's wall time (%.4f s) and threads" % wall, head[:300])

    calls = top(pb, "calls", "count")
    # Independent of both writers: what pp_shapes does, call by call.
    t.eq({k: calls.get(k, (0, 0))[0] for k in
          ["main", "alpha", "beta", "descend", "ping", "pong", "spin", "nap"]},
         {"main": 1, "alpha": 8, "beta": 5, "descend": 10, "ping": 4, "pong": 4, "spin": 18,
          "nap": 1}, "calls' flat is each function's call count, recursion included")
    t.eq({k: v[0] for k, v in calls.items()},
         {f["name"]: f["calls"] for f in want.profile.funcs if f["calls"]},
         "calls' flat is the JSON's calls for every function")
    t.ok("<blocked: nanosleep>" in calls, "a wait's node keeps its name in pprof",
         sorted(calls))

    for i, (kind, unit) in enumerate(zip(want.types, want.units)):
        got = top(pb, kind, unit)
        t.eq(got, shown(want.flat_cum(i)),
             "%s: -top's flat and cum are the sums of the JSON's paths" % kind)
        if i == 0:
            continue
        # The JSON rounds each function's self and total once, from the same
        # unrounded figures as each path's: within half a unit per path.
        paths_of = collections.Counter(s[0] for s, _ in want.samples)
        under = collections.Counter(n for s, _ in want.samples for n in set(s))
        # pong's calls back into ping fold onto ping's path, outside pong's
        # stacks: pong's cum lacks those frames, which its total has.
        bad = []
        for f in want.profile.funcs:
            flat, cum = got.get(f["name"], (0, 0))
            slack = (under[f["name"]] + 1) / 2
            cum_off = cum - f["total"][i - 1]
            if f["name"] == "pong":
                cum_off = max(cum_off, 0)
            if abs(flat - f["self"][i - 1]) > (paths_of[f["name"]] + 1) / 2 or \
               abs(cum_off) > slack:
                bad.append("%s: flat %d cum %d, JSON self %d total %d" %
                           (f["name"], flat, cum, f["self"][i - 1], f["total"][i - 1]))
        t.ok(not bad, "%s: flat and cum are the JSON's self and total (pong's cum at most)" % kind, "\n".join(bad))
        t.eq(traces(pb, kind, unit), want.traces(i),
             "%s: -traces lists every call path with its self cost" % kind)

with t.case("two runs merged"):
    a, want_a = profile_run(1)
    b, want_b = profile_run(2)
    merged = os.path.join(GO_HOME, "merged.pb.gz")
    with open(merged, "wb") as f:
        f.write(pprof("-proto", a.file("prof.pb.gz"), b.file("prof.pb.gz")))
    for i, (kind, unit) in enumerate(zip(want_a.types, want_a.units)):
        fa, fb = want_a.flat_cum(i), want_b.flat_cum(i)
        total = {k: [fa[k][0] + fb[k][0], fa[k][1] + fb[k][1]] for k in set(fa) | set(fb)}
        t.eq(top(merged, kind, unit), shown(total),
             "%s: the merged profile's flat and cum are the two runs' sums" % kind)
    t.eq(top(merged, "calls", "count")["alpha"][0], 8 * 3, "alpha's calls over both runs")

with t.case("extension"):
    r = h.run([prog, "0"], outputs="prof.gz", env=EVENTS)
    err = r.stderr.decode(errors="replace")
    t.ok("prof.gz" in err and ".pb.gz" in err and not os.path.exists(r.file("prof.gz")),
         ".gz alone is no format; the message lists .pb.gz", err)
    r = h.run([prog, "0"], outputs="run.1.pb.gz")
    t.ok(os.path.exists(r.file("run.1.pb.gz")) and
         gzip.decompress(open(r.file("run.1.pb.gz"), "rb").read()),
         "a name with more dots still ends in .pb.gz")

t.ok(not complaints, "pprof wrote nothing on stderr",
     "\n".join("%s: %s" % c for c in complaints))
t.done()
