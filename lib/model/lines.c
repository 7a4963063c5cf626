/* SPDX-License-Identifier: MIT */
#include "model/lines.h"

#include <stdlib.h>
#include <string.h>

static int same_place(const struct pv_rline *x, const char *file, int line)
{
	if (!x->file || !file)
		return !x->file && !file;
	return x->line == line && !strcmp(x->file, file);
}

int pv_lines_add(struct pv_lines *l, const char *file, int line, uint64_t samples)
{
	if (!file)
		line = 0;
	for (unsigned i = 0; i < l->n; i++)
		if (same_place(&l->v[i], file, line)) {
			l->v[i].samples += samples;
			return 0;
		}
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct pv_rline *more = realloc(l->v, cap * sizeof(*more));
		if (!more)
			return -1;
		l->v = more;
		l->cap = cap;
	}
	char *copy = file ? strdup(file) : NULL;
	if (file && !copy)
		return -1;
	l->v[l->n++] = (struct pv_rline){ copy, line, samples };
	return 0;
}

int pv_lines_add_all(struct pv_lines *dst, const struct pv_lines *src)
{
	for (unsigned i = 0; i < src->n; i++)
		if (pv_lines_add(dst, src->v[i].file, src->v[i].line, src->v[i].samples) < 0)
			return -1;
	return 0;
}

/* Hottest first; lines without a file after those with one. */
static int hottest_first(const void *a, const void *b)
{
	const struct pv_rline *x = a, *y = b;
	if (!x->file != !y->file)
		return x->file ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (!x->file)
		return 0;
	int c = strcmp(x->file, y->file);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

void pv_lines_keep(struct pv_lines *l, unsigned keep)
{
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), hottest_first);
	unsigned with_file = 0;
	while (with_file < l->n && l->v[with_file].file)
		with_file++;
	if (with_file <= keep)
		return; /* at most one entry without a file, already last */
	/* The first line cut off becomes "elsewhere", with the rest. */
	struct pv_rline *rest = &l->v[keep];
	free(rest->file);
	rest->file = NULL;
	rest->line = 0;
	for (unsigned i = keep + 1; i < l->n; i++) {
		rest->samples += l->v[i].samples;
		free(l->v[i].file);
	}
	l->n = keep + 1;
}

uint64_t pv_lines_samples(const struct pv_lines *l)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < l->n; i++)
		n += l->v[i].samples;
	return n;
}

void pv_lines_free(struct pv_lines *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->v[i].file);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
