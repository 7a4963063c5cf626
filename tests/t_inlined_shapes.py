#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bodies gcc inlines whose hooks run below their host's stack pointer
(progs/inlined_shapes.c, built with the README's gcc flags): pop's body
after a call whose stack arguments are not yet popped, mark's bodies in
the tail gcc split off collect (collect.part.0), to which collect jumps,
total's body under a variable-length array, and walk's copies inlined
into walk itself under a call's stack arguments. Each is counted as
inlined into its host, as callgrind (which sees no call there) says of
the same binary, and nothing is resynchronised. A build where gcc did not
make these shapes says so and skips."""
import os
import re
import shutil
import subprocess
import tempfile

import callgrind
import harness as h

t = h.Tap()
ROUNDS, MARKS = 1000, 500
README_GCC = ["-O2", "-g", "-finstrument-functions",
              "-finstrument-functions-exclude-file-list=.h,/usr/include/"]


def disassembly(exe, function):
    """function's instructions, one text each (objdump's, without bytes)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(function), out, re.M | re.S)
    return [line.split("\t", 1)[-1] for line in m.group(1).splitlines()] if m else []


def shapes_made(exe):
    """Why the build lacks the shapes this test is about, or ''."""
    code = disassembly(exe, "defprop")
    enters = [i for i, x in enumerate(code) if "__cyg_profile_func_enter" in x]
    pushed = [i for i, x in enumerate(code) if x.startswith("push   $")]
    popped = [i for i, x in enumerate(code) if x.startswith("pop ")]
    if not (len(enters) >= 2 and pushed and pushed[0] < enters[1] and
            any(i > enters[1] for i in popped)):
        return "gcc hooked pop's body in defprop with no stack arguments pushed"
    if not any(re.match(r"jmp\s+[0-9a-f]+ <collect\.part\.0>", x)
               for x in disassembly(exe, "collect")):
        return "gcc did not split collect's tail off and jump to it"
    if sum("__cyg_profile_func_enter" in x for x in disassembly(exe, "sum_to")) < 2:
        return "gcc did not inline total into sum_to"
    return ""


exe = h.build("inlined_shapes", instrument=README_GCC)
why = shapes_made(exe)
r = h.run([exe, str(ROUNDS), str(MARKS)], outputs="prof.json")
p = r.json()
with t.case("the run"):
    t.eq(r.rc, 0, "the program ran")
    t.eq((p.data["resyncs"], p.data["stray_exits"]), (0, 0), "nothing resynchronised")

with t.case("bodies below their host"):
    got = {(c, e): (p.arc_calls(c, e), (p.arc(c, e) or {}).get("inlined_calls", 0))
           for c, e in [("defprop", "pop"), ("collect", "mark"), ("defprop", "define"),
                        ("finish", "collect"), ("run", "collect"), ("sum_to", "total")]}
    t.eq(got[("defprop", "pop")], (ROUNDS, ROUNDS),
         "under pushed arguments: pop inlined into defprop", skip=why)
    t.eq(got[("collect", "mark")], (MARKS + 16, MARKS + 16),
         "in the tail collect jumps to: mark inlined into collect", skip=why)
    t.eq(got[("sum_to", "total")], (ROUNDS, ROUNDS),
         "under a variable-length array: total inlined into sum_to", skip=why)
    t.eq(got[("defprop", "define")], (ROUNDS, 0), "the call under those arguments: a call")
    t.eq(got[("finish", "collect")], (1, 0), "collect called through a pointer: a call")
    t.eq(got[("run", "collect")], (ROUNDS, ROUNDS), "collect's early exit inlined into run")

with t.case("against callgrind"):
    if not shutil.which("valgrind") or h.SANITIZED:
        t.skip("real calls as callgrind counts them", "needs valgrind and a plain build")
    else:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "callgrind.out")
            env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
            subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe,
                            str(ROUNDS), str(MARKS)], env=env, capture_output=True, check=True)
            truth = callgrind.call_counts(out)
        mine = {f["name"]: f["calls"] - f.get("inlined_calls", 0) for f in p.data["functions"]
                if f["module"] == os.path.realpath(exe)}
        wrong = ["%s: profviz %d, callgrind %d" % (n, c, truth.get(n, 0))
                 for n, c in sorted(mine.items()) if c != truth.get(n, 0)]
        t.eq(wrong, [], "every function's real calls as callgrind's", skip=why)

t.done()
