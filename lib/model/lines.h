/* SPDX-License-Identifier: MIT */
/*
 * lines.h — a function's hot lines: the program counters sampled in its
 * code, summed by source line (`profviz report --lines`, the JSON's
 * "lines"). The hottest few are kept; the rest of the function's samples
 * stay in one entry without a file, so that the shares of its lines are of
 * all the samples in its code.
 */
#ifndef PV_MODEL_LINES_H
#define PV_MODEL_LINES_H

#include <stdint.h>

/* The lines a function keeps, as perf annotate's summary shows a handful. */
#define PV_LINES_KEPT 16

struct pv_rline {
	char *file; /* NULL: elsewhere in the function (lines not kept, code without lines) */
	int line;   /* 0 when file is NULL */
	uint64_t samples;
};

struct pv_lines {
	struct pv_rline *v;
	unsigned n, cap;
};

/* Add samples to file:line (file copied; NULL: elsewhere, line ignored).
 * 0, or -1 when memory ran out (nothing added). */
int pv_lines_add(struct pv_lines *l, const char *file, int line, uint64_t samples);

/* Add every line of src to dst. 0, or -1 when memory ran out. */
int pv_lines_add_all(struct pv_lines *dst, const struct pv_lines *src);

/* Hottest first (ties by file, then line), at most keep lines with a file,
 * and the samples of all others in one entry without a file, last. */
void pv_lines_keep(struct pv_lines *l, unsigned keep);

/* All the samples in the function's code. */
uint64_t pv_lines_samples(const struct pv_lines *l);

void pv_lines_free(struct pv_lines *l);

#endif /* PV_MODEL_LINES_H */
