#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real program: zlib's own test driver, built from Debian's source package
with instrumentation, profiled; every function's call count must equal what
callgrind counts on the same binary without the preload."""
import os
import harness as h
import callgrind

t = h.Tap()
src, why = h.fetch_source("zlib")
if not src:
    t.skip("zlib from Debian sources", why)
    t.done()

exe = h.build_zlib_program(src, "example")

with t.case("zlib example"):
    r = h.run([exe])
    plain = h.run([exe], preload=False)
    t.eq(r.rc, 0, "zlib example passes its own checks under the preload")
    t.eq(r.stdout, plain.stdout, "its output is unchanged")
    p = r.json()
    n, wrong = callgrind.compare(exe, p, plain.workdir)
    t.ok(n >= 40, "profile covers zlib's functions (%d)" % n)
    t.ok(not wrong, "every function's calls equal callgrind's (%d functions)" % n, "\n".join(wrong))
    n, wrong = callgrind.compare_arcs(exe, p, os.path.join(plain.workdir, "callgrind.out"))
    t.ok(not wrong, "every arc's calls equal callgrind's (%d arcs)" % n, "\n".join(wrong[:40]))
    t.ok(p.calls("deflate") >= 20 and p.calls("inflate") >= 20, "deflate and inflate both profiled")
    t.ok(p.data["stray_exits"] == 0 and p.data["resyncs"] == 0, "no unmatched hooks")
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "its graph renders", err)
t.done()
