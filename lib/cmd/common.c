/* SPDX-License-Identifier: MIT */
/* common.c — what every sub-command does alike: read its numbers, write a
 * file, put another event first. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/file.h"

int pv_arg_percent(const char *option, const char *value, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (end != value && *end == '%')
		end++;
	if (errno || end == value || *end || !(v >= 0 && v <= 100)) {
		fprintf(stderr, "profviz: %s: '%s' is not a percentage (0-100, e.g. 0.5 or 0.5%%)\n",
			option, value);
		return -1;
	}
	*out = v;
	return 0;
}

int pv_arg_count(const char *option, const char *value, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-' || v > UINT_MAX) {
		fprintf(stderr, "profviz: %s: '%s' is not a whole number up to %u\n", option, value,
			UINT_MAX);
		return -1;
	}
	*out = v;
	return 0;
}

int pv_arg_waits(const char *value, int *inside)
{
	if (strcmp(value, "apart") && strcmp(value, "in")) {
		fprintf(stderr, "profviz: --waits: '%s' is not 'apart' or 'in'\n", value);
		return -1;
	}
	*inside = !strcmp(value, "in");
	return 0;
}

const char *pv_heat(int colour, double pct)
{
	if (!colour)
		return "";
	return pct >= 20 ? "\033[1;31m" : pct >= 5 ? "\033[33m" : pct >= 1 ? "\033[32m" : "";
}

const char *pv_plain(int colour)
{
	return colour ? "\033[0m" : "";
}

int pv_write_to(const char *path, const struct pv_report *r)
{
	const struct pv_format *f = pv_output_format_of(path);
	if (!f) {
		char known[128];
		pv_output_extensions(known, sizeof(known));
		fprintf(stderr, "profviz: %s: no format for this name; end it in %s\n", path, known);
		return -1;
	}
	return pv_output_write_file(path, f->write, r);
}

static void events_text(const struct pv_report *r, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned e = 0; e < r->nev && used < size; e++)
		used += (size_t)snprintf(out + used, size - used, "%s%s [%s%s]", e ? ", " : "",
					 r->events[e].name, pv_event_unit(&r->events[e]),
					 pv_event_is_sampled(&r->events[e]) ? ", sampled" : "");
}

int pv_same_events(const struct pv_loaded *a, const struct pv_loaded *b, const char *cmd)
{
	int same = a->r.nev == b->r.nev;
	for (unsigned e = 0; same && e < a->r.nev; e++)
		same = !strcmp(a->r.events[e].name, b->r.events[e].name) &&
		       pv_event_is_time(&a->r.events[e]) == pv_event_is_time(&b->r.events[e]) &&
		       pv_event_is_sampled(&a->r.events[e]) == pv_event_is_sampled(&b->r.events[e]);
	if (!same) {
		char ea[512], eb[512];
		events_text(&a->r, ea, sizeof(ea));
		events_text(&b->r, eb, sizeof(eb));
		fprintf(stderr, "profviz %s: %s counts %s but %s counts %s: the events must be "
			"the same, in the same order and units\n", cmd, a->path, ea, b->path, eb);
	}
	return same;
}

static void swap_u64(uint64_t *v, unsigned a, unsigned b)
{
	uint64_t t = v[a];
	v[a] = v[b];
	v[b] = t;
}

static void swap_real(double *v, unsigned a, unsigned b)
{
	double t = v[a];
	v[a] = v[b];
	v[b] = t;
}

int pv_lead_with_event(struct pv_loaded *l, const char *name)
{
	struct pv_report *r = &l->r;
	int found = pv_report_event(r, name);
	if (found < 0) {
		fprintf(stderr, "profviz: %s has no event '%s'; it has", l->path, name);
		for (unsigned i = 0; i < r->nev; i++)
			fprintf(stderr, "%s %s", i ? "," : "", l->events[i].name);
		fputc('\n', stderr);
		return -1;
	}
	unsigned e = (unsigned)found;
	if (e == 0)
		return 0;
	/* Every per-event column, event e's to the front. */
	struct pv_event_desc first = l->events[0];
	l->events[0] = l->events[e];
	l->events[e] = first;
	swap_u64(r->run_total, 0, e);
	swap_u64(r->raw_run_total, 0, e);
	swap_u64(r->run_total_raised, 0, e);
	swap_u64(r->clamped, 0, e);
	swap_real(r->multiplexed, 0, e);
	swap_real(r->caller_cost, 0, e);
	swap_real(r->caller_miss_cost, 0, e);
	swap_real(r->callee_cost, 0, e);
	swap_real(r->callee_span, 0, e);
	swap_real(r->inlined_cost, 0, e);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		swap_u64(r->funcs[i].self, 0, e);
		swap_u64(r->funcs[i].total, 0, e);
		swap_u64(r->funcs[i].raw_self, 0, e);
		swap_u64(r->funcs[i].raw_total, 0, e);
	}
	for (unsigned i = 0; i < r->n_arcs; i++) {
		swap_u64(r->arcs[i].total, 0, e);
		swap_u64(r->arcs[i].raw_total, 0, e);
	}
	for (unsigned i = 0; i < r->n_paths; i++) {
		swap_u64(r->paths[i].self, 0, e);
		swap_u64(r->paths[i].total, 0, e);
		swap_u64(r->paths[i].raw_self, 0, e);
	}
	for (unsigned i = 0; i < r->n_thread_list; i++) {
		swap_u64(r->thread_list[i].total, 0, e);
		swap_u64(r->thread_list[i].raw_total, 0, e);
	}
	/* Hottest first in the event that now leads. */
	if (pv_report_sort(r) < 0) {
		fprintf(stderr, "profviz: out of memory\n");
		return -1;
	}
	return 0;
}
