# SPDX-License-Identifier: MIT
"""A sampled profile made by hand, as the runtime's sampler will write it
(JSON revision 5, with the version of the profviz built here): event 0 is "time" sampled at 1000 Hz, event 1 page-faults
read by the hooks. Until the runtime samples, the tests of everything after
it (the loader, merge, diff, report, the graph, the other writers, the page)
read this. Its numbers are chosen so that each rule shows:

    main           20 ms self,  20 samples
      compute     600 ms self, 600 samples
        inner     300 ms self, 300 samples
      <blocked: nanosleep>  200 ms, measured: a wait, no samples
      rare          4 ms self,   4 samples  (few samples: marked)
      tiny       1000 calls, no self        (nothing to mark)

times `scale`: at scale 1, 924 samples (a short run, under 1000); at 2,
1848 (not short), rare still under 10."""

import subprocess

import harness as h

MS = 1000000
RATE_HZ = 1000
PROGRAM = "/opt/sampled/prog"



def profviz_version():
    """What the command built here writes in "profviz_version"."""
    return subprocess.run([h.PROFVIZ, "--version"], capture_output=True, text=True,
                          check=True).stdout.split()[1]


# name, parent, calls, self ms (= samples, but the wait's), page faults, kind
TREE = [
    ("main", None, 1, 20, 30, "plain"),
    ("compute", "main", 10, 600, 500, "plain"),
    ("inner", "compute", 100, 300, 200, "plain"),
    ("<blocked: nanosleep>", "main", 5, 200, 0, "wait"),
    ("rare", "main", 2, 4, 1, "plain"),
    ("tiny", "main", 1000, 0, 0, "plain"),
]
FEW = {"rare"}  # what every output must mark, at any scale the tests use


def samples_of(name, self_ms, kind):
    return 0 if kind == "wait" else self_ms


def profile(scale=1, pid=4242, rate_hz=RATE_HZ):
    """The profile as a dict, every figure times scale; the functions
    hottest first (by total time), as the writer orders them."""
    rows = {name: dict(parent=parent, calls=calls * scale, self=[ms * MS * scale, pf * scale],
                       samples=samples_of(name, ms, kind) * scale, kind=kind)
            for name, parent, calls, ms, pf, kind in TREE}
    order = [name for name, *_ in TREE]
    for name in reversed(order):  # children come after their parents
        row = rows[name]
        row["total"] = [row["self"][e] + sum(rows[c]["total"][e] for c in order
                                             if rows[c]["parent"] == name) for e in range(2)]
    by_total = sorted(order, key=lambda n: (-rows[n]["total"][0], -rows[n]["calls"], n))
    ids = {name: i for i, name in enumerate(by_total)}
    functions = []
    for name in by_total:
        row = rows[name]
        f = {"id": ids[name], "name": name, "module": "" if row["kind"] == "wait" else PROGRAM,
             "address": "0x%x" % (0x401000 + 0x40 * order.index(name))}
        if row["kind"] != "wait":
            f.update(file="prog.c", line=10 * (order.index(name) + 1))
        f.update(kind=row["kind"], calls=row["calls"], samples=row["samples"],
                 self=row["self"], total=row["total"], raw_self=row["self"],
                 raw_total=row["total"])
        functions.append(f)
    arcs = [{"caller": None if rows[n]["parent"] is None else ids[rows[n]["parent"]],
             "callee": ids[n], "calls": rows[n]["calls"], "nested_calls": 0,
             "total": rows[n]["total"], "raw_total": rows[n]["total"]} for n in order]
    arcs.sort(key=lambda a: -a["total"][0])
    paths = [{"parent": None if rows[n]["parent"] is None else order.index(rows[n]["parent"]),
              "function": ids[n], "calls": rows[n]["calls"], "samples": rows[n]["samples"],
              "self": rows[n]["self"], "total": rows[n]["total"], "raw_self": rows[n]["self"]}
             for n in order]
    run = rows["main"]["total"]
    samples = sum(r["samples"] for r in rows.values())
    own = 8 * scale
    return {
        "format": "profviz-1", "revision": 6, "profviz_version": profviz_version(),
        "program": PROGRAM, "pid": pid,
        "events": ["time", "page-faults"], "backends": ["sampler", "read"],
        "units": ["ns", "count"], "kinds": ["sampled", "count"], "running_ratio": [1, 1],
        "run_total": run, "compensated": True, "raw_run_total": run,
        "overhead": {"caller": [0.0, 0.0], "caller_miss": [0.0, 0.0], "callee": [0.0, 0.0],
                     "callee_span": [0.0, 0.0]},
        "clamped": [0, 0], "threads": 1, "wall_seconds": 1.25 * scale, "stray_exits": 0,
        "resyncs": 0,
        "losses": {"unrecorded_calls": 0, "merge_failures": 0, "lost_records": 0,
                   "counters_lost": 0, "rekeys_incomplete": 0, "threads_cut_short": 0,
                   "threads_shared": 0, "contexts_unplaced": 0,
                   "catches_in_bodies": 0},
        "sampling": {"rate_hz": rate_hz, "wall_seconds": 1.25 * scale,
                     "looks": 1250 * scale, "samples": samples, "own_samples": own,
                     "own_ns": own * MS, "unsampled_ns": 300000, "blocked_ns": 200 * MS * scale,
                     "sampler_ns": 4 * MS},
        "functions": functions,
        "per_thread": [{"tid": pid, "calls": sum(r["calls"] for r in rows.values()),
                        "total": run, "raw_total": run, "cpu_seconds": 0.924 * scale,
                        "wall_seconds": 1.25 * scale}],
        "arcs": arcs, "paths": paths,
    }


def rate_said(prof):
    """How the caption gives the rate: the one asked, and the one got, the
    samples (charged and dropped) over the threads' CPU time."""
    s = prof["sampling"]
    cpu = sum(t["cpu_seconds"] for t in prof["per_thread"] if t["cpu_seconds"] > 0)
    return "%g Hz (got {:,} a CPU-second)".format(
        int((s["samples"] + s["own_samples"]) / cpu + 0.5)) % s["rate_hz"]


def blocked(prof):
    """The time blocked in its waits, inside its run."""
    return sum(f["self"][0] for f in prof["functions"] if f.get("kind") == "wait")


def share_error(prof, share, apart=False):
    """What a share of the run is good to (one standard error, a share
    too): share / sqrt(the samples expected behind it), blocked time being
    measured, not sampled. apart: a share of the work, the waits apart
    (profviz's default view), where every share stands on samples."""
    run = prof["run_total"][0]
    n = sum(f["samples"] for f in prof["functions"])
    sampled_part = 1 if apart else (run - blocked(prof)) / run
    return share / (share / sampled_part * n) ** 0.5


def revision_3(prof):
    """The same run as revision 3 wrote it (time read by the TSC): no
    sampling, no samples, no kinds of function."""
    old = dict(prof, revision=3, kinds=["time", "count"], backends=["tsc", "read"])
    old.pop("sampling")
    old.pop("profviz_version")
    old["functions"] = [{k: v for k, v in f.items() if k not in ("samples", "kind")}
                        for f in prof["functions"]]
    old["paths"] = [{k: v for k, v in p.items() if k != "samples"} for p in prof["paths"]]
    return old
