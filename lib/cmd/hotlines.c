/* SPDX-License-Identifier: MIT */
/*
 * hotlines.c — `profviz report --lines FUNC`: one function's hot lines, each
 * line's share of the samples that landed in its code, hottest first, with
 * the line's source text, as perf annotate's sorted summary.
 */
#define _GNU_SOURCE
#include "cmd/hotlines.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"

/* How much of a source line is shown beside its figures. */
#define PV_SOURCE_SHOWN 72

/* The text of each kept line whose file can be read here (NULL where not):
 * each file read once, whatever number of its lines is wanted. */
static void source_texts(const struct pv_lines *l, char **text)
{
	for (unsigned i = 0; i < l->n; i++) {
		const char *file = l->v[i].file;
		int first_of_file = file && !text[i];
		for (unsigned j = 0; j < i && first_of_file; j++)
			first_of_file = !l->v[j].file || strcmp(l->v[j].file, file);
		FILE *in = first_of_file ? fopen(file, "re") : NULL;
		if (!in)
			continue;
		char *row = NULL;
		size_t size = 0;
		for (int lineno = 1; getline(&row, &size, in) >= 0; lineno++)
			for (unsigned j = i; j < l->n; j++)
				if (l->v[j].file && l->v[j].line == lineno && !text[j] &&
				    !strcmp(l->v[j].file, file))
					text[j] = strndup(row + strspn(row, " \t"),
							  strcspn(row + strspn(row, " \t"), "\r\n"));
		free(row);
		fclose(in);
	}
}

static void print_lines(const struct pv_lines *l, int colour)
{
	uint64_t all = pv_lines_samples(l);
	char **text = calloc(l->n + 1, sizeof(*text));
	if (text)
		source_texts(l, text);
	int width = 4;
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i].file) {
			int w = snprintf(NULL, 0, "%s:%d", pv_path_base(l->v[i].file), l->v[i].line);
			width = w > width ? w : width;
		}
	printf("%7s %9s  %-*s  source\n", "share", "samples", width, "line");
	for (unsigned i = 0; i < l->n; i++) {
		const struct pv_rline *x = &l->v[i];
		double pct = 100.0 * (double)x->samples / (double)all;
		printf("%s%6.2f%% %9" PRIu64 "  ", pv_heat(colour, pct), pct, x->samples);
		if (!x->file) {
			printf("(elsewhere in the function: other lines, code without lines)%s\n",
			       pv_plain(colour));
			continue;
		}
		char where[600];
		snprintf(where, sizeof(where), "%s:%d", pv_path_base(x->file), x->line);
		printf("%-*s%s", width, where, pv_plain(colour));
		if (text && text[i])
			printf("  %.*s%s", PV_SOURCE_SHOWN, text[i],
			       strlen(text[i]) > PV_SOURCE_SHOWN ? "..." : "");
		putchar('\n');
	}
	for (unsigned i = 0; text && i < l->n; i++)
		free(text[i]);
	free(text);
}

int pv_print_hot_lines(const struct pv_loaded *l, const char *func, int colour)
{
	const struct pv_report *r = &l->r;
	char *chosen = calloc(r->n_funcs + 1, 1);
	if (!chosen) {
		fprintf(stderr, "profviz report: out of memory\n");
		return -1;
	}
	int copies = pv_find_functions(r, func, l->path, chosen);
	unsigned sampled = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		sampled += r->funcs[i].lines.n > 0;
	if (copies > 0 && !sampled)
		fprintf(stderr, "profviz: %s: no hot lines: the run sampled no program counters\n",
			l->path);
	struct pv_lines lines = { 0 };
	const struct pv_rfunc *f = NULL;
	int status = copies > 0 && sampled ? 0 : -1;
	for (unsigned i = 0; i < r->n_funcs && !status; i++) {
		if (!chosen[i])
			continue;
		f = f ? f : &r->funcs[i];
		if (pv_lines_add_all(&lines, &r->funcs[i].lines) < 0) {
			fprintf(stderr, "profviz report: out of memory\n");
			status = -1;
		}
	}
	free(chosen);
	if (status < 0) {
		pv_lines_free(&lines);
		return -1;
	}
	pv_lines_keep(&lines, PV_LINES_KEPT); /* copies may keep different lines */
	uint64_t n = pv_lines_samples(&lines);
	printf("%s (pid %d): the hot lines of %s", r->program, r->pid, f->sym.name);
	if (f->sym.file)
		printf("  (%s:%d)", pv_path_base(f->sym.file), f->sym.line);
	if (copies > 1)
		printf(", its %d copies together", copies);
	if (!n)
		printf("\nno sample landed in its code\n");
	else
		/* A share p of n samples is good to about sqrt(p(1-p)/n): at most this. */
		printf("\n%" PRIu64 " sample%s landed in its code (a share is good to about "
		       "%.1f points or better)%s\n\n", n, n == 1 ? "" : "s", 50.0 / sqrt((double)n),
		       n < PV_FEW_SAMPLES ? "; too few to tell its lines apart" : "");
	if (n)
		print_lines(&lines, colour);
	pv_lines_free(&lines);
	return 0;
}
