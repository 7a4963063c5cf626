#!/usr/bin/env python3
"""Frames left without their exit hooks (longjmp, siglongjmp), frames left
with them (C++ exceptions), and very deep recursion: exact counts and arcs."""
import harness as h

t = h.Tap()
interp = h.build("interp", flags=h.NO_INLINE)
N, DEPTH = 3000, 6
errors = len([i for i in range(N) if i % 3 == 0])

for variant, extra in (("longjmp", []), ("siglongjmp", ["sig"])):
    r = h.run([interp, str(N), str(DEPTH)] + extra)
    plain = h.run([interp, str(N), str(DEPTH)] + extra, preload=False)
    p = r.json()
    t.eq(r.stdout, plain.stdout, "%s: program output unchanged" % variant)
    t.eq(p.arc_calls("main", "eval_expr"), N, "%s: every expression evaluated from main" % variant)
    t.eq(p.arc_calls("eval_expr", "eval_expr"), 0, "%s: no phantom recursion of eval_expr"
         % variant)
    t.eq(p.arc_calls("parse_term", "eval_expr"), 0, "%s: no arc from an abandoned frame"
         % variant)
    t.eq(p.arc_calls("eval_expr", "parse_term"), N, "%s: eval_expr->parse_term" % variant)
    t.eq(p.arc_calls("parse_term", "parse_term"), N * (DEPTH - 1), "%s: parser recursion"
         % variant)
    t.eq(p.arc_calls("parse_term", "raise_error"), errors, "%s: %d error round trips"
         % (variant, errors))
    t.eq(p.arc_calls("parse_term", "leaf"), N - errors, "%s: successful parses" % variant)
    t.eq(p.arc_calls("main", "report"), 1, "%s: main's later calls have main as caller"
         % variant)
    name = lambda i: None if i is None else p.by_id[i]["name"]
    arcs = sorted((str(name(a["caller"])), name(a["callee"])) for a in p.data["arcs"])
    t.eq(arcs, sorted([("None", "main"), ("main", "eval_expr"), ("eval_expr", "parse_term"),
                       ("parse_term", "parse_term"), ("parse_term", "raise_error"),
                       ("parse_term", "leaf"), ("main", "report")]),
         "%s: exactly the program's arcs, no others" % variant)
    t.ok(p.func("main")["total"][0] >= p.func("eval_expr")["total"][0],
         "%s: abandoned frames do not inflate totals" % variant)

exc = h.build("exceptions", sources=["exceptions.cpp"], compiler="g++", flags=h.NO_INLINE)
n = 1000
r = h.run([exc, str(n)])
p = r.json()
t.eq(r.stdout, b"%d %d\n" % (n // 2, n // 2), "exceptions: program still catches them all")
t.eq(p.arc_calls("catcher(int)", "deeper(int)"), n, "exceptions: catcher->deeper")
t.eq(p.arc_calls("deeper(int)", "middle(int)"), n, "exceptions: unwound through deeper")
t.eq(p.arc_calls("middle(int)", "thrower(int)"), 2 * n, "exceptions: middle->thrower")
t.eq(p.arc_calls("rethrower(int)", "middle(int)"), n, "exceptions: rethrower->middle")
t.eq(p.arc_calls("outer_catch(int)", "rethrower(int)"), n, "exceptions: rethrown once more")
t.eq(p.arc_calls("thrower(int)", "leaf(int)"), n, "exceptions: even i reach leaf via thrower")
t.eq(p.arc_calls("main", "leaf(int)"), n, "exceptions: main's own calls after unwinding")
t.eq((p.data["stray_exits"], p.data["resyncs"]), (0, 0),
     "exceptions: exit hooks ran during unwinding, stack never resynchronised")

deep = h.build("deep", flags=h.NO_INLINE + ["-pthread"])
FRAMES = 1000000
r = h.run([deep, str(FRAMES)])
p = r.json()
t.eq(r.stdout, b"%d\n" % FRAMES, "deep: 1,000,000 frames ran")
t.eq(p.calls("descend"), FRAMES + 1, "deep: every call counted")
t.eq(p.arc_calls("descend", "descend"), FRAMES, "deep: recursive arc exact")
t.eq(p.arc_calls("run", "descend"), 1, "deep: entered once")
t.ok(p.func("descend")["total"][0] <= p.func("run")["total"][0], "deep: total counted once")
t.done()
