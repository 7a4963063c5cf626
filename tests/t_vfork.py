#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vfork children run in the parent's memory: their calls, and an exec from
inside an instrumented function, leave the parent's profile untouched."""
import os
import harness as h

t = h.Tap()
prog = h.build("vforker", flags=h.NO_INLINE)
ROUNDS = 20
with t.case("vfork children"):
    r = h.run([prog, str(ROUNDS)], outputs="prof.json")
    plain = h.run([prog, str(ROUNDS)], preload=False)
    t.eq((r.stdout, h.strip_profviz(r.stderr), r.rc), (plain.stdout, plain.stderr, plain.rc),
         "stdout, stderr and status as without the preload")
    t.eq(r.stdout, b"rounds %d failed 0\n" % ROUNDS, "every child exec'd or exited as asked")
    p = r.json()
    t.eq(p.arc_calls("main", "parent_work"), ROUNDS, "main->parent_work after every child")
    for f in ("child_exec", "child_exit", "child_helper"):
        t.eq(p.calls(f), 0, "the children's %s is not in the parent's profile" % f)
    name = lambda i: None if i is None else p.by_id[i]["name"]
    arcs = sorted((str(name(a["caller"])), name(a["callee"])) for a in p.data["arcs"])
    # The parent's waits for its children are its own (t_waits); TSan takes
    # waitpid before profviz sees it.
    arcs = [a for a in arcs if a != ("main", "<blocked: waitpid>")]
    t.eq(arcs, [("None", "main"), ("main", "parent_work")], "exactly the parent's arcs")
    t.eq((p.data["resyncs"], p.data["stray_exits"]), (0, 0), "the parent's shadow stack intact")
    if h.SANITIZER == "thread":
        t.skip("only the parent writes", "TSan runs vfork as fork")
    else:
        t.eq(sorted(os.listdir(r.workdir)), ["prof.json"], "only the parent writes")
t.done()
