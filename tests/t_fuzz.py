#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A libFuzzer run of each parser (with ASan and UBSan): no crash, no leak,
no undefined behaviour. The parsers: PROFVIZ_*, event names, and a saved
profile as the command reads it, with every writer and view run on it. The fuzz tier: `make fuzz` runs it with
FUZZ_SECONDS per parser (60 by default, 10 in CI)."""
import os
import shutil
import subprocess
import harness as h

t = h.Tap()
SECONDS = os.environ.get("FUZZ_SECONDS", "10")
for target in ("config", "events", "load"):
    name = "fuzz_%s: %s s without a finding" % (target, SECONDS)
    if not shutil.which("clang"):
        t.skip(name, "clang is not installed")
        continue
    b = subprocess.run(["make", "-s", "build/fuzz/fuzz_" + target], cwd=h.ROOT,
                       capture_output=True, text=True)
    if b.returncode != 0:
        t.ok(False, name, b.stderr)
        continue
    corpus = os.path.join(h.ROOT, "build", "fuzz", "corpus_" + target)
    os.makedirs(corpus, exist_ok=True)
    seeds = os.path.join(h.ROOT, "tests", "fuzz", "corpus_" + target)
    for f in os.listdir(seeds):
        shutil.copy(os.path.join(seeds, f), corpus)
    # The reader says what is wrong with each bad input on stderr: closed.
    quiet = ["-close_fd_mask=2"] if target == "load" else []
    r = subprocess.run([os.path.join(h.ROOT, "build", "fuzz", "fuzz_" + target),
                        "-max_total_time=" + SECONDS] + quiet + [corpus], capture_output=True, text=True,
                       cwd=os.path.join(h.ROOT, "build", "fuzz"))
    runs = [l for l in r.stderr.splitlines() if l.startswith("Done ")]
    t.ok(r.returncode == 0, name + (" (%s)" % runs[0] if runs else ""), r.stderr[-3000:])
t.done()
