#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every source file the project keeps says its licence in its first lines
(SPDX-License-Identifier, as LICENSE gives it), and LICENSE is there."""
import os
import subprocess
import harness as h

t = h.Tap()
TAG = "SPDX-License-Identifier: MIT"
SOURCES = (".c", ".h", ".S", ".cpp", ".py", ".sh", ".js", ".css", ".html", ".map", ".lua",
           ".supp")

files = subprocess.run(["git", "ls-files"], cwd=h.ROOT, capture_output=True, text=True,
                       check=True).stdout.split()
sources = [f for f in files if f.endswith(SOURCES) or os.path.basename(f) in ("Makefile", "run")]
t.ok(len(sources) > 100, "the project's sources are found (%d)" % len(sources))
missing = []
for f in sources:
    with open(os.path.join(h.ROOT, f), errors="replace") as src:
        head = [src.readline() for _ in range(3)]
    if not any(TAG in line for line in head):
        missing.append(f)
t.eq(missing, [], "each names its licence in its first three lines")
with open(os.path.join(h.ROOT, "LICENSE")) as f:
    t.ok(f.readline().strip() == "MIT License", "LICENSE holds the licence the tags name")
t.done()
