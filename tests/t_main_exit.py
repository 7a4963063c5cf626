#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""main leaves through pthread_exit and a worker ends the process: the
profile is written from a process whose main thread is gone, and its
functions are still named, with their modules and source files."""
import os
import harness as h

t = h.Tap()
lib = h.build("libshape", flags=["-fPIC", "-shared"],
              out=os.path.join(h.BUILD, "libshape.so"))
prog = h.build("main_exits", flags=["-Wl,-rpath," + h.BUILD], libs=[lib, "-lpthread"])

if h.SANITIZER == "thread":
    # Not profviz's: under ThreadSanitizer alone, this program never ends.
    t.skip("main thread exited first", "ThreadSanitizer hangs a process whose main thread exits")
    t.done()

with t.case("main thread exited first"):
    r = h.run([prog], timeout=60)
    t.eq(r.rc, 0, "exit code 0")
    t.eq(r.stdout, b"worker done\n", "output unchanged")
    p = r.json()
    raw = [f["name"] for f in p.funcs if f["name"].startswith("0x")]
    t.eq(raw, [], "no raw addresses")
    t.eq(p.calls("leaf"), 6, "leaf named, 6 calls")
    t.eq(p.arc_calls("worker", "leaf"), 5, "arc worker -> leaf")
    t.eq(p.arc_calls("before_exit", "leaf"), 1, "arc before_exit -> leaf (main's thread)")
    t.eq(p.arc_calls("main", "before_exit"), 1, "arc main -> before_exit")
    t.eq((p.func("leaf") or {}).get("module"), os.path.realpath(prog),
         "the executable is a module")
    t.ok((p.func("leaf") or {}).get("file", "").endswith("main_exits.c"), "source file from DWARF")
    t.eq(p.calls("shape_helper"), 3, "a library's static function named")
    t.eq((p.func("shape_helper") or {}).get("module"), os.path.realpath(lib),
         "the library is a module")
t.done()
