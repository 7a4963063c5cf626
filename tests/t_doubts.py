#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""When the hooks took much of the raw run, the profile says its times are in
doubt (the graph's caption, `profviz report`) and names the busiest
functions cheaper than their hooks, with the gcc flag that leaves them out of
instrumentation. The advice is followed here: the program rebuilt with that
flag has none of those functions, and its profile no longer doubts itself
(tiny has one short function; in real programs with many, leaving out the
busiest cuts the hooks' cost but leaves the rest as uncertain: README).

What is judged is the profile's own share, never the host's speed: on the
default clock, whatever load made of the run, the caption and the report
doubt exactly when the JSON's share is 40 % or more. The doubt itself is
made to hold by the program's shape: in CPU time (task-clock) each hook is a
system call, some 600 ns against a 2-multiply leaf, and time the program
waits for a CPU does not count, so the hooks take about three quarters of
the raw run (half the callee part is left on a short callee, compensate.h)
on any machine, idle or busy."""
import json
import os
import re
import shlex
import subprocess
import tempfile
import harness as h

# The subject is doubt about times read per call: times read by the hooks.
h.hook_time()

PROFVIZ = os.path.join(h.ROOT, "profviz")
CALLS = "3000000"
CPU_CALLS = "200000"  # a system call per hook: 0.15-0.5 s
CPU_TIME = {"PROFVIZ_EVENTS": "task-clock"}
CAPTION = re.compile(r"the hooks took (\d+)% of the raw run: the times of functions that cost "
                     r"less than their hooks \(([0-9.]+)(?: ns)? a call\) are uncertain")
t = h.Tap()


def report(path):
    return subprocess.run([PROFVIZ, "report", "--color", "never", path],
                          capture_output=True, text=True)


def hooks_share(d):
    """The hooks' share of the raw work: the run less its waits, whose self
    is blocked time, when no hook runs (trust.h)."""
    if not d.get("compensated"):
        return 0.0
    waits = [f for f in d["functions"] if f.get("kind") == "wait"]
    work = d["run_total"][0] - sum(f["self"][0] for f in waits)
    raw = d["raw_run_total"][0] - sum(f.get("raw_self", f["self"])[0] for f in waits)
    return 1 - work / raw


def says_so_iff_share(run, what):
    """The caption and the report doubt the times exactly when the profile's
    own share is 40 % or more, with that share and the calibrated cost a call
    (trust.h). Returns (share, the report's output)."""
    with open(run.file("prof.json")) as f:
        d = json.load(f)
    share = hooks_share(d)
    doubted = share >= 0.4
    # The runtime judged the share before its totals were rounded to the ns.
    on_edge = abs(share - 0.4) < 1e-6
    m = CAPTION.search(open(run.file("prof.dot")).read())
    t.ok((m is not None) == doubted or on_edge, "%s: the caption says the times are uncertain "
         "iff the hooks took 40%% of the raw run or more (%.1f%%)" % (what, 100 * share))
    if m:
        per_call = d["overhead"]["caller"][0] + d["overhead"]["callee"][0]
        t.ok(abs(int(m.group(1)) - 100 * share) <= 1 and abs(float(m.group(2)) - per_call) < 0.1,
             "%s: with the JSON's share (%s%%) and hooks' cost a call (%s)"
             % (what, m.group(1), m.group(2)), "JSON: %.2f%%, %.2f" % (100 * share, per_call))
    rep = report(run.file("prof.json"))
    said = re.search(r"The hooks took (\d+)% of the raw run", rep.stdout)
    t.ok(rep.returncode == 0 and ((said is not None) == doubted or on_edge) and
         (not said or abs(int(said.group(1)) - 100 * share) <= 1),
         "%s: so does the report, with that share" % what, rep.stdout[-1500:] + rep.stderr)
    return share, rep.stdout


exe = h.build("tiny", flags=h.NO_INLINE)
with t.case("on the default clock"):
    r = h.run([exe, CALLS])
    t.eq(r.rc, 0, "tiny runs")
    says_so_iff_share(r, "tsc")

with t.case("a program of tiny calls, in CPU time"):
    r = h.run([exe, CPU_CALLS], env=CPU_TIME)
    t.ok(r.rc == 0 and r.json().data["events"] == ["task-clock"], "tiny runs, counting task-clock",
         r.stderr)
    share, rep = says_so_iff_share(r, "task-clock")
    t.ok(share >= 0.4, "the hooks took 40%% of the raw run or more (%.0f%%)" % (100 * share))
    m = re.search(r"The hooks took (\d+)% of the raw run.*?the busiest:\n\s+calls\s+self a call"
                  r"\s+function\n(.*?)\nTo cut the hooks' cost.*?\n"
                  r"  -finstrument-functions-exclude-function-list=(\S+)\n", rep, re.S)
    t.ok(m is not None, "the report lists the busiest functions cheaper than their hooks,"
         " and the flag", diag=rep[-1500:])
    if m:
        rows = m.group(2).splitlines()
        t.ok(rows and rows[0].split()[-1] == "leaf",
             "the busiest is the leaf, called %s times" % CPU_CALLS, diag=m.group(2))
        t.eq(rows[0].split()[0], CPU_CALLS, "with its call count")
        flag_names = m.group(3).split(",")
        t.ok("leaf" in flag_names and "main" not in flag_names and "section" not in flag_names,
             "the flag names the leaf, not main nor section, called once (%s)" % m.group(3))

        # Following the advice: the same program built with the flag.
        out = os.path.join(h.BUILD, "tiny-without-leaf")
        fixed = h.build("tiny", flags=h.NO_INLINE + [
            "-finstrument-functions-exclude-function-list=" + m.group(3)], out=out)
        r2 = h.run([fixed, CPU_CALLS], env=CPU_TIME)
        t.eq(r2.rc, 0, "the rebuilt program runs")
        names = {f["name"] for f in r2.json().data["functions"]}
        t.ok("leaf" not in names and "section" in names,
             "gcc left the leaf out of instrumentation: %s" % sorted(names))
        share2, _ = says_so_iff_share(r2, "rebuilt")
        t.ok(share2 < 0.4, "the hooks now take %.1f%% of the raw run: neither the report nor "
             "the caption doubts the times" % (100 * share2))

with t.case("read back, by event"):
    # A saved profile says each event's kind: cycles are spent as time is,
    # and doubted; a count of things done is not. One saved before kinds
    # were recorded (no "kinds") is judged by its events' names.
    with open(r.file("prof.json")) as f:
        saved = json.load(f)
    t.eq(saved["kinds"], ["time"], "the run's clock is saved as a time")
    older = dict(saved, revision=2)
    del older["kinds"]
    path = os.path.join(r.workdir, "no-kinds.json")
    with open(path, "w") as f:
        json.dump(dict(older, revision=3), f)
    rep = report(path)
    t.ok(rep.returncode == 2 and "1 events with 0 kinds" in rep.stderr,
         "a revision 3 file without kinds is refused, saying so", diag=rep.stderr[-300:])
    for name, kinds, doubted in (("cycles", None, True), ("cpu-cycles", None, True),
                                 ("instructions", None, False), ("r003c", ["cycles"], True),
                                 ("cycles", ["count"], False)):
        path = os.path.join(r.workdir, name + ".json")
        with open(path, "w") as f:
            json.dump(dict(older, events=[name], units=["count"],
                           **({"kinds": kinds} if kinds else {})), f)
        rep = report(path)
        t.ok(rep.returncode == 0 and ("The hooks took" in rep.stdout) == doubted,
             "%s%s read back: %s" % (name, " (saved as %s)" % kinds[0] if kinds else "",
                                     "times in doubt" if doubted else "no doubt said"),
             diag=rep.stderr[-500:])


def part_profile(path):
    """A run where the hooks took a fifth of a percent, but three quarters of
    what runs below ns::outer(int): its million calls of leaf cost 1 ns each,
    the hooks 2 ns a call."""
    profile_of(path, ["main", "work", "ns::outer(int)", "leaf"],
               [(None, 0, 1, 1000, 1000), (0, 1, 1, 10**9, 10**9), (0, 2, 1, 1000, 1000),
                (2, 3, 10**6, 10**6, 3 * 10**6)])


def profile_of(path, names, rows, module="/bin/part", inlined=None):
    """A saved profile of one thread: rows are (parent, function, calls, self,
    raw_self), one call path each, parents first; the hooks cost 2 ns a call.
    inlined: {row: how many of its calls ran inlined into its parent}."""
    n = len(rows)
    total, raw = [0] * n, [0] * n
    inlined = inlined or {}
    for i in reversed(range(n)):
        total[i] += rows[i][3]
        raw[i] += rows[i][4]
        if rows[i][0] is not None:
            total[rows[i][0]] += total[i]
            raw[rows[i][0]] += raw[i]

    def with_inlined(i, record):
        return dict(record, inlined_calls=inlined[i]) if inlined.get(i) else record
    funcs = [with_inlined(i, {"id": i, "name": name, "module": module,
                              "address": hex(0x1000 + 16 * i), "calls": rows[i][2],
                              "self": [rows[i][3]], "total": [total[i]],
                              "raw_self": [rows[i][4]], "raw_total": [raw[i]]})
             for i, name in enumerate(names)]
    arcs = [with_inlined(i, {"caller": rows[i][0], "callee": i, "calls": rows[i][2],
                             "nested_calls": 0, "total": [total[i]], "raw_total": [raw[i]]})
            for i in range(n)]
    paths = [with_inlined(i, {"parent": rows[i][0], "function": i, "calls": rows[i][2],
                              "self": [rows[i][3]], "total": [total[i]],
                              "raw_self": [rows[i][4]]}) for i in range(n)]
    with open(path, "w") as f:
        json.dump({"format": "profviz-1", "revision": 2, "program": module, "pid": 1,
                   "events": ["tsc"], "backend": "tsc", "backends": ["tsc"], "units": ["ns"],
                   "running_ratio": [1], "run_total": [total[0]], "compensated": True,
                   "raw_run_total": [raw[0]],
                   "overhead": {"caller": [1.0], "caller_miss": [0.0], "callee": [1.0],
                                "callee_span": [1.0]},
                   "clamped": [0], "threads": 1, "wall_seconds": 1.0, "stray_exits": 0,
                   "resyncs": 0, "losses": {"unrecorded_calls": 0, "merge_failures": 0,
                                            "lost_records": 0, "counters_lost": 0},
                   "functions": funcs, "per_thread": [], "arcs": arcs, "paths": paths}, f)


with t.case("a part of the run"):
    # The graph of a part judges the part; the report it points to must be
    # one that judges the same part, and lists what the graph says it does.
    part = os.path.join(tempfile.mkdtemp(prefix="profviz-doubts-"), "part.json")
    part_profile(part)
    whole = subprocess.run([PROFVIZ, "report", "--color", "never", part], capture_output=True,
                           text=True)
    t.ok(whole.returncode == 0 and "hooks took" not in whole.stdout,
         "the whole run's report has no doubts", diag=whole.stdout + whole.stderr)
    for asked in (["--focus", "ns::outer(int)"], ["--root", "ns::outer"],
                  ["--root", "ns::outer", "--event", "tsc"]):
        what = " ".join(asked)
        dot = subprocess.run([PROFVIZ, "dot"] + asked + [part], capture_output=True, text=True)
        m = re.search(r"in this view, the hooks took (\d+)% of the raw run: .*? are uncertain; "
                      r"(profviz report[^\\]*) lists them", dot.stdout)
        t.ok(m is not None, "%s: the graph doubts the part, and says so" % what,
             diag=dot.stdout[-800:] + dot.stderr)
        if not m:
            continue
        said = shlex.split(m.group(2))
        t.eq(said, ["profviz", "report"] + asked,
             "%s: it names the report of that part, the name a shell word" % what)
        rep = subprocess.run([PROFVIZ] + said[1:] + ["--color", "never", part],
                             capture_output=True, text=True)
        listed = re.search(r"In this view, the hooks took (\d+)% of the raw run.*?the busiest:"
                           r"\n\s+calls\s+self a call\s+function\n(.*?)\n", rep.stdout, re.S)
        t.ok(rep.returncode == 0 and listed is not None,
             "%s: that report lists the functions cheaper than their hooks" % what,
             diag=rep.stdout[-1500:] + rep.stderr)
        if listed:
            t.eq((listed.group(1), listed.group(2).split()[0], listed.group(2).split()[-1]),
                 (m.group(1), "1000000", "leaf"),
                 "%s: the same share as the graph's, and the leaf's million calls" % what)
    both = subprocess.run([PROFVIZ, "report", "--focus", "leaf", "--root", "leaf", part],
                          capture_output=True, text=True)
    t.ok(both.returncode == 2 and "not both" in both.stderr, "report: --focus or --root")

with t.case("the flag leaves out nothing else"):
    # gcc's list matches substrings: "match" would leave out str_match too,
    # so it is not in the flag, and the report says why; leaf is.
    path = os.path.join(tempfile.mkdtemp(prefix="profviz-doubts-"), "names.json")
    profile_of(path, ["main", "match", "str_match", "leaf"],
               [(None, 0, 1, 1000, 1000), (0, 1, 10**6, 10**6, 3 * 10**6),
                (0, 2, 2, 10**6, 10**6), (0, 3, 10**6, 10**6, 3 * 10**6)])
    rep = report(path)
    flag = re.search(r"-finstrument-functions-exclude-function-list=(\S+)", rep.stdout)
    t.ok(flag is not None and flag.group(1) == "leaf",
         "the flag names only what matches no other function of the run", diag=rep.stdout[-900:])
    t.ok("  match: not in the flag, which would leave out str_match too: mark it instead"
         in rep.stdout, "and says which name it left out, and why")
    # A part of the run: the flag still applies to the whole build, so a
    # function outside the part counts too.
    rooted = os.path.join(os.path.dirname(path), "rooted.json")
    profile_of(rooted, ["main", "outer", "match", "str_match"],
               [(None, 0, 1, 1000, 1000), (0, 1, 1, 1000, 1000), (1, 2, 10**6, 10**6, 3 * 10**6),
                (0, 3, 2, 10**6, 10**6)])
    rep = subprocess.run([PROFVIZ, "report", "--color", "never", "--root", "outer", rooted],
                         capture_output=True, text=True)
    t.ok("exclude-function-list=match" not in rep.stdout and
         "  match: not in the flag, which would leave out str_match too" in rep.stdout,
         "--root: a function outside the part still keeps a name out of the flag",
         diag=rep.stdout[-700:])

with t.case("inlined calls, and the compiler's form"):
    # kind_of ran inlined into f at every call, as gcc and clang keep an
    # inlined body's hooks: it has no time of its own to doubt (its code's
    # is f's), so it is not listed. leaf, inlined into main at a few of its
    # calls, is. Which form the report gives depends on the compiler that
    # built the module.
    inl_gcc = h.build("inlined")
    inl_clang = h.build("inlined", compiler="clang", out=os.path.join(h.BUILD, "inlined-clang"))
    work = tempfile.mkdtemp(prefix="profviz-doubts-")
    said = {}
    for built, module in (("gcc", inl_gcc), ("clang", inl_clang),
                          ("unknown", os.path.join(work, "gone"))):
        path = os.path.join(work, built + ".json")
        profile_of(path, ["main", "f", "kind_of", "leaf"],
                   [(None, 0, 1, 1000, 1000), (0, 1, 1, 10**6, 10**6), (1, 2, 10**6, 0, 2 * 10**6),
                    (0, 3, 10**6, 10**6, 3 * 10**6)], module=module,
                   inlined={2: 10**6, 3: 10})
        said[built] = report(path).stdout
    rows = re.search(r"self a call\s+function\n(.*?)\nTo cut", said["gcc"], re.S)
    t.ok(rows and not re.search(r"kind_of", rows.group(1)) and
         re.search(r"^\s+1000000\s+\S+ \S+  leaf  10 calls inlined into main$", rows.group(1),
                   re.M),
         "a function only ever inlined is not listed; one inlined at some calls is, and "
         "says so", diag=said["gcc"][-900:])
    flag = re.search(r"-finstrument-functions-exclude-function-list=(\S+)", said["gcc"])
    t.ok(flag and flag.group(1) == "leaf" and "clang built" not in said["gcc"] and
         "after-inlining" not in said["gcc"],
         "gcc built it: gcc's flag, no word of clang",
         diag=said["gcc"][-900:])
    t.ok("exclude-function-list" not in said["clang"] and
         "clang built them: it has no flag to leave functions out by name;\nthose inlined lose "
         "their hooks with clang's\n  -finstrument-functions-after-inlining\nin place of "
         "-finstrument-functions" in said["clang"] and
         "__attribute__((no_instrument_function))" in said["clang"],
         "clang built it: no gcc flag (clang rejects it), the attribute, and instrumenting "
         "after inlining", diag=said["clang"][-900:])
    t.ok("-finstrument-functions-exclude-function-list=leaf" in said["unknown"] and
         "Whether gcc or clang built them is not known here" in said["unknown"] and
         "  -finstrument-functions-after-inlining\n" in said["unknown"],
         "a module that cannot be read: both forms, and why", diag=said["unknown"][-900:])
    no = subprocess.run(["clang", "-finstrument-functions-exclude-function-list=x", "-x", "c",
                         "/dev/null", "-c", "-o", "/dev/null"], capture_output=True, text=True)
    t.ok(no.returncode != 0, "clang does reject gcc's flag", diag=no.stderr)

    # The advice followed: the inlined body's hooks are gone with either
    # compiler's form, the pointer's calls of weight kept.
    def calls_of(exe):
        r = h.run([exe, "200"])
        return {f["name"]: (f["calls"], f.get("inlined_calls", 0))
                for f in r.json().data["functions"]}
    before = calls_of(inl_gcc)
    t.eq((before.get("kind_of"), before.get("weight")), ((200000, 200000), (200200, 200000)),
         "as built: every call of kind_of inlined, weight's but the pointer's")
    for what, exe in (
            ("gcc's flag", h.build("inlined", flags=[
                "-finstrument-functions-exclude-function-list=kind_of"],
                out=os.path.join(h.BUILD, "inlined-no-kind"))),
            ("clang's -finstrument-functions-after-inlining", h.build(
                "inlined", compiler="clang", instrument=["-O2", "-g",
                                                         "-finstrument-functions-after-inlining"],
                out=os.path.join(h.BUILD, "inlined-after-inlining")))):
        after = calls_of(exe)
        t.ok("kind_of" not in after and after.get("weight", (0,))[0] in (200, 200200),
             "%s: kind_of's hooks are gone (%s)" % (what, sorted(after.items())))
    # clang after inlining keeps only the pointer's calls of weight.
    t.eq(after.get("weight"), (200, 0), "after inlining, weight's calls are the pointer's")

with t.case("not compensated"):
    r = h.run([exe, CPU_CALLS], env=dict(CPU_TIME, PROFVIZ_COMPENSATE="0"))
    rep = report(r.file("prof.json"))
    t.ok(rep.returncode == 0 and "The hooks took" not in rep.stdout,
         "a raw profile has no calibrated cost to judge by: no doubts said")
    t.ok("are uncertain" not in open(r.file("prof.dot")).read(), "nor in the caption")
t.done()
