#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Coroutines on ucontext (makecontext/swapcontext): each context has a shadow
stack of its own, so arcs and counts stay exact across switches between
machine stacks, on the main thread or another, with each compiler and
optimisation level. Contexts a thread did not make (driven from another
thread, or saved by getcontext) are entered as after a longjmp."""
import harness as h

t = h.Tap()
N = 20000
COROUTINE_ARCS = [("None", "co_a"), ("None", "co_b"), ("co_a", "co_step"), ("co_step", "leaf"),
                  ("co_b", "co_b_step"), ("co_b_step", "leaf"), ("co_b", "co_b_yield"),
                  ("make_both", "make"), ("drive", "tick")]
ARCS = {"main": sorted(COROUTINE_ARCS + [("None", "main"), ("main", "make_both"),
                                         ("main", "drive"), ("main", "report")]),
        "thread": sorted(COROUTINE_ARCS + [("None", "main"), ("main", "report"),
                                           ("None", "worker"), ("worker", "make_both"),
                                           ("worker", "drive")])}
# As in t_unwind: clang -O2 inlines report into main, the caller of
# getcontext; after the resynchronisation the two share a CFA, and main's
# frame goes with the ones left (measured: report then comes from the root).
INLINED_GETCONTEXT = {"clang -O2": "report inlined into main, the caller of getcontext: "
                      "after a resynchronisation their frames share a CFA"}


def arcs_of(p):
    name = lambda i: None if i is None else p.by_id[i]["name"]
    # The program's arcs; its waits (a join) are nodes of their own (t_waits).
    return sorted((str(name(a["caller"])), name(a["callee"])) for a in p.data["arcs"]
                  if not name(a["callee"]).startswith("<blocked: "))


def run(combo, prog, mode):
    argv = [prog, str(N)] + ([mode] if mode != "main" else [])
    r = h.run(argv)
    plain = h.run(argv, preload=False)
    t.eq((r.stdout, r.rc), (plain.stdout, 3),
         "%s: %s: output and exit status unchanged" % (combo.label, mode))
    return r.json()


for combo in h.MATRIX:
    c = combo.label
    with t.case(c + ": coroutines"):
        prog = h.build_with(combo, "coroutines", libs=["-pthread"])
        for mode in ("main", "thread"):
            v = "%s: %s" % (c, mode)
            p = run(combo, prog, mode)
            t.eq(p.arc_calls("co_a", "co_step"), N, "%s: co_a->co_step across every switch" % v)
            t.eq(p.arc_calls("co_step", "leaf"), N, "%s: co_step->leaf" % v)
            t.eq(p.arc_calls("co_b", "co_b_step"), N, "%s: co_b->co_b_step" % v)
            t.eq(p.arc_calls("co_b", "co_b_yield"), N,
                 "%s: co_b->co_b_yield, a call suspended inside" % v)
            t.eq(p.arc_calls("co_b_step", "leaf"), N, "%s: co_b_step->leaf" % v)
            t.eq(p.arc_calls("drive", "tick"), N, "%s: the driver's calls between switches" % v)
            t.eq(p.arc_calls("main", "report"), 1,
                 "%s: main's calls after co_a ended through uc_link" % v)
            t.eq((p.arc_calls(None, "co_a"), p.arc_calls(None, "co_b")), (1, 1),
                 "%s: each coroutine an entry point, called once" % v)
            t.eq((p.calls("co_step"), p.calls("leaf"), p.calls("main")), (N, 2 * N, 1),
                 "%s: call counts" % v)
            t.eq(arcs_of(p), ARCS[mode], "%s: exactly the program's arcs, no others" % v)
            t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0),
                 "%s: no stray exit, no resynchronisation" % v)
            t.ok(p.func("co_b")["total"][0] >= p.func("co_b_yield")["total"][0],
                 "%s: the never-ended co_b is closed at the end, over its calls" % v)

        v = "%s: migrate" % c
        p = run(combo, prog, "migrate")
        t.eq([p.calls(f) for f in ("co_step", "co_b_step", "co_b_yield", "tick", "leaf")],
             [N, N, N, N, 2 * N], "%s: contexts made on another thread: counts exact" % v)
        t.eq((p.arc_calls("main", "report"), p.arc_calls("worker", "drive")), (1, 1),
             "%s: the threads' own arcs untouched" % v)

        v = "%s: retry" % c
        p = run(combo, prog, "retry")
        t.eq(arcs_of(p), sorted([("None", "main"), ("main", "deep"), ("deep", "deep"),
                                 ("deep", "bail"), ("main", "report")]),
             "%s: setcontext to a getcontext'd context resynchronises like longjmp" % v,
             skip=INLINED_GETCONTEXT.get(c))
        t.eq((p.arc_calls("main", "deep"), p.arc_calls("deep", "deep"),
              p.arc_calls("deep", "bail")), (N, 3 * N, N), "%s: exact arcs" % v)
with t.case("a coroutine's stack grows"):
    deep = h.build("deepco", flags=h.NO_INLINE)
    r = h.run([deep])
    t.eq((r.rc, r.stdout), (0, b"20000\n"), "the program ran as ever")
    p = r.json()
    t.eq((p.calls("dive"), p.arc_calls("dive", "dive")), (20001, 20000),
         "20,000 frames deep inside a coroutine, past its first 4096: all recorded")
    t.eq((p.data["stray_exits"], p.data["resyncs"], p.data["losses"]["unrecorded_calls"]),
         (0, 0, 0), "nothing lost, nothing resynchronised")
with t.case("contexts under a limit on address space"):
    if h.SANITIZED:
        t.skip("the program's allocation still fits", "a sanitizer's shadow memory needs "
               "more address space than the limit")
    else:
        prog = h.build("coro_aslimit", flags=h.NO_INLINE)
        plain = h.run([prog, "100"], preload=False)
        r = h.run([prog, "100"])
        t.eq((r.rc, r.stdout), (plain.rc, plain.stdout),
             "100 contexts, then 300 MiB of 512: as without the preload (%r)" % r.stdout)
# A thread keeps 3072 contexts apart at once (contexts.h): a server's 5000
# connections, each a context, past that hang from the code that switched.
KEPT = 3072
prog = h.build("many_contexts", flags=h.NO_INLINE)
for n in (KEPT, 5000):
    with t.case("%d contexts at once" % n):
        r = h.run([prog, str(n)])
        plain = h.run([prog, str(n)], preload=False)
        p = r.json()
        t.eq((r.rc, r.stdout), (plain.rc, plain.stdout), "%d: as without the preload" % n)
        unplaced = max(0, n - KEPT)
        t.eq((p.calls("serve"), p.arc_calls(None, "serve"), p.calls("step")),
             (n, n - unplaced, 2 * n),
             "%d: every connection's calls; %d entered from the root" % (n, n - unplaced))
        t.eq(p.data["losses"]["contexts_unplaced"], unplaced,
             "%d: the contexts not kept apart, counted" % n)
        said = [x for x in h.profviz_lines(r.stderr) if "ucontexts made while" in x]
        t.eq(len(said), 1 if unplaced else 0, "%d: said %s" % (n, "once" if unplaced else
                                                              "nothing"))
t.done()
