#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Frames left without their exit hooks (longjmp, siglongjmp), frames left
with them (C++ exceptions), and very deep recursion: exact counts and arcs,
with each compiler and optimisation level."""
import harness as h

t = h.Tap()
N, DEPTH = 3000, 6
errors = len([i for i in range(N) if i % 3 == 0])

# clang -O2 inlines eval_expr into main, the caller of setjmp: after a
# longjmp the two share one CFA, so only the position recorded at setjmp
# tells main's frame from eval_expr's. That build also instruments glibc's
# inline atoi, called from main (under ASan, its interceptor's address).
ATOI = "__interceptor_atoi" if h.SANITIZER == "address" else "atoi"
INLINE_ATOI = {"clang -O2": [("main", ATOI)]}
# clang calls no exit hook while unwinding: each of the n throws leaves
# frames that are closed by a resynchronisation (measured: resyncs = n).
NO_UNWIND_EXITS = {"clang -O0": "clang runs no exit hooks while unwinding",
                   "clang -O2": "clang runs no exit hooks while unwinding"}

for combo in h.MATRIX:
    c = combo.label
    with t.case(c + ": interp"):
        interp = h.build_with(combo, "interp")
        for variant, extra in (("longjmp", []), ("siglongjmp", ["sig"])):
            with t.case("%s: %s" % (c, variant)):
                v = "%s: %s" % (c, variant)
                r = h.run([interp, str(N), str(DEPTH)] + extra)
                plain = h.run([interp, str(N), str(DEPTH)] + extra, preload=False)
                p = r.json()
                t.eq(r.stdout, plain.stdout, "%s: program output unchanged" % v)
                t.eq(p.arc_calls("main", "eval_expr"), N,
                     "%s: every expression evaluated from main" % v)
                t.eq(p.arc_calls("eval_expr", "eval_expr"), 0,
                     "%s: no phantom recursion of eval_expr" % v)
                t.eq(p.arc_calls("parse_term", "eval_expr"), 0,
                     "%s: no arc from an abandoned frame" % v)
                t.eq(p.arc_calls("eval_expr", "parse_term"), N, "%s: eval_expr->parse_term" % v)
                t.eq(p.arc_calls("parse_term", "parse_term"), N * (DEPTH - 1),
                     "%s: parser recursion" % v)
                t.eq(p.arc_calls("parse_term", "raise_error"), errors,
                     "%s: %d error round trips" % (v, errors))
                t.eq(p.arc_calls("parse_term", "leaf"), N - errors, "%s: successful parses" % v)
                t.eq(p.arc_calls("main", "report"), 1,
                     "%s: main's later calls have main as caller" % v)
                name = lambda i: None if i is None else p.by_id[i]["name"]
                arcs = sorted((str(name(a["caller"])), name(a["callee"]))
                              for a in p.data["arcs"])
                t.eq(arcs, sorted([("None", "main"), ("main", "eval_expr"),
                                   ("eval_expr", "parse_term"), ("parse_term", "parse_term"),
                                   ("parse_term", "raise_error"), ("parse_term", "leaf"),
                                   ("main", "report")] + INLINE_ATOI.get(c, [])),
                     "%s: exactly the program's arcs, no others" % v)
                t.ok(p.func("main")["total"][0] >= p.func("eval_expr")["total"][0],
                     "%s: abandoned frames do not inflate totals" % v)

    with t.case(c + ": exceptions"):
        exc = h.build_with(combo, "exceptions", sources=["exceptions.cpp"])
        n = 1000
        r = h.run([exc, str(n)])
        p = r.json()
        t.eq(r.stdout, b"%d %d\n" % (n // 2, n // 2),
             "%s: exceptions: program still catches them all" % c)
        t.eq(p.arc_calls("catcher(int)", "deeper(int)"), n, "%s: exceptions: catcher->deeper" % c)
        t.eq(p.arc_calls("deeper(int)", "middle(int)"), n,
             "%s: exceptions: unwound through deeper" % c)
        t.eq(p.arc_calls("middle(int)", "thrower(int)"), 2 * n,
             "%s: exceptions: middle->thrower" % c)
        t.eq(p.arc_calls("rethrower(int)", "middle(int)"), n,
             "%s: exceptions: rethrower->middle" % c)
        t.eq(p.arc_calls("outer_catch(int)", "rethrower(int)"), n,
             "%s: exceptions: rethrown once more" % c)
        t.eq(p.arc_calls("thrower(int)", "leaf(int)"), n,
             "%s: exceptions: even i reach leaf via thrower" % c)
        t.eq(p.arc_calls("main", "leaf(int)"), n,
             "%s: exceptions: main's own calls after unwinding" % c)
        t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0),
             "%s: exceptions: exit hooks ran during unwinding, stack never resynchronised" % c,
             skip=NO_UNWIND_EXITS.get(c))

    with t.case(c + ": deep"):
        deep = h.build_with(combo, "deep", flags=["-pthread"])
        FRAMES = 1000000
        r = h.run([deep, str(FRAMES)])
        p = r.json()
        t.eq(r.stdout, b"%d\n" % FRAMES, "%s: deep: 1,000,000 frames ran" % c)
        t.eq(p.calls("descend"), FRAMES + 1, "%s: deep: every call counted" % c)
        t.eq(p.arc_calls("descend", "descend"), FRAMES, "%s: deep: recursive arc exact" % c)
        t.eq(p.arc_calls("run", "descend"), 1, "%s: deep: entered once" % c)
        t.ok(p.func("descend")["total"][0] <= p.func("run")["total"][0],
             "%s: deep: total counted once" % c)
t.done()
