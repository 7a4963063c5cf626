#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A compute-bound threaded program, as a threaded compressor is: two
workers compute (crunch and tidy, 3:1) while main waits for them on a
condition and in joins. Its users want the CPU work: by default the graph
written at exit, profviz dot, profviz report and the page give each
function's share of the work (the sampled CPU time), which must be within
3 points of the share the program measures on its own threads' CPU clocks,
and the waits stand apart, each with its share of the wall (the work and
the waits, as the JSON's run holds them). PROFVIZ_WAITS=in and --waits in
put the waits back inside the shares, which are then the JSON's own."""
import json
import os
import re
import harness as h

t = h.Tap()
prog = h.build("threads_work", flags=h.NO_INLINE + ["-pthread"])
CPU_MS = 600  # each worker's
# libtsan, loaded first, takes pthread_cond_wait and other waits itself and
# calls libc's directly: profviz does not see those (t_waits).
COND_SEEN = h.SANITIZER != "thread"


def numbers(stdout):
    """'name 12 other 34' on stdout as {name: 12, other: 34}."""
    words = stdout.decode().split()
    return {k: int(v) for k, v in zip(words[0::2], words[1::2])}


def boxes(dot):
    """{function name (from its tooltip's first line): (label, tooltip)}."""
    return {tip.split("\\n")[0]: (label, tip)
            for label, tip in re.findall(r'^  f\d+ \[label="((?:[^"\\]|\\.)*)".*?tooltip="((?:[^"\\]|\\.)*)"',
                                         dot, re.M)}


def box_share(dot, name):
    """A box's total share (its label's first %), or None."""
    label = boxes(dot).get(name, ("",))[0]
    m = re.search(r"\\n([0-9.]+)%", label)
    return float(m.group(1)) if m else None


def report_share(text, name):
    """A function's total% in profviz report's flat table, or None."""
    m = re.search(r"^ *[0-9.]+% +([0-9.]+)% .*  " + re.escape(name) + r"  \(", text, re.M)
    return float(m.group(1)) if m else None


def profviz(*args):
    return h.command(*args)


r = h.run([prog, str(CPU_MS)], outputs="prof.dot,prof.json")
truth = numbers(r.stdout)
p = r.json()
work_cpu = truth["worker_ns"] + truth["main_ns"]
cpu_share = {f: 100.0 * truth[f + "_ns"] / work_cpu for f in ("crunch", "tidy")}
run = p.data["run_total"][0]
wait = p.func("<blocked: pthread_cond_wait>")
waited = any(f.get("kind") == "wait" and f["self"][0] for f in p.funcs)
JSON_PATH = r.file("prof.json")

with t.case("the run"):
    t.eq((r.rc, sorted(truth)), (0, ["crunch_ns", "main_ns", "tidy_ns", "waited_ns", "worker_ns"]),
         "the program ran, and said what it measured")
    t.ok(truth["waited_ns"] > 0.5 * CPU_MS * 1e6,
         "main waited for the workers (%.0f ms)" % (truth["waited_ns"] / 1e6))
    if COND_SEEN:
        t.ok(wait and wait["self"][0] > 0.2 * run,
             "the JSON's run holds main's wait on the condition (%.0f of %.0f ms)"
             % ((wait or {"self": [0]})["self"][0] / 1e6, run / 1e6))


def shares_of_work(what, text, share_of):
    """Each working function's share within 3 points of its CPU share."""
    for f in ("crunch", "tidy"):
        got = share_of(text, f)
        t.ok(got is not None and abs(got - cpu_share[f]) <= 3,
             "%s: %s's share %s%% within 3 points of its CPU share, %.2f%%, on the program's "
             "thread clocks" % (what, f, got, cpu_share[f]))


def shares_of_all(what, text, share_of):
    """Each function's share is the JSON's total over its run, waits and all."""
    for f in ("crunch", "tidy"):
        want = 100.0 * p.func(f)["total"][0] / run
        got = share_of(text, f)
        t.ok(got is not None and abs(got - want) <= 0.011,
             "%s: %s's share %s%% is of the run with its waits, %.2f%%" % (what, f, got, want))


def wait_apart(what, dot):
    """The condition wait: a box of its own, its share of the wall."""
    if not wait:
        return
    label, tip = boxes(dot).get("<blocked: pthread_cond_wait>", ("", ""))
    want = "%.2f%% of wall" % (100.0 * wait["total"][0] / run)
    t.ok(("\\n%s\\n" % want) in label and "apart from the work" in tip,
         "%s: the condition wait apart, %s" % (what, want), label)
    m = re.search(r"\\nwaits: ([0-9.]+)% of wall", boxes(dot).get("wait_for_workers", ("",))[0])
    t.ok(m and float(m.group(1)) >= 100.0 * wait["self"][0] / run - 0.011,
         "%s: the function that waited is shown, with its waits' share of the wall" % what,
         boxes(dot).get("wait_for_workers"))


with t.case("the graph written at exit"):
    dot = open(r.file("prof.dot")).read()
    shares_of_work("prof.dot", dot, box_share)
    wait_apart("prof.dot", dot)
    t.eq(bool(re.search(r"\\lwork: [0-9.]+ [mu]?s over 3 threads", dot)), waited,
         "prof.dot: its caption says the shares are of the work, with waits apart")

with t.case("profviz dot"):
    d = profviz("dot", JSON_PATH)
    t.eq(d.returncode, 0, "profviz dot: exit 0", d.stderr)
    shares_of_work("profviz dot", d.stdout, box_share)
    wait_apart("profviz dot", d.stdout)
    d = profviz("dot", "--waits", "in", JSON_PATH)
    shares_of_all("profviz dot --waits in", d.stdout, box_share)
    if wait:
        t.ok("\\n%.2f%%\\n" % (100.0 * wait["total"][0] / run)
             in boxes(d.stdout).get("<blocked: pthread_cond_wait>", ("",))[0],
             "profviz dot --waits in: the wait a box like any, its share of the run")
    d = profviz("dot", "--waits", "inside", JSON_PATH)
    t.ok(d.returncode == 2 and d.stderr.strip() ==
         "profviz: --waits: 'inside' is not 'apart' or 'in'", "profviz dot --waits inside: "
         "exit 2, one line saying what it takes", d.stderr)

with t.case("profviz report"):
    rep = profviz("report", "--color", "never", JSON_PATH)
    t.eq(rep.returncode, 0, "profviz report: exit 0", rep.stderr)
    shares_of_work("profviz report", rep.stdout, report_share)
    if wait:
        t.ok(re.search(r"^ *%.2f%% .*  wait_for_workers -> <blocked: pthread_cond_wait>$"
                       % (100.0 * wait["total"][0] / run), rep.stdout, re.M) and
             not re.search(r"^ *[0-9.]+% +[0-9.]+% .*<blocked: pthread_cond_wait>$", rep.stdout, re.M),
             "profviz report: the wait in the waits' table, its share of the wall, not among "
             "the work's functions", rep.stdout)
    rep = profviz("report", "--color", "never", "--waits", "in", JSON_PATH)
    shares_of_all("profviz report --waits in", rep.stdout, report_share)

with t.case("PROFVIZ_WAITS=in"):
    r2 = h.run([prog, str(CPU_MS)], outputs="prof.dot,prof.json", env={"PROFVIZ_WAITS": "in"})
    p2 = r2.json()
    dot2 = open(r2.file("prof.dot")).read()
    for f in ("crunch", "tidy"):
        want = 100.0 * p2.func(f)["total"][0] / p2.data["run_total"][0]
        got = box_share(dot2, f)
        t.ok(got is not None and abs(got - want) <= 0.011,
             "PROFVIZ_WAITS=in: %s's share %s%% is of the run with its waits, %.2f%%"
             % (f, got, want))
    t.ok(re.search(r"\\ltotal: [0-9.]+ [mu]?s over 3 threads", dot2),
         "PROFVIZ_WAITS=in: the caption's total is the run's, waits and all")
    r3 = h.run([prog, "50"], outputs="prof.json", env={"PROFVIZ_WAITS": "inside"})
    t.ok(b"profviz: PROFVIZ_WAITS='inside' is not 'apart' or 'in'; using apart\n" in r3.stderr,
         "PROFVIZ_WAITS=inside: said, and the default used", r3.stderr)

with t.case("profviz html"):
    page_path = os.path.join(r.workdir, "prof.html")
    hr = profviz("html", "-o", page_path, JSON_PATH)
    t.eq(hr.returncode, 0, "profviz html: exit 0", hr.stderr)
    page = open(page_path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="profile">(.*?)</script>', page, re.S)
    shown = json.loads(m.group(1)) if m else {}
    names = [f["name"] for f in shown.get("functions", [])]
    for f in ("crunch", "tidy"):
        got = 100.0 * shown["functions"][names.index(f)]["total"][0] / shown["run_total"][0]
        t.ok(abs(got - cpu_share[f]) <= 3,
             "profviz html: %s's share in the page's profile %.2f%% within 3 points of its CPU "
             "share, %.2f%%" % (f, got, cpu_share[f]))
    t.eq("waited" in shown, waited, "profviz html: the page's profile has its waits apart")

t.done()
