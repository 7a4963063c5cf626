#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PROFVIZ_DISABLE=1: the program still calls the hooks, which must then
cost little more than glibc's no-op ones. Counted in instructions
(callgrind, deterministic), as the difference between two sizes so that
start-up and exit cancel."""
import re
import shutil
import subprocess
import harness as h

t = h.Tap()
prog = h.build("basic", flags=h.NO_INLINE)


def instructions(n, disabled):
    env = {"PROFVIZ_DISABLE": "1", "PROFVIZ_QUIET": "1"} if disabled else None
    r = h.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", prog, n, "1"],
              preload=disabled, env=env)
    return int(re.search(rb"Collected : (\d+)", r.stderr).group(1))


if not shutil.which("valgrind") or h.SANITIZED:
    t.skip("disabled hooks' cost", "needs valgrind and a plain build")
else:
    with t.case("disabled"):
        calls = [sum(f["calls"] for f in h.run([prog, n, "1"], outputs="prof.json").json().funcs)
                 for n in ("14", "18")]
        added = ((instructions("18", True) - instructions("14", True)) -
                 (instructions("18", False) - instructions("14", False)))
        per_call = added / (calls[1] - calls[0])
        # The count-only line is tried first, then the clock line, then the
        # mode test that returns, the exit passing its stack pointer along
        # (an inlined body's exit is told by it), and both their call site
        # (a body's below its host is told by it): 32 (bench/README.md,
        # "Count-only hooks").
        t.ok(per_call <= 32, "a disabled call pair costs %.1f instructions beyond glibc's no-op "
             "hooks (at most 32)" % per_call)
t.done()
