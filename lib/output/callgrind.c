/* SPDX-License-Identifier: MIT */
/*
 * callgrind.c — the profile in the callgrind format (version 1), read by
 * KCachegrind, QCachegrind and callgrind_annotate. One fn= per function, in
 * its fl= (source file) and ob= (object), with its self cost on its
 * definition line; then, per arc out of it, cfn= (with cfl=, cob=), the call
 * count and the arc's inclusive cost. Positions are lines; there is one cost
 * column per event, in output units (ns for clocks). Names are written once
 * and referred to by id after that (the format's name compression). Sampled
 * time says how it was sampled in a desc: line, which callgrind_annotate and
 * KCachegrind show with the profile.
 *
 * callgrind_annotate --inclusive=yes takes a function's inclusive cost to be
 * the sum of the costs written on the calls into it (a function nothing
 * calls: its self plus its calls out). Two things follow:
 *
 * - Calls from uninstrumented code (main from the C start-up, constructors,
 *   thread start routines) are written as calls from a function of their
 *   own, "(program)", as callgrind's own files have "(below main)". Without
 *   them, a function called both from the start-up and from the program
 *   would lose the start-up's share of its inclusive cost. "(program)"'s
 *   inclusive cost is the run's.
 *
 * - Recursion. An arc's total counts only the callee's activations that are
 *   not nested in another activation of it, so the arcs into a function add
 *   up to its total, recursion or not: a recursive call (f -> f, or back into
 *   f through g) is written with its count and, for its nested part, no
 *   cost, so no cost is counted twice. (callgrind itself writes each
 *   recursive call with its full inclusive cost, naming the deeper levels
 *   f'2, and callgrind_annotate then counts the deeper levels again.)
 *   Adding up the calls *out of* a function is no measure of it under mutual
 *   recursion, but callgrind_annotate does that only for "(program)".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/format.h"
#include "model/trust.h"

#define ROOT_NAME "(program)" /* where calls from uninstrumented code come from */
#define UNKNOWN "???"         /* callgrind's own word for a file or object it lacks */

/* Name compression: one id per distinct string, written out the first time. */
struct names {
	unsigned *id;         /* per function, from 1 */
	unsigned char *shown; /* per id: already written with its text */
};

struct by_text {
	const char *text;
	unsigned at;
};

static int compare_text(const void *a, const void *b)
{
	return strcmp(((const struct by_text *)a)->text, ((const struct by_text *)b)->text);
}

/* Give equal strings of text[0..n) one id. 0, or -1 when memory ran out. */
static int names_init(struct names *nm, const char **text, unsigned n)
{
	struct by_text *sorted = malloc(n * sizeof(*sorted));
	nm->id = malloc(n * sizeof(*nm->id));
	nm->shown = calloc(n + 1, 1);
	if (!sorted || !nm->id || !nm->shown) {
		free(sorted);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		sorted[i] = (struct by_text){ text[i], i };
	qsort(sorted, n, sizeof(*sorted), compare_text);
	unsigned id = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i == 0 || strcmp(sorted[i].text, sorted[i - 1].text))
			id++;
		nm->id[sorted[i].at] = id;
	}
	free(sorted);
	return 0;
}

static void names_free(struct names *nm)
{
	free(nm->id);
	free(nm->shown);
}

/* "key=(id) text" the first time, "key=(id)" after. */
static void put_position(FILE *out, const char *key, struct names *nm, unsigned at,
			 const char *text)
{
	unsigned id = nm->id[at];
	fprintf(out, "%s=(%u)", key, id);
	if (!nm->shown[id]) {
		nm->shown[id] = 1;
		fputc(' ', out);
		for (const char *c = text; *c; c++)
			fputc(*c == '\n' ? ' ' : *c, out);
	}
	fputc('\n', out);
}

static void put_costs(FILE *out, int line, const uint64_t *v, unsigned nev)
{
	fprintf(out, "%d", line);
	for (unsigned e = 0; e < nev; e++)
		fprintf(out, " %" PRIu64, v[e]);
	fputc('\n', out);
}

/* An event's name as an identifier (letters, digits and '_', a letter
 * first): task-clock -> task_clock. One that comes out as an earlier one's
 * gets its position appended. */
static void event_identifier(const struct pv_report *r, unsigned i, char (*ids)[160])
{
	char *out = ids[i];
	size_t n = 0, size = sizeof(ids[i]) - 16;
	const char *name = r->events[i].name;
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
		out[n++] = 'e';
	for (const char *c = name; *c && n < size; c++) {
		int alnum = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9');
		if (alnum)
			out[n++] = *c;
		else if (n && out[n - 1] != '_')
			out[n++] = '_';
	}
	while (n > 1 && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(ids[j], out)) {
			snprintf(out + n, sizeof(ids[i]) - n, "_%u", i + 1);
			break;
		}
}

static void write_header(FILE *out, const struct pv_report *r)
{
	char ids[PV_MAX_EVENTS][160];
	fputs("# callgrind format\nversion: 1\ncreator: profviz\n", out);
	char sampling[1024];
	if (pv_sampling_text(r, 0, sampling, sizeof(sampling))) {
		fputs("desc: Sampling: ", out);
		for (const char *c = sampling; *c; c++)
			if (*c == '\n')
				fputs("; ", out); /* one line */
			else
				fputc(*c, out);
		fputc('\n', out);
	}
	fprintf(out, "pid: %d\ncmd: ", r->pid);
	for (const char *c = r->program ? r->program : UNKNOWN; *c; c++)
		fputc(*c == '\n' ? ' ' : *c, out);
	fputs("\n\npositions: line\n", out);
	for (unsigned i = 0; i < r->nev; i++) {
		event_identifier(r, i, ids);
		fprintf(out, "event: %s : ", ids[i]);
		for (const char *c = r->events[i].name; *c; c++)
			fputc(*c == '\n' ? ' ' : *c, out);
		fprintf(out, " (%s%s)\n", pv_event_unit(&r->events[i]),
			pv_sampled(r, i) ? ", sampled" : "");
	}
	/* callgrind_annotate takes "events:" as the header's last line. */
	fputs("events:", out);
	for (unsigned i = 0; i < r->nev; i++)
		fprintf(out, " %s", ids[i]);
	fputs("\nsummary:", out);
	for (unsigned i = 0; i < r->nev; i++)
		fprintf(out, " %" PRIu64, r->run_total[i]);
	fputs("\n\n", out);
}

/* What each arc's call line says it cost: its total. An arc's total and its
 * callee's are converted from raw counts apart, so the arcs into a function
 * can miss its total by a rounding; as callgrind_annotate adds them up into
 * the function's inclusive cost, the difference goes onto the largest. 0, or
 * -1 when memory ran out. */
static int arc_costs(const struct pv_report *r, uint64_t *cost)
{
	unsigned nf = r->n_funcs ? r->n_funcs : 1, nev = r->nev;
	uint64_t *sum = malloc(nf * sizeof(*sum));
	long *largest = malloc(nf * sizeof(*largest));
	if (!sum || !largest) {
		free(sum);
		free(largest);
		return -1;
	}
	for (unsigned e = 0; e < nev; e++) {
		for (unsigned f = 0; f < r->n_funcs; f++) {
			sum[f] = 0;
			largest[f] = -1;
		}
		for (unsigned a = 0; a < r->n_arcs; a++) {
			unsigned to = (unsigned)r->arcs[a].callee;
			cost[a * nev + e] = r->arcs[a].total[e];
			sum[to] += cost[a * nev + e];
			if (largest[to] < 0 || cost[a * nev + e] > cost[largest[to] * nev + e])
				largest[to] = a;
		}
		for (unsigned f = 0; f < r->n_funcs; f++) {
			if (largest[f] < 0)
				continue;
			uint64_t *c = &cost[largest[f] * nev + e];
			int64_t diff = (int64_t)(r->funcs[f].total[e] - sum[f]);
			if (diff >= 0 || (uint64_t)-diff <= *c)
				*c += (uint64_t)diff;
		}
	}
	free(sum);
	free(largest);
	return 0;
}

/* Everything the writer allocates, per function (the root "(program)" at
 * index n_funcs) and per arc. */
struct cg_tables {
	const char **name, **file, **module;
	int *line;
	struct names fn, fl, ob;
	unsigned *first_arc; /* arcs out of function i: by_caller[first_arc[i] .. first_arc[i + 1]) */
	unsigned *by_caller;
	uint64_t *cost; /* per arc and event */
};

static void tables_free(struct cg_tables *t)
{
	free(t->name);
	free(t->file);
	free(t->module);
	free(t->line);
	names_free(&t->fn);
	names_free(&t->fl);
	names_free(&t->ob);
	free(t->first_arc);
	free(t->by_caller);
	free(t->cost);
}

static int tables_init(struct cg_tables *t, const struct pv_report *r)
{
	unsigned n = r->n_funcs + 1, na = r->n_arcs ? r->n_arcs : 1;
	memset(t, 0, sizeof(*t));
	t->name = malloc(n * sizeof(*t->name));
	t->file = malloc(n * sizeof(*t->file));
	t->module = malloc(n * sizeof(*t->module));
	t->line = malloc(n * sizeof(*t->line));
	t->first_arc = calloc(n + 1, sizeof(*t->first_arc));
	t->by_caller = malloc(na * sizeof(*t->by_caller));
	t->cost = malloc(na * (r->nev ? r->nev : 1) * sizeof(*t->cost));
	if (!t->name || !t->file || !t->module || !t->line || !t->first_arc || !t->by_caller ||
	    !t->cost)
		return -1;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_symbol *s = &r->funcs[i].sym;
		t->name[i] = s->name && s->name[0] ? s->name : UNKNOWN;
		t->file[i] = s->file && s->file[0] ? s->file : UNKNOWN;
		t->module[i] = s->module && s->module[0] ? s->module : UNKNOWN;
		t->line[i] = s->file && s->line > 0 ? s->line : 0;
	}
	t->name[n - 1] = ROOT_NAME;
	t->file[n - 1] = UNKNOWN;
	t->module[n - 1] = r->program && r->program[0] ? r->program : UNKNOWN;
	t->line[n - 1] = 0;
	if (names_init(&t->fn, t->name, n) < 0 || names_init(&t->fl, t->file, n) < 0 ||
	    names_init(&t->ob, t->module, n) < 0)
		return -1;

	/* Arcs grouped by caller, hottest first within each (as r has them). */
	for (unsigned a = 0; a < r->n_arcs; a++) {
		int from = r->arcs[a].caller;
		t->first_arc[(from < 0 ? n - 1 : (unsigned)from) + 1]++;
	}
	for (unsigned i = 0; i < n; i++)
		t->first_arc[i + 1] += t->first_arc[i];
	unsigned *next = malloc(n * sizeof(*next));
	if (!next)
		return -1;
	memcpy(next, t->first_arc, n * sizeof(*next));
	for (unsigned a = 0; a < r->n_arcs; a++) {
		int from = r->arcs[a].caller;
		t->by_caller[next[from < 0 ? n - 1 : (unsigned)from]++] = a;
	}
	free(next);
	return arc_costs(r, t->cost);
}

/* Function i: its self cost, then its calls out. */
static void write_function(FILE *out, const struct pv_report *r, struct cg_tables *t,
			   unsigned i, uint64_t *totals)
{
	static const uint64_t no_cost[PV_MAX_EVENTS];
	const uint64_t *self = i < r->n_funcs ? r->funcs[i].self : no_cost;
	put_position(out, "ob", &t->ob, i, t->module[i]);
	put_position(out, "fl", &t->fl, i, t->file[i]);
	put_position(out, "fn", &t->fn, i, t->name[i]);
	put_costs(out, t->line[i], self, r->nev);
	for (unsigned e = 0; e < r->nev; e++)
		totals[e] += self[e];
	for (unsigned k = t->first_arc[i]; k < t->first_arc[i + 1]; k++) {
		unsigned a = t->by_caller[k];
		unsigned to = (unsigned)r->arcs[a].callee;
		put_position(out, "cob", &t->ob, to, t->module[to]);
		put_position(out, "cfl", &t->fl, to, t->file[to]);
		put_position(out, "cfn", &t->fn, to, t->name[to]);
		fprintf(out, "calls=%" PRIu64 " %d\n", r->arcs[a].calls, t->line[to]);
		put_costs(out, t->line[i], &t->cost[a * r->nev], r->nev);
	}
	fputc('\n', out);
}

int pv_write_callgrind(FILE *out, const struct pv_report *r)
{
	struct cg_tables t;
	if (tables_init(&t, r) < 0) {
		tables_free(&t);
		return -1;
	}
	uint64_t totals[PV_MAX_EVENTS] = { 0 };
	write_header(out, r);
	write_function(out, r, &t, r->n_funcs, totals);
	for (unsigned i = 0; i < r->n_funcs; i++)
		write_function(out, r, &t, i, totals);
	fputs("totals:", out);
	for (unsigned e = 0; e < r->nev; e++)
		fprintf(out, " %" PRIu64, totals[e]);
	fputc('\n', out);
	tables_free(&t);
	return ferror(out) ? -1 : 0;
}
