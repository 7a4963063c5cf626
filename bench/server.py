#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-server: a server under load, redis 7 from Debian's source
package, profiled by one or more profviz runtimes (--preload) and sampled
by perf on its native twin, for the same load.

usage: server.py [--preload [LABEL=]PATH]... [--runs N] [--requests N]
                 [--clients N] [--tests LIST] [--freq HZ] [--json OUT]

redis is built twice, cached under build/progs (bench/realprogs.py's
names): redis-gcc with the README's gcc flags, redis-gcc-native with the
same flags minus those that instrument (its native twin: the same -O level
and -g; perf unwinds it with DWARF). Both use libc's malloc (MALLOC=libc:
no jemalloc to build), and their dependencies (hiredis, lua) are built
without hooks in both.

Each run starts redis-server on 127.0.0.1 on a free port, no persistence
(--save '' --appendonly no), and drives it with the native twin's
redis-benchmark (-n REQUESTS -c CLIENTS -P 1 -t TESTS -q, loopback only),
then stops it with `redis-cli shutdown nosave`, so that it exits and
profviz writes its profile then. A run does this once with each runtime,
once with the native twin under `perf record -e cpu-clock --call-graph
dwarf` (the server process only: perf runs it), and once with the
instrumented binary under perf without the preload (glibc's no-op hooks,
the samples inside them dropped: the build's own distance from the
program, whatever profviz does).

Shares are of the CPU time (work): a profile's self of each function of the
program over the selves of all of them, its waits (<blocked: epoll_wait>)
left out, as perf's cpu-clock samples leave the blocked time out. perf's
samples are charged as bench/truth.py charges them: to the innermost frame
that is one of the functions the run's profiles name (the rest, libc and
the kernel, to their caller). TVD is truth.tvd (functions at 0.5 % or more
on either side one by one, the rest pooled).

Printed, medians of the runs [range]: the self share of the function whose
code calls epoll_wait in the instrumented build (aeApiPoll), each
runtime's self-share TVD against perf on the twin, the no-op-hooks
binary's, and the top ten functions of each side, pooled over the runs;
then the goals: the poll function within 5 points of perf's, the TVD
within 10 points of the no-op-hooks binary's.

gcc inlines aeApiPoll into aeProcessEvents in the twin, not in the
instrumented build (its hooks make it larger): perf's aeApiPoll is then
the twin's samples whose innermost function is aeProcessEvents at an
address of aeApiPoll's inlined body (addr2line -i), and the TVD is also
given against perf's shares with that body taken out of aeProcessEvents
("as built"); the goals use the plain TVD, as truth.py computes it."""
import argparse
import collections
import itertools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import harness as h  # noqa: E402
import inlined_truth  # noqa: E402
import realprogs  # noqa: E402
import slowdown  # noqa: E402
import truth  # noqa: E402

PROGRAMS = ("redis-server", "redis-benchmark", "redis-cli")
TOP = 10
POLL_GOAL = 5.0  # points: the poll function's share against perf's
TVD_GOAL = 10.0  # points: the TVD against the no-op-hooks binary's


def build_redis(native=False):
    """{program: path} of redis built with the README's gcc flags, or its
    native twin, cached in build/progs/redis-gcc[-native]; or (None, why)."""
    src, why = h.fetch_source("redis")
    if not src:
        return None, why
    flags = realprogs.README_FLAGS["gcc"]
    if native:
        flags = [f for f in flags if not f.startswith(realprogs.INSTRUMENT_FLAGS)]
    dest = os.path.join(h.BUILD, "redis-gcc" + ("-native" if native else ""))
    # REDIS_CFLAGS reach redis's own sources only, not deps/ (which get CFLAGS).
    cmd = ["make", "-C", os.path.join(dest, "src"), "-j%d" % (os.cpu_count() or 1),
           "MALLOC=libc", "REDIS_CFLAGS=" + " ".join(flags)] + list(PROGRAMS)
    stamp = dest + ".cmd"
    record = repr([src] + cmd)
    if not (os.path.exists(stamp) and open(stamp).read() == record):
        print("building %s (some minutes, once)" % os.path.basename(dest), flush=True)
        if os.path.exists(stamp):
            os.unlink(stamp)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest, symlinks=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            return None, "%s failed:\n%s" % (" ".join(cmd), p.stderr[-3000:])
        with open(stamp, "w") as f:
            f.write(record)
    return {p: os.path.join(dest, "src", p) for p in PROGRAMS}, None


def poll_function(exe):
    """The function of exe whose code calls epoll_wait."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                          text=True, check=True).stdout
    current = None
    for line in text.splitlines():
        if line.endswith(">:"):
            current = line[line.index("<") + 1:-2]
        elif "call" in line and "<epoll_wait@plt>" in line:
            return truth.SPLIT_OFF.sub("", current)
    raise RuntimeError("no call of epoll_wait in " + exe)


def free_port():
    """A port on 127.0.0.1 no one listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, proc, timeout=60):
    """Until the server on port answers PING; it must not have exited."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("redis-server exited %d before it answered" % proc.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("redis-server did not answer on port %d in %d s" % (port, timeout))


def serve(server_argv, env, native, args, workdir, name):
    """One run: server_argv (a redis-server command, perhaps behind perf)
    started with port, bind and no persistence added, loaded by
    redis-benchmark, stopped by redis-cli shutdown nosave. The benchmark's
    requests per second, {test: rps}."""
    port = free_port()
    argv = list(server_argv) + ["--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", workdir,
                                "--daemonize", "no", "--logfile", ""]
    with open(os.path.join(workdir, name + ".log"), "w") as log:
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(port, proc)
        bench = subprocess.run([native["redis-benchmark"], "-h", "127.0.0.1", "-p", str(port),
                                "-n", str(args.requests), "-c", str(args.clients), "-P", "1",
                                "-t", args.tests, "-q"], env=truth.clean_env(),
                               capture_output=True, text=True, timeout=1800)
        subprocess.run([native["redis-cli"], "-h", "127.0.0.1", "-p", str(port), "shutdown",
                        "nosave"], env=truth.clean_env(), capture_output=True, timeout=60)
        rc = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            # perf record passes SIGTERM on to the server it runs.
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    if bench.returncode or rc:
        raise RuntimeError("%s: benchmark exited %d, server %d; see %s.log" % (
            name, bench.returncode, rc, os.path.join(workdir, name)))
    rps = {}
    for line in bench.stdout.replace("\r", "\n").splitlines():
        if "requests per second" in line:
            test, _, rest = line.partition(":")
            rps[test.strip()] = float(rest.split()[0])
    return rps


def work_shares(profile, exe):
    """Self shares of the CPU time over exe's functions (its waits, and
    anything outside exe, left out), copies of one name summed; and how
    many samples the profile charged and dropped as profviz's own."""
    exe = os.path.realpath(exe)
    selves = collections.Counter()
    for f in profile["functions"]:
        if f["module"] == exe and f.get("kind", "plain") == "plain":
            selves[f["name"]] += f["self"][0]
    total = sum(selves.values()) or 1
    s = profile.get("sampling", {})
    return {k: v / total for k, v in selves.items()}, s.get("samples", 0), \
        s.get("own_samples", 0)


def symbols(exe):
    """{name: address} of exe's functions (its symbol table)."""
    text = subprocess.run(["nm", "--defined-only", exe], capture_output=True, text=True,
                          check=True).stdout
    return {parts[2]: int(parts[0], 16) for parts in (line.split() for line in
                                                      text.splitlines())
            if len(parts) == 3 and parts[1] in "tTwW"}


def inlined_in(exe, addresses, name):
    """Of addresses in exe, those whose code is name's body inlined there
    (addr2line -i: name in the chain of inlined functions at the address)."""
    if not addresses:
        return set()
    text = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", exe] +
                          ["0x%x" % a for a in sorted(addresses)], capture_output=True,
                          text=True, check=True).stdout
    found, at = set(), None
    for line in text.splitlines():
        if line.startswith("0x"):
            at = int(line, 16)
        elif line == name and at is not None:
            found.add(at)
    return found


def perf_run(server, native, functions, args, workdir, name, poll):
    """perf's self shares of server (a redis-server) under the load, charged
    to functions; its samples; the benchmark's rps; and the share of the
    samples in poll's code: where poll is no function of server's (the
    compiler inlined it into its caller), the samples whose innermost
    function is its host, at an address of poll's body (addr2line)."""
    data = os.path.join(workdir, name + ".data")
    record = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(args.freq),
              "--call-graph", args.call_graph, "-o", data, "--"]
    rps = serve(record + [server], truth.clean_env(), native, args, workdir, name)
    stacks = truth.recorded_samples(data, offsets=True)
    program = os.path.realpath(server)
    counted, self_n, _ = truth.truth_from([[(s, d) for s, d, _ in st] for st in stacks],
                                          program, functions)
    shares = {k: v / (counted or 1) for k, v in self_n.items()}
    host = poll_function(server)
    if host == poll:
        return shares, counted, rps, shares.get(poll, 0)
    # The address of each sample's innermost frame in the host, as truth_from
    # finds that frame; a caller's (a return address) less one, in its call.
    syms, at = symbols(server), collections.Counter()
    for st in stacks:
        if st and st[0][0].split("@")[0] in truth.HOOKS:
            continue
        for k, (sym, dso, off) in enumerate(st):
            fn = truth.instrumented(sym, functions) if dso == program else None
            if fn:
                if fn == host and sym in syms:
                    at[syms[sym] + off - (k > 0)] += 1
                break
    inside = inlined_in(server, set(at), poll)
    return shares, counted, rps, sum(n for a, n in at.items() if a in inside) / (counted or 1)


def one_run(i, inst, native, preloads, args, workdir, poll):
    """Run i: the instrumented server under each runtime, then the twin under
    perf, then (args.noop) the instrumented server under perf."""
    run = {"profiles": {}}
    functions = set()
    for label, path in preloads:
        out = os.path.join(workdir, "%s-%d.json" % (label, i))
        rps = serve([inst["redis-server"]], truth.profviz_env(out, "sampled", path), native,
                    args, workdir, "%s-%d" % (label, i))
        profile = h.load_json(out)
        shares, samples, own = work_shares(profile, inst["redis-server"])
        run["profiles"][label] = {
            "self": shares, "samples": samples, "own": own, "rps": rps,
            "version": profile.get("profviz_version", "?"),
            "calls": {f["name"]: f["calls"] for f in profile["functions"]},
            "cpu": sum(t["cpu_seconds"] for t in profile.get("per_thread", []))}
        functions |= set(shares)
    run["perf_self"], run["perf_samples"], run["perf_rps"], run["perf_poll"] = perf_run(
        native["redis-server"], native, functions, args, workdir, "perf-native-%d" % i, poll)
    if args.noop:
        run["noop_self"], run["noop_samples"], run["noop_rps"], run["noop_poll"] = perf_run(
            inst["redis-server"], native, functions, args, workdir, "perf-noop-%d" % i, poll)
    return run


def as_built(shares, poll, host, poll_share):
    """perf's shares with poll's inlined body taken out of its host and
    given to poll, as the instrumented build has it (a function of its own)."""
    out = dict(shares)
    if host != poll:
        out[host] = out.get(host, 0) - poll_share
        out[poll] = out.get(poll, 0) + poll_share
    return out


def med(values):
    return slowdown.summary(list(values))


def fmt(m, scale=100):
    return "%.1f [%.1f-%.1f]" % tuple(scale * x for x in m)


def mean_rps(rps):
    return statistics.mean(rps.values()) if rps else 0.0


def report(runs, labels, poll, host, twin_functions, args):
    perf = truth.mean_shares([r["perf_self"] for r in runs])
    noop = truth.mean_shares([r["noop_self"] for r in runs]) if args.noop else None
    result = {"poll_function": poll, "runtimes": {}, "perf_pooled": perf,
              "perf_samples": med(r["perf_samples"] for r in runs),
              "perf_rps": med(mean_rps(r["perf_rps"]) for r in runs)}
    print("\nperf on the native twin: %d samples a run (median), benchmark %.0f rps" % (
        result["perf_samples"][0], result["perf_rps"][0]))
    result["perf_poll"] = med(r["perf_poll"] for r in runs)
    print("  %s's self share: %s %%" % (poll, fmt(result["perf_poll"])))
    if len(runs) > 1:
        result["perf_vs_perf"] = med(truth.tvd(a["perf_self"], b["perf_self"])
                                     for a, b in itertools.combinations(runs, 2))
        print("  self TVD run against run (perf's noise): %s %%" % fmt(result["perf_vs_perf"]))
    for r in runs:
        r["perf_as_built"] = as_built(r["perf_self"], poll, host, r["perf_poll"])
    if args.noop:
        noop_tvd = med(truth.tvd(r["noop_self"], r["perf_self"]) for r in runs)
        result["noop_tvd_as_built"] = med(truth.tvd(r["noop_self"], r["perf_as_built"])
                                          for r in runs)
        result.update(noop_tvd=noop_tvd, noop_pooled=noop,
                      noop_poll=med(r["noop_poll"] for r in runs))
        print("perf on the instrumented binary, no preload (glibc's no-op hooks): %d samples,"
              " benchmark %.0f rps" % (med(r["noop_samples"] for r in runs)[0],
                                       med(mean_rps(r["noop_rps"]) for r in runs)[0]))
        print("  %s's self share: %s %%; self TVD against the twin: %s %%" % (
            poll, fmt(result["noop_poll"]), fmt(noop_tvd)))
        if host != poll:
            print("  ... with %s's body in the twin as its own: %s %%" % (
                poll, fmt(result["noop_tvd_as_built"])))
        print("  pooled TVD's carriers (no-op hooks/perf %%): %s" % ", ".join(
            "%s %.1f/%.1f" % (f, 100 * m, 100 * t) for f, m, t, _ in
            truth.carriers(noop, perf, {})))
    for label in labels:
        ps = [r["profiles"][label] for r in runs]
        pooled = truth.mean_shares([p["self"] for p in ps])
        x = {"poll": med(p["self"].get(poll, 0) for p in ps),
             "poll_off": med(abs(p["self"].get(poll, 0) - r["perf_poll"])
                             for p, r in zip(ps, runs)),
             "tvd": med(truth.tvd(p["self"], r["perf_self"]) for p, r in zip(ps, runs)),
             "pooled_tvd": truth.tvd(pooled, perf), "pooled": pooled,
             "tvd_as_built": med(truth.tvd(p["self"], r["perf_as_built"])
                                 for p, r in zip(ps, runs)),
             "samples": med(p["samples"] for p in ps),
             "own": med(p["own"] / ((p["own"] + p["samples"]) or 1) for p in ps),
             "cpu": med(p["cpu"] for p in ps), "rps": med(mean_rps(p["rps"]) for p in ps),
             "carriers": truth.carriers(pooled, perf, ps[-1]["calls"]),
             # What profviz gives time that perf does not see at all.
             "profviz_only": sorted(((n, v) for n, v in pooled.items()
                                     if v >= truth.SHOWN and perf.get(n, 0) < 0.0005),
                                    key=lambda kv: -kv[1])}
        x["version"] = ", ".join(sorted({p["version"] for p in ps}))
        result["runtimes"][label] = x
        print("\n%s (profviz %s): %d samples a run (median), %.1f %% of its samples dropped as"
              " profviz's own; server CPU %.1f s; benchmark %.0f rps" % (
                  label, x["version"], x["samples"][0], 100 * x["own"][0], x["cpu"][0],
                  x["rps"][0]))
        print("  %s's self share: %s %% (perf: off by %s points)" % (
            poll, fmt(x["poll"]), fmt(x["poll_off"])))
        print("  self TVD against perf on the twin: %s %% (pooled over the runs %.1f %%)" % (
            fmt(x["tvd"]), 100 * x["pooled_tvd"]))
        if host != poll:
            print("  ... with %s's body in the twin as its own: %s %%" % (
                poll, fmt(x["tvd_as_built"])))
        print("  pooled TVD's carriers (profviz/perf %%, calls): %s" % ", ".join(
            "%s %.1f/%.1f (%d)" % (f, 100 * m, 100 * t, c) for f, m, t, c in x["carriers"]))
        if x["profviz_only"]:
            print("  with time in profviz, none in perf: %s" % ", ".join(
                "%s %.1f%%%s" % (n, 100 * v, "" if n in twin_functions else
                                 " (no function of the twin's: inlined there)")
                for n, v in x["profviz_only"]))
    sides = [("perf (twin)", perf)] + ([("no-op hooks", noop)] if noop else []) + \
        [(label, result["runtimes"][label]["pooled"]) for label in labels]
    for title, shares in sides:
        print("\ntop %d by %s, pooled over %d runs: self %% for each of %s" % (
            TOP, title, len(runs), ", ".join(t for t, _ in sides)))
        for n in inlined_truth.top(shares, TOP):
            print("  %-36s %s" % (n[:36], " ".join("%7.2f" % (100 * s.get(n, 0))
                                                   for _, s in sides)))
    if host != poll:
        print("(perf's %s on the twin holds %s's inlined body: %.2f of its %.2f %%)" % (
            host, poll, 100 * statistics.mean(r["perf_poll"] for r in runs),
            100 * perf.get(host, 0)))
    print("\ngoals (medians of %d runs):" % len(runs))
    for label in labels:
        x = result["runtimes"][label]
        x["poll_goal"] = 100 * x["poll_off"][0] <= POLL_GOAL
        print("  %-8s %s within %.0f points of perf's: off by %.1f points -> %s" % (
            label, poll, POLL_GOAL, 100 * x["poll_off"][0], "met" if x["poll_goal"] else
            "NOT met"))
        if args.noop:
            over = 100 * (x["tvd"][0] - result["noop_tvd"][0])
            x["tvd_goal"] = over <= TVD_GOAL
            print("  %-8s TVD within %.0f points of the no-op-hooks binary's: %.1f %% against"
                  " %.1f %%, %+.1f points -> %s" % (
                      label, TVD_GOAL, 100 * x["tvd"][0], 100 * result["noop_tvd"][0], over,
                      "met" if x["tvd_goal"] else "NOT met"))
    return result


def snapshot(preloads, workdir):
    """Each runtime copied into workdir, so that one rebuilt while the runs
    go on (another checkout's make) is measured as it was at the start."""
    out = []
    for label, path in preloads:
        copy = os.path.join(workdir, "runtime-%s" % label, "profviz.so")
        os.makedirs(os.path.dirname(copy))
        shutil.copy2(path, copy)
        out.append((label, copy))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preload", type=inlined_truth.preload_arg, action="append",
                    help="[LABEL=]PATH of a profviz.so, again for more (default: this"
                    " checkout's)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--requests", type=int, default=100000,
                    help="redis-benchmark -n: requests of each test")
    ap.add_argument("--clients", type=int, default=50, help="redis-benchmark -c")
    ap.add_argument("--tests", default="get,set,incr,lpush,lpop", help="redis-benchmark -t")
    ap.add_argument("--freq", type=int, default=1000, help="perf record -F")
    ap.add_argument("--call-graph", default="dwarf", help="perf record --call-graph")
    ap.add_argument("--no-noop", dest="noop", action="store_false",
                    help="skip perf on the instrumented binary with glibc's no-op hooks")
    ap.add_argument("--json", help="write every figure here")
    args = ap.parse_args()
    preloads = args.preload or [("this", truth.PRELOAD)]
    if len({label for label, _ in preloads}) < len(preloads):
        ap.error("two runtimes with one label")
    if not shutil.which("perf"):
        sys.exit("bench-server needs perf (linux-perf)")
    inst, why = build_redis()
    native, why2 = build_redis(native=True) if inst else (None, None)
    if not native:
        print("redis: skipped (%s)" % (why or why2))
        return
    poll, host = poll_function(inst["redis-server"]), poll_function(native["redis-server"])
    print("load average %s; runtimes: %s" % (inlined_truth.load(), ", ".join(
        "%s = %s" % p for p in preloads)))
    print("%s: redis-benchmark -n %d -c %d -P 1 -t %s -q, 127.0.0.1; %d runs; perf -F %d"
          " --call-graph %s; epoll_wait is called from %s%s" % (
              os.path.basename(h.fetch_source("redis")[0]),
              args.requests, args.clients, args.tests, args.runs, args.freq, args.call_graph,
              poll, "" if host == poll else " (in the native twin, from %s, %s inlined into it:"
              " perf's %s there is the samples at its body's addresses)" % (host, poll, poll)),
          flush=True)
    workdir = tempfile.mkdtemp(prefix="profviz-server-")
    measured = snapshot(preloads, workdir)
    started = time.monotonic()
    runs = []
    for i in range(args.runs):
        runs.append(one_run(i, inst, native, measured, args, workdir, poll))
        print("run %d of %d done, %.0f s" % (i + 1, args.runs, time.monotonic() - started),
              flush=True)
    print("load average %s" % inlined_truth.load())
    twin_functions = {truth.SPLIT_OFF.sub("", n) for n in symbols(native["redis-server"])}
    result = report(runs, [label for label, _ in preloads], poll, host, twin_functions, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(result, runs=runs), f, indent=1, default=list)
    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
