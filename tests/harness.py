# SPDX-License-Identifier: MIT
"""Helpers for the integration tests: build instrumented programs, run them
with and without the preload, read the profile, and report in TAP."""

import collections
import contextlib
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGS = os.path.join(ROOT, "tests", "progs")
BUILD = os.path.join(ROOT, "build", "progs")
PRELOAD = os.path.join(ROOT, "profviz.so")
PROFVIZ = os.path.join(ROOT, "profviz")
SCHEMA_PATH = os.path.join(ROOT, "lib", "output", "profviz-1.schema.json")
# make SAN=... check: a sanitizer runtime first, then a sanitized profviz.so.
PRELOAD_LIST = os.environ.get("PROFVIZ_TEST_PRELOAD", PRELOAD)
SANITIZED = "PROFVIZ_TEST_PRELOAD" in os.environ
SANITIZER = os.environ.get("PROFVIZ_TEST_SAN", "")  # "address", "thread" or ""
INSTRUMENT = ["-O2", "-g", "-finstrument-functions"]
# Why a program's signal handlers cannot be followed under TSan, or None:
# its handler stands behind profviz's trampoline in the program's place,
# and runs the program's later, at points of its own, outside it.
TSAN_RUNS_HANDLERS = SANITIZER == "thread" and \
    "TSan takes the program's handlers over and runs them later, at points of its own, " \
    "outside profviz's trampoline" or None
# Every hook call then is a real call, as callgrind and the counts expect.
NO_INLINE = ["-fno-inline", "-fno-partial-inlining", "-fno-ipa-cp", "-fno-ipa-sra",
             "-fno-optimize-sibling-calls"]

# The exact-count tests are built with each compiler at each optimisation
# level, as the counts must not depend on them. gcc -O2 calls the hooks of
# what it inlines, but counts its clones and split-off parts as functions
# of their own: NO_INLINE, as everywhere. clang instruments before
# inlining, so its -O2 needs no such flags.
Combo = collections.namedtuple("Combo", "label cc cxx flags")
MATRIX = [Combo("gcc -O0", "gcc", "g++", ["-O0"]),
          Combo("gcc -O2", "gcc", "g++", NO_INLINE),
          Combo("clang -O0", "clang", "clang++", ["-O0"]),
          Combo("clang -O2", "clang", "clang++", [])]


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None, skip=None):
        """skip: why this check cannot hold here; it is then reported skipped."""
        if skip:
            self.skip(name, skip)
            return True
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

    def eq(self, got, want, name, skip=None):
        return self.ok(got == want, name, "got %r, want %r" % (got, want), skip)

    def near(self, got, want, rel, name):
        good = want != 0 and abs(got - want) <= rel * abs(want)
        return self.ok(good, name, "got %r, want %r within %g%%" % (got, want, rel * 100))

    @contextlib.contextmanager
    def case(self, name):
        """One scenario: an exception inside it (a missing profile, a timeout)
        becomes one failed test with the traceback as diagnostics, and the
        file goes on with its next scenario."""
        try:
            yield
        except Exception as e:
            lines = traceback.format_exc().splitlines()
            self.ok(False, "%s: raised %s" % (name, type(e).__name__), "\n".join(lines[-40:]))

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def done(self):
        self.views_agree()
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)

    def views_agree(self):
        """The profiles this file's tests read, each through every view a user
        reads it by, held to its JSON (consistency.py): the first, the
        middle and the last of them, to keep the time down."""
        import consistency
        seen = []
        for x in PROFILES:
            if x not in seen and os.path.exists(x[0]):
                seen.append(x)
        picked = []
        for x in seen[:1] + seen[len(seen) // 2:len(seen) // 2 + 1] + seen[-1:]:
            if x not in picked:
                picked.append(x)
        for path, dot in picked:
            with open(path) as f:
                doc = json.load(f)
            program = os.path.basename(doc.get("program") or "?")
            live = consistency.live_snapshot(doc)
            if live:
                self.skip("%s's profile: every view's calls are the JSON's" % program, live)
                continue
            wrong = consistency.check(path, dot)
            self.ok(not wrong, "%s's profile: every view's calls are the JSON's (%s)"
                    % (program, os.path.relpath(path, tempfile.gettempdir())),
                    "\n".join(wrong))


def built_objects(build_dir, under="lib"):
    """The objects of a flavour's build directory below under whose sources
    are still there (a build directory may keep objects of files since
    moved), sorted."""
    found = []
    for root, _, files in os.walk(os.path.join(build_dir, under)):
        for name in files:
            o = os.path.join(root, name)
            src = os.path.join(ROOT, os.path.relpath(o, build_dir))[:-2]
            if name.endswith(".o") and (os.path.exists(src + ".c") or os.path.exists(src + ".S")):
                found.append(o)
    return sorted(found)


def build(name, sources=None, flags=(), compiler="gcc", libs=(), out=None,
          instrument=INSTRUMENT):
    """Compile tests/progs sources into build/progs/<name>, if out of date,
    with the instrument flags (the optimisation level and the hooks' flags)
    first."""
    os.makedirs(BUILD, exist_ok=True)
    sources = [os.path.join(PROGS, s) for s in (sources or [name + ".c"])]
    out = out or os.path.join(BUILD, name)
    cmd = [compiler] + list(instrument) + list(flags) + ["-o", out] + sources + list(libs)
    stamp = out + ".cmd"
    # The programs' shared headers too: a source does not change with them.
    headers = [os.path.join(PROGS, f) for f in os.listdir(PROGS) if f.endswith(".h")]
    fresh = os.path.exists(out) and os.path.exists(stamp) and \
        open(stamp).read() == repr(cmd) and \
        all(os.path.getmtime(s) <= os.path.getmtime(out) for s in sources + headers)
    if not fresh:
        subprocess.run(cmd, check=True)
        with open(stamp, "w") as f:
            f.write(repr(cmd))
    return out


def build_with(combo, name, sources=None, flags=(), libs=()):
    """build() with a Combo's compiler (its C++ one for .cpp sources) and
    flags, into a file of its own: build/progs/NAME-gcc-O2."""
    sources = sources or [name + ".c"]
    cxx = any(s.endswith(".cpp") for s in sources)
    compiler = combo.cxx if cxx else combo.cc
    if not shutil.which(compiler):
        raise RuntimeError(compiler + " is not installed (make deps installs it)")
    out = os.path.join(BUILD, "%s-%s" % (name, combo.label.replace(" ", "")))
    return build(name, sources, list(combo.flags) + list(flags), compiler=compiler, libs=libs,
                 out=out)


# The profiles the tests read (Run.json), each (its JSON, the run's prof.dot
# or None): Tap.done holds their views to them.
PROFILES = []


class Run:
    """A finished run: its output and status, and the directory of its files."""

    def __init__(self, proc, workdir, outputs):
        self.stdout = proc.stdout if proc else None
        self.stderr = proc.stderr if proc else None
        self.rc = proc.returncode if proc else None
        self.workdir = workdir
        self.outputs = outputs

    @classmethod
    def for_files(cls, workdir, outputs=None):
        """The files a program run some other way wrote in workdir."""
        return cls(None, workdir, outputs)

    def file(self, name):
        return os.path.join(self.workdir, name)

    def json(self, name="prof.json"):
        with open(self.file(name)) as f:
            doc = json.load(f)
        dot = self.file("prof.dot") if "prof.dot" in (self.outputs or "").split(",") else None
        PROFILES.append((self.file(name), dot))
        return Profile(doc)


# Set by a test file whose subject is the times the hooks read per call
# (counters, compensation, frames closed at death): every run of it then
# reads them (PROFVIZ_TIME=hooks) unless it says otherwise. The default,
# sampled time, is every other file's.
BASE_ENV = {}


def hook_time():
    """This file's runs take time from the hooks, as before sampling."""
    BASE_ENV["PROFVIZ_TIME"] = "hooks"


def run(argv, preload=True, env=None, workdir=None, outputs="prof.dot,prof.json",
        stdin=None, timeout=300, nofile=None):
    """Run argv in a fresh directory (or workdir), with the runtime preloaded.
    nofile: (soft, hard) RLIMIT_NOFILE for the program alone."""
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
    e.update(BASE_ENV)
    e.update(env or {})
    limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, nofile)) if nofile else None
    proc = subprocess.run(argv, cwd=workdir, env=e, capture_output=True, input=stdin,
                          timeout=timeout, preexec_fn=limit)
    return Run(proc, workdir, outputs)



def run_to_death(argv, preload, outputs="prof.json", sigint_ignored=False):
    """Run argv with core dumps allowed, in a fresh directory, to see how it
    ends: (stdout, stderr, raw wait status, directory)."""
    import resource
    import signal
    d = tempfile.mkdtemp(prefix="profviz-death-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = PRELOAD_LIST
        env["PROFVIZ_OUTPUT"] = outputs
    env.update(BASE_ENV)

    def setup():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)
        if sigint_ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    p = subprocess.Popen(argv, cwd=d, env=env, stdout=out, stderr=err, preexec_fn=setup)
    _, status = os.waitpid(p.pid, 0)
    p.returncode = 0
    out.seek(0)
    err.seek(0)
    return out.read(), err.read(), status, d


def describe_status(status):
    """A raw wait status as words: "signal 11 (core)", "exit 3"."""
    if os.WIFSIGNALED(status):
        return "signal %d%s" % (os.WTERMSIG(status), " (core)" if os.WCOREDUMP(status) else "")
    return "exit %d" % os.WEXITSTATUS(status)


def ends_as_without(t, name, argv, sigint_ignored=False):
    """Run argv to its end with and without the runtime, and check it ends
    the same way: status (signal, core), stdout, stderr apart from
    profviz's lines. (stderr, raw status and directory of the run with the
    runtime, raw status of the one without.)"""
    out, err, status, d = run_to_death(argv, True, sigint_ignored=sigint_ignored)
    pout, perr, pstatus, _ = run_to_death(argv, False, sigint_ignored=sigint_ignored)
    t.eq(describe_status(status), describe_status(pstatus),
         "%s: ends as without the runtime (%s)" % (name, describe_status(pstatus)))
    t.eq(out, pout, "%s: same stdout" % name)
    t.eq(strip_profviz(err), perr, "%s: same stderr apart from profviz's lines" % name)
    return err, status, d, pstatus


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


ZLIB = ["adler32", "compress", "crc32", "deflate", "gzclose", "gzlib", "gzread", "gzwrite",
        "infback", "inffast", "inflate", "inftrees", "trees", "uncompr", "zutil"]


def build_zlib_program(src, name):
    """zlib's test/NAME.c with the library, from its unpacked source, built
    instrumented and without inlining (cached in build/progs)."""
    os.makedirs(BUILD, exist_ok=True)
    exe = os.path.join(BUILD, "zlib-" + name)
    if not os.path.exists(exe):
        subprocess.run(["gcc"] + INSTRUMENT + NO_INLINE +
                       ["-w", "-I", src, "-o", exe, os.path.join(src, "test", name + ".c")] +
                       [os.path.join(src, f + ".c") for f in ZLIB], check=True)
    return exe


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


def share_bound(p, n, sds=4.5):
    """How far a share measured from n samples may stray from the true share
    p (the program's own clock's, in the same run): sds binomial standard
    deviations, sqrt(p (1 - p) / n), and one sample's worth for the clock's
    granularity (each look charges the whole of its interval to one place).
    At 4.5 sd a profile that is right fails the check about once in 150,000
    runs, whatever the host's load: a loaded host gives fewer samples, and
    the bound widens with them."""
    n = max(n, 1)
    return sds * math.sqrt(p * (1 - p) / n) + 1.0 / n


def own_clocks(stdout):
    """The last line of a program's stdout that times its phases on its own
    clocks (tests/progs/own_clocks.h), "name 123 other 456", as {name: 123}."""
    words = stdout.decode().splitlines()[-1].split()
    return {k: int(v) for k, v in zip(words[0::2], words[1::2])}


def command(*args, cwd=None, env=None, timeout=120):
    """./profviz ARGS as a user runs it: text out, no preload, none of the
    runtime's variables but those in env."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_") and k != "LD_PRELOAD"}
    e.update(env or {})
    return subprocess.run([PROFVIZ] + list(args), capture_output=True, text=True, env=e, cwd=cwd,
                          timeout=timeout)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(directory, name, doc):
    """doc as directory/name; its path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def line_of(path, text):
    """The number of the first line of the file at path that holds text."""
    with open(path) as f:
        return next(i for i, l in enumerate(f, 1) if text in l)


_validator = []


def schema_errors(doc):
    """The JSON schema's complaints about doc, one line each: where, then what."""
    if not _validator:
        import jsonschema
        with open(SCHEMA_PATH) as f:
            _validator.append(jsonschema.Draft202012Validator(json.load(f)))
    return ["/".join(map(str, e.absolute_path)) + ": " + e.message[:200]
            for e in _validator[0].iter_errors(doc)]


def profviz_lines(stderr):
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    return [l for l in text.splitlines() if l.startswith("profviz: ")]


def strip_profviz(stderr):
    """The program's own stderr: everything but the runtime's lines."""
    return b"".join(l for l in stderr.splitlines(True) if not l.startswith(b"profviz: "))
