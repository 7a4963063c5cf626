/* SPDX-License-Identifier: MIT */
/*
 * folded.c — folded stacks, for flame graphs: one line per call path,
 * "root;caller;callee value", where the value is the path's self cost in the
 * first event's unit. flamegraph.pl, inferno and speedscope read it.
 * Recursion is folded as in the call-path trees: f;f;f shows as f.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/format.h"

/* A frame's name, with the format's separators replaced. */
static void put_name(FILE *out, const char *name)
{
	for (const char *c = name; *c; c++)
		fputc(*c == ';' ? ':' : *c == '\n' ? ' ' : *c, out);
}

int pv_write_folded(FILE *out, const struct pv_report *r)
{
	int *chain = malloc((r->n_paths ? r->n_paths : 1) * sizeof(int));
	if (!chain)
		return -1;
	for (unsigned i = 0; i < r->n_paths; i++) {
		if (!r->paths[i].self[0])
			continue;
		unsigned depth = 0;
		for (int at = (int)i; at >= 0 && depth < r->n_paths; at = r->paths[at].parent)
			chain[depth++] = at;
		while (depth-- > 0) {
			put_name(out, r->funcs[r->paths[chain[depth]].func].sym.name);
			fputc(depth ? ';' : ' ', out);
		}
		fprintf(out, "%" PRIu64 "\n", r->paths[i].self[0]);
	}
	free(chain);
	return ferror(out) ? -1 : 0;
}
