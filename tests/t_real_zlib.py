#!/usr/bin/env python3
"""A real program: zlib's own test driver, built from Debian's source package
with instrumentation, profiled; every function's call count must equal what
callgrind counts on the same binary without the preload."""
import os
import subprocess
import harness as h
from callgrind import call_counts

t = h.Tap()
fetch = subprocess.run([os.path.join(h.ROOT, "tests", "real", "fetch-source.sh"), "zlib"],
                       capture_output=True, text=True)
if fetch.returncode != 0:
    t.skip("zlib from Debian sources", "source not available: " + fetch.stderr.strip())
    t.done()
src = fetch.stdout.strip()

LIB = ["adler32", "compress", "crc32", "deflate", "gzclose", "gzlib", "gzread", "gzwrite",
       "infback", "inffast", "inflate", "inftrees", "trees", "uncompr", "zutil"]
os.makedirs(h.BUILD, exist_ok=True)
exe = os.path.join(h.BUILD, "zlib-example")
cmd = ["gcc"] + h.INSTRUMENT + h.NO_INLINE + ["-w", "-I", src, "-o", exe,
                                               os.path.join(src, "test", "example.c")]
cmd += [os.path.join(src, f + ".c") for f in LIB]
if not os.path.exists(exe):
    subprocess.run(cmd, check=True)

r = h.run([exe])
plain = h.run([exe], preload=False)
t.eq(r.rc, 0, "zlib example passes its own checks under the preload")
t.eq(r.stdout, plain.stdout, "its output is unchanged")
p = r.json()

cg_out = os.path.join(plain.workdir, "callgrind.out")
subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg_out, exe],
               cwd=plain.workdir, capture_output=True, check=True)
truth = call_counts(cg_out)

mine = [f for f in p.funcs if f["module"] == os.path.realpath(exe)]
t.ok(len(mine) >= 40, "profile covers zlib's functions (%d)" % len(mine))
wrong = ["%s: profviz %d, callgrind %d" % (f["name"], f["calls"], truth.get(f["name"], 0))
         for f in mine if f["calls"] != truth.get(f["name"], 0)]
t.ok(not wrong, "every function's calls equal callgrind's (%d functions)" % len(mine),
     "\n".join(wrong))
t.ok(p.calls("deflate") >= 20 and p.calls("inflate") >= 20, "deflate and inflate both profiled")
t.ok(p.data["stray_exits"] == 0 and p.data["resyncs"] == 0, "no unmatched hooks")
ok, err = h.dot_renders(r.file("prof.dot"))
t.ok(ok, "its graph renders", err)
t.done()
