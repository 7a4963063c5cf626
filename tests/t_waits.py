#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Waiting is not working: a thread blocked in libc (a condition, a
contended lock, a sleep, a join) spends that time in a node of its own,
"<blocked: NAME>", under the function that waited, whose self is then its
own work. An uncontended lock is not a wait. A process that runs no
instrumented code writes nothing, waits or not."""
import html
import os
import re
import harness as h

t = h.Tap()
prog = h.build("waits", flags=h.NO_INLINE + ["-pthread"])
MS = 1e6

if h.SANITIZER == "thread":
    # libtsan, loaded first, takes pthread_cond_wait and the other waits
    # itself and calls libc's directly: blocking.c never sees them.
    t.skip("waits", "TSan's runtime intercepts libc's waits before profviz can")
else:
    with t.case("waits"):
        r = h.run([prog])
        t.eq((r.rc, r.stdout), (0, b"done\n"), "the program's output and status unchanged")
        p = r.json()
        cond, sleep = p.func("<blocked: pthread_cond_wait>"), p.func("<blocked: nanosleep>")
        mutex = p.func("<blocked: pthread_mutex_lock>")
        t.eq(p.arc_calls("wait_for_job", "<blocked: pthread_cond_wait>"), 1,
             "the condition wait under the function that waited")
        t.ok(p.func("wait_for_job")["self"][0] < 0.05 * p.func("wait_for_job")["total"][0],
             "... whose self is its own work, not the wait (%.1f of %.1f ms)"
             % (p.func("wait_for_job")["self"][0] / MS, p.func("wait_for_job")["total"][0] / MS))
        t.ok(cond and cond["self"][0] > 100 * MS, "the wait lasted while main worked and slept "
             "(%.0f ms)" % (cond["self"][0] / MS if cond else 0))
        t.eq(p.arc_calls("pause_a_bit", "<blocked: nanosleep>"), 1, "a sleep is a wait")
        t.ok(sleep and sleep["self"][0] >= 150 * MS,
             "the sleeps' time is the sleeps' (%.0f ms of 160)" % (sleep["self"][0] / MS if sleep
                                                                 else 0))
        t.eq(p.arc_calls("take_lock", "<blocked: pthread_mutex_lock>"), 1,
             "a lock held by another thread is a wait")
        t.ok(mutex and mutex["self"][0] > 20 * MS, "... for as long as the other held it (%.0f ms)"
             % (mutex["self"][0] / MS if mutex else 0))
        t.eq(p.arc_calls("wait_for_job", "<blocked: pthread_mutex_lock>") +
             p.arc_calls("hold_lock", "<blocked: pthread_mutex_lock>"), 0,
             "a lock taken at once is not a wait")
        t.eq(p.arc_calls("main", "<blocked: pthread_join>"), 1, "a join is a wait")
        t.ok(p.func("work")["self"][0] > 0.9 * p.func("work")["total"][0], "work is work")

with t.case("per thread"):
    r = h.run([prog])
    p = r.json()
    threads = p.data["per_thread"]
    t.eq(len(threads), 2, "the JSON lists both threads")
    t.eq(len({x["tid"] for x in threads}), 2, "... each with its own tid")
    t.near(sum(x["total"][0] for x in threads), p.run_total(), 0.01,
           "their totals add up to the run")
    waiter = min(threads, key=lambda x: x["cpu_seconds"])
    t.ok(waiter["wall_seconds"] > 0.1 and waiter["cpu_seconds"] < 0.5 * waiter["wall_seconds"],
         "the worker, which mostly waited, used little CPU for its wall time (%.3f of %.3f s)"
         % (waiter["cpu_seconds"], waiter["wall_seconds"]))
    t.eq(sum(x["calls"] for x in threads), sum(f["calls"] for f in p.funcs),
         "their calls add up to the functions'")
    dot = open(r.file("prof.dot")).read()
    t.ok("threads, summed in this graph:" in dot and
         all(re.search(r"thread %d( main)? \(?%s\)?: " % (x["tid"], re.escape(x["name"])), dot)
             for x in threads),
         "the graph's label names each thread, with its wall and CPU time")

with t.case("the waits' names in the graphs"):
    # Every graph shows a wait's box by its whole name: the runtime's
    # prof.dot, profviz dot, and the page's SVG (laid out from the same
    # writer's graph), every box drawn.
    r = h.run([prog], env={"PROFVIZ_NODE_THRESHOLD": "0", "PROFVIZ_EDGE_THRESHOLD": "0"})
    waits = sorted(f["name"] for f in r.json().funcs if f["name"].startswith("<blocked: "))
    box_names = lambda text: set(re.findall(r'^  f\d+ \[label="([^"\\]*)', text, re.M))
    t.ok(waits and set(waits) <= box_names(open(r.file("prof.dot")).read()),
         "prof.dot: each wait's box named as in the JSON",
         (waits, sorted(box_names(open(r.file("prof.dot")).read()))))
    d = h.command("dot", "-n", "0", "-e", "0", r.file("prof.json"))
    t.ok(d.returncode == 0 and waits and set(waits) <= box_names(d.stdout),
         "profviz dot: the same names", (sorted(box_names(d.stdout)), d.stderr))
    page = r.file("prof.html")
    made = h.command("html", "-n", "0", "-e", "0", "-o", page, r.file("prof.json"))
    svg = open(page, encoding="utf-8").read() if made.returncode == 0 else ""
    texts = set(html.unescape(x) for x in re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    t.ok(waits and set(waits) <= texts, "profviz html: the graph's boxes say them too",
         (made.stderr, sorted(texts)))

with t.case("no instrumented code"):
    r = h.run(["sleep", "0.01"])
    t.eq(r.rc, 0, "sleep(1) runs")
    t.ok(not any(l.startswith("profviz:") and "cannot" in l
                 for l in r.stderr.decode().splitlines()), "nothing said")
    t.ok(not os.path.exists(r.file("prof.json")), "nothing written")
with t.case("the runtime's own lock"):
    fd = h.build("fork_dump", flags=h.NO_INLINE + ["-pthread"])
    # The children profile nothing: 300 profiles written at their _exit
    # would take minutes under a sanitizer.
    r = h.run([fd], outputs="prof.json", env={"PROFVIZ_CHILDREN": "0"}, timeout=120)
    p = r.json()
    t.eq(r.rc, 0, "the program ran to its end")
    t.eq(p.calls("<blocked: pthread_mutex_lock>"), 0,
         "300 forks against a thread dumping the profile: no lock wait of the program's")
t.done()
