# SPDX-License-Identifier: MIT
"""Real programs for the truth table, built from Debian source packages
instrumented and without inlining (every hook a real call, every function a
real frame for perf), or with readme="gcc" (or "clang") with that
compiler and the README's flags, inlining as the optimiser will, cached in
build/progs. Each builder returns
(argv, None) for a run of some 0.5-1 s natively, or (None, why) when the
source cannot be had. native_twin() builds, for any of them, the same
sources with the same flags minus those that instrument: the program as
it runs without instrumentation, the truth of bench/truth.py."""
import ast
import base64
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import harness as h  # noqa: E402

WORKLOADS = os.path.join(ROOT, "bench", "workloads")


def base64_text(name, nbytes, seed):
    """build/progs/NAME: base64 lines of nbytes of seeded random bytes (4/3 as
    much text), made once."""
    os.makedirs(h.BUILD, exist_ok=True)
    path = os.path.join(h.BUILD, name)
    if not os.path.exists(path):
        with open(path + ".tmp", "wb") as f:
            f.write(base64.encodebytes(random.Random(seed).randbytes(nbytes)))
        os.rename(path + ".tmp", path)
    return path


# The flags that instrument, and only those: -finstrument-functions, clang's
# -finstrument-functions-after-inlining, gcc's exclusion lists.
INSTRUMENT_FLAGS = "-finstrument-functions"

# The README's flags, gcc's and clang's (no -fno-inline: the optimiser
# inlines as it would without profviz).
README_FLAGS = {
    "gcc": ["-O2", "-g", "-finstrument-functions",
            "-finstrument-functions-exclude-file-list=.h,/usr/include/"],
    "clang": ["-O2", "-g", "-finstrument-functions-after-inlining", "-gdwarf-aranges"],
}


# The C++ compiler of each compiler README_FLAGS names.
CXX = {"gcc": "g++", "clang": "clang++"}


def build_program(name, sources, flags, readme=None, cxx=False, libs=()):
    """h.build of name as the truth table builds it: instrumented with every
    hook call a real call (h.NO_INLINE before flags); with readme="gcc" or
    "clang", instead with that compiler (its C++ one when cxx) and the
    README's flags, into NAME-gcc or NAME-clang."""
    if readme:
        return h.build(name + "-" + readme, sources, flags=flags,
                       compiler=CXX[readme] if cxx else readme, libs=libs,
                       instrument=README_FLAGS[readme])
    return h.build(name, sources, flags=h.NO_INLINE + flags, compiler="g++" if cxx else "gcc",
                   libs=libs)


def build_command(exe):
    """The command that built exe: tests/harness.py's build() records it in
    EXE.cmd, the Makefile records the bench programs' flags in
    build/bench/cflags, and minigzip's is harness.build_zlib_program's."""
    stamp = exe + ".cmd"
    if os.path.exists(stamp):
        with open(stamp) as f:
            return ast.literal_eval(f.read())
    bench = os.path.join(ROOT, "build", "bench")
    if os.path.dirname(exe) == bench:
        with open(os.path.join(bench, "cflags")) as f:
            return f.read().split() + ["-o", exe, os.path.join(ROOT, "bench",
                                                                os.path.basename(exe) + ".c")]
    if os.path.basename(exe) == "zlib-minigzip":
        src, why = h.fetch_source("zlib")
        if src:
            return (["gcc"] + h.INSTRUMENT + h.NO_INLINE +
                    ["-w", "-I", src, "-o", exe, os.path.join(src, "test", "minigzip.c")] +
                    [os.path.join(src, f + ".c") for f in h.ZLIB])
    raise RuntimeError("no known build command for " + exe)


def native_twin(argv):
    """argv with its program replaced by the native twin: the same command
    minus the flags that instrument, built into PROG-native when out of date.
    Every other flag stays, -fno-inline included, so that both builds have
    the same functions as real frames."""
    def uninstrumented(cmd):
        native = [a for a in cmd if not a.startswith(INSTRUMENT_FLAGS)]
        if native == cmd:
            raise RuntimeError("%s is not built with %s" % (argv[0], INSTRUMENT_FLAGS))
        return native
    return rebuilt(argv, "-native", uninstrumented)


def no_inline_twin(argv):
    """argv with its program rebuilt with every hook call a real call: the
    same command plus h.NO_INLINE, into PROG-noinline. For a README build, the
    program whose calls callgrind counts as profviz counts the README build's,
    real and inlined."""
    return rebuilt(argv, "-noinline", lambda cmd: cmd[:1] + h.NO_INLINE + cmd[1:])


def rebuilt(argv, suffix, change):
    """argv with its program replaced by PROG+suffix, built by the command
    that built PROG as change(command) returns it, when out of date."""
    exe = os.path.abspath(argv[0])
    cmd = change(build_command(exe))
    out = exe + suffix
    cmd[cmd.index("-o") + 1] = out
    build_after(exe, out, cmd)
    return [out] + list(argv[1:])


def build_after(exe, out, cmd, first=()):
    """Run the commands first, then cmd, which builds out from exe's sources,
    unless out is newer than exe and cmd built it (OUT.cmd records it)."""
    stamp = out + ".cmd"
    fresh = os.path.exists(out) and os.path.exists(stamp) and \
        open(stamp).read() == repr(cmd) and os.path.getmtime(out) >= os.path.getmtime(exe)
    if not fresh:
        for step in list(first) + [cmd]:
            subprocess.run(step, check=True)
        with open(stamp, "w") as f:
            f.write(repr(cmd))


def threaded_twin(argv):
    """argv's native twin with one idle thread more (bench/idle_thread.c),
    built into PROG-native-thread: the program as libc runs it once a second
    thread exists, as profviz's sampler thread makes it."""
    twin = native_twin(argv)
    cmd = build_command(twin[0])
    out = twin[0] + "-thread"
    cmd[cmd.index("-o") + 1] = out
    idle = ["gcc", "-O2", "-c", "-o", out + ".o", os.path.join(ROOT, "bench", "idle_thread.c")]
    build_after(twin[0], out, cmd + [out + ".o", "-lpthread"], [idle])
    return [out] + list(argv[1:])


def sqlite_amalgamation(src):
    """build/progs/sqlite-amalgamation holding sqlite3.c and sqlite3.h: the
    Debian source has only the separate files, and SQLite's own build makes
    the one file with tclsh."""
    dest = os.path.join(h.BUILD, "sqlite-amalgamation")
    if os.path.exists(os.path.join(dest, "sqlite3.c")):
        return dest
    if not shutil.which("tclsh"):
        raise RuntimeError("tclsh is needed to make sqlite3.c (make deps installs tcl)")
    os.makedirs(h.BUILD, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sqlite-amalgamation-", dir=h.BUILD)
    for step in ([os.path.join(src, "configure")], ["make", "sqlite3.c"]):
        p = subprocess.run(step, cwd=work, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError("%s failed:\n%s" % (" ".join(step), p.stderr[-2000:]))
    os.rename(work, dest)  # only whole, so that an interrupted build is redone
    return dest


def build_sqlite_speedtest1(size="20", readme=None):
    """SQLite's speedtest1 on an in-memory database: --size 20 makes some
    85 M calls. The binary is the one tests/t_real_sqlite.py runs; with
    readme="gcc" or "clang", built instead with that compiler and the
    README's flags (sqlite-speedtest1-gcc, sqlite-speedtest1-clang)."""
    src, why = h.fetch_source("sqlite3")
    if not src:
        return None, why
    try:
        amalg = sqlite_amalgamation(src)
    except RuntimeError as e:
        return None, str(e)
    sources = [os.path.join(src, "test", "speedtest1.c"), os.path.join(amalg, "sqlite3.c")]
    exe = build_program("sqlite-speedtest1", sources, ["-w", "-I", amalg], readme,
                        libs=["-lpthread", "-ldl", "-lm"])
    return [exe, "--size", size, "--memdb"], None


BZIP2 = ["blocksort", "huffman", "crctable", "randtable", "compress", "decompress", "bzlib",
         "bzip2"]


def build_bzip2():
    """bzip2 -c on 12 MB of base64 text (random bytes: its block sort's
    common case, not its worst)."""
    src, why = h.fetch_source("bzip2")
    if not src:
        return None, why
    exe = h.build("bzip2", [os.path.join(src, f + ".c") for f in BZIP2],
                  flags=h.NO_INLINE + ["-w", "-D_FILE_OFFSET_BITS=64"])
    return [exe, "-c", base64_text("bzip2-input.txt", 9_000_000, 11)], None


LUA = ["lapi", "lcode", "lctype", "ldebug", "ldo", "ldump", "lfunc", "lgc", "llex", "lmem",
       "lobject", "lopcodes", "lparser", "lstate", "lstring", "ltable", "ltm", "lundump", "lvm",
       "lzio", "lauxlib", "lbaselib", "lcorolib", "ldblib", "liolib", "lmathlib", "loadlib",
       "loslib", "lstrlib", "ltablib", "lutf8lib", "linit", "lua"]


def build_lua(exclude=None, readme=None):
    """The lua interpreter (5.4, else 5.3) running bench/workloads/mix.lua:
    calls, tables, strings and closures, each a path through the C core.
    exclude: the functions to leave without hooks, as gcc's
    -finstrument-functions-exclude-function-list takes them (lua-excluded).
    readme: built with that compiler and the README's flags (lua-gcc)."""
    for package in ("lua5.4", "lua5.3"):
        src, why = h.fetch_source(package)
        if src:
            break
    if not src:
        return None, why
    srcdir = os.path.join(src, "src")
    # As its Makefile's linux target builds it, less readline.
    flags = ["-w", "-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX"]
    if exclude:
        flags.append("-finstrument-functions-exclude-function-list=" + exclude)
    exe = build_program("lua-excluded" if exclude else "lua",
                        [os.path.join(srcdir, f + ".c") for f in LUA], flags, readme,
                        libs=["-Wl,-E", "-ldl", "-lm"])
    return [exe, os.path.join(WORKLOADS, "mix.lua")], None


def build_tinyxml2_parse(readme=None):
    """tinyxml2 parsing and walking a generated document, again and again
    (bench/workloads/xmlparse.cpp): C++ members, virtual and recursive calls.
    readme: built with that compiler and the README's flags
    (tinyxml2-parse-gcc)."""
    src, why = h.fetch_source("tinyxml2")
    if not src:
        return None, why
    exe = build_program("tinyxml2-parse", [os.path.join(WORKLOADS, "xmlparse.cpp"),
                                           os.path.join(src, "tinyxml2.cpp")],
                        ["-std=c++17", "-Wall", "-Wextra", "-I", src], readme, cxx=True)
    return [exe], None
