#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fork, exec, posix_spawn, vfork and errno: each image and each process gets
its own profile under its own name, and nothing the program sees changes."""
import glob
import json
import os
import harness as h

t = h.Tap()
prog = h.build("life", flags=h.NO_INLINE)


def load(path):
    with open(path) as f:
        return h.Profile(json.load(f))


def same_as_plain(mode, *args, **kw):
    r = h.run([prog, mode] + list(args), outputs="prof.json", **kw)
    plain = h.run([prog, mode] + list(args), preload=False)
    t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc), (plain.stdout, plain.stderr, plain.rc),
         "%s: stdout, stderr and status as without the preload" % mode)
    return r


# fork: the child writes prof.<childpid>.json, the parent prof.json.
with t.case("fork"):
    r = same_as_plain("fork")
    files = sorted(os.listdir(r.workdir))
    child_files = [f for f in files if f != "prof.json"]
    t.ok("prof.json" in files and len(child_files) == 1 and child_files[0].startswith("prof.") and
         child_files[0].endswith(".json"), "fork: parent and child files apart (%s)" % files)
    parent = r.json()
    t.eq(parent.calls("step"), 5, "fork: parent's profile unaffected by the child")
    t.eq(parent.calls("child_work"), 0, "fork: the child's work is not in the parent's")
    if child_files:
        child = load(r.file(child_files[0]))
        t.eq(child.calls("child_work"), 1, "fork: the child profiles itself from the fork on")
        t.eq(child.calls("step"), 3, "fork: the child's counts start at the fork")
        t.eq(child.data["pid"], int(child_files[0].split(".")[1]), "fork: named by its pid")

# perf events: the child must count itself, not read the parent's counters.
with t.case("fork with perf events"):
    r = h.run([prog, "fork"], outputs="prof.json",
              env={"PROFVIZ_EVENTS": "task-clock", "PROFVIZ_TIME": "hooks"})
    child_files = [f for f in os.listdir(r.workdir) if f != "prof.json"]
    child = load(r.file(child_files[0])) if child_files else None
    t.ok(child is not None and child.data["backends"] == ["read"] and
         0 < child.func("child_work")["total"][0] < 50e6,
         "fork with perf events: the child opens and reads its own")
    t.eq(r.json().func("event_here")["calls"], 1, "fork with perf events: parent unaffected")

with t.case("fork with %p"):
    r = h.run([prog, "fork"], outputs="prof.%p.json")
    t.eq(len(glob.glob(r.file("prof.*.json"))), 2,
         "fork with %p: one file per pid, no suffix added")

with t.case("fork, PROFVIZ_CHILDREN=0"):
    r = h.run([prog, "fork"], outputs="prof.json", env={"PROFVIZ_CHILDREN": "0"})
    t.eq(sorted(os.listdir(r.workdir)), ["prof.json"],
         "PROFVIZ_CHILDREN=0: the child writes nothing")

with t.case("fork_early, PROFVIZ_CHILDREN=0"):
    early = h.build("fork_early", flags=["-I" + os.path.join(h.ROOT, "include")])
    r = h.run([early], outputs="prof.json", env={"PROFVIZ_CHILDREN": "0"})
    t.eq(sorted(os.listdir(r.workdir)), ["prof.json"],
         "PROFVIZ_CHILDREN=0 holds for a fork made before any instrumented call")
with t.case("fork_early"):
    r = h.run([early], outputs="prof.json")
    files = sorted(os.listdir(r.workdir))
    t.eq(len(files), 2, "a fork before any instrumented call: both processes profile (%s)" % files)
    t.ok(all(load(r.file(f)).calls("work") == 4 for f in files), "... each its own 4 calls")

# exec: the image before exec writes prof.exec1.json; the new one prof.json.
with t.case("exec"):
    r = h.run([prog, "exec"], outputs="prof.json")
    t.eq(r.rc, 2, "exec: the new image runs to its end")
    t.eq(sorted(os.listdir(r.workdir)), ["prof.exec1.json", "prof.json"],
         "exec: the replaced image's profile is kept beside the new one")
    before = load(r.file("prof.exec1.json"))
    after = r.json()
    t.eq(before.calls("step"), 5, "exec: profile of the image that called exec")
    t.ok(before.func("event_here") is not None, "exec: written while event_here was running")
    t.eq(after.calls("step"), 5, "exec: the new image profiles itself")
    t.eq(before.data["pid"], after.data["pid"], "exec: same pid, different files")
with t.case("execlp"):
    r = h.run([prog, "execlp", prog], outputs="prof.json")
    t.eq(sorted(os.listdir(r.workdir)), ["prof.exec1.json", "prof.json"],
         "execlp: the variadic family is covered too")

# A wrapper process (a shell) has no instrumented code: it must not write,
# or it would replace the profile of the program it ran, ending after it.
with t.case("a shell around the program"):
    r = h.run(["bash", "-c", prog + " return; true"], outputs="prof.json")
    t.eq(sorted(os.listdir(r.workdir)), ["prof.json"], "a shell around the program writes nothing")
    t.eq(r.json().calls("step"), 5, "the program's profile survives the shell's exit")

# posix_spawn and vfork children must not disturb the parent's state.
for mode in ("spawn", "vfork", "vfork_exit"):
    with t.case(mode):
        r = same_as_plain(mode)
        p = r.json()
        want = 9 if mode != "vfork_exit" else 5
        t.eq(p.calls("step"), want, "%s: parent's counts exact after the child" % mode)
        t.ok(p.data["stray_exits"] == 0 and p.data["resyncs"] == 0,
             "%s: parent's shadow stack intact" % mode)
        if h.SANITIZER == "thread" and mode.startswith("vfork"):
            t.skip("%s: only the parent writes" % mode, "TSan runs vfork as fork")
        else:
            t.eq(sorted(os.listdir(r.workdir)), ["prof.json"], "%s: only the parent writes" % mode)

# errno across hooks, including first calls (the slow path).
with t.case("errno"):
    r = same_as_plain("errno")
    t.ok(b"errno changed 0 times" in r.stdout, "errno identical across every hook", r.stdout)
with t.case("PROFVIZ_QUIET=1"):
    q = h.run([prog, "return"], env={"PROFVIZ_QUIET": "1"})
    plain = h.run([prog, "return"], preload=False)
    t.eq(q.stderr, plain.stderr, "PROFVIZ_QUIET=1: stderr byte for byte the program's")
t.done()
