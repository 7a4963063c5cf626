#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Windows of a server's run (tests/progs/window_server.c: start-up work, two
workers fed by an event loop, a SIGUSR1 handler of its own), opened and
written by PROFVIZ_SIGNAL, by the API, by profviz dump/reset/start/stop and
every PROFVIZ_INTERVAL seconds: each window's files hold exactly the
requests answered while it was open, no start-up, and never overwrite
another window's or the exit's."""
import glob
import os
import queue
import signal
import subprocess
import tempfile
import threading
import harness as h

t = h.Tap()
prog = h.build("window_server", flags=h.NO_INLINE + ["-pthread", "-I" + os.path.join(h.ROOT, "include")])
START_UP = ("load_config", "warm_up")


class Server:
    """The server under the runtime, its stderr read as it comes."""

    def __init__(self, env):
        self.dir = tempfile.mkdtemp(prefix="profviz-windows-")
        e = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
        e.update(LD_PRELOAD=h.PRELOAD_LIST, PROFVIZ_OUTPUT="prof.json", **env)
        self.p = subprocess.Popen([prog], cwd=self.dir, env=e, text=True, bufsize=1,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        self.said = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.p.stdout.readline() == "ready\n"

    def _read(self):
        for line in self.p.stderr:
            self.lines.put(line.rstrip("\n"))

    def stderr_until(self, text, timeout=60):
        """The profviz lines up to the one holding text."""
        while True:
            line = self.lines.get(timeout=timeout)
            self.said.append(line)
            if text in line:
                return line

    def requests(self, n, size=12):
        for _ in range(n):
            self.p.stdin.write("req %d\n" % size)
            self.p.stdin.flush()
            assert self.p.stdout.readline().startswith("done %d " % size)

    def api(self, what):
        self.p.stdin.write(what + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def quit(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        out = self.p.stdout.read()
        self.p.wait(timeout=60)
        self.reader.join(timeout=60)
        while not self.lines.empty():
            self.said.append(self.lines.get())
        return out

    def files(self):
        return sorted(os.path.basename(f) for f in glob.glob(os.path.join(self.dir, "prof*")))

    def calls(self, name):
        """Each function's calls in file name."""
        return {f["name"]: f["calls"] for f in h.load_json(os.path.join(self.dir, name))["functions"]}


def funcs_calls(doc, name):
    return sum(f["calls"] for f in doc["functions"] if f["name"] == name)


def funcs_name(doc, fid):
    return None if fid is None else doc["functions"][fid]["name"]


def window_holds(calls, requests, what):
    t.eq(calls.get("handle_request"), requests, "%s: the requests answered in it, exactly" % what)
    t.ok(not any(f in calls for f in START_UP), "%s: no start-up function in it" % what,
         sorted(calls))


with t.case("signal, started paused"):
    s = Server({"PROFVIZ_SIGNAL": "SIGUSR2", "PROFVIZ_START": "paused"})
    s.requests(3)
    s.p.send_signal(signal.SIGUSR2)
    s.stderr_until("window 1 open")
    s.requests(5)
    s.p.send_signal(signal.SIGUSR2)
    s.stderr_until("window 1 (")
    s.requests(2)
    s.p.send_signal(signal.SIGUSR2)
    s.stderr_until("window 2 open")
    s.requests(4)
    out = s.quit()
    t.ok(s.p.returncode == 0 and out == "usr1 0\n", "the server ended as it does unprofiled",
         (s.p.returncode, out))
    t.eq(s.files(), ["prof.w1.json", "prof.w2.json"],
         "each window its own file; paused from the start: no profile of the whole run")
    window_holds(s.calls("prof.w1.json"), 5, "window 1 (by the signal)")
    window_holds(s.calls("prof.w2.json"), 4, "window 2 (open at the exit)")
    p = h.load_json(os.path.join(s.dir, "prof.w1.json"))
    t.ok(all(th["calls"] > 0 for th in p["per_thread"]) and len(p["per_thread"]) >= 2,
         "window 1's threads are those that ran in it", p["per_thread"])

with t.case("the API, running"):
    s = Server({})
    s.requests(2)
    t.eq(s.api("start"), "api 0", "profviz_start() opens a window")
    s.requests(4)
    t.eq(s.api("stop"), "api 0", "profviz_stop() writes it")
    s.requests(3)
    t.eq(s.api("window"), "api 0", "profviz_window() writes what ran since")
    s.requests(1)
    t.eq(s.api("reset"), "api 0", "profviz_reset() opens one from now")
    s.requests(6)
    out = s.quit()
    t.eq(s.files(), ["prof.json", "prof.w1.json", "prof.w2.json", "prof.w3.json"],
         "three windows and the exit's profile, none overwriting another")
    window_holds(s.calls("prof.w1.json"), 4, "window 1 (start, stop)")
    window_holds(s.calls("prof.w2.json"), 3, "window 2 (since window 1's end)")
    window_holds(s.calls("prof.w3.json"), 6, "window 3 (reset, open at the exit)")
    t.ok(h.load_json(os.path.join(s.dir, "prof.w1.json"))["wall_seconds"] <
         h.load_json(os.path.join(s.dir, "prof.json"))["wall_seconds"],
         "a window's wall time is its own, not the run's so far")
    whole = s.calls("prof.json")
    t.ok(whole.get("handle_request") == 16 and all(f in whole for f in START_UP),
         "the exit's profile: the whole run, start-up and all 16 requests", whole)

with t.case("the command"):
    s = Server({"PROFVIZ_SIGNAL": "SIGRTMIN+1"})
    s.requests(3)
    pid = str(s.p.pid)
    r = h.command("reset", pid)
    t.eq((r.returncode, r.stderr), (0, ""), "profviz reset PID")
    s.stderr_until("window 1 open")
    s.requests(6)
    r = h.command("dump", pid)
    t.eq((r.returncode, r.stderr), (0, ""), "profviz dump PID")
    s.stderr_until("window 1 (")
    s.requests(2)
    h.command("stop", pid)
    s.stderr_until("window 2 (")
    h.command("start", pid)
    s.stderr_until("window 3 open")
    s.requests(1)
    h.command("stop", pid)
    s.stderr_until("window 3 (")
    s.quit()
    window_holds(s.calls("prof.w1.json"), 6, "window 1 (reset, dump)")
    window_holds(s.calls("prof.w2.json"), 2, "window 2 (from the dump to a stop)")
    window_holds(s.calls("prof.w3.json"), 1, "window 3 (start, stop)")
    t.ok("prof.json" in s.files(), "the exit's profile written too")
    # A server that writes its process title over its environment: the
    # signal given to the command instead.
    s = Server({"PROFVIZ_SIGNAL": "SIGUSR2"})
    s.p.stdin.write("retitle\n")
    s.p.stdin.flush()
    assert s.p.stdout.readline() == "retitled\n"
    r = h.command("reset", str(s.p.pid))
    t.ok(r.returncode == 2 and "--signal" in r.stderr and "overwritten" in r.stderr,
         "an environment written over: refused, saying --signal", r.stderr)
    r = h.command("reset", "--signal", "SIGUSR2", str(s.p.pid))
    t.eq((r.returncode, r.stderr), (0, ""), "profviz reset --signal SIGUSR2 PID")
    s.stderr_until("window 1 open")
    s.requests(2)
    h.command("stop", "--signal", "USR2", str(s.p.pid))
    s.stderr_until("window 1 (")
    s.quit()
    window_holds(s.calls("prof.w1.json"), 2, "window 1 (by --signal)")
    plain = Server({})
    r = h.command("dump", str(plain.p.pid))
    t.ok(r.returncode == 2 and "PROFVIZ_SIGNAL" in r.stderr and str(plain.p.pid) in r.stderr,
         "a program started without PROFVIZ_SIGNAL: refused, said", r.stderr)
    plain.quit()
    t.eq(plain.p.returncode, 0, "... and not signalled")

with t.case("the program's handler of the signal"):
    s = Server({"PROFVIZ_SIGNAL": "SIGUSR1"})
    s.p.send_signal(signal.SIGUSR1)
    s.stderr_until("window 1 open")
    s.requests(2)
    out = s.quit()
    t.ok(out == "usr1 0\n", "PROFVIZ_SIGNAL=SIGUSR1: the program's own SIGUSR1 handler did not run",
         out)
    t.ok(any("handler of signal %d does not run" % signal.SIGUSR1 in l for l in s.said),
         "... and profviz said so", s.said)
    window_holds(s.calls("prof.w1.json"), 2, "window 1 (open at the exit)")

with t.case("a burst of signals"):
    # More asks than the ring holds, as fast as they come: the surplus, if
    # any, is dropped and said, and an ask after them is still served.
    s = Server({"PROFVIZ_SIGNAL": "SIGRTMIN+2", "PROFVIZ_START": "paused"})
    pid = s.p.pid
    for _ in range(40):
        os.kill(pid, signal.SIGRTMIN + 2)
    while True:  # until the burst is served: a second without a word
        try:
            s.said.append(s.lines.get(timeout=1))
        except queue.Empty:
            break
    h.command("stop", str(pid))
    served = s.stderr_until("window", timeout=60)
    s.quit()
    t.ok(s.p.returncode == 0, "40 signals at once, then a stop: the stop is served (%s)"
         % served, s.said[-4:])

with t.case("a thread renamed in a window"):
    s = Server({})
    t.eq(s.api("start"), "api 0", "a window opened")
    s.p.stdin.write("rename renamed\n")
    s.p.stdin.flush()
    assert s.p.stdout.readline() == "renamed\n"
    s.requests(5)
    s.api("stop")
    s.quit()
    w = h.load_json(os.path.join(s.dir, "prof.w1.json"))
    funcs = {f["id"]: f for f in w["functions"]}
    by_path = {}
    for x in w["paths"]:
        name = funcs[x["function"]]["name"]
        by_path[name] = by_path.get(name, 0) + x["calls"]
    t.ok(by_path.get("serve_line") == funcs_calls(w, "serve_line") == 7,
         "the renamed main thread's paths and functions agree: serve_line's 7 lines",
         (by_path.get("serve_line"), funcs_calls(w, "serve_line")))

if h.SANITIZED:  # the sanitizer's runtime takes malloc before the program can
    t.skip("the program's own malloc", "a sanitizer's malloc comes first")
else:
    with t.case("the program's own malloc"):
        # profviz's writers call the program's instrumented malloc: a window
        # written meanwhile must not record them on its own threads, nor wait
        # for its own lock.
        own = h.build("window_malloc", flags=h.NO_INLINE)
        r = h.run([own, "2.5"], env={"PROFVIZ_INTERVAL": "1"}, outputs="prof.json", timeout=120)
        n = int(r.stdout or b"0")
        windows = sorted(f for f in os.listdir(r.workdir) if ".w" in f)
        t.ok(r.rc == 0 and len(windows) >= 2, "windows every second, and the program ended",
             (r.rc, windows, r.stderr[-300:]))
        def work_mallocs(name):
            doc = h.load_json(os.path.join(r.workdir, name))
            return sum(a["calls"] for a in doc["arcs"] if funcs_name(doc, a["caller"]) == "work"
                       and funcs_name(doc, a["callee"]) == "malloc")
        t.eq(sum(work_mallocs(f) for f in windows), n,
             "work's calls of malloc, over the windows: every one (%d)" % n)
        t.eq(work_mallocs("prof.json"), n, "... and in the exit's profile")

with t.case("every interval"):
    s = Server({"PROFVIZ_INTERVAL": "1"})
    s.requests(3)
    s.stderr_until("window 1 (")
    s.requests(4)
    s.stderr_until("window 2 (")
    s.requests(5)
    s.quit()
    files = s.files()
    t.ok(files[0] == "prof.json" and files[1:4] == ["prof.w1.json", "prof.w2.json", "prof.w3.json"],
         "a window a second, the last written at the exit", files)
    files = files[:1] + [f for f in files[1:] if os.path.exists(os.path.join(s.dir, f))]
    counts = [s.calls(f).get("handle_request", 0) for f in files[1:]]
    t.eq(sum(counts), 12, "the windows' requests add up to all of them, each in one (%s)"
         % counts)
    t.ok(not any(f in s.calls(w) for w in files[1:] for f in START_UP) or
         all(f in s.calls("prof.w1.json") for f in START_UP),
         "start-up only ever in the first window")

t.done()
