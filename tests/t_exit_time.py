#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a program runs at exit is recorded: its pthread key destructors on
ending threads (which run after the runtime's own key destructor), an
atexit handler, and the static destructor of an instrumented shared library
(which glibc runs after the runtime's destructor). Counts stay exact."""
import os
import harness as h

t = h.Tap()
lib = h.build("libfini", flags=h.NO_INLINE + ["-fPIC", "-shared"],
              out=os.path.join(h.BUILD, "libfini.so"))
prog = h.build("exit_time", flags=h.NO_INLINE + ["-pthread", "-Wl,-rpath," + h.BUILD],
               libs=[lib])
THREADS = 8
with t.case("exit-time code"):
    r = h.run([prog, str(THREADS)])
    plain = h.run([prog, str(THREADS)], preload=False)
    t.eq((r.rc, r.stdout), (plain.rc, plain.stdout), "the program ends as without the preload")
    p = r.json()
    t.eq(p.calls("thread_work"), THREADS, "the threads' own calls")
    t.eq(p.arc_calls(None, "key_dtor"), THREADS, "the program's key destructor, on every thread")
    t.eq(p.arc_calls("key_dtor", "on_key_dtor"), THREADS, "... and its calls")
    t.eq(p.arc_calls("at_exit_handler", "on_exit_work"), 1, "the atexit handler's calls")
    t.eq(p.arc_calls(None, "lib_fini"), 1, "the library's static destructor")
    t.eq(p.arc_calls("lib_fini", "lib_fini_work"), 1, "... and its calls")
    t.eq(p.data["threads"], THREADS + 1, "every thread handed over")
    t.eq((p.data["stray_exits"], p.data["resyncs"], p.data["losses"]["unrecorded_calls"]),
         (0, 0, 0), "nothing stray, nothing lost")
t.done()
