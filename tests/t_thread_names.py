#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Threads by name (tests/progs/window_server.c: the main thread, and two
workers it names "worker"): each thread's name and which is main in the
JSON, the graph's caption, profviz report and the page; the call paths of
each name kept apart, so that --thread chooses threads in report, dot and
html, every figure of that view the chosen threads' alone."""
import json
import os
import re
import harness as h

t = h.Tap()
prog = h.build("window_server", flags=h.NO_INLINE + ["-pthread", "-I" + os.path.join(h.ROOT, "include")])
REQUESTS = 7

r = h.run([prog], stdin=b"".join(b"req 12\n" for _ in range(REQUESTS)) + b"quit\n",
          outputs="prof.json,prof.dot")
t.eq(r.rc, 0, "the server ran")
p = r.json().data
path = r.file("prof.json")
main_name = os.path.basename(prog)[:15]

with t.case("the JSON"):
    threads = p["per_thread"]
    mains = [x for x in threads if x.get("main")]
    workers = [x for x in threads if x.get("name") == "worker"]
    t.ok(len(mains) == 1 and mains[0]["name"] == main_name and mains[0]["tid"] == p["pid"],
         "the main thread: marked, its name the program's", mains)
    t.eq(len(workers), 2, "the two workers by the name they gave themselves")
    t.eq(p["thread_groups"], [{"name": main_name, "main": True}, {"name": "worker"}],
         "the threads' groups: main, and the workers")
    roots = [(p["functions"][x["function"]]["name"], p["thread_groups"][x["threads"]]["name"])
             for x in p["paths"] if x["parent"] is None]
    t.eq(sorted(roots), sorted([("main", main_name), ("worker", "worker")]),
         "each root path says whose threads ran it")

with t.case("the caption and the report"):
    dot = open(r.file("prof.dot")).read()
    for x in threads:
        label = "%d main (%s)" % (x["tid"], main_name) if x.get("main") else \
            "%d worker" % x["tid"]
        t.ok("thread %s: " % label in dot, "the caption names thread %s" % label)
    rep = h.command("report", path)
    rows = re.findall(r"^\s+(\d+)\s+\S+ s\s+\S+ s\s+(\d+.*)$", rep.stdout, re.M)
    want = sorted((str(x["calls"]), "%d main (%s)" % (x["tid"], main_name)
                   if x.get("main") else "%d worker" % x["tid"]) for x in threads)
    t.ok(sorted(rows) == want, "report's threads table: each thread's calls and name",
         (rows, want))


def functions(doc):
    return {f["name"]: f for f in doc["functions"]}


with t.case("--thread"):
    rep = h.command("report", "--thread", "worker", "--top", "0", "--exact", path)
    t.eq(rep.returncode, 0, "report --thread worker", rep.stderr)
    names = set(re.findall(r"^\s+\S+%\s+\S+%(?:\s+\d+){5}\s+(?:\d+\s+\??\s*)?(\S+)", rep.stdout,
                           re.M))
    all_funcs = functions(p)
    t.ok("handle_request" in names and "serve_line" not in names and "load_config" not in names,
         "... the workers' functions alone", sorted(names))
    row = re.search(r"^.*\s(\d+)\s+\S+\s+\d+\s+\??\s*handle_request\b", rep.stdout, re.M)
    t.ok(row and int(row.group(1)) == REQUESTS == all_funcs["handle_request"]["calls"],
         "... handle_request's calls, every request's", row and row.group(0))
    t.ok("threads worker alone" in rep.stdout, "... and the heading says which threads")
    worker_calls = sum(x["calls"] for x in workers)
    tab = re.findall(r"^\s+(\d+)\s+\S+ s\s+\S+ s\s+\d+ (\S+)$", rep.stdout, re.M)
    t.ok(sorted(tab) == sorted((str(x["calls"]), "worker") for x in workers),
         "... its threads table the workers' (%d calls)" % worker_calls, tab)
    rep = h.command("report", "--thread", "main", "--top", "0", path)
    t.ok("serve_line" in rep.stdout and "handle_request" not in rep.stdout,
         "--thread main: the main thread's functions alone", rep.stdout[:800])
    dot = h.command("dot", "--thread", "worker", "-n", "0", "-e", "0", path)
    boxes = set(re.findall(r'label="([A-Za-z_]\w*)\\n', dot.stdout))
    t.ok("worker" in boxes and "handle_request" in boxes and "main" not in boxes and
         "serve_line" not in boxes, "dot --thread worker: no box of the main thread's", boxes)
    out = os.path.join(r.workdir, "w.html")
    page = h.command("html", "--thread", "worker", "-o", out, path)
    embedded = open(out).read()
    t.ok(page.returncode == 0 and '"serve_line"' not in embedded and
         '"handle_request"' in embedded, "html --thread worker: the page's profile is theirs",
         page.stderr)
    t.ok('"name":"worker"' in embedded and '"main":true' not in embedded.split('"per_thread"')[1]
         .split(']')[0], "... naming its threads")
    bad = h.command("report", "--thread", "nope", path)
    t.ok(bad.returncode == 2 and "no thread named 'nope'" in bad.stderr and "worker" in bad.stderr
         and "main " + main_name in bad.stderr, "--thread nope: 2, the threads there are listed",
         bad.stderr)

with t.case("merged and windowed"):
    merged = os.path.join(r.workdir, "m.json")
    m = h.command("merge", "-o", merged, path, path)
    d = h.load_json(merged)
    t.ok(m.returncode == 0 and d["thread_groups"] == p["thread_groups"],
         "a merge keeps the threads' groups", m.stderr)
    rep = h.command("report", "--thread", "worker", "--top", "0", "--exact", merged)
    row = re.search(r"^.*\s(\d+)\s+\S+\s+\d+\s+\??\s*handle_request\b", rep.stdout, re.M)
    t.ok(row and int(row.group(1)) == 2 * REQUESTS, "... so --thread works on it", rep.stdout[-800:])

t.done()
