/* SPDX-License-Identifier: MIT */
/*
 * speedscope.c — speedscope's own file format (.speedscope.json, schema
 * https://www.speedscope.app/file-format-schema.json), read by speedscope's
 * web page and its command. One frame per function, shared; one "sampled"
 * profile per event, whose samples are the call paths with self cost in that
 * event, each weighted by that cost. Integers only: the costs are counts or
 * nanoseconds.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/format.h"
#include "base/utf8.h"

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	pv_json_text(out, s);
	fputc('"', out);
}

/* The paths in depth-first order, siblings in the order of paths[]: the
 * "time order" view then draws each subtree's samples side by side, as one
 * flame graph, instead of scattering them. The number of paths, or -1. */
static int depth_first(const struct pv_report *r, int *order)
{
	unsigned n = r->n_paths ? r->n_paths : 1;
	int *first_child = malloc(n * sizeof(int));
	int *next_sibling = malloc(n * sizeof(int));
	int *todo = malloc(n * sizeof(int));
	int done = -1;
	if (!first_child || !next_sibling || !todo)
		goto out;
	/* Each list last path first, so that the stack pops it first path first. */
	int first_root = -1;
	for (unsigned i = 0; i < r->n_paths; i++)
		first_child[i] = -1;
	for (unsigned i = 0; i < r->n_paths; i++) {
		int parent = r->paths[i].parent;
		int *head = parent < 0 ? &first_root : &first_child[parent];
		next_sibling[i] = *head;
		*head = (int)i;
	}
	unsigned pending = 0;
	for (int at = first_root; at >= 0; at = next_sibling[at])
		todo[pending++] = at;
	done = 0;
	while (pending > 0) {
		int at = todo[--pending];
		order[done++] = at;
		for (int c = first_child[at]; c >= 0; c = next_sibling[c])
			todo[pending++] = c;
	}
out:
	free(first_child);
	free(next_sibling);
	free(todo);
	return done;
}

/* One path's stack, root first, as frame indices (a frame is a function). */
static void put_stack(FILE *out, const struct pv_report *r, int path, int *chain)
{
	unsigned depth = 0;
	for (int at = path; at >= 0 && depth < r->n_paths; at = r->paths[at].parent)
		chain[depth++] = r->paths[at].func;
	fputc('[', out);
	while (depth-- > 0)
		fprintf(out, "%d%s", chain[depth], depth ? "," : "");
	fputc(']', out);
}

static void put_profile(FILE *out, const struct pv_report *r, unsigned ev, const int *order,
			unsigned n_order, int *chain)
{
	const struct pv_event_desc *e = &r->events[ev];
	/* The event in the name: speedscope lists the profiles by it. */
	fputs(ev ? ",\n{\"type\":\"sampled\",\"name\":\"" : "\n{\"type\":\"sampled\",\"name\":\"",
	      out);
	pv_json_text(out, r->program ? r->program : "?");
	fputs(" (", out);
	pv_json_text(out, e->name);
	fprintf(out, "%s)\",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		pv_event_is_sampled(e) ? ", sampled" : "", pv_event_is_time(e) ? "nanoseconds" : "none",
		r->run_total[ev]);
	int first = 1;
	for (unsigned i = 0; i < n_order; i++) {
		if (!r->paths[order[i]].self[ev])
			continue;
		fputs(first ? "" : ",", out);
		put_stack(out, r, order[i], chain);
		first = 0;
	}
	fputs("],\n\"weights\":[", out);
	first = 1;
	for (unsigned i = 0; i < n_order; i++) {
		uint64_t self = r->paths[order[i]].self[ev];
		if (!self)
			continue;
		fprintf(out, "%s%" PRIu64, first ? "" : ",", self);
		first = 0;
	}
	fputs("]}", out);
}

int pv_write_speedscope(FILE *out, const struct pv_report *r)
{
	unsigned n = r->n_paths ? r->n_paths : 1;
	int *order = malloc(n * sizeof(int));
	int *chain = malloc(n * sizeof(int));
	int n_order = order && chain ? depth_first(r, order) : -1;
	if (n_order < 0) {
		free(order);
		free(chain);
		return -1;
	}

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":", out);
	put_string(out, r->program ? r->program : "?");
	fputs(",\"exporter\":\"profviz\",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", out);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_symbol *s = &r->funcs[i].sym;
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		put_string(out, s->name);
		if (s->file) {
			fputs(",\"file\":", out);
			put_string(out, s->file);
			fprintf(out, ",\"line\":%d", s->line);
		}
		fputc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (unsigned ev = 0; ev < r->nev; ev++)
		put_profile(out, r, ev, order, (unsigned)n_order, chain);
	fputs("]}\n", out);
	free(order);
	free(chain);
	return ferror(out) ? -1 : 0;
}
