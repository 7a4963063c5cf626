# SPDX-License-Identifier: MIT
"""Every number a user reads is the profile's: the calls each view shows for
a function or an arc, held to the JSON's.

check(json_path, dot_path) reads one profile the way a user would, through
profviz report (its waits apart, and in), profviz dot with no thresholds,
report --focus of its hottest function, its callgrind file, its pprof file
(calls, and self cost per function), its folded stacks and speedscope file
(self cost per function, within their rounding to whole units), the data
its page embeds, and the runtime's own prof.dot when the run wrote one,
and returns what disagrees: a list of "view: what it shows / what the JSON
holds" lines, empty when every view agrees. A focus shows its function's arcs whole (every call of
the function or from it is inside the part); the arcs among the part's
other functions are the part's own, so only its function's are held to
the JSON. Functions whose name another one shares, or that a view
shortens, are left out: a view names them, and a name then says too
little."""
import collections
import gzip
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


def _fields(buf):
    """(field number, value) of a protobuf message: ints for varints, bytes
    for the length-delimited."""
    i = 0

    def varint():
        nonlocal i
        v = shift = 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if b < 0x80:
                return v
    while i < len(buf):
        key = varint()
        if key & 7 == 0:
            yield key >> 3, varint()
        elif key & 7 == 2:
            n = varint()
            yield key >> 3, buf[i:i + n]
            i += n
        else:
            raise ValueError("wire type %d" % (key & 7))


def _varints(value):
    """A repeated varint field's values: one (an int), or packed (bytes)."""
    if isinstance(value, int):
        return [value]
    out, v, shift = [], 0, 0
    for b in value:
        v |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            out.append(v)
            v = shift = 0
    return out


def _pprof_by_leaf(data):
    """{leaf function: [its samples' values summed, then how many]} of a
    pprof profile."""
    strings, samples, locs, funcs = [], [], {}, {}
    for f, v in _fields(data):
        if f == 6:
            strings.append(v.decode())
        elif f == 2:
            stack, values = [], []
            for g, w in _fields(v):
                (stack if g == 1 else values if g == 2 else []).extend(_varints(w))
            samples.append((stack, values))
        elif f == 4:
            x = dict((g, w) for g, w in _fields(v) if g != 4)
            lines = [dict(_fields(w)) for g, w in _fields(v) if g == 4]
            locs[x.get(1)] = lines[0].get(1) if lines else None
        elif f == 5:
            x = dict(_fields(v))
            funcs[x.get(1)] = x.get(2, 0)
    by_leaf = {}
    for stack, values in samples:
        name = strings[funcs[locs[stack[0]]]]
        sums = by_leaf.setdefault(name, [0] * (len(values) + 1))
        for i, v in enumerate(values):
            sums[i] += v
        sums[-1] += 1
    return by_leaf


def _stacks_by_leaf(stacks):
    """{leaf function: (summed value, stacks)} of (names, value) pairs."""
    out = {}
    for names, value in stacks:
        total, n = out.get(names[-1], (0, 0))
        out[names[-1]] = (total + value, n + 1)
    return out


def _folded(text):
    for line in text.splitlines():
        path, value = line.rsplit(" ", 1)
        yield path.split(";"), int(value)


def _speedscope(doc):
    """The first profile's samples, as (names, weight)."""
    frames = [x["name"] for x in doc["shared"]["frames"]]
    first = doc["profiles"][0]
    for stack, weight in zip(first["samples"], first["weights"]):
        yield [frames[i] for i in stack], weight


def _embedded_json(page):
    m = re.search(r'<script type="application/json" id="profile">(.*?)</script>', page, re.S)
    return json.loads(m.group(1)) if m else None


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
    truth_self = {x["name"]: x["self"][0] for x in funcs if x["name"] in named}

    def hold_self(view, by_leaf):
        """Self per function, each summed over stacks rounded to whole units."""
        for k, (got, n) in sorted(by_leaf.items()):
            if k in truth_self and abs(got - truth_self[k]) > n + 1e-6 * abs(truth_self[k]):
                wrong.append("%s: %s self %d / the JSON's %s" % (view, k, got, truth_self[k]))

    with tempfile.TemporaryDirectory() as d:
        files = {x: os.path.join(d, "p." + x) for x in
                 ("callgrind", "pb.gz", "folded", "speedscope.json")}
        for kind, path in files.items():
            rc, out, err = _profviz("convert", json_path, path)
            if rc:
                wrong.append("convert to %s failed: %s" % (kind, err.strip()))
                files[kind] = None
        if files["callgrind"]:
            with open(files["callgrind"]) as f:
                hold("callgrind", _callgrind_arcs(f.read()))
        if files["pb.gz"]:
            with gzip.open(files["pb.gz"]) as f:
                leaves = _pprof_by_leaf(f.read())
            hold("pprof", {}, {k: v[0] for k, v in leaves.items()})
            hold_self("pprof", {k: (v[1], v[-1]) for k, v in leaves.items() if len(v) > 2})
        if files["folded"]:
            with open(files["folded"]) as f:
                hold_self("folded", _stacks_by_leaf(_folded(f.read())))
        if files["speedscope.json"]:
            with open(files["speedscope.json"]) as f:
                hold_self("speedscope", _stacks_by_leaf(_speedscope(json.load(f))))
        page = os.path.join(d, "p.html")
        rc, out, err = _profviz("html", json_path, "-o", page)
        if rc:
            wrong.append("html failed: %s" % err.strip())
        else:
            with open(page) as f:
                shown = _embedded_json(f.read())
            if shown is None:
                wrong.append("the page: no profile embedded")
            else:
                shown_funcs = shown["functions"]
                hold("the page's data",
                     {(ROOT if a["caller"] is None else shown_funcs[a["caller"]]["name"],
                       shown_funcs[a["callee"]]["name"]): a["calls"] for a in shown["arcs"]},
                     {x["name"]: x["calls"] for x in shown_funcs})
    return wrong
