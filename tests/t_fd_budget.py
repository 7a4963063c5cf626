#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program near its descriptor limit: it lowers RLIMIT_NOFILE to 128 (soft
and hard), starts 40 threads that run instrumented code and wait, and counts
the files it can still open and the entries of /proc/self/fd. With sampled
time (the default), profviz takes none of its descriptors: the sampler opens
each thread's PC ring from a descriptor table of its own, and a copy of
stderr is made only when the program takes fd 2 away. Nor for a moment: with
one number left, a file opened again and again while a thousand threads
start always gets that number. Events read per call (PROFVIZ_EVENTS) keep
one descriptor per event and thread, which the README states: here 16
numbers of the 128, the top eighth, and that many more entries."""
import harness as h

t = h.Tap()
prog = h.build("fd_budget", flags=h.NO_INLINE, libs=["-lpthread"])
LIMIT = 128
THREADS = 40


def run(args, preload=True, env=None, nofile=None):
    return h.run([prog] + args, preload=preload, env=env, outputs="prof.json", nofile=nofile,
                 timeout=60)


def counts(r):
    """(files opened, entries of /proc/self/fd) from the program's line."""
    words = r.stdout.decode().replace(",", "").split()
    return int(words[1]), int(words[4])


plain = run([str(THREADS)], preload=False)
t.eq(plain.rc, 0, "without profviz: it runs")
# None (the limit the test runs under, lowered by the program), or soft =
# hard = 128 from the start.
for nofile in (None, (LIMIT, LIMIT)):
    where = "limit set at start" if nofile else "limit lowered by the program"
    with t.case("sampled time, " + where):
        r = run([str(THREADS)], nofile=nofile)
        t.eq((r.rc, r.stdout), (0, plain.stdout), "%s: as many files, and as many "
             "descriptors, as without profviz (%s)" % (where, plain.stdout.decode().strip()))
        lines = h.profviz_lines(r.stderr)
        t.ok(len(lines) == 1 and "descriptors" not in lines[0],
             "%s: nothing to say of descriptors" % where, "\n".join(lines))
        p = r.json()
        t.eq((p.calls("main"), p.calls("work")), (1, THREADS + 1),
             "%s: every thread profiled" % where)

with t.case("a thread's start takes no number, not for a moment"):
    STARTS = 1000
    r = run(["race", str(STARTS)])
    t.eq((r.rc, r.stdout.split(b":")[0]), (0, b"%d threads; files not at the one number left"
                                          % STARTS), "race: the program ran")
    t.ok(r.stdout.split()[-3] == b"0", "race: every file opened at the one number left, while "
         "%d threads started (%s)" % (STARTS, r.stdout.decode().strip()))
    t.eq(r.json().calls("short_worker"), STARTS, "race: every thread profiled")

with t.case("an event read per call: what it costs"):
    n_plain, entries_plain = counts(plain)
    r = run([str(THREADS)], env={"PROFVIZ_EVENTS": "task-clock"})
    n, entries = counts(r)
    share = LIMIT // 8
    # main's event was opened before the program lowered the limit, beyond
    # it; the threads' take the share, the top eighth, one each.
    t.eq((n, entries), (n_plain - share, entries_plain + share + 1),
         "task-clock: one descriptor per thread (%d fewer files, %d more entries)"
         % (share, share + 1))
    unprofiled = [l for l in h.profviz_lines(r.stderr) if "it is not profiled" in l]
    t.eq(len(unprofiled), 1, "task-clock: the threads beyond the share said once")
    t.eq(r.json().calls("work"), share + 1, "task-clock: main and the threads whose "
         "events fit are profiled")
t.done()
