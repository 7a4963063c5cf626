#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""longjmp and siglongjmp landing in a function whose prologue differs from
the one jumped out of: the shadow stack goes back exactly to where setjmp
was called, so the landing function's later calls have it as their caller."""
import os
import subprocess
import harness as h

t = h.Tap()
N = 100
MODES = {"longjmp": ("thrower", None), "reuse": ("thrower", None),
         "nested": ("raise_nested", "on_usr2")}
for combo in h.MATRIX:
    c = combo.label
    with t.case(c):
        prog = h.build_with(combo, "landing")
        for mode, (jumper, handler) in MODES.items():
            v = "%s: %s" % (c, mode)
            if handler and h.SANITIZER == "thread":
                t.skip(v, "TSan takes the program's handlers over and runs them later, "
                       "at points of its own, outside profviz's trampoline")
                continue
            r = h.run([prog, str(N), mode])
            plain = h.run([prog, str(N), mode], preload=False)
            t.eq((r.stdout, r.rc), (plain.stdout, plain.rc), "%s: program output unchanged" % v)
            p = r.json()
            t.eq(p.arc_calls("main", "after"), N, "%s: main->after after every landing" % v)
            t.eq(p.arc_calls(jumper, "after"), 0, "%s: no arc from the frame jumped out of" % v)
            t.eq(p.arc_calls("main", jumper), N, "%s: main->%s every time" % (v, jumper))
            t.eq(p.arc_calls(jumper, jumper), 0, "%s: no phantom recursion" % v)
            if handler:
                t.eq(p.arc_calls("<signal SIGUSR2>", handler), N,
                     "%s: the inner handler ran under its signal" % v)
                t.eq(p.arc_calls(handler, "after"), 0, "%s: no arc from the left handler" % v)
            # A jumper the compiler inlined into main (clang -O2) has no
            # frame to drop, unless a handler's ran above it: the landing
            # only closes its body.
            inlined = p.func(jumper).get("inlined_calls", 0) == N and not handler
            t.eq((p.data["resyncs"], p.data["stray_exits"]), (0 if inlined else N, 0),
                 "%s: one exact resynchronisation per landing%s"
                 % (v, " (none: %s was inlined)" % jumper if inlined else ""))

# Fortified builds call __longjmp_chk; _longjmp and setjmp are the other names.
with t.case("gcc -O2 -D_FORTIFY_SOURCE=2"):
    prog = h.build("landing", flags=h.NO_INLINE + ["-D_FORTIFY_SOURCE=2"],
                   out=os.path.join(h.BUILD, "landing-fortify"))
    syms = subprocess.run(["nm", "-D", prog], capture_output=True, text=True).stdout
    t.ok("__longjmp_chk" in syms, "fortified: the program calls __longjmp_chk")
    p = h.run([prog, str(N), "longjmp"]).json()
    t.eq((p.arc_calls("main", "after"), p.arc_calls("thrower", "after")), (N, 0),
         "fortified: main->after, never thrower->after")
t.done()
