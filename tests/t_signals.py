#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An instrumented handler for a signal arriving every 50 us, inside functions
and inside hooks: its calls are counted exactly, under the signal's node, and
the interrupted code's counts and arcs stay exact."""
import harness as h

t = h.Tap()
if h.TSAN_RUNS_HANDLERS:
    t.skip("signal handlers", h.TSAN_RUNS_HANDLERS)
    t.done()
prog = h.build("signals", flags=h.NO_INLINE)
ROUNDS = 3000000
with t.case("%d rounds under SIGALRM" % ROUNDS):
    r = h.run([prog, str(ROUNDS)])
    p = r.json()
    ticks = int(r.stdout)
    t.ok(ticks > 100, "the signal interrupted the program %d times" % ticks)
    t.eq(p.calls("on_tick"), ticks, "every handler run counted")
    t.eq(p.arc_calls("<signal SIGALRM>", "on_tick"), ticks, "handler runs under <signal SIGALRM>")
    into = sum(a["calls"] for a in p.data["arcs"]
               if a["callee"] == p.func("<signal SIGALRM>")["id"])
    t.eq(into, ticks, "the signal node counts the deliveries")
    t.ok(p.arc_calls("round_of_work", "<signal SIGALRM>") > 0 or
         p.arc_calls("work_a", "<signal SIGALRM>") > 0,
         "the signal node hangs under the interrupted functions")
    t.eq(p.arc_calls(None, "<signal SIGALRM>"), 0, "never at the root: nothing runs outside main")
    t.eq(p.arc_calls("on_tick", "tick_work"), ticks, "the handler's own calls exact")
    t.eq(p.arc_calls("main", "round_of_work"), ROUNDS + 1, "interrupted code's calls exact")
    t.eq(p.arc_calls("round_of_work", "work_a"), ROUNDS + 1, "interrupted code's arcs exact")
    t.eq(p.arc_calls("round_of_work", "work_b"), ROUNDS + 1, "interrupted code's arcs exact")
    t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0), "shadow stack stayed consistent")
    names = sorted(f["name"] for f in p.funcs)
    t.eq(names, sorted(["<signal SIGALRM>", "main", "on_tick", "tick_work", "round_of_work",
                        "work_a", "work_b"]), "no other functions or stray nodes")
    t.near(sum(f["self"][0] for f in p.funcs), p.run_total(), 0.001,
           "selves add up to the run total")
    t.ok(all(f["self"][0] <= f["total"][0] * 1.002 for f in p.funcs
             if f["name"] in ("work_a", "work_b", "tick_work")),
         "no leaf's self exceeds its total")
    ok, err = h.dot_renders(r.file("prof.dot"))
    t.ok(ok, "signal node renders", err)

# Every other way libc installs a handler goes through the same path.
for how in ("signal", "bsd_signal", "ssignal", "sysv_signal", "sigset"):
    with t.case("installed by " + how):
        r = h.run([prog, str(ROUNDS // 10), how])
        plain = h.run([prog, "1", how], preload=False)
        p = r.json()
        ticks = int(r.stdout)
        t.ok(r.rc == 0 and plain.rc == 0 and ticks > 10,
             "%s: the program ran, interrupted %d times" % (how, ticks))
        t.eq((p.calls("on_tick"), p.arc_calls("<signal SIGALRM>", "on_tick")), (ticks, ticks),
             "%s: every handler run counted, under <signal SIGALRM>" % how)
        t.eq((p.data["stray_exits"], p.data["resyncs"], p.data["losses"]["unrecorded_calls"]),
             (0, 0, 0), "%s: nothing stray, resynchronised or lost" % how)
        t.eq(p.arc_calls("round_of_work", "work_a"), ROUNDS // 10 + 1,
             "%s: interrupted code's arcs exact" % how)

# What those ways answer the program: as without profviz (SIG_ERR refused,
# old handlers, sigset's SIG_HOLD, siginterrupt's reads).
with t.case("what the program is answered"):
    sem = h.build("sigsemantics", flags=h.NO_INLINE)
    r, plain = h.run([sem], outputs="prof.json"), h.run([sem], preload=False)
    t.eq((r.stdout.decode(), r.rc), (plain.stdout.decode(), plain.rc),
         "every answer as without profviz")
t.done()
