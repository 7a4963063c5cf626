#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Large profiles, for make bench: how long writing one takes at exit, and
how soon its page is usable. Medians of BENCH_REPS runs (default 9, at most
the first 3 for the page, which loads in chromium), against the goals:
- a profile of 20,000 functions and 120,000 arcs written in under 5 s (the
  old symbol look-up, a scan of the whole table per function, took 7-12 s);
- a 701-function page (`profviz html -n 0 -e 0`, every function a box)
  usable within 2 s of navigation.
The programs are the tests' (tests/generated.py), which check what profviz
makes of them."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import generated  # noqa: E402
import harness as h  # noqa: E402

REPS = int(os.environ.get("BENCH_REPS", "9"))
WRITE_GOAL_S, READY_GOAL_MS = 5.0, 2000


def line(what, measured, goal, met):
    print("%-44s %-30s goal %-10s %s" % (what, measured, goal, "met" if met else "NOT met"),
          flush=True)


def timed(argv, preload):
    started = time.monotonic()
    r = h.run(argv, preload=preload, outputs="prof.json")
    if r.rc != 0:
        raise RuntimeError("%s: exit %d: %s" % (argv[0], r.rc, r.stderr[-500:]))
    return time.monotonic() - started


def write_time():
    """With and without the preload, in turn: the difference is the hooks
    (120,000 calls, nothing) and the writing."""
    prog = generated.many_functions()
    pairs = [(timed([prog], False), timed([prog], True)) for _ in range(REPS)]
    bare = statistics.median(b for b, _ in pairs)
    written = statistics.median(max(0.0, p - b) for b, p in pairs)
    line("20,000 functions: profile written in", "%.2f s (run %.2f s without)" % (written, bare),
         "< %.0f s" % WRITE_GOAL_S, written < WRITE_GOAL_S)


def page_ready():
    node_modules = os.path.join(ROOT, "tests", "js", "node_modules")
    if not (shutil.which("node") and os.path.exists("/usr/bin/chromium") and
            os.path.isdir(os.path.join(node_modules, "playwright-core"))):
        print("701-function page: skipped (needs node, /usr/bin/chromium and playwright-core in "
              "tests/js/node_modules: make deps)")
        return
    d = tempfile.mkdtemp(prefix="profviz-bench-page-")
    h.run([generated.page_tree()], outputs="many.json", workdir=d)
    subprocess.run([os.path.join(ROOT, "profviz"), "html", "-n", "0", "-e", "0", "--nodes", "0",
                    "-o", "many.html", "many.json"], cwd=d, check=True)
    loads = json.loads(subprocess.run(
        ["node", os.path.join(ROOT, "bench", "page_ready.js"), os.path.join(d, "many.html"),
         str(min(REPS, 3))], env=dict(os.environ, NODE_PATH=node_modules), check=True,
        capture_output=True, text=True).stdout)
    ready = statistics.median(x["readyMs"] for x in loads)
    script = statistics.median(x["scriptMs"] for x in loads)
    line("701-function page: usable after", "%.0f ms (its scripts %.0f ms)" % (ready, script),
         "< %d ms" % READY_GOAL_MS, ready < READY_GOAL_MS)


def main():
    print()
    print("large profiles (medians of %d runs; the page of %d loads)" % (REPS, min(REPS, 3)))
    write_time()
    page_ready()


if __name__ == "__main__":
    main()
