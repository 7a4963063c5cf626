#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One seam between the runtime and libc: no object of profviz.so but its
libc wrappers calls a function by a name that profviz.so itself wraps. Such
a call binds to the runtime's own wrapper: a lock of the runtime's recorded
as the program's wait with a hook run from inside the runtime, a sleep
between hooks, an abort that writes a profile on the way out."""
import os
import subprocess
import harness as h

t = h.Tap()
SO = h.PRELOAD_LIST.split()[-1]
# The objects of the flavour under test: build/plain for ./profviz.so, else
# the sanitized runtime's own directory.
FLAVOUR = os.path.join(h.ROOT, "build", "plain") if os.path.dirname(SO) == h.ROOT \
    else os.path.dirname(SO)
# The wrappers (lib/runtime/wrap/) may call others (signal() calls
# sigaction(), execl() execv(), in their own objects), but across objects
# only a wait's wrapper calls one: the hooks of the wait's pseudo-function.
HOOKS = ["__cyg_profile_func_enter", "__cyg_profile_func_exit"]
ACROSS = {"blocking": HOOKS}


def names(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


with t.case("seam"):
    wrapped = names(["nm", "-D", "--defined-only", SO])
    objects = h.built_objects(FLAVOUR, os.path.join("lib", "runtime"))
    WRAPPERS = {os.path.basename(o)[:-2] for o in objects
                if os.path.basename(os.path.dirname(o)) == "wrap"}
    core = {os.path.basename(o)[:-2]: o for o in objects
            if os.path.basename(o)[:-2] not in WRAPPERS}
    t.ok({"runtime", "fds", "progress", "counters", "lock"} <= set(core),
         "the runtime's objects are there to check (%d in %s)" % (len(core), FLAVOUR))
    t.ok({"pthread_mutex_lock", "clock_nanosleep", "abort", "close"} <= wrapped,
         "profviz.so wraps the functions the runtime must not call by name")
    for name, path in sorted(core.items()):
        calls = sorted(names(["nm", "-u", path]) & wrapped)
        t.eq(calls, [], "%s.o calls none of profviz.so's wrappers" % name)
    for path in objects:
        name = os.path.basename(path)[:-2]
        if name in WRAPPERS:
            calls = sorted(names(["nm", "-u", path]) & wrapped)
            t.eq(calls, ACROSS.get(name, []), "wrapper %s.o calls only the wrappers it means to"
                 % name)
t.done()
