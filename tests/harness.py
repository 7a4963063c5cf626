"""Helpers for the integration tests: build instrumented programs, run them
with and without the preload, read the profile, and report in TAP."""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGS = os.path.join(ROOT, "tests", "progs")
BUILD = os.path.join(ROOT, "build", "progs")
PRELOAD = os.path.join(ROOT, "profviz.so")
# make SAN=... check: a sanitizer runtime first, then a sanitized profviz.so.
PRELOAD_LIST = os.environ.get("PROFVIZ_TEST_PRELOAD", PRELOAD)
SANITIZED = "PROFVIZ_TEST_PRELOAD" in os.environ
SANITIZER = os.environ.get("PROFVIZ_TEST_SAN", "")  # "address", "thread" or ""
INSTRUMENT = ["-O2", "-g", "-finstrument-functions"]
# Every hook call then is a real call, as callgrind and the counts expect.
NO_INLINE = ["-fno-inline", "-fno-partial-inlining", "-fno-ipa-cp", "-fno-ipa-sra",
             "-fno-optimize-sibling-calls"]


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None):
        self.n += 1
        name = " ".join(str(name).split())  # one TAP line, whatever the name holds
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, name))
        if not cond:
            self.failed += 1
            if diag is not None:
                for line in str(diag).splitlines()[:40]:
                    print("#   " + line)
        sys.stdout.flush()
        return cond

    def eq(self, got, want, name):
        return self.ok(got == want, name, "got %r, want %r" % (got, want))

    def near(self, got, want, rel, name):
        good = want != 0 and abs(got - want) <= rel * abs(want)
        return self.ok(good, name, "got %r, want %r within %g%%" % (got, want, rel * 100))

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def build(name, sources=None, flags=(), compiler="gcc", libs=(), out=None):
    """Compile tests/progs sources into build/progs/<name>, if out of date."""
    os.makedirs(BUILD, exist_ok=True)
    sources = [os.path.join(PROGS, s) for s in (sources or [name + ".c"])]
    out = out or os.path.join(BUILD, name)
    cmd = [compiler] + INSTRUMENT + list(flags) + ["-o", out] + sources + list(libs)
    stamp = out + ".cmd"
    fresh = os.path.exists(out) and os.path.exists(stamp) and \
        open(stamp).read() == repr(cmd) and \
        all(os.path.getmtime(s) <= os.path.getmtime(out) for s in sources)
    if not fresh:
        subprocess.run(cmd, check=True)
        with open(stamp, "w") as f:
            f.write(repr(cmd))
    return out


class Run:
    def __init__(self, proc, workdir, outputs):
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.rc = proc.returncode
        self.workdir = workdir
        self.outputs = outputs

    def file(self, name):
        return os.path.join(self.workdir, name)

    def json(self, name="prof.json"):
        with open(self.file(name)) as f:
            return Profile(json.load(f))


def run(argv, preload=True, env=None, workdir=None, outputs="prof.dot,prof.json",
        stdin=None, timeout=300):
    """Run argv in a fresh directory (or workdir), with the runtime preloaded."""
    workdir = workdir or tempfile.mkdtemp(prefix="profviz-test-")
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("PROFVIZ_"):
            del e[k]
    if preload:
        e["LD_PRELOAD"] = PRELOAD_LIST
        if outputs is not None:
            e["PROFVIZ_OUTPUT"] = outputs
    else:
        e.pop("LD_PRELOAD", None)
    e.update(env or {})
    proc = subprocess.run(argv, cwd=workdir, env=e, capture_output=True, input=stdin,
                          timeout=timeout)
    return Run(proc, workdir, outputs)


class Profile:
    """The JSON profile, with look-ups by function name."""

    def __init__(self, data):
        self.data = data
        self.funcs = data["functions"]
        self.by_id = {f["id"]: f for f in self.funcs}
        self.by_name = {}
        for f in self.funcs:
            self.by_name.setdefault(f["name"], f)

    def func(self, name):
        return self.by_name.get(name)

    def calls(self, name):
        f = self.func(name)
        return f["calls"] if f else 0

    def arc(self, caller, callee):
        """The arc caller -> callee by names (caller None: from the root)."""
        cid = None if caller is None else (self.func(caller) or {}).get("id", -1)
        eid = (self.func(callee) or {}).get("id", -2)
        for a in self.data["arcs"]:
            if a["caller"] == cid and a["callee"] == eid:
                return a
        return None

    def arc_calls(self, caller, callee):
        a = self.arc(caller, callee)
        return a["calls"] if a else 0

    def run_total(self, i=0):
        return sum(a["total"][i] for a in self.data["arcs"] if a["caller"] is None)


def fetch_source(package):
    """Unpacked Debian source of package (cached), or (None, why not)."""
    p = subprocess.run([os.path.join(ROOT, "tests", "real", "fetch-source.sh"), package],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, "source not available: " + p.stderr.strip()
    return p.stdout.strip(), None


def dot_renders(path):
    """(ok, stderr) of rendering a .dot file to SVG with graphviz."""
    proc = subprocess.run(["dot", "-Tsvg", "-o", os.devnull, path], capture_output=True,
                          text=True)
    return proc.returncode == 0 and proc.stderr.strip() == "", proc.stderr


def median_of_runs(measure, runs=3):
    """A wall-clock figure as the median over several runs: one run on a
    shared machine can be preempted at the wrong moment."""
    values = sorted(measure() for _ in range(runs))
    return values[len(values) // 2]


def profviz_lines(stderr):
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    return [l for l in text.splitlines() if l.startswith("profviz: ")]


def strip_profviz(stderr):
    """The program's own stderr: everything but the runtime's lines."""
    return b"".join(l for l in stderr.splitlines(True) if not l.startswith(b"profviz: "))
