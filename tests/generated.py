# SPDX-License-Identifier: MIT
"""Programs too large to keep as source, written at build time into
build/progs/gen and rebuilt only when their text changes: the tests check
what profviz makes of them, and bench/scale.py how long it takes."""
import os
import shutil
import harness as h

GEN = os.path.join(h.BUILD, "gen")


def _built(name, text, compiler="gcc", flags=()):
    os.makedirs(GEN, exist_ok=True)
    path = os.path.join(GEN, name + ".c")
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return h.build(name, sources=[path], compiler=compiler, flags=flags)


# 20,000 functions, 120,000 distinct arcs. fN(1) calls five others through
# an uninstrumented fan-out, so each arc is fN -> f(N+offset): main calls
# every fN(1) once, and each function is called back by five others.
MANY_N = 20000
MANY_OFFSETS = [1, 7, 97, 1009, 10007]
MANY_SOURCE = "\n".join(
    ["#define N %d" % MANY_N,
     "static volatile int sink;",
     "typedef void fn_t(int);",
     "extern fn_t *const table[N];",
     "static const int offsets[] = { %s };" % ", ".join(map(str, MANY_OFFSETS)),
     "__attribute__((no_instrument_function)) static void fan_out(int n)",
     "{",
     "\tfor (unsigned k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++)",
     "\t\ttable[(n + offsets[k]) % N](0);",
     "}",
     "#define F(n) void f##n(int d) { sink += d; if (d) fan_out(n); }"] +
    ["F(%d)" % i for i in range(MANY_N)] +
    ["fn_t *const table[N] = { %s };" % ", ".join("f%d" % i for i in range(MANY_N)),
     "int main(void)",
     "{",
     "\tfor (int i = 0; i < N; i++)",
     "\t\ttable[i](1);",
     "\treturn 0;",
     "}"]) + "\n"


def many_functions():
    """The 20,000-function program (clang compiles it several times faster)."""
    compiler = "clang" if shutil.which("clang") else "gcc"
    return _built("many_functions", MANY_SOURCE, compiler=compiler, flags=["-O0"])


# ~700 functions in a tree, each calling the next three: every one a box in
# the graph of `profviz html -n 0 -e 0`.
TREE_N = 700
TREE_SOURCE = "\n".join(
    ["#include <stdio.h>", "static volatile unsigned long sink;"] +
    ["void fn_%03d(int r);" % i for i in range(TREE_N)] +
    ["void fn_%03d(int r)\n{\n\tfor (int k = 0; k < %d * r; k++)\n\t\tsink += k;\n%s}"
     % (i, i % 7 + 1, "".join("\tfn_%03d(r);\n" % c for c in (3 * i + 1, 3 * i + 2, 3 * i + 3)
                              if c < TREE_N))
     for i in range(TREE_N)] +
    ["int main(void)\n{\n\tfor (int i = 0; i < 20; i++)\n\t\tfn_000(1 + i % 3);\n"
     "\tprintf(\"%lu\\n\", sink);\n\treturn 0;\n}"]) + "\n"


def page_tree():
    """The 700-function tree, for a large page."""
    return _built("vw_many", TREE_SOURCE, flags=h.NO_INLINE)


# main calling 100 functions of equal work: each about 1 % of the run,
# every one over the graph's node threshold, so the cap on boxes decides.
FAN_N = 100
FAN_SOURCE = "\n".join(
    ["#include <stdio.h>", "static volatile unsigned long sink;"] +
    ["void leaf_%03d(void)\n{\n\tfor (int k = 0; k < 200000; k++)\n\t\tsink += k ^ %d;\n}" % (i, i)
     for i in range(FAN_N)] +
    ["int main(void)\n{"] + ["\tleaf_%03d();" % i for i in range(FAN_N)] +
    ["\tprintf(\"%lu\\n\", sink);\n\treturn 0;\n}"]) + "\n"


def wide_fan():
    """main and its 100 equal callees, for the cap on a graph's boxes."""
    return _built("wide_fan", FAN_SOURCE, flags=h.NO_INLINE)
