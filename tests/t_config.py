#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bad configuration and hostile output paths: one clear message naming the
variable and value, a documented default, no file written through a
symlink, and the program's output and exit status unchanged."""
import os
import re
import shutil
import subprocess
import tempfile
import harness as h

t = h.Tap()
prog = h.build("life", flags=h.NO_INLINE)
plain = h.run([prog, "exit"], preload=False)


def unchanged(r, what):
    t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc), (plain.stdout, plain.stderr, plain.rc),
         "%s: program's output and status unchanged" % what)


BAD = [("PROFVIZ_QUIET", "maybe", "PROFVIZ_QUIET='maybe' is not 0 or 1; using 0"),
       ("PROFVIZ_NODE_THRESHOLD", "-3", "PROFVIZ_NODE_THRESHOLD='-3' is not a percentage"),
       ("PROFVIZ_EDGE_THRESHOLD", "9" * 400, "PROFVIZ_EDGE_THRESHOLD='999"),
       ("PROFVIZ_NODE_THRESHOLD", "", "PROFVIZ_NODE_THRESHOLD='' is not a percentage"),
       ("PROFVIZ_EVENTS", ",,,", "PROFVIZ_EVENTS=',,,' has an empty item"),
       ("PROFVIZ_EVENTS", "cycles/", "PROFVIZ_EVENTS: 'cycles/': "),
       ("PROFVIZ_OUTPUT", "prof.pdf", "PROFVIZ_OUTPUT='prof.pdf': 'prof.pdf' does not end in "
        ".dot, .json, .folded, .pb.gz, .callgrind or .speedscope.json; writing prof.dot"),
       ("PROFVIZ_DISABLE", "true", "PROFVIZ_DISABLE='true' is not 0 or 1; using 0"),
       ("PROFVIZ_NODES", "all", "PROFVIZ_NODES='all' is not a number of boxes from 0 to "),
       ("PROFVIZ_DEBUG", "4", "PROFVIZ_DEBUG='4' is not a debug level from 0 to 3; using 0"),
       ("PROFVIZ_OUPUT", "x.json", "PROFVIZ_OUPUT=x.json is ignored: profviz has no variable "
        "PROFVIZ_OUPUT; did you mean PROFVIZ_OUTPUT?"),
       ("PROFVIZ_EVENTS", "cycels", "PROFVIZ_EVENTS: 'cycels': unknown event (did you mean "
        "'cycles'?)"),
       ("PROFVIZ_SIGNAL", "SIGKILL", "PROFVIZ_SIGNAL='SIGKILL' cannot be caught; no signal "
        "opens windows"),
       ("PROFVIZ_SIGNAL", "SIGSEGV", "PROFVIZ_SIGNAL='SIGSEGV' is a fault's, not a message's"),
       ("PROFVIZ_SIGNAL", "USR3", "PROFVIZ_SIGNAL='USR3' is not a signal"),
       ("PROFVIZ_START", "stopped", "PROFVIZ_START='stopped' is not 'running' or 'paused'; "
        "using running"),
       ("PROFVIZ_INTERVAL", "1m", "PROFVIZ_INTERVAL='1m' is not a number of seconds from 0 "
        "to 86400")]
for name, value, message in BAD:
    with t.case(name + "=" + value[:20]):
        env = {name: value}
        outputs = None if name == "PROFVIZ_OUTPUT" else "prof.json"
        if name == "PROFVIZ_OUTPUT":
            env = {"PROFVIZ_OUTPUT": value}
        r = h.run([prog, "exit"], env=env, outputs=outputs)
        lines = h.profviz_lines(r.stderr)
        shown = value if len(value) < 20 else value[:8] + "..."
        t.ok(sum(message in l for l in lines) == 1,
             "%s='%s': one message naming it" % (name, shown), lines)
        unchanged(r, "%s='%s'" % (name, shown))
        written = os.listdir(r.workdir)
        t.ok(written in (["prof.json"], ["prof.dot"]), "%s='%s': profile still written (%s)"
             % (name, shown, written))

with t.case("chdir"):
    r = h.run([prog, "chdir"], outputs="prof-chdir.json")
    t.ok(os.path.exists(r.file("prof-chdir.json")) and not os.path.exists("/prof-chdir.json"),
         "a program that changes directory still writes where it was started")

with t.case("unwritable directory"):
    r = h.run([prog, "exit"], outputs="/sys/nowhere/prof.json")
    t.ok(any("cannot write /sys/nowhere/prof.json: " in l for l in h.profviz_lines(r.stderr)),
         "unwritable directory: message names the path and the error", r.stderr)
    unchanged(r, "unwritable directory")

with t.case("read-only file"):
    d = tempfile.mkdtemp(prefix="profviz-ro-")
    with open(os.path.join(d, "prof.json"), "w") as f:
        f.write("keep me\n")
    os.chmod(os.path.join(d, "prof.json"), 0o444)
    r = h.run([prog, "exit"], workdir=d, outputs="prof.json")
    t.ok(any("prof.json is read-only; not replacing it" in l for l in h.profviz_lines(r.stderr)),
         "read-only file: message", r.stderr)
    t.eq(open(os.path.join(d, "prof.json")).read(), "keep me\n", "read-only file: left as it was")
    t.eq(sorted(os.listdir(d)), ["prof.json"], "read-only file: no temporary left")
    unchanged(r, "read-only file")

with t.case("symlink"):
    d = tempfile.mkdtemp(prefix="profviz-link-")
    target = os.path.join(d, "target")
    os.symlink(target, os.path.join(d, "prof.json"))
    r = h.run([prog, "exit"], workdir=d, outputs="prof.json")
    t.ok(any("prof.json is a symbolic link; not writing through it" in l
             for l in h.profviz_lines(r.stderr)), "symlink: message", r.stderr)
    t.ok(not os.path.exists(target), "symlink: nothing written through it")
    t.ok(os.path.islink(os.path.join(d, "prof.json")), "symlink: left in place")
    unchanged(r, "symlink")

with t.case("full disk"):
    d = tempfile.mkdtemp(prefix="profviz-full-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        for name in ("full disk: message", "full disk: no partial file", "full disk: unchanged"):
            t.skip(name, "cannot mount a small tmpfs here: " + mounted.stderr.strip())
    else:
        try:
            subprocess.run(["dd", "if=/dev/zero", "of=" + os.path.join(d, "filler"), "bs=4k"],
                           capture_output=True)
            r = h.run([prog, "exit"], outputs=os.path.join(d, "prof.json"))
            t.ok(any("cannot write %s/prof.json: No space left on device" % d in l
                     for l in h.profviz_lines(r.stderr)), "full disk: message", r.stderr)
            t.eq(sorted(os.listdir(d)), ["filler"], "full disk: no partial file")
            unchanged(r, "full disk")
        finally:
            subprocess.run(["umount", d])

# setuid: the loader only preloads a setuid library from a system directory,
# so the test installs one for the duration; only root can.
with t.case("setuid"):
    libdir = "/usr/lib/x86_64-linux-gnu"
    names = ("setuid: PROFVIZ_OUTPUT ignored", "setuid: message says so",
             "setuid: default file written instead", "setuid: program unchanged")
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.isdir(libdir):
        for name in names:
            t.skip(name, "needs root, setpriv and %s" % libdir)
    else:
        lib = os.path.join(libdir, "libprofviz-test-%d.so" % os.getpid())
        d = tempfile.mkdtemp(prefix="profviz-suid-")
        os.chmod(d, 0o777)
        exe = os.path.join(d, "life-suid")
        try:
            shutil.copy(h.PRELOAD, lib)
            os.chmod(lib, 0o4755)
            shutil.copy(prog, exe)
            os.chmod(exe, 0o4755)
            elsewhere = os.path.join(d, "elsewhere.json")
            env = {k: v for k, v in os.environ.items() if not k.startswith("PROFVIZ_")}
            env.update(LD_PRELOAD=os.path.basename(lib), PROFVIZ_OUTPUT=elsewhere)
            p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                exe, "exit"], cwd=d, env=env, capture_output=True)
            t.ok(not os.path.exists(elsewhere), names[0])
            t.ok(b"PROFVIZ_OUTPUT is ignored in a setuid/setgid program" in p.stderr, names[1],
                 p.stderr)
            t.ok(os.path.exists(os.path.join(d, "prof.dot")), names[2], os.listdir(d))
            t.eq((p.stdout, p.returncode), (plain.stdout, plain.rc), names[3])
        finally:
            os.unlink(lib)
# PROFVIZ_DEBUG: each level says more, on the same stderr line by line, and
# the program sees nothing of it.
with t.case("debug levels"):
    said = {}
    for level in ("0", "1", "3"):
        r = h.run([prog, "exit"], env={"PROFVIZ_DEBUG": level}, outputs="prof.json")
        said[level] = [l for l in h.profviz_lines(r.stderr) if l.startswith("profviz: debug: ")]
        unchanged(r, "PROFVIZ_DEBUG=" + level)
    t.eq(said["0"], [], "level 0 (the default) says nothing more")
    t.ok(any(re.match(r"profviz: debug: pid \d+, .*life: \d+ events, debug level 1$", l)
             for l in said["1"]) and
         any(re.match(r"profviz: debug: wrote \d+ functions and \d+ arcs of 1 threads in "
                      r"[\d.]+ ms$", l) for l in said["1"]),
         "level 1 says the start-up and the dump", said["1"])
    t.ok(len(said["3"]) >= len(said["1"]), "level 3 says at least as much", said["3"])

# The notice names the files as they will be written, and an output
# directory that cannot be written is said at start-up, not after the run.
with t.case("output names at start-up"):
    r = h.run([prog, "exit"], outputs="prof-%p.json,/nonexistent-dir/x.dot")
    lines = h.profviz_lines(r.stderr)
    pid = re.search(r"prof-(\d+)\.json", lines[0] if lines else "")
    t.ok(pid and "%p" not in lines[0], "the notice shows %p expanded", lines)
    t.ok(pid and os.path.exists(r.file("prof-%s.json" % pid.group(1))),
         "... as the file written")
    t.ok(len(lines) > 1 and lines[1].startswith("profviz: cannot write /nonexistent-dir/x.dot "
                                                "into /nonexistent-dir: No such file") and
         "checked at start-up" in lines[1], "the bad directory is said at start-up", lines)
    t.eq(r.rc, plain.rc, "the program's status unchanged")

t.done()
