#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JSON profile's schema, lib/output/profviz-1.schema.json, as the one
contract of its writer (lib/output/json.c) and its reader (lib/cmd/load.c):
profiles the runtime and the command write, in every shape, hold to it; every
key the reader reads is declared where it reads it, and every field the schema
requires is one the reader reads or one it calls informational; files the
schema refuses the reader refuses too; older revisions validate as the reader
takes them."""
import copy
import glob
import json
import os
import re
import tempfile
import jsonschema
import harness as h

# The subject is the shapes of profiles whose times the hooks read (tests/t_sampled_outputs.py validates sampled ones): times read by the hooks.
h.hook_time()

t = h.Tap()
PROFVIZ = os.path.join(h.ROOT, "profviz")
SCHEMA_PATH = os.path.join(h.ROOT, "lib", "output", "profviz-1.schema.json")
LOADER = os.path.join(h.ROOT, "lib", "cmd", "load.c")
CORPUS = sorted(glob.glob(os.path.join(h.ROOT, "tests", "fuzz", "corpus_load", "*.json")))
tmp = tempfile.mkdtemp(prefix="profviz-schema-")

with open(SCHEMA_PATH) as f:
    SCHEMA = json.load(f)
DEFS = SCHEMA["$defs"]
validator = jsonschema.Draft202012Validator(SCHEMA)


load = h.load_json


errors = h.schema_errors


def profviz(*args):
    return h.command(*args, cwd=tmp)


def write(name, doc):
    return h.write_json(tmp, name, doc)


def holds(path, what):
    """path is valid by the schema, and the reader reads it."""
    errs = errors(load(path))
    t.ok(not errs, "%s: valid by the schema" % what, "\n".join(errs))
    r = profviz("report", path)
    t.ok(r.returncode == 0, "%s: profviz report reads it" % what, r.stderr)


t.ok(validator.check_schema(SCHEMA) is None, "the schema is a valid draft 2020-12 schema")

# ---- (1) what the runtime and the command write ----
basic = h.build("basic", flags=h.NO_INLINE)


def named(prefix):
    """The profile has a function whose name starts so."""
    return lambda d: any(f["name"].startswith(prefix) for f in d["functions"])


# name: (argv, environment, what makes the profile of that shape)
shapes = {
    "one thread, tsc": ([basic, "5", "1"], {}, lambda d: d["kinds"] == ["time"]),
    "one thread, not compensated": ([basic, "5", "1"], {"PROFVIZ_COMPENSATE": "0"},
                                    lambda d: d["compensated"] is False),
    "threads": ([h.build("threads", flags=h.NO_INLINE + ["-pthread"]), "4", "2000", "0"], {},
                lambda d: len(d["per_thread"]) > 1),
    "task-clock,page-faults, with waits":
        ([h.build("waits", flags=h.NO_INLINE + ["-pthread"])],
         {"PROFVIZ_EVENTS": "task-clock,page-faults"}, named("<blocked: ")),
    "signals": ([h.build("signals", flags=h.NO_INLINE), "300000"], {}, named("<signal ")),
    "cycles": ([basic, "5", "1"], {"PROFVIZ_EVENTS": "cycles"},
               lambda d: d["kinds"] == ["cycles"]),
}
written = {}
for what, (argv, env, shaped) in shapes.items():
    with t.case(what):
        r = h.run(argv, env=env, outputs="prof.json")
        if b"cannot be counted" in r.stderr:
            t.skip(what + ": valid by the schema", "its events cannot be counted here")
            continue
        written[what] = r.file("prof.json")
        t.ok(shaped(load(written[what])), "%s: the profile has that shape" % what)
        holds(written[what], what)

with t.case("a fork tree, and its merge"):
    run = h.run([h.build("dm_fork", flags=h.NO_INLINE)], outputs="prof.%p.json")
    inputs = sorted(glob.glob(run.file("prof.*.json")))
    t.eq(len(inputs), 4, "dm_fork: the parent and its three forked children wrote profiles")
    # A child goes on from the parent's main, which it does not enter again.
    children = [p for p in inputs
                if not any(f["name"] == "main" and f["calls"] == 1 for f in load(p)["functions"])]
    t.eq(len(children), 3, "... three of them from forked children, which never entered main")
    for i, p in enumerate(children):
        holds(p, "forked child %d" % (i + 1))
    merged = os.path.join(tmp, "merged.json")
    r = profviz("merge", "-o", merged, *inputs)
    t.ok(r.returncode == 0 and "processes" in load(merged), "profviz merge wrote a merged profile",
         r.stderr)
    holds(merged, "merged")
    written["merged"] = merged

with t.case("a function's hot lines"):
    hot = load(written["one thread, tsc"])
    hot["functions"][0]["lines"] = [{"file": "a.c", "line": 12, "samples": 30},
                                    {"file": None, "line": 0, "samples": 2}]
    holds(write("hot_lines.json", hot), "a function with hot lines")

with t.case("written again from an older revision"):
    again = os.path.join(tmp, "again.json")
    r = profviz("convert", CORPUS[0], again)
    t.ok(r.returncode == 0 and load(again)["revision"] == 6,
         "convert: revision 2 read, revision 5 written", r.stderr)
    holds(again, "revision 5 from " + os.path.basename(CORPUS[0]))


# ---- (2) the reader holds to the schema ----
# The reader's helpers that take a key: member(rd, obj, "key", ...),
# count_of, text_of, values_of, values_or, real_or(obj, "key", ...) and
# jansson's json_object_get(obj, "key"). A new helper must be added here.
KEY_HELPERS = {"json_object_get", "member", "count_of", "text_of", "values_of", "values_or",
               "real_or", "count_or", "amount_or"}
# Which schema object each reading function's variable holds.
PLACES = {
    ("read_events", "root"): "root", ("read_profile", "root"): "root",
    ("read_profile", "losses"): "losses", ("read_compensation", "root"): "root",
    ("read_compensation", "o"): "overhead", ("read_threads", "root"): "root",
    ("read_threads", "t"): "thread", ("read_processes", "root"): "root",
    ("read_processes", "p"): "process", ("read_function", "f"): "function",
    ("read_arc", "a"): "arc", ("read_path", "p"): "path",
    ("read_sampling", "root"): "root", ("read_sampling", "s"): "sampling",
    ("read_lines", "f"): "function", ("read_lines", "x"): "hot_line",
    ("read_groups", "root"): "root", ("read_groups", "e"): "thread_group",
}


def loader_functions(source):
    """{name: body} of each function defined in a C file."""
    out = {}
    for m in re.finditer(r"^[a-z][^\n;]*?\b(\w+)\(([^)]*)\)\n\{\n(.*?)\n\}$", source, re.S | re.M):
        out[m.group(1)] = (m.group(2), m.group(3))
    return out


def keys_read(source):
    """{(function, variable): set of keys} the reader reads, and the helpers
    that take a key but are not in KEY_HELPERS."""
    funcs = loader_functions(source)
    helpers = {name for name, (params, _) in funcs.items() if "const char *key" in params}
    found = {}
    for name, (_, body) in funcs.items():
        if name in helpers:
            continue  # their key is a parameter
        for m in re.finditer(r"\b(\w+)\((?:rd, )?(\w+), (\"\w+\"|(\w+)\[\w+\])", body):
            if m.group(1) not in KEY_HELPERS:
                continue
            if m.group(4):  # a key from an array in this function: keys[k]
                array = re.search(r"\b%s\[\] = \{([^}]*)\}" % m.group(4), body)
                keys = re.findall(r"\"(\w+)\"", array.group(1)) if array else ["?" + m.group(4)]
            else:
                keys = [m.group(3).strip('"')]
            found.setdefault((name, m.group(2)), set()).update(keys)
    return found, helpers - KEY_HELPERS


# The words load.c quotes that are no key: a unit, a backend, jansson's type names.
NOT_KEYS = {"ns", "tsc", "true", "false", "null", "missing"}


def schema_object(place):
    return SCHEMA if place == "root" else \
        SCHEMA["properties"][place] if place in ("overhead", "losses", "sampling") else \
        DEFS[place]


def latest_required(place):
    """What revisions 3 to 5 require of place, together."""
    lists = {"function": "functions", "thread": "per_thread", "arc": "arcs", "path": "paths",
             "process": "processes"}
    out = set()
    for rev in ("revision_3", "revision_4", "revision_5"):
        r = DEFS[rev]
        if place == "root":
            out |= set(r["required"])
            continue
        p = r.get("properties", {}).get(lists.get(place, place), {})
        out |= set(p.get("items", {}).get("required", []) if place in lists else
                   p.get("required", []))
    return out


with t.case("the reader's keys"):
    with open(LOADER) as f:
        source = f.read()
    found, unknown_helpers = keys_read(source)
    t.eq(sorted(unknown_helpers), [], "every helper of load.c that takes a key is one this test "
         "knows")
    t.eq(sorted(set(found) - set(PLACES)), [], "every object load.c reads keys of is one this "
         "test places in the schema")
    words = set(re.findall(r"\"(\w+)\"", source))
    t.eq(sorted(words - set().union(*found.values()) - NOT_KEYS), [],
         "every word load.c quotes is a key found read, or known to be no key")
    read = {}
    for where, keys in found.items():
        read.setdefault(PLACES.get(where, "?"), set()).update(keys)
    for place in sorted(read):
        undeclared = sorted(read[place] - set(schema_object(place)["properties"]))
        t.eq(undeclared, [], "every key load.c reads of %s is declared there" % place)
    for place in sorted(read):
        props = schema_object(place)["properties"]
        required = set(schema_object(place).get("required", [])) | latest_required(place)
        unread = sorted(k for k in required - read[place]
                        if not props[k].get("description", "").startswith("Informational"))
        t.eq(unread, [], "every field the schema requires of %s is read, or said to be "
             "informational" % place)
        for k in props:
            if k not in read[place]:
                t.ok(props[k].get("description", "").startswith("Informational"),
                     "%s.%s, which load.c does not read, is said to be informational" %
                     (place, k))

# ---- (3) what the schema refuses, the reader refuses ----
with t.case("refused by both"):
    base = load(written["one thread, tsc"])
    merged = load(written["merged"])

    def mutated(doc, change):
        d = copy.deepcopy(doc)
        change(d)
        return d

    cases = {
        "a count that is a string": mutated(base, lambda d: d["functions"][0].update(calls="7")),
        "a negative cost": mutated(base, lambda d: d["functions"][0]["self"].__setitem__(0, -5)),
        "run_total not an array": mutated(base, lambda d: d.update(run_total=5)),
        "no units": mutated(base, lambda d: d.pop("units")),
        "no events": mutated(base, lambda d: d.update(events=[], units=[], kinds=[])),
        "a function without self": mutated(base, lambda d: d["functions"][0].pop("self")),
        "a function without name": mutated(base, lambda d: d["functions"][0].pop("name")),
        "an arc without callee": mutated(base, lambda d: d["arcs"][0].pop("callee")),
        "an arc to function -1": mutated(base, lambda d: d["arcs"][0].update(callee=-1)),
        "a path whose parent is a string":
            mutated(base, lambda d: d["paths"][1].update(parent="0")),
        "an unknown kind": mutated(base, lambda d: d["kinds"].__setitem__(0, "watts")),
        "another format": mutated(base, lambda d: d.update(format="profviz-2")),
        "a thread without calls": mutated(base, lambda d: d["per_thread"][0].pop("calls")),
        "a merged process without program":
            mutated(merged, lambda d: d["processes"][0].pop("program")),
        "samples that are a string":
            mutated(base, lambda d: d["functions"][0].update(samples="7")),
        "a negative path's samples": mutated(base, lambda d: d["paths"][0].update(samples=-1)),
        "an unknown kind of function":
            mutated(base, lambda d: d["functions"][0].update(kind="idle")),
        "sampling that is no object": mutated(base, lambda d: d.update(sampling=[1000])),
        "a negative sampling rate":
            mutated(base, lambda d: d["sampling"].update(rate_hz=-1)),
        "a sampling count that is a string":
            mutated(base, lambda d: d["sampling"].update(looks="12")),
        "hot lines that are no array": mutated(base, lambda d: d["functions"][0].update(
            lines={"file": "a.c", "line": 1, "samples": 1})),
        "a hot line whose file is a number": mutated(base, lambda d: d["functions"][0].update(
            lines=[{"file": 5, "line": 1, "samples": 1}])),
        "a hot line without samples": mutated(base, lambda d: d["functions"][0].update(
            lines=[{"file": "a.c", "line": 1}])),
    }
    for what, doc in cases.items():
        path = write(re.sub(r"\W+", "_", what) + ".json", doc)
        t.ok(errors(doc), "%s: the schema refuses it" % what)
        r = profviz("report", path)
        lines = r.stderr.strip().splitlines()
        t.ok(r.returncode == 2 and len(lines) == 1 and path in lines[0],
             "%s: profviz report refuses it too (exit 2, one line)" % what,
             "rc %d, stderr %r" % (r.returncode, r.stderr))

# ---- (4) older revisions, as the reader still takes them ----
with t.case("older revisions"):
    for path in CORPUS:
        what = os.path.basename(path)
        t.ok(load(path).get("revision", 1) < 3 and "kinds" not in load(path),
             "%s: an older revision, without kinds" % what)
        holds(path, what)
    base = load(written["one thread, tsc"])
    # As the first writer wrote them: no revision, call paths, compensation,
    # raw costs, losses, threads, addresses or nested calls; one "backend".
    first = {k: base[k] for k in ("format", "program", "pid", "events", "backends", "units",
                                  "running_ratio", "run_total", "threads", "wall_seconds",
                                  "stray_exits", "resyncs")}
    first["backend"] = base["backends"][0]
    first["functions"] = [{k: f[k] for k in ("id", "name", "module", "file", "line", "calls",
                                              "self", "total") if k in f}
                          for f in base["functions"]]
    first["arcs"] = [{k: a[k] for k in ("caller", "callee", "calls", "total")}
                     for a in base["arcs"]]
    holds(write("first.json", first), "revision 1 as first written")
    rev1 = {k: v for k, v in base.items() if k != "paths"}
    rev1["revision"] = 1
    holds(write("rev1.json", rev1), "revision 1 with kinds")

    def refused(doc, what):
        t.ok(errors(doc), "the schema refuses %s" % what)
    refused({k: v for k, v in base.items() if k != "kinds"}, "revision 4 without kinds")
    refused({k: v for k, v in base.items() if k != "sampling"}, "revision 4 without sampling")
    refused(dict(base, functions=[{k: v for k, v in f.items() if k != "samples"}
                                  for f in base["functions"]]),
            "revision 4 without a function's samples")
    # Revision 3: no sampling, no samples, no kinds of function.
    rev3 = {k: v for k, v in base.items() if k != "sampling"}
    rev3["revision"] = 3
    rev3["functions"] = [{k: v for k, v in f.items() if k not in ("kind", "samples")}
                         for f in base["functions"]]
    rev3["paths"] = [{k: v for k, v in p.items() if k != "samples"} for p in base["paths"]]
    holds(write("rev3.json", rev3), "revision 3 as written before sampling")
    refused(dict(base, backend="tsc"), "revision 3 with backend")
    refused(dict(rev1, revision=2), "revision 2 without paths")
    refused(dict(base, compensated=False), "overhead when not compensated")
    refused({k: v for k, v in base.items() if k != "overhead"}, "no overhead when compensated")
    refused(dict(base, functions=[dict(base["functions"][0], inlined=True)]),
            "a field it does not declare")
t.done()
