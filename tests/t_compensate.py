#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compensation on a real run of millions of tiny calls, judged by the
profile's own figures, so that it holds whatever the machine's speed or
load: each path loses what its calls' calibrated cost says (compensate.h),
each total what its subtree lost, the run what all of them lost, and the
invariants hold. How near the compensated times come to the program's own
time is this machine's to say: make bench-truth (bench/native_time.py)."""
import harness as h

# The subject is the hooks' compensation: times read by the hooks.
h.hook_time()

t = h.Tap()
prog = h.build("tiny", flags=h.NO_INLINE)
CALLS = "4000000"


def section_costs(env=None):
    p = h.run([prog, CALLS], outputs="prof.json", env=env).json()
    f = p.func("section")
    return f["total"][0], f["raw_total"][0], p


def taken(x):
    return x["raw_self"][0] - x["self"][0]


def callee_share(own, span):
    """compensate.c's pv_callee_share: the part of the callee's cost taken
    from a callee whose own cost per entry is own."""
    return 1 if span <= 0 else min(1, max(0.5, own / (2 * span)))


with t.case("compensated"):
    total, raw, p = section_costs()
    o = {k: v[0] for k, v in p.data["overhead"].items()}
    t.eq(p.data["compensated"], True, "the JSON says the run was compensated")
    t.ok(o["caller"] > 0 and o["callee"] > 0,
         "the calibrated overhead is recorded (%r)" % p.data["overhead"])
    # The JSON's figures are rounded: ns to the unit, the overhead to 1e-4.
    slack = lambda calls: 1e-4 * calls + 4
    paths = p.data["paths"]
    kids = {i: [c for c in paths if c["parent"] == i] for i in range(len(paths))}
    name = lambda x: p.by_id[x["function"]]["name"]

    # The leaf calls nothing: it loses its calls' callee part, in the share
    # its own cost per call against the calibrated span gives, all of its
    # self at most.
    leaf = next(x for x in paths if name(x) == "leaf")
    t.eq(leaf["calls"], int(CALLS), "the leaf's calls")
    share = callee_share(leaf["raw_self"][0] / leaf["calls"], o["callee_span"])
    want = min(leaf["raw_self"][0], leaf["calls"] * o["callee"] * share)
    t.ok(abs(taken(leaf) - want) <= slack(leaf["calls"]),
         "the leaf lost its calls' callee part, %.2f of it: %.0f ns (%d calls x %.4f ns x %.2f)"
         % (share, taken(leaf), leaf["calls"], o["callee"], share), "taken %r" % taken(leaf))

    # A caller loses the caller part of every call it made, more for those
    # that missed its cache, and half to all of its own callee part.
    bad = []
    for i, x in enumerate(paths):
        made = sum(c["calls"] for c in kids[i])
        lo = made * o["caller"] + x["calls"] * 0.5 * o["callee"]
        hi = made * (o["caller"] + o["caller_miss"]) + x["calls"] * o["callee"]
        lo, hi = min(lo, x["raw_self"][0]), min(hi, x["raw_self"][0])
        if not lo - slack(made + x["calls"]) <= taken(x) <= hi + slack(made + x["calls"]):
            bad.append("%s: %d not in [%.0f, %.0f]" % (name(x), taken(x), lo, hi))
    t.ok(not bad, "every path lost what its calls' calibrated cost says (%d paths)" % len(paths),
         "\n".join(bad))

    # Totals lose what their subtree lost (no recursion here), the run all.
    def subtree_taken(i):
        return taken(paths[i]) + sum(subtree_taken(paths.index(c)) for c in kids[i])

    bad = []
    for i, x in enumerate(paths):
        f = p.by_id[x["function"]]
        lost = f["raw_total"][0] - f["total"][0]
        if abs(lost - subtree_taken(i)) > slack(int(CALLS)):
            bad.append("%s: total lost %d, its subtree %d" % (name(x), lost, subtree_taken(i)))
    t.ok(not bad, "each total lost what its subtree lost", "\n".join(bad))
    lost = p.data["raw_run_total"][0] - p.data["run_total"][0]
    t.ok(abs(lost - sum(taken(x) for x in paths)) <= slack(int(CALLS)),
         "the run lost what all the paths lost (%.1f of %.1f ms)" % (lost / 1e6, raw / 1e6))
    t.ok(total < raw, "the section's compensated total is below its raw one")
    t.ok(sum(f["self"][0] for f in p.funcs) <= p.run_total() * 1.0001 and
         all(f["self"][0] <= f["total"][0] for f in p.funcs),
         "invariants hold after compensation")

with t.case("PROFVIZ_COMPENSATE=0"):
    total, raw, p = section_costs({"PROFVIZ_COMPENSATE": "0"})
    t.eq(p.data["compensated"], False, "the JSON says it was not compensated")
    t.eq(total, raw, "costs are the raw ones")
    t.ok("overhead" not in p.data, "no calibration figures without calibration")

with t.case("bad value"):
    r = h.run([prog, "1000"], outputs="prof.json", env={"PROFVIZ_COMPENSATE": "yes"})
    t.ok("profviz: PROFVIZ_COMPENSATE='yes' is not 0 or 1; using 1" in
         r.stderr.decode(), "a bad value is named, and the default used", r.stderr)
    t.eq(r.json().data["compensated"], True, "... which compensates")
t.done()
