#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What profviz.so exports: its own interface under the version PROFVIZ_1,
the hooks and the libc wrappers at the base version, nothing else; and a
program's references to them, versioned by glibc, bind to profviz.so."""
import glob
import os
import re
import subprocess
import harness as h

t = h.Tap()
SO = h.PRELOAD_LIST.split()[-1]
OWN = {name: "PROFVIZ_1" for name in ("profviz_dump", "profviz_start", "profviz_stop",
                                       "profviz_reset", "profviz_window")}
# Interposed on glibc: the hooks and every libc wrapper of lib/runtime/wrap/interpose.c,
# signals.c, blocking.c, ucontext.c, creds.c, tasks.c and (on x86-64) returns_twice.S beside it.
RETURNS_TWICE = ["setjmp", "_setjmp", "__sigsetjmp", "vfork", "__vfork"]
INTERPOSED = ["__cyg_profile_func_enter", "__cyg_profile_func_exit", "longjmp", "_longjmp",
              "siglongjmp", "__longjmp_chk", "execve", "execv", "execvp", "execvpe", "execl",
              "execlp", "execle", "fexecve", "execveat", "_exit", "_Exit", "dlclose", "clone", "close",
              "dup2", "dup3", "close_range", "closefrom", "freopen", "freopen64", "daemon", "setsid", "sigaction", "signal", "bsd_signal", "ssignal", "sysv_signal", "__sysv_signal", "sigset", "siginterrupt", "abort",
              "makecontext", "swapcontext", "setcontext",
              # wrap/blocking.c: libc's waits
              "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
              "pthread_mutex_lock", "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
              "pthread_join", "sem_wait", "sem_timedwait", "nanosleep", "clock_nanosleep",
              "usleep", "sleep", "poll", "ppoll", "select", "pselect", "epoll_wait",
              "epoll_pwait", "accept", "accept4", "recv", "recvfrom", "recvmsg", "waitpid",
              "wait", "waitid",
              # wrap/creds.c: what changes what the threads may do
              "setuid", "setgid", "seteuid", "setegid", "setreuid", "setregid", "setresuid",
              "setresgid", "setgroups", "capset", "unshare", "setns",
              # wrap/tasks.c: a listing of the process's tasks
              "opendir", "closedir",
              # wrap/exceptions.c: where a C++ exception is thrown and caught
              "__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch"] + \
    (RETURNS_TWICE if os.uname().machine == "x86_64" else [])


def dynamic_symbols(path, defined):
    """{name: version or None} of the defined (or undefined) dynamic symbols."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[3] == "SECTION":
            continue
        if (f[6] != "UND") != defined or f[4] == "LOCAL":
            continue
        name, _, version = f[7].partition("@")
        syms[name] = version.lstrip("@") or None
    return syms


want = dict(OWN, **{n: None for n in INTERPOSED})
with t.case("exports"):
    exports = dynamic_symbols(SO, True)
    versions = {n: v for n, v in exports.items() if n != "PROFVIZ_1"}
    t.eq(versions, want,
         "exactly the hooks and wrappers (base version) and the API @@PROFVIZ_1")

# Programs that between them call every wrapper.
PROGS = [("life", ["return"], []), ("fds", ["loop"], []), ("interp", ["3", "2"], []),
         ("signals", ["1000"], []), ("plugin_host", [], ["-ldl"])]
if h.SANITIZED:
    t.skip("a program's references bind to profviz.so", "the sanitizer's runtime is preloaded "
           "first and intercepts some of these (sigaction, longjmp) itself")
    t.done()
for name, args, libs in PROGS:
    with t.case(name):
        prog = h.build(name, flags=h.NO_INLINE, libs=libs)
        wanted = sorted(n for n in dynamic_symbols(prog, False) if n in want)
        log = os.path.join(h.BUILD, "bindings-" + name)
        for old in glob.glob(log + ".*"):
            os.unlink(old)
        # Every reference resolved at start-up, each one logged with its target.
        h.run([prog] + args, env={"LD_BIND_NOW": "1", "LD_DEBUG": "bindings",
                                  "LD_DEBUG_OUTPUT": log})
        bound = {}
        for path in glob.glob(log + ".*"):
            for line in open(path):
                m = re.search(r"binding file (\S+) \[0\] to (\S+) \[0\]: normal symbol `([^']+)'",
                              line)
                if m and m.group(1) == prog:
                    bound[m.group(3)] = m.group(2)
        wrong = ["%s -> %s" % (n, bound.get(n)) for n in wanted if bound.get(n) != SO]
        t.ok(wanted and not wrong, "%s: its %d references to %s bind to profviz.so"
             % (name, len(wanted), ", ".join(wanted)), "\n".join(wrong))
t.done()
