# SPDX-License-Identifier: MIT
"""Every number a user reads is the profile's: the calls each view shows for
a function or an arc, held to the JSON's.

check(json_path, dot_path) reads one profile the way a user would, through
profviz report (its waits apart, and in), profviz dot with no thresholds,
report --focus of its hottest function, its callgrind file, and the
runtime's own prof.dot when the run wrote one, and returns what disagrees:
a list of "view: what it shows / what the JSON holds" lines, empty when
every view agrees. A focus shows its function's arcs whole (every call of
the function or from it is inside the part); the arcs among the part's
other functions are the part's own, so only its function's are held to
the JSON. Functions whose name another one shares, or that a view
shortens, are left out: a view names them, and a name then says too
little."""
import collections
import json
import os
import re
import subprocess
import tempfile

import harness as h

ROOT = "<uninstrumented>"


def _profviz(*args):
    r = subprocess.run([h.PROFVIZ] + list(args), capture_output=True, text=True,
                       env={k: v for k, v in os.environ.items()
                            if not k.startswith("PROFVIZ_") and k != "LD_PRELOAD"})
    return r.returncode, r.stdout, r.stderr


def _report_arcs(text):
    """{(caller, callee): calls} of a report's arc tables."""
    arcs = {}
    for line in text.splitlines():
        m = re.match(r"\s*[\d.]+%\s+\S+\s+(\d+)\s+(.+?) -> (.+?)(  \(inlined\))?\s*$", line)
        if m:
            arcs[(m.group(2), m.group(3))] = int(m.group(1))
    return arcs


def _report_calls(text):
    """{function: calls} of a report's table of functions."""
    calls = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d.]+%)\s+([\d.]+%)\s+(.*)$", line)
        if not m or " -> " in line:
            continue
        cols = [m.group(1), m.group(2)] + re.split(r"\s{2,}", m.group(3).strip())
        if len(cols) < 7 or not cols[4].isdigit():
            continue
        # self%, total%, self, total, calls, then figures (per call, IPC,
        # samples), the name, and where it is or what it ran inlined into.
        rest = [c for c in cols[5:] if not re.fullmatch(r"[\d.,]+( \S+)?|-|\?|[\d.,]+ \?", c)]
        if rest:
            calls[rest[0]] = int(cols[4])
    return calls


def _unescape(label):
    return label.replace('\\"', '"').replace("\\\\", "\\")


def _dot_arcs(text):
    """{(caller, callee): calls} and {function: calls} of a dot graph."""
    names, calls = {"root": ROOT}, {}
    for m in re.finditer(r'^\s*(f\d+) \[label="((?:[^"\\]|\\.)*)"', text, re.M):
        lines = _unescape(m.group(2)).split("\\n")
        names[m.group(1)] = lines[0]
        x = [re.match(r"(\d+)\u00d7", line) for line in lines[1:]]
        x = [y for y in x if y]
        if x:
            calls[lines[0]] = int(x[0].group(1))
    arcs = {}
    for m in re.finditer(r'^\s*(f\d+|root) -> (f\d+) \[label="(?:[^"\\]|\\.)*?(\d+)\u00d7',
                         text, re.M):
        if m.group(1) in names and m.group(2) in names:
            arcs[(names[m.group(1)], names[m.group(2)])] = int(m.group(3))
    return arcs, calls


def _callgrind_arcs(text):
    """{(caller, callee): calls} of a callgrind file (names compressed)."""
    names, arcs, fn = {}, {}, None

    def name(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?$", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1))

    cfn = None
    for line in text.splitlines():
        if line.startswith("fn="):
            fn = name(line[3:])
        elif line.startswith("cfn="):
            cfn = name(line[4:])
        elif line.startswith("calls=") and fn and cfn:
            key = (fn, cfn)
            arcs[key] = arcs.get(key, 0) + int(line[6:].split()[0])
    return arcs


def live_snapshot(doc):
    """Why the profile cannot be held to itself, or None: a dump of threads
    still running reads their functions, arcs and paths at instants apart
    (busy_exit's recursion moves on between them), and its paths' calls then
    differ from its functions' by a call or two."""
    if not doc.get("paths"):
        return None
    by_paths = collections.Counter()
    for x in doc["paths"]:
        by_paths[x["function"]] += x["calls"]
    for f in doc["functions"]:
        if by_paths[f["id"]] != f["calls"]:
            return ("a snapshot of threads still running: %s has %d calls, its paths %d"
                    % (f["name"], f["calls"], by_paths[f["id"]]))
    return None


def check(json_path, dot_path=None):
    with open(json_path) as f:
        doc = json.load(f)
    funcs = doc["functions"]
    counted = {}
    for x in funcs:
        counted[x["name"]] = counted.get(x["name"], 0) + 1
    named = {x["name"] for x in funcs if counted[x["name"]] == 1}
    truth_calls = {x["name"]: x["calls"] for x in funcs if x["name"] in named}
    truth_arcs = {}
    for a in doc["arcs"]:
        caller = ROOT if a["caller"] is None else funcs[a["caller"]]["name"]
        callee = funcs[a["callee"]]["name"]
        if (caller == ROOT or caller in named) and callee in named:
            truth_arcs[(caller, callee)] = a["calls"]
    wrong = []

    def hold(view, arcs, calls=None, only=None):
        for k, n in sorted(arcs.items()):
            if k not in truth_arcs or (only and only not in k):
                continue
            if n != truth_arcs[k]:
                wrong.append("%s: %s -> %s %d calls / the JSON's %d" % (view, k[0], k[1], n,
                                                                       truth_arcs[k]))
        for k, n in sorted((calls or {}).items()):
            if k in truth_calls and (not only or k == only) and n != truth_calls[k]:
                wrong.append("%s: %s %d calls / the JSON's %d" % (view, k, n, truth_calls[k]))

    for waits in ("apart", "in"):
        rc, out, err = _profviz("report", "--top", "0", "--color", "never", "--waits", waits,
                                json_path)
        if rc:
            wrong.append("report --waits %s failed: %s" % (waits, err.strip()))
            continue
        hold("report --waits " + waits, _report_arcs(out), _report_calls(out))
    rc, out, err = _profviz("dot", "-n", "0", "-e", "0", "--nodes", "0", json_path)
    if rc:
        wrong.append("dot failed: %s" % err.strip())
    else:
        hold("profviz dot", *_dot_arcs(out))
    if dot_path and os.path.exists(dot_path):
        with open(dot_path) as f:
            hold("the runtime's prof.dot", *_dot_arcs(f.read()))
    hot = [x["name"] for x in sorted(funcs, key=lambda x: -x["total"][0])
           if x["name"] in named and x.get("kind") not in ("wait", "signal") and
           x["name"] != "main" and x["calls"]]
    if hot:
        rc, out, err = _profviz("report", "--top", "0", "--color", "never", "--focus",
                                "/^%s$/" % re.escape(hot[0]), json_path)
        if rc == 0:
            hold("report --focus " + hot[0], _report_arcs(out), _report_calls(out), only=hot[0])
    with tempfile.TemporaryDirectory() as d:
        cg = os.path.join(d, "p.callgrind")
        rc, out, err = _profviz("convert", json_path, cg)
        if rc:
            wrong.append("convert to callgrind failed: %s" % err.strip())
        else:
            with open(cg) as f:
                hold("callgrind", _callgrind_arcs(f.read()))
    return wrong
