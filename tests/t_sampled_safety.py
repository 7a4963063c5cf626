#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sampled time, the default: the sampler thread charges each thread's CPU
time to the function it is in, and nothing of it reaches the program: its
own signals, timers, waits, masks, alternate stacks, forks and execs, and
threads by the thousand work as without profviz; threads an uninstrumented
library starts, and tail calls, are charged right; and the sampler's own
descriptor table holds none of the program's."""
import glob
import os
import re
import harness as h

t = h.Tap()
FLAGS = h.NO_INLINE + ["-pthread"]
shares = h.build("sampled_shares", flags=FLAGS)
signals = h.build("sampled_signals", flags=FLAGS)
procs = h.build("sampled_procs", flags=FLAGS)
TSAN = h.SANITIZER == "thread"


def numbers(stdout):
    """'name 12 other 34' on stdout as {name: 12, other: 34}."""
    words = stdout.decode().split()
    return {k: int(v) for k, v in zip(words[0::2], words[1::2]) if re.fullmatch(r"-?\d+", v)}


def sampled(p, name, which="self"):
    """A function's sampled time (event 0), ns; 0 if it is not in the profile."""
    f = p.func(name)
    return f[which][0] if f else 0


def same_as_without(r, plain, name):
    t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc), (plain.stdout, plain.stderr, plain.rc),
         "%s: stdout, stderr and status as without profviz" % name)


# 1. A known split. heavy and light alternate 3:1 for 2 s of CPU; between
# them, wait_for_pipe sleeps 0.5 s in a plain read() (not a wrapped wait).
# Each call is timed from its caller on the thread's CPU clock: the truth.
# A look charges the CPU since the previous look to the function it finds,
# so the only error is at the k = 10 boundaries between functions (4 rounds
# and the read): the CPU between the last look and a boundary goes to the
# wrong side. Looks 0.5-1.5 ms apart bound that by 1.5 ms a boundary, 0.75
# points in all; as a sum of backward recurrence times (sd 0.35 ms each,
# means cancelling between the two kinds of boundary) it is 0.06 points sd,
# and 3 points are 50 sd. With looks 10 times sparser than asked (a loaded
# host) 3 points are still 5 sd, under 1 in 10^6. Measured here, load
# average 3-7: rms 0.12 points, worst 0.57, in 40 runs. The read would
# hold 20 % of a clock read per call (0.5 of 2.5 s); sampled, it gets at
# most one look's charge (0.07 % at worst in those runs).
CPU_MS, BLOCK_MS = 2000, 500
with t.case("a 3:1 split, and a read blocked in between"):
    r = h.run([shares, "split", str(CPU_MS), str(BLOCK_MS)], outputs="prof.json")
    truth = numbers(r.stdout)
    p = r.json()
    t.eq((p.data["events"][0], p.data["kinds"][0]), ("time", "sampled"),
         "event 0 is the sampled time")
    t.eq((truth["read"], truth["child"]), (1, 0), "the read got the child's byte")
    t.ok(truth["wait_wall_ns"] > BLOCK_MS * 1e6 * 0.9,
         "the read was blocked (%.0f ms)" % (truth["wait_wall_ns"] / 1e6))
    real = {"heavy": truth["heavy_ns"], "light": truth["light_ns"],
            "wait_for_pipe": truth["wait_ns"]}
    got = {f: sampled(p, f) for f in real}
    real_sum, got_sum = sum(real.values()), sum(got.values())
    for f in ("heavy", "light"):
        want, share = 100.0 * real[f] / real_sum, 100.0 * got[f] / got_sum
        t.ok(abs(share - want) <= 3, "%s's share %.2f %% within 3 points of the %.2f %% it "
             "measured" % (f, share, want))
    share = 100.0 * got["wait_for_pipe"] / got_sum
    t.ok(share < 2, "the blocked read: %.2f %% of the time (< 2 %%)" % share)

# 2. N threads of equal CPU (each works until its own clock has used
# CPU_MS), each in a function of its own. A thread's sampled time is its
# CPU clock's, charged in deltas, short only by what it ran after its last
# look (one period, about 1 ms of 500): a share is off by 0.05 points, and
# 2 points take a sampler held off some 100 ms of wall time at the end of
# a thread.
N, THREAD_MS = 4, 500
with t.case("%d threads of equal work" % N):
    r = h.run([shares, "threads", str(N), str(THREAD_MS)], outputs="prof.json")
    p = r.json()
    got = [sampled(p, "work_%d" % i, "total") for i in range(N)]
    for i in range(N):
        share = 100.0 * got[i] / sum(got)
        t.ok(abs(share - 100.0 / N) <= 2, "work_%d's share %.2f %% within 2 points of %.0f %%"
             % (i, share, 100.0 / N))

# 5. A thread that blocks every signal, as workers do when one thread takes
# the signals with sigwait: a signal-based sampler would see nothing of it.
MASKED_MS = 400
with t.case("a thread that blocks every signal"):
    r = h.run([shares, "masked", str(MASKED_MS)], outputs="prof.json")
    used = numbers(r.stdout)["masked_work"]
    got = sampled(r.json(), "masked_work", "total")
    t.ok(b"mask kept 1" in r.stdout, "its mask stays as it set it", r.stdout)
    t.ok(0.8 * used <= got <= 1.05 * used, "its time is in the profile: %.1f ms of the %.1f "
         "ms it measured" % (got / 1e6, used / 1e6))

# 3. The program's own CPU-time signals. The thread-CPU timer (every 10 ms
# of the thread's CPU) reaches the program's handler with its siginfo, and
# counts as the thread's CPU clock runs: the kernel sees an expiry at a
# tick, late by up to one, and re-arms the timer as it delivers the signal,
# counting in si_overrun the periods that passed meanwhile; so at each
# delivery the expiries counted so far (1 + si_overrun each) are the
# periods the thread's CPU clock has run, read in the handler, or one fewer
# (one may end between the re-arming and the read). More would be expiries
# the clock never made, fewer deliveries lost or delayed by profviz; a
# delivery to a thread of profviz's would read another clock. How many come
# by the end is the tick's and the load's to say (a pending expiry is
# dropped with the timer), with or without profviz, so it is not compared.
# ITIMER_PROF counts on the process's PROF clock, its CPU as the scheduler
# tick charges it, which strays from the precise figure by tens of percent
# on a loaded host, with or without profviz, and further down with any
# thread of the program's own that wakes 1000 times a second (the sampler
# does). The program reads that clock itself (CPUCLOCK_PROF) around the
# timer: one SIGPROF is handled for each 10 ms it ran, less two at most
# (the kernel sets the first expiry a tick later than asked, and a tick may
# land between the program's read of the clock and the timer's setting or
# clearing). Fewer would be signals lost, more a sampler of profviz's
# riding on it (1000 a second).
TIMED_MS = 500
with t.case("the program's SIGPROF and CPU-time timer"):
    r = h.run([signals, "timers", str(TIMED_MS)], outputs="prof.json")
    plain = h.run([signals, "timers", str(TIMED_MS)], preload=False)
    got, want = numbers(r.stdout), numbers(plain.stdout)
    t.ok(got["deliveries"] > 0 and 0 < got["timer"] <= got["armed_periods"],
         "timer_create(CLOCK_THREAD_CPUTIME_ID): its signal handled %d times, %d expiries "
         "counted of the %d periods the thread's CPU clock ran (%d without profviz, of %d)"
         % (got["deliveries"], got["timer"], got["armed_periods"], want["timer"],
            want["armed_periods"]), r.stdout)
    t.eq(got["bad_info"], 0, "each with its si_code and si_value")
    t.eq(got["early"], 0, "no delivery counted an expiry the thread's CPU clock had not made")
    if TSAN:
        t.skip("each delivery counted the periods its thread's CPU clock had run",
               h.TSAN_RUNS_HANDLERS)
    else:
        t.eq(got["late"], 0, "each delivery counted the periods its thread's CPU clock had run, "
             "or one fewer: none lost or held back")
    t.eq((want["early"], want["late"], want["bad_info"]), (0, 0, 0),
         "without profviz, the same holds: the check's model is the kernel's")
    # TSan holds a handled signal back, to run the program's handler later,
    # and keeps one of each: SIGPROFs that fall due meanwhile are one.
    for run, what, held in ((got, "with profviz", TSAN), (want, "without profviz", False)):
        least = 1 if held else run["prof_periods"] - 2
        t.ok(0 < run["sigprof"] and least <= run["sigprof"] <= run["prof_periods"],
             "ITIMER_PROF, %s: %d SIGPROFs handled, for the %d periods of 10 ms its PROF clock "
             "ran (%d ms of CPU)" % (what, run["sigprof"], run["prof_periods"], TIMED_MS),
             run)
    t.eq(got["unasked"], 0, "no other signal delivered")
    t.eq(r.rc, 0, "status 0")

# 4. Waits right after bursts of CPU, 150 rounds of five kinds: a signal
# (a CPU-time timer falling due in the burst) would interrupt them, with a
# handler on every signal and also with SA_RESTART, which these never
# restart. The control, a wall-clock timer of the program's own, shows
# that an interruption would be seen.
ROUNDS = 150
for handlers in ("none", "plain", "restart"):
    with t.case("waits after bursts of CPU, handlers: %s" % handlers):
        argv = [signals, "eintr", str(ROUNDS), handlers]
        r, plain = h.run(argv, outputs="prof.json"), h.run(argv, preload=False)
        t.ok(b"EINTR: poll 0 select 0 nanosleep 0 sem_timedwait 0 epoll_wait 0\n" in r.stdout,
             "no wait interrupted (handlers: %s)" % handlers, r.stdout)
        t.ok(b"signals delivered: none\n" in r.stdout, "no signal delivered", r.stdout)
        same_as_without(r, plain, "waits, handlers: %s" % handlers)
with t.case("waits after bursts of CPU: the control"):
    r = h.run([signals, "eintr", str(ROUNDS), "control"], outputs="prof.json")
    t.ok(sum(numbers(r.stdout.split(b":", 1)[1].split(b"\n")[0]).values()) > 0,
         "a wall-clock timer of the program's own does interrupt them", r.stdout)

# 8. A handler on the program's sigaltstack, and real-time signals it
# queues to itself while it blocks them: delivered on that stack, every
# one, in order, and the stack still the program's at the end.
with t.case("sigaltstack and the program's real-time signal"):
    argv = [signals, "altstack", "200"]
    r, plain = h.run(argv, outputs="prof.json"), h.run(argv, preload=False)
    t.ok(b"queued 1600 seen, 1600 in order of 1600" in r.stdout,
         "every queued real-time signal handled, in order", r.stdout)
    t.ok(b"altstack kept 1" in r.stdout, "the alternate stack is still the program's", r.stdout)
    if TSAN:
        t.skip("SIGUSR1 on the alternate stack, the handlers' calls counted", "TSan runs the "
               "program's handlers later, from its own, outside profviz's trampoline")
    else:
        t.ok(b"SIGUSR1 200 on its altstack, 0 off it" in r.stdout,
             "SIGUSR1's handler ran on the alternate stack each time", r.stdout)
        same_as_without(r, plain, "altstack")
        t.eq(r.json().calls("handler_work"), 200 + 1600, "the handlers' calls counted")

# 6. fork: the child's sampler is its own (the parent's thread is not in the
# copy); its thread's 200 ms are in its file. Then a chain of execs, each
# image sampling and writing its own file, and a vfork child that execs.
FORK_MS = 200
with t.case("fork: the child's thread"):
    r = h.run([procs, "fork", str(FORK_MS)], outputs="prof.json")
    child_files = glob.glob(r.file("prof.*.json"))
    t.eq(len(child_files), 1, "the child wrote its own profile")
    used = numbers(r.stdout)["child_thread_work"]
    child = h.Run.for_files(r.workdir).json(os.path.basename(child_files[0]))
    got = sampled(child, "child_thread_work", "total")
    t.ok(0.5 * used <= got <= 1.05 * used, "its thread sampled: %.1f ms of the %.1f ms it "
         "measured" % (got / 1e6, used / 1e6))
    t.ok(sampled(child, "child_main_work") > 0, "its main thread sampled too")
    p = r.json()
    t.ok(sampled(p, "parent_work") > 0, "the parent's own work sampled")
    t.eq(p.calls("child_thread_work"), 0, "none of the child's in the parent's profile")
    t.ok(b"child exit 0\n" in r.stdout, "the child ended as asked", r.stdout)

IMAGES, IMAGE_MS = 10, 50
with t.case("a chain of %d execs" % IMAGES):
    argv = [procs, "exec", str(IMAGES), str(IMAGE_MS)]
    r, plain = h.run(argv, outputs="prof.json"), h.run(argv, preload=False)
    same_as_without(r, plain, "exec chain")
    names = ["prof.exec%d.json" % i for i in range(1, IMAGES + 1)] + ["prof.json"]
    files = sorted(f for f in os.listdir(r.workdir) if f.endswith(".json"))
    t.eq(files, sorted(names), "each image wrote its files")
    unsampled = [n for n in names if n in files and
                 sampled(h.Run.for_files(r.workdir).json(n), "image_work") <= 0]
    t.eq(unsampled, [], "each image's work sampled (%d ms of CPU each)" % IMAGE_MS)

with t.case("vfork, then exec"):
    argv = [procs, "vfork", str(IMAGE_MS)]
    r, plain = h.run(argv, outputs="prof.json"), h.run(argv, preload=False)
    same_as_without(r, plain, "vfork")
    p = r.json()
    t.ok(sampled(p, "parent_work") > 0, "the parent sampled")
    t.eq(p.calls("image_work"), 0, "nothing of the exec'd image in the parent's profile")
    t.ok(sampled(r.json("vchild.json"), "image_work") > 0, "the exec'd image sampled its own")
    if TSAN:
        t.skip("only the parent and the new image write", "TSan runs vfork as fork")
    else:
        t.eq(sorted(os.listdir(r.workdir)), ["prof.json", "vchild.json"],
             "only the parent and the new image write")

# 7. Threads by the thousand, each a little CPU in an instrumented function:
# nothing per thread stays behind (descriptors, timers, pending or queued
# signals, threads) once they have ended.
CHURN = 10000
with t.case("%d short-lived threads" % CHURN):
    threads_file = os.path.join(h.tempfile.mkdtemp(prefix="profviz-churn-"), "tasks")
    argv = [procs, "churn", str(CHURN), threads_file]
    plain = h.run(argv, preload=False)
    # The same preload, profviz off: a sanitizer's own threads counted alike.
    h.run(argv, env={"PROFVIZ_DISABLE": "1"})
    off_tasks = open(threads_file).read().split()
    r = h.run(argv, outputs="prof.json")
    tasks = open(threads_file).read().split()
    same_as_without(r, plain, "churn")
    t.ok(re.match(rb"fds \+0, timers 0 -> 0, pending 0+ 0+ -> 0+ 0+\n$", r.stdout),
         "no descriptor, timer or pending signal left", r.stdout)
    before, after, off_after = int(tasks[1]), int(tasks[2]), int(off_tasks[2])
    t.eq(after, before, "as many threads after them as before (%d)" % after)
    # The program counts its tasks in a listing of /proc/self/task, which the
    # sampler's thread keeps out of while it is open (wrap/tasks.c).
    t.eq(after, off_after, "as many tasks listed as with profviz off: the sampler is not in "
         "the listing (%d against %d)" % (after, off_after))
    queued = [int(q.split("/")[0]) for q in tasks[4:6]]
    t.ok(queued[1] - queued[0] < CHURN // 2, "no signal queued per thread (SigQ, the user's: "
         "%d before, %d after)" % tuple(queued))
    p = r.json()
    t.eq(p.calls("short_task"), CHURN, "every thread's call counted")


# 10. Threads an uninstrumented library starts (a pool, an I/O library).
# One spends CPU_MS in the library's code before its first hook, then
# CPU_MS in callback, the program's: the sampler charges callback what it
# measured itself (a look's charge at each of two boundaries, 1.5 ms each
# at most) and nothing of the library's part, which ran before the thread
# was the sampler's to look at. The other never runs instrumented code: it
# is not profiled, and nothing of its CPU is anywhere.
LIB_MS = 300
lib = h.build("sampled_lib", flags=["-fPIC", "-shared", "-pthread"], instrument=["-O2", "-g"],
              out=os.path.join(h.BUILD, "libsampled_lib.so"))
with t.case("threads of an uninstrumented library"):
    host = h.build("sampled_lib_host", flags=h.NO_INLINE + ["-pthread"],
                   libs=[lib, "-Wl,-rpath," + h.BUILD])
    plain = h.run([host, "library", str(LIB_MS)], preload=False)
    r = h.run([host, "library", str(LIB_MS)], outputs="prof.json")
    t.eq((r.rc, r.stdout.split()[0]), (0, b"callback_ns"), "library: the program ran")
    p = r.json()
    real = numbers(r.stdout)["callback_ns"]
    got = sampled(p, "callback")
    t.ok(abs(got - real) <= 0.03 * real + 3e6, "library: callback's %.1f ms sampled, against "
         "the %.1f ms it measured" % (got / 1e6, real / 1e6))
    # The waits (main joins the library's threads) hold blocked time, not CPU.
    cpu = sum(f["self"][0] for f in p.funcs if not f["name"].startswith("<blocked"))
    t.ok(cpu <= real + 0.1 * LIB_MS * 1e6, "library: the run's %.1f ms of CPU hold none of "
         "the library's own %d ms, before the callback or on its other thread"
         % (cpu / 1e6, 2 * LIB_MS))
    t.eq(len(p.data["per_thread"]), 2, "library: main and the thread that called back are "
         "profiled, not the library's other thread")
    t.eq(p.calls("callback"), 1, "library: the callback counted")

# 11. Tail calls: front ends in a call to back, which a compiler may make a
# jump (both keep it a call here, the exit hook coming after it). With
# sibling calls allowed, gcc's and clang's builds with the README's flags
# count it and split the time 3:1 as the program measured: 8 boundaries at
# 1.5 ms at most over 800 ms are 1.5 points, and 3 are allowed.
TAIL_MS = 800
for cc, instrument in (("gcc", h.INSTRUMENT),
                       ("clang", ["-O2", "-g", "-finstrument-functions-after-inlining"])):
    with t.case("a tail call, %s" % cc):
        tail = h.build("sampled_lib_host", flags=["-pthread"], compiler=cc,
                       instrument=instrument, libs=[lib, "-Wl,-rpath," + h.BUILD],
                       out=os.path.join(h.BUILD, "sampled_tail_" + cc))
        r = h.run([tail, "tail", str(TAIL_MS)], outputs="prof.json")
        truth = numbers(r.stdout)
        p = r.json()
        t.eq((p.calls("front"), p.calls("back"), p.arc_calls("front", "back")), (4, 4, 4),
             "%s: each call counted, back's from front" % cc)
        real = {"front": truth["front_ns"], "back": truth["back_ns"]}
        got = {f: sampled(p, f) for f in real}
        for f in real:
            want = 100.0 * real[f] / sum(real.values())
            share = 100.0 * got[f] / max(1, sum(got.values()))
            t.ok(abs(share - want) <= 3, "%s: %s's share %.2f %% within 3 points of the %.2f %% "
                 "it measured" % (cc, f, share, want))

# 12. The sampler's thread has a descriptor table of its own, which took no
# copy of the program's: a pipe the program made before profviz started
# (its write end held by no one else) reaches its end once the program
# closes that end.
with t.case("the sampler holds none of the program's descriptors"):
    fds = h.build("fd_budget", flags=h.NO_INLINE, libs=["-lpthread"])
    plain = h.run([fds, "pipe"], preload=False)
    r = h.run([fds, "pipe"], outputs="prof.json")
    t.eq(plain.stdout, b"the pipe's end: read 0\n", "pipe: without profviz, the read ends")
    same_as_without(r, plain, "pipe")

# 9. PROFVIZ_RATE: taken, or the default with one message, and recorded
# in the profile as the rate its samples were asked at (past each thread's
# first CPU time, which is timed). How many samples the kernel takes at it
# (on a thread's CPU time) is the host's to decide: make bench-cpu reports
# them.
def rate_run(value, cpu_ms):
    """(the profile's sampling account, profviz's lines)."""
    env = {} if value is None else {"PROFVIZ_RATE": value}
    r = h.run([shares, "rate", str(cpu_ms)], env=env, outputs="prof.json")
    return r.json().data["sampling"], h.profviz_lines(r.stderr)


for bad in ("fast", "0", "1e9"):
    with t.case("PROFVIZ_RATE=%s" % bad):
        sampling, lines = rate_run(bad, 300)
        said = [l for l in lines if "PROFVIZ_RATE" in l]
        t.eq(len(said), 1, "PROFVIZ_RATE=%s: one message" % bad)
        t.ok(said and "'%s'" % bad in said[0] and "the rate a sample's cost allows" in said[0],
             "it names the value and the default", lines)
        t.ok(any("time sampled; " in l for l in lines), "the default said", lines)
        t.ok((sampling["rate_hz"] == 1000 and "sample_cost_ns" not in sampling or
              250 <= sampling["rate_hz"] <= 2000 and sampling["sample_cost_ns"] > 0) and
             sampling["samples"] > 0,
             "the default used: %g Hz, for a sample's cost of %s ns; %d samples"
             % (sampling["rate_hz"], sampling.get("sample_cost_ns"), sampling["samples"]))
for good, hz, cpu_ms in (("100", 100, 500), ("1k", 1000, 300)):
    with t.case("PROFVIZ_RATE=%s" % good):
        sampling, lines = rate_run(good, cpu_ms)
        t.eq([l for l in lines if "PROFVIZ_RATE" in l], [], "PROFVIZ_RATE=%s taken" % good)
        t.ok(any("time sampled at %d Hz" % hz in l for l in lines), "said", lines)
        t.ok(sampling["rate_hz"] == hz and sampling["samples"] > 0 and
             "sample_cost_ns" not in sampling,
             "recorded: %g Hz, %d samples, no cost measured" % (sampling["rate_hz"],
                                                               sampling["samples"]))
# One CPU: the cost is not measured (its measure would spin on the CPU the
# program needs), and the rate is the default.
with t.case("one CPU: no measure"):
    r = h.run(["taskset", "-c", "0", shares, "rate", "300"], outputs="prof.json")
    sampling = r.json().data["sampling"]
    t.ok(sampling["rate_hz"] == 1000 and "sample_cost_ns" not in sampling,
         "one CPU: the default rate, no cost measured (%g Hz, %s)"
         % (sampling["rate_hz"], sampling.get("sample_cost_ns")))
t.done()
