#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""clone(2) with CLONE_VM and without CLONE_SETTLS (progs/rawclone.c): the
child runs with its parent's memory and TLS. Run alongside, parent and
child would tear one shadow stack apart (the child died of SIGSEGV in 9
runs of 20): the thread records nothing more after the clone, the profile
holds its calls before it exactly and counts the thread among its losses,
and the report says so; so from a thread that has run no instrumented
code yet. Under CLONE_VFORK the parent waits: its calls after the child
ended are recorded, the child's are not. A clone the kernel refuses stops
nothing. Every mode, many runs each: same output as without profviz,
nothing killed."""
import harness as h

t = h.Tap()
README_GCC = ["-O2", "-g", "-finstrument-functions",
              "-finstrument-functions-exclude-file-list=.h,/usr/include/"]
RUNS = 10
BEFORE, AFTER = 100, 2000  # progs/rawclone.c's
MODES = [("default", {}), ("bodies as frames", {"PROFVIZ_INLINED": "frames"}),
         ("the hooks' clock", {"PROFVIZ_TIME": "hooks"}),
         ("a counter read per call", {"PROFVIZ_EVENTS": "task-clock"}),
         ("disabled", {"PROFVIZ_DISABLE": "1"})]

exe = h.build("rawclone", instrument=README_GCC, libs=["-pthread"])
# (how, the calls the parent made while profiled, threads lost)
SHAPES = {"shared": (BEFORE * 6, 1), "vfork": (BEFORE * 6 + AFTER * 21, 0),
          "unborn": (BEFORE * 6, 1), "fail": (BEFORE * 6 + AFTER * 21, 0)}
for how, (mine, lost) in SHAPES.items():
    if h.SANITIZER == "thread" and lost:
        t.skip(how, "ThreadSanitizer itself cannot run a child that shares its parent's TLS")
        continue
    plain = h.run([exe, how], preload=False)
    for label, env in MODES:
        with t.case("%s, %s" % (how, label)):
            runs = [h.run([exe, how], outputs="prof.json", env=env) for _ in range(RUNS)]
            same = [(r.stdout, h.strip_profviz(r.stderr), r.rc) ==
                    (plain.stdout, plain.stderr, plain.rc) for r in runs]
            t.eq(same.count(True), RUNS, "%s, %s: %d runs, each as without profviz (%s)"
                 % (how, label, RUNS, plain.stdout.decode().strip()))
            if label == "disabled":
                continue
            p = runs[-1].json()
            shared = p.data["losses"]["threads_shared"]
            t.eq((p.calls("rec"), shared), (mine, lost),
                 "%s, %s: rec's calls the parent made while profiled, the thread lost %s"
                 % (how, label, "counted" if lost else "none"))
            if how == "shared" and label == "default":
                out = h.command("report", runs[-1].file("prof.json")).stdout
                t.ok("1 threads that made a clone(2) share their TLS" in out,
                     "shared: the report says what is missing", out[:600])
t.done()
