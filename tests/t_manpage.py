#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man page (make man: help2man from `profviz help all`) against what it
documents, so that the two cannot drift: every command `profviz --help`
lists has its section, with its synopsis and every option and description
of its own --help; every PROFVIZ_* variable of the runtime's table
(lib/output/variables.c, held to the parser by test_config) is in
ENVIRONMENT with what it accepts and its default, and so is the command's
PROFVIZ_SO; no other variable is named; the README's table lists the same
variables; the version is the command's; and groff and man render it
without a warning."""
import os
import re
import shutil
import subprocess
import harness as h

t = h.Tap()
PAGE = os.path.join(h.ROOT, "build", "man", "profviz.1")
TABLE = os.path.join(h.ROOT, "lib", "output", "variables.c")
# Named by the man page, not read by the runtime: the command's own, and
# the header's macro.
OTHER_VARIABLES = {"PROFVIZ_SO", "PROFVIZ_NO_INSTRUMENT"}


def words(text):
    """text with every run of white space one space, for comparing flowed
    paragraphs."""
    return " ".join(text.split())


def profviz(*args):
    r = h.command(*args)
    if r.returncode != 0:
        raise RuntimeError("profviz %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


r = subprocess.run(["make", "-s", "--no-print-directory", "-C", h.ROOT, "man"],
                   capture_output=True, text=True, timeout=300)
t.ok(r.returncode == 0 and os.path.exists(PAGE), "make man", r.stdout + r.stderr)

with t.case("renders without warnings"):
    r = subprocess.run(["groff", "-man", "-ww", "-z", PAGE], capture_output=True, text=True)
    t.ok(r.returncode == 0 and r.stderr == "", "groff -ww -z: no warning", r.stderr)
    r = subprocess.run(["man", "--warnings", "-l", PAGE], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="80"))
    t.ok(r.returncode == 0 and r.stderr == "" and "PROFVIZ(1)" in r.stdout,
         "man --warnings -l: no warning", r.stderr)

# The page as text, unhyphenated, on long lines; then its sections.
rendered = subprocess.run(["groff", "-man", "-Tascii", "-rHY=0", "-rLL=250n", PAGE],
                          capture_output=True, text=True, check=True).stdout
text = re.sub(r".\x08", "", rendered)  # overstriking: bold and underline
SECTION = re.compile(r"^([A-Z][A-Z ]+)$", re.M)
sections = dict(zip(SECTION.findall(text), SECTION.split(text)[2::2]))
description = sections.get("DESCRIPTION", "")
environment = words(sections.get("ENVIRONMENT", ""))

with t.case("header"):
    version = profviz("--version").split()[1]
    t.ok(re.search(r'^\.TH PROFVIZ "1" "[^"]+" "profviz %s"' % re.escape(version),
                   open(PAGE).read(), re.M), "the page's header gives profviz --version's version")
    t.eq(words(sections.get("SYNOPSIS", "")),
         "profviz COMMAND [ARGS...] profviz help [COMMAND | variables | all] profviz --version",
         "SYNOPSIS from profviz --help's usage")

with t.case("commands"):
    overview = profviz("--help")
    commands = re.findall(r"^  ([a-z]+)  +(\S.*)$", overview, re.M)
    t.ok(len(commands) >= 9, "profviz --help lists the commands", overview)
    # Each command's part of DESCRIPTION: from its "profviz NAME:" to the next.
    parts = dict(zip(re.findall(r"^   profviz ([a-z]+):$", description, re.M),
                     re.split(r"^   profviz [a-z]+:$", description, flags=re.M)[1:]))
    t.eq(sorted(parts), sorted(c for c, _ in commands),
         "a section for every command profviz --help lists, and no other")
    for name, summary in commands:
        t.ok(words(summary) in words(description), "%s: its summary" % name)
        own = profviz(name, "--help")
        part = words(parts.get(name, ""))
        synopsis = words(re.split(r"\n(?! {10})", re.sub(r"^usage: ", "", own), 1)[0])
        t.ok(part.startswith(synopsis), "%s: its synopsis" % name,
             "%r\n%r" % (synopsis, part[:200]))
        options = re.findall(r"^ {1,4}(-\S.*?)(?:  +|\n {20,})(\S.*(?:\n {10,}\S.*)*)", own, re.M)
        if name not in ("help", "version", "dump", "reset", "start", "stop"):
            t.ok(options, "%s: its --help lists options" % name)
        missing = [o for o, d in options if words(o + " " + d) not in part]
        t.eq(missing, [], "%s: every option of its --help, with what it does" % name)
        prose = [l for l in own.splitlines()[1:] if l and not l.startswith(" ")]
        t.eq([l for l in prose if words(l) not in part], [],
             "%s: every line of its description" % name)

with t.case("variables"):
    table = re.findall(r'^\t\{ "(PROFVIZ_[A-Z_]+)",', open(TABLE).read(), re.M)
    t.ok(len(table) >= 13, "the runtime's table of variables, read from %s" %
         os.path.relpath(TABLE, h.ROOT), table)
    documented = re.findall(r"^       (PROFVIZ_[A-Z_]+)$", sections.get("ENVIRONMENT", ""),
                            re.M)
    t.eq(documented, table + ["PROFVIZ_SO"],
         "ENVIRONMENT: the table's variables in its order, then the command's PROFVIZ_SO")
    told = profviz("help", "variables")
    entries = re.findall(r"^  (PROFVIZ_[A-Z_]+) +(\S.*(?:\n {26}\S.*)*)", told, re.M)
    t.eq([n for n, _ in entries], documented, "profviz help variables lists the same")
    for name, entry in entries:
        t.ok(re.search(r"\. Default: \S", words(entry)), "%s: a default" % name, entry)
        t.ok(words(name + " " + entry) in environment,
             "%s: what it accepts and its default, in ENVIRONMENT" % name)
    named = set(re.findall(r"PROFVIZ_[A-Z_]*[A-Z]", text))
    t.eq(sorted(named - set(table) - OTHER_VARIABLES), [],
         "the page names no variable that is not read")
    readme = open(os.path.join(h.ROOT, "README.md")).read()
    readme_table = re.findall(r"^\| `(PROFVIZ_[A-Z_]+)` \|", readme, re.M)
    t.eq(readme_table, table, "the README's Configuration table lists the same, in that order")

with t.case("files"):
    files = words(sections.get("FILES", ""))
    t.ok("/lib/profviz/profviz.so" in files and "/include/profviz.h" in files,
         "FILES: the runtime and the header, where make install puts them", files)
t.done()
