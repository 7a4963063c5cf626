#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make install and make uninstall, as a packager and a user use them: a
staged install (DESTDIR + PREFIX) holds every file where the GNU
conventions put it and names no staging path; from another directory, with
only that prefix's bin on PATH, profviz runs an instrumented program under
the runtime it was installed with (found from its own place, so a prefix
that is not where it was meant to be still works), reports on the profile,
says its version as the runtime and the JSON do, its man page renders and
bash completes it; make uninstall takes every file back."""
import os
import re
import shutil
import subprocess
import tempfile
import harness as h

t = h.Tap()
tmp = tempfile.mkdtemp(prefix="profviz-install-")
STAGE = os.path.join(tmp, "stage")
PREFIX = "/opt/profviz-test"  # what the files are made for; they are used from ROOT
ROOT = STAGE + PREFIX
BIN = os.path.join(ROOT, "bin")
RUNTIME = os.path.join(ROOT, "lib", "profviz", "profviz.so")
MAN_PAGE = os.path.join(ROOT, "share", "man", "man1", "profviz.1")
COMPLETION = os.path.join(ROOT, "share", "bash-completion", "completions", "profviz")
INSTALLED = ["bin/profviz", "include/profviz.h", "lib/profviz/profviz.so",
             "share/bash-completion/completions/profviz", "share/man/man1/profviz.1"]
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def make(goal):
    """make GOAL with the staging variables, as a packager runs it (under
    make check, with its variables: WERROR=1 rebuilds nothing)."""
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", h.ROOT, goal,
                           "DESTDIR=" + STAGE, "PREFIX=" + PREFIX],
                          capture_output=True, text=True, timeout=600)


def files_under(top):
    """Every file and link under top, relative to it, sorted."""
    found = []
    for root, _, names in os.walk(top):
        found += [os.path.relpath(os.path.join(root, n), top) for n in names]
    return sorted(found)


def user_env(path=BIN, **extra):
    """A user's environment: no profviz variable, no preload, PATH as given."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("PROFVIZ_") and k != "LD_PRELOAD"}
    e["PATH"] = path
    e.update(extra)
    return e


def run(argv, env=None, cwd=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env or user_env(),
                          cwd=cwd, timeout=300)


r = make("install")
t.ok(r.returncode == 0, "make install DESTDIR=... PREFIX=%s" % PREFIX, r.stdout + r.stderr)
t.eq(files_under(ROOT), INSTALLED, "the command, runtime, header, man page and completion, "
     "each where the GNU conventions put it")
t.eq(files_under(STAGE), [os.path.join(PREFIX.lstrip("/"), f) for f in INSTALLED],
     "nothing outside the prefix")
with t.case("modes"):
    t.eq(oct(os.stat(os.path.join(BIN, "profviz")).st_mode & 0o777), "0o755",
         "the command is executable")
    t.eq(oct(os.stat(RUNTIME).st_mode & 0o777), "0o644", "the runtime is a library: 0644")
with t.case("no staging path"):
    holding = [f for f in INSTALLED if STAGE.encode() in open(os.path.join(ROOT, f), "rb").read()]
    t.eq(holding, [], "no installed file names the staging directory")
    page = open(MAN_PAGE).read()
    t.ok(PREFIX + "/lib/profviz/profviz.so" in page.replace("\\-", "-"),
         "the man page names the runtime where PREFIX puts it")

# ---- from another directory, only the prefix's bin on PATH ----
work = os.path.join(tmp, "work")
os.makedirs(work)
shutil.copy(h.build("basic", flags=h.NO_INLINE), os.path.join(work, "prog"))
N = 12  # fib(12) makes 465 calls
FIB_CALLS = 465
STATUS = 3  # basic's exit status

with t.case("profviz run"):
    r = run(["profviz", "run", "-v", "-o", "p.json", "--", "./prog", str(N), "1"], cwd=work)
    t.ok(r.returncode == STATUS and r.stdout == "fib(%d) = 144\n" % N,
         "profviz run from PATH: the program's output and status", r.stdout + r.stderr)
    t.ok("profviz run: preloading %s (installed with this command)" % RUNTIME in r.stderr,
         "-v: the runtime installed with it, from its own place (not where PREFIX says)",
         r.stderr)
    p = h.Run.for_files(work).json("p.json")
    t.eq(p.calls("fib"), FIB_CALLS, "the profile counts fib's calls exactly")
    started = [l for l in h.profviz_lines(r.stderr) if "; writing " in l]
    startup_version = re.search(r"; version (\S+)$", started[0]).group(1) if started else None

with t.case("profviz report"):
    r = run(["profviz", "report", "p.json"], cwd=work)
    t.ok(r.returncode == 0 and re.search(r"\bfib\b", r.stdout) and "main" in r.stdout,
         "profviz report p.json", r.stdout + r.stderr)

with t.case("version"):
    r = run(["profviz", "--version"], cwd=work)
    t.ok(r.returncode == 0 and re.fullmatch(r"profviz \d+\.\d+\.\d+\S*\n", r.stdout),
         "profviz --version: 'profviz X.Y.Z...'", r.stdout + r.stderr)
    version = r.stdout.split()[1] if r.returncode == 0 else None
    t.eq(run(["profviz", "version"], cwd=work).stdout, r.stdout, "profviz version: the same")
    t.eq(startup_version, version, "the runtime's start-up line gives the same version")
    t.eq(p.data.get("profviz_version"), version, "and so does the JSON")

with t.case("LD_PRELOAD"):
    r = run(["./prog", str(N), "1"], cwd=work,
            env=user_env(LD_PRELOAD=RUNTIME, PROFVIZ_OUTPUT="direct.json"))
    t.ok(r.returncode == STATUS and os.path.exists(os.path.join(work, "direct.json")),
         "LD_PRELOAD=PREFIX/lib/profviz/profviz.so ./prog, as the README shows", r.stderr)
    t.eq(h.Run.for_files(work).json("direct.json").calls("fib"), FIB_CALLS,
         "... with the same profile")

with t.case("man page"):
    man = shutil.which("man", path=SYSTEM_PATH)
    r = run([man, "--warnings", "-l", MAN_PAGE], env=user_env(BIN + ":" + SYSTEM_PATH,
                                                               MANWIDTH="80"))
    t.ok(r.returncode == 0 and r.stderr == "" and "profviz run" in r.stdout and
         "PROFVIZ_OUTPUT" in r.stdout, "man -l renders the installed page without warnings",
         r.stderr or r.stdout[:500])
    r = run([man, "-M", os.path.join(ROOT, "share", "man"), "-w", "profviz"],
            env=user_env(SYSTEM_PATH))
    t.eq(r.stdout.strip(), MAN_PAGE, "man finds it by name under the prefix's share/man")

with t.case("bash completion"):
    script = """
source '%s'
complete -p profviz
complete_line() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _profviz; echo "${COMPREPLY[*]}"; }
complete_line profviz r
complete_line profviz run -
complete_line profviz dot --fo
complete_line profviz help v
""" % COMPLETION
    r = run(["bash", "--norc", "--noprofile", "-c", script], cwd=work,
            env=user_env(BIN + ":" + SYSTEM_PATH))
    lines = r.stdout.splitlines()
    t.eq(lines[:1], ["complete -o default -F _profviz profviz"],
         "complete -p: profviz completes with _profviz, files otherwise")
    t.eq(lines[1:], ["run report reset", "-o -e -q -v --runtime --help", "--focus",
                     "version variables"],
         "commands, a command's options from its --help, help's topics")

r = make("uninstall")
t.ok(r.returncode == 0, "make uninstall with the same variables", r.stdout + r.stderr)
t.eq(files_under(STAGE), [], "no file is left under the prefix")
t.eq(sorted(os.listdir(ROOT)) if os.path.isdir(ROOT) else [], [],
     "nor a directory: the prefix, profviz's own, is left empty")
t.ok(not os.path.exists(os.path.dirname(RUNTIME)), "the runtime's own directory is gone too")
shutil.rmtree(tmp, ignore_errors=True)
t.done()
