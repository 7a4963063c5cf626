#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`profviz run` passes on to the program the signals a supervisor sends it
(lib/cmd/run.c): a kill of the command's pid ends or notifies the program as
a kill of the program's own would, the profile is written as it then is, and
the command's status is the program's. What it does not pass on: ^C and ^\\
(ignored, as the terminal sends them to the program itself), the terminal's
own signals (the program gets them from the terminal), signals ignored when
it started, the program's own, and the stops (^Z stops both). Every step
waits for a line from the program (tests/progs/run_signals.c) or its end,
never for a time."""
import ctypes
import fcntl
import os
import resource
import select
import signal
import struct
import subprocess
import tempfile
import termios
import harness as h

t = h.Tap()
prog = h.build("run_signals", flags=h.NO_INLINE)
S = signal.Signals
# What run.c passes on, the real-time signals by their ends and next ones.
PASSED = [S.SIGHUP, S.SIGTERM, S.SIGUSR1, S.SIGUSR2, S.SIGALRM, S.SIGPIPE, S.SIGWINCH,
          S.SIGCONT, S.SIGABRT, S.SIGILL, S.SIGTRAP, S.SIGBUS, S.SIGFPE, S.SIGSEGV, S.SIGSYS,
          S.SIGXCPU, S.SIGXFSZ, S.SIGVTALRM, S.SIGPROF, S.SIGIO, S.SIGPWR] + \
    ([S.SIGSTKFLT] if hasattr(S, "SIGSTKFLT") else [])
RT = [signal.SIGRTMIN, signal.SIGRTMIN + 1, signal.SIGRTMAX - 1, signal.SIGRTMAX]
ALL = [int(s) for s in PASSED] + RT
NOT_FATAL = (S.SIGWINCH, S.SIGCONT)  # their default action ends nothing
tmp = tempfile.mkdtemp(prefix="profviz-runsig-")  # the profiles of runs not looked at


def name(sig):
    try:
        return S(sig).name
    except ValueError:
        return "SIGRTMIN+%d" % (sig - signal.SIGRTMIN)


def clean_env():
    """The environment without the runtime's variables, nothing preloaded."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith("PROFVIZ_") and k != "LD_PRELOAD"}



def as_given():
    """The signals this file sends, at their defaults and unblocked in what
    it starts: the suite itself may run under nohup (SIGHUP ignored), which
    profviz run rightly passes on as ignored."""
    for sig in PASSED + [S.SIGINT, S.SIGQUIT]:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

class Started:
    """The program started with the runtime, directly or under `profviz run`,
    once it has said it is ready: its state at start (ignored and blocked
    signals) in self.start."""

    def __init__(self, args, through_run, setup=None, **popen):
        self.dir = tempfile.mkdtemp(prefix="profviz-runsig-")
        env = clean_env()
        argv = [prog] + [str(a) for a in args]
        if through_run:  # the runtime beside the command: h.PRELOAD
            argv = [h.PROFVIZ, "run", "-o", "prof.json", "--"] + argv
        else:
            env["LD_PRELOAD"] = h.PRELOAD
            env["PROFVIZ_OUTPUT"] = "prof.json"

        def prepare():
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            as_given()
            if setup:
                setup()

        self.p = subprocess.Popen(argv, cwd=self.dir, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  preexec_fn=prepare, **popen)
        self.pid = self.p.pid
        self.start = self.p.stdout.readline().decode().strip()
        ready = self.p.stdout.readline().decode().strip()
        if ready != "ready":
            self.end()
            raise RuntimeError("not ready: %r %r (%s)" % (self.start, ready, self.stderr))

    def end(self):
        """(status, what the program said after "ready", the profile's calls
        of work and of the handler, or None where it wrote none). A program
        still running after 20 s, or left running by the command, is told
        "nothing came" (stdin closed)."""
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        self.p.stdin.close()
        self.p.wait(timeout=20)
        said = (read_to_end(self.p.stdout) or b"").decode().strip()
        self.stderr = self.p.stderr.read().decode(errors="replace")
        self.p.stdout.close()
        self.p.stderr.close()
        profile = None
        path = os.path.join(self.dir, "prof.json")
        if os.path.exists(path):
            p = h.Run.for_files(self.dir, "prof.json").json()
            profile = (p.calls("work"), p.calls("on_signal"))
        return self.p.returncode, said, profile


def read_to_end(pipe, seconds=20):
    """All a pipe holds once every writer is gone, or None if one still
    holds it after seconds (a program left running)."""
    got = b""
    while select.select([pipe], [], [], seconds)[0]:
        more = os.read(pipe.fileno(), 4096)
        if not more:
            return got
        got += more
    return None


def kill_and_end(run, *sigs):
    for sig in sigs:
        os.kill(run.pid, sig)
    return run.end()


# A handler for it in the program: the command's kill comes to it, once.
for sig in ALL:
    with t.case("%s caught" % name(sig)):
        got = kill_and_end(Started(["catch", sig], True), sig)
        t.eq(got, (sig, "got %d:1 pending" % sig, (5, 1)),
             "kill -%s of profviz run: the program's handler had it once, exit status "
             "and profile as the program's" % name(sig))

# No handler: the command's kill ends the program as a kill of its own pid does
# (the runtime's handler writes the profile, but for SIGTRAP, which it leaves to
# debuggers), and the command dies of the same signal.
for sig in ALL:
    if sig in NOT_FATAL:
        continue
    with t.case("%s by default" % name(sig)):
        direct = kill_and_end(Started(["default"], False), sig)
        through = kill_and_end(Started(["default"], True), sig)
        t.eq(through, direct, "kill -%s of profviz run ends the program as a kill of the "
             "program does (%r)" % (name(sig), direct))
        if sig == S.SIGTERM:
            t.eq(through, (-sig, "", (5, 0)),
                 "SIGTERM: the runtime wrote the profile, profviz run died of SIGTERM")

with t.case("SIGINT and SIGQUIT"):
    run = Started(["catch", S.SIGUSR1, S.SIGINT, S.SIGQUIT], True)
    # Lower numbers than SIGUSR1's: passed on, they would come before it.
    got = kill_and_end(run, S.SIGINT, S.SIGQUIT, S.SIGUSR1)
    t.eq(got[:2], (S.SIGUSR1, "got %d:1 pending" % S.SIGUSR1),
         "SIGINT and SIGQUIT to profviz run alone: ignored, not passed on")

with t.case("given state"):
    def nohup_and_block():  # SIGCHLD ignored too: the command still sees its child end
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])

    direct = Started(["catch", S.SIGTERM, S.SIGHUP], False, nohup_and_block)
    run = Started(["catch", S.SIGTERM, S.SIGHUP], True, nohup_and_block)
    t.eq(run.start, direct.start, "the program starts with the signals ignored and blocked "
         "that profviz run was given (%s)" % direct.start)
    kill_and_end(direct, S.SIGTERM)
    # SIGHUP ignored from the start stays so; SIGUSR2, blocked in the program,
    # is passed on and waits there, as a direct kill's would.
    got = kill_and_end(run, S.SIGHUP, S.SIGUSR2, S.SIGTERM)
    t.eq(got[:2], (S.SIGTERM, "got %d:1 pending %d" % (S.SIGTERM, S.SIGUSR2)),
         "a signal ignored when profviz run started is not passed on; one the program "
         "blocks waits in it")

with t.case("the program's own"):
    run = Started(["parent", S.SIGUSR1, S.SIGTERM], True)
    got = kill_and_end(run, S.SIGTERM)
    t.eq(got[:2], (S.SIGTERM, "got %d:1 pending" % S.SIGTERM),
         "what the program sends its parent, profviz run, is not sent back to it")

with t.case("sigqueue"):
    libc = ctypes.CDLL(None, use_errno=True)
    run = Started(["catch", signal.SIGRTMIN], True)
    t.eq(libc.sigqueue(run.pid, signal.SIGRTMIN, ctypes.c_void_p(42)), 0, "sigqueue")
    got = run.end()
    t.eq(got[:2], (signal.SIGRTMIN, "got %d:1:42 pending" % signal.SIGRTMIN),
         "a sigqueue() to profviz run comes to the program with its value")

# A terminal whose session profviz run leads: its resize's SIGWINCH goes to
# the foreground group, the program too, and is not passed on again; its
# hangup's SIGHUP comes to the session's leader alone, and is passed on.
with t.case("a terminal"):
    master, slave = os.openpty()
    run = Started(["catch", S.SIGHUP, S.SIGWINCH, S.SIGCONT], True,
                  lambda: fcntl.ioctl(slave, termios.TIOCSCTTY, 0), start_new_session=True)
    os.close(slave)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.close(master)
    rc, said, _ = run.end()
    came = dict(w.split(":")[:2] for w in said.split()[1:] if ":" in w)
    t.eq((rc, came.get(str(int(S.SIGHUP))), came.get(str(int(S.SIGWINCH)))),
         (S.SIGHUP, "1", "1"), "the terminal's resize came once; its hangup, to profviz "
         "run as the session's leader, came to the program (%s)" % said)

# An alarm set before profviz run was exec'd (`alarm 10; exec ...`) goes off in
# the command, sent by the kernel; the program would have had it: passed on.
# Caught, or, if it came before the program's handler, its default.
with t.case("an alarm"):
    run = subprocess.Popen([h.PROFVIZ, "run", "-q", "--", prog, "catch", str(int(S.SIGALRM))],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, env=clean_env(), cwd=tmp,
                           preexec_fn=lambda: (as_given(),
                                               signal.setitimer(signal.ITIMER_REAL, 0.2)))
    try:
        run.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    run.stdin.close()
    rc = run.wait(timeout=20)
    out = read_to_end(run.stdout)
    run.stdout.close()
    # Not passed on, the command would die of it and leave the program to
    # its end of input: "nothing came".
    t.ok(out is not None and b"nothing came" not in out and
         (rc == -S.SIGALRM or (rc == S.SIGALRM and b"got 14:1" in out)),
         "an alarm set before profviz run was exec'd came to the program", (rc, out))

# A kill as soon as the command starts: before its fork, or before the
# program's exec, the program ends anyway, and nothing is left running.
with t.case("at once"):
    for i in range(5):
        run = subprocess.Popen([h.PROFVIZ, "run", "-q", "--", prog, "catch", str(int(S.SIGTERM))],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=clean_env(), cwd=tmp,
                               preexec_fn=as_given)
        os.kill(run.pid, signal.SIGTERM)
        rc = run.wait(timeout=20)
        run.stdin.close()  # a program left running ends: "nothing came"
        out = read_to_end(run.stdout)
        t.ok(rc in (S.SIGTERM, -S.SIGTERM) and out is not None and
             (b"got" in out or b"ready" not in out),
             "kill -TERM at once (%d): the program ended too (status %d, said %r)" % (i, rc, out))
        run.stdout.close()
t.done()
