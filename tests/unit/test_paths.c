/* SPDX-License-Identifier: MIT */
/* Source paths normalised lexically, as tooltips and the JSON show them. */
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "tap.h"

static void normalises(const char *in, const char *want)
{
	char *p = strdup(in);
	pv_path_normalise(p);
	tap_ok(!strcmp(p, want), "\"%s\" -> \"%s\" (got \"%s\")", in, want, p);
	free(p);
}

int main(void)
{
	normalises("../lib/compress/../common/mem.h", "../lib/common/mem.h");
	normalises("/usr/src/zstd/lib/../programs/./zstdcli.c", "/usr/src/zstd/programs/zstdcli.c");
	normalises("a//b///c.c", "a/b/c.c");
	normalises("./x.c", "x.c");
	normalises("a/../../b.c", "../b.c");
	normalises("../../a/../b.c", "../../b.c");
	normalises("/../x.c", "/x.c");
	normalises("/a/b/../../..", "/");
	normalises("a/..", ".");
	normalises("dir/", "dir");
	normalises("/", "/");
	normalises("prog.c", "prog.c");
	normalises("..x/.y/..", "..x");
	return tap_done();
}
