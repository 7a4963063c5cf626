# SPDX-License-Identifier: MIT
"""Call counts from a callgrind output file: the ground truth for counts."""
import collections
import re


def arc_counts(path, obj=None):
    """{(caller name, callee name): times called}, summed over files, and
    over callgrind's recursion levels (it names the deeper ones "f'2").
    With obj, only the calls of functions in that object file (ld.so has a
    check_match of its own, and so may the program)."""
    names = {}
    counts = collections.Counter()
    caller = callee = None
    ob = cob = None

    def name_of(text, table=names):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), text)

    objects = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                ob = name_of(line[3:], objects)
            elif line.startswith("cob="):
                cob = name_of(line[4:], objects)
            elif line.startswith("fn="):
                caller = re.sub(r"'\d+$", "", name_of(line[3:]))
            elif line.startswith("cfn="):
                callee = re.sub(r"'\d+$", "", name_of(line[4:]))
            elif line.startswith("calls=") and callee is not None:
                if obj is None or (cob or ob) == obj:
                    counts[(caller, callee)] += int(line[6:].split()[0])
                callee = cob = None
    return counts


def call_counts(path, obj=None):
    """{function name: times called}, summed over callers and files, and
    over callgrind's recursion levels (it names the deeper ones "f'2");
    with obj, only the functions of that object file."""
    counts = collections.Counter()
    for (_, callee), n in arc_counts(path, obj).items():
        counts[callee] += n
    return counts


def compare_arcs(exe, profile, out):
    """Compare the profile's arcs between functions of exe with callgrind's
    output file out (left by compare). A call from code that is not
    instrumented (the C start-up calling main, a library calling back) is
    an arc from the program's root, whatever callgrind names its caller.
    Arcs are summed by name on both sides. Returns (arcs compared,
    differences)."""
    import os
    exe = os.path.realpath(exe)
    ours = {f["id"]: f["name"] for f in profile.funcs if f["module"] == exe}
    instrumented = set(ours.values())
    truth = collections.Counter()
    for (caller, callee), n in arc_counts(out).items():
        if callee in instrumented:
            truth[(caller if caller in instrumented else None, callee)] += n
    mine = collections.Counter()
    for a in profile.data["arcs"]:
        if a["callee"] in ours and (a["caller"] is None or a["caller"] in ours):
            mine[(ours.get(a["caller"]), ours[a["callee"]])] += a["calls"]
    wrong = ["%s -> %s: profviz %d, callgrind %d" % (k[0] or "(root)", k[1], mine[k], truth[k])
             for k in sorted(set(mine) | set(truth), key=lambda k: (k[0] or "", k[1]))
             if mine[k] != truth[k]]
    return len(mine), wrong


def compare(exe, profile, workdir, args=()):
    """Run exe under callgrind (no preload) in workdir and compare its call
    counts with the profile's, for the functions of exe itself. Functions
    sharing a name (a C++ destructor's variants, say) are summed on both
    sides, as callgrind names them. Returns (names compared, differences)."""
    import os
    import subprocess
    out = os.path.join(workdir, "callgrind.out")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe] +
                   list(args), cwd=workdir, env=env, capture_output=True, check=True)
    truth = call_counts(out)
    mine = collections.Counter()
    for f in profile.funcs:
        if f["module"] == os.path.realpath(exe):
            mine[f["name"]] += f["calls"]
    wrong = ["%s: profviz %d, callgrind %d" % (name, n, truth.get(name, 0))
             for name, n in sorted(mine.items()) if n != truth.get(name, 0)]
    return len(mine), wrong
