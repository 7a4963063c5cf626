#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A skipped test says so, with its reason, in the output of every test
tier (make check, check-real, fuzz): prove as the Makefile runs it, on a
script that skips."""
import os
import re
import subprocess
import tempfile
import harness as h

t = h.Tap()
with t.case("skips shown"):
    fixture = os.path.join(tempfile.mkdtemp(prefix="profviz-test-"), "t_skipping.py")
    with open(fixture, "w") as f:
        f.write("print('ok 1 - works')\nprint('ok 2 - needs a PMU # SKIP no PMU here')\n"
                "print('1..2')\n")
    for target in ("check", "check-real", "fuzz"):
        # The tier's own recipe, without running it (-n), made to run the fixture.
        recipe = subprocess.run(["make", "-s", "-n", "-C", h.ROOT, "-W", "profviz.so", target],
                                capture_output=True, text=True).stdout
        line = next((l for l in recipe.splitlines() if " prove " in " " + l + " "), None)
        if not line:
            t.ok(False, "make %s runs prove (%s)" % (target, recipe[-300:]))
            continue
        # Keep prove's options, swap the tests for the fixture.
        words = line.split()
        at = words.index("prove")
        options = [w for w in words[at + 1:] if w.startswith("-")]
        out = subprocess.run(["prove"] + options + ["-e", "python3", fixture],
                             capture_output=True, text=True).stdout
        t.ok(re.search(r"SKIP no PMU here", out) is not None,
             "make %s shows a skip and its reason (prove %s)" % (target, " ".join(options)))
t.done()
