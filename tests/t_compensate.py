#!/usr/bin/env python3
"""Compensation on a real run: with millions of tiny calls, the raw profile
is several times the program's own time, and the compensated one is close
to it. The program times its section itself without the preload (glibc's
no-op hooks), which is what the compensated profile must show."""
import harness as h

t = h.Tap()
prog = h.build("tiny", flags=h.NO_INLINE)
CALLS = "4000000"


def native_ns():
    return float(h.run([prog, CALLS], preload=False).stdout)


def section_costs(env=None):
    p = h.run([prog, CALLS], outputs="prof.json", env=env).json()
    f = p.func("section")
    return f["total"][0], f["raw_total"][0], p


def paired_runs(pairs=5):
    """Native and profiled runs taken in turn, so that a machine that speeds
    up or slows down during the test moves both sides alike: the median
    native time and the profiled run with the median compensated total."""
    native, profiled = [], []
    for _ in range(pairs):
        native.append(native_ns())
        profiled.append(section_costs())
    return (sorted(native)[pairs // 2],
            sorted(profiled, key=lambda x: x[0])[pairs // 2])


if h.SANITIZED:
    # A sanitized runtime's hooks cost what the sanitizer makes them cost.
    t.skip("compensated times", "times under a sanitizer say nothing of the compensation")
else:
    with t.case("compensated"):
        native, (total, raw, p) = paired_runs()
        t.eq(p.data["compensated"], True, "the JSON says the run was compensated")
        t.ok(all(v > 0 for v in p.data["overhead"]["caller"] + p.data["overhead"]["callee"]),
             "the calibrated overhead is recorded (%r)" % p.data["overhead"])
        t.ok(raw > 1.4 * native, "raw: the hooks' cost dominates (%.0f ms raw, %.0f ms native)"
             % (raw / 1e6, native / 1e6))
        # How much of a hook's cost a function's own work hides depends on the
        # work and on the processor; calibration measures hooks around a
        # one-multiply body, near enough to this leaf's short chain.
        t.ok(abs(total - native) < abs(raw - native) and 0.3 * native < total < 1.4 * native,
             "compensated: much nearer the program's own time than raw (%.0f ms, native %.0f ms,"
             " raw %.0f ms)" % (total / 1e6, native / 1e6, raw / 1e6))
        # The hooks put more of their cost on the caller than on the leaf:
        # taking it out moves the balance towards the leaf, which does the
        # work (perf puts 94-98 % of the section in the leaf).
        leaf, section = p.func("leaf"), p.func("section")
        comp_ratio = leaf["self"][0] / max(1, section["self"][0])
        raw_ratio = leaf["raw_self"][0] / max(1, section["raw_self"][0])
        t.ok(comp_ratio > 1 and comp_ratio > 1.5 * raw_ratio,
             "the leaf's work outweighs the loop that calls it, as it did not raw "
             "(leaf/section %.2f, raw %.2f)" % (comp_ratio, raw_ratio))
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
