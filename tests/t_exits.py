#!/usr/bin/env python3
"""Every way to end: the profile is written with the open frames closed at the
time of death, and the program ends exactly as it would have."""
import os
import resource
import signal
import subprocess
import tempfile
import harness as h

t = h.Tap()
prog = h.build("life", flags=h.NO_INLINE)


def run_raw(mode, preload, sigint_ignored=False):
    """Run with core dumps allowed; (stdout, stderr, raw wait status, dir)."""
    d = tempfile.mkdtemp(prefix="profviz-exit-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = h.PRELOAD_LIST
        env["PROFVIZ_OUTPUT"] = "prof.json"

    def setup():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)
        if sigint_ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    p = subprocess.Popen([prog, mode], cwd=d, env=env, stdout=out, stderr=err,
                         preexec_fn=setup)
    _, status = os.waitpid(p.pid, 0)
    p.returncode = 0
    out.seek(0)
    err.seek(0)
    return out.read(), err.read(), status, d


def describe(status):
    if os.WIFSIGNALED(status):
        return "signal %d%s" % (os.WTERMSIG(status), " (core)" if os.WCOREDUMP(status) else "")
    return "exit %d" % os.WEXITSTATUS(status)


CASES = [("return", None), ("exit", None), ("_exit", None), ("quick_exit", None),
         ("abort", signal.SIGABRT), ("segv", signal.SIGSEGV), ("term", signal.SIGTERM),
         ("int", signal.SIGINT), ("handler", None)]
for mode, sig in CASES:
    out, err, status, d = run_raw(mode, True)
    pout, perr, pstatus, _ = run_raw(mode, False)
    t.eq(describe(status), describe(pstatus), "%s: ends as without the preload (%s)"
         % (mode, describe(pstatus)))
    t.eq(out, pout, "%s: same stdout" % mode)
    t.eq(h.strip_profviz(err), perr, "%s: same stderr apart from profviz's line" % mode)
    path = os.path.join(d, "prof.json")
    if not t.ok(os.path.exists(path), "%s: profile written" % mode):
        continue
    p = h.Run.__new__(h.Run)
    p.workdir = d
    prof = p.json()
    t.eq(prof.calls("step"), 5, "%s: calls before the event counted" % mode)
    if mode != "return":
        ev = prof.func("event_here")
        t.ok(ev is not None and ev["total"][0] > 0 and
             prof.func("outer")["total"][0] >= ev["total"][0],
             "%s: frames open at death are closed with their cost" % mode)

out, err, status, d = run_raw("ignored", True, sigint_ignored=True)
t.ok(b"SIGINT ignored" in out and b"survived" in out and describe(status) == "exit 2",
     "an ignored fatal signal stays ignored", out)
out, err, status, d = run_raw("handler", True)
t.ok(b"reads back its handler: yes" in out, "the program reads back its own handler", out)
t.ok(b"handler 15" in out, "the program's handler runs, not the runtime's", out)
t.done()
