/* SPDX-License-Identifier: MIT */
/*
 * diff.c — two runs matched by module file name (the program's own
 * functions by name alone) and function name, and what
 * changed in each function and arc; which of them a graph shows.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/diff.h"
#include "model/copies.h"
#include "base/htab.h"
#include "base/pairs.h"
#include "base/paths.h"

struct name_entry {
	char *key; /* the module's file name, then the function's name */
	size_t len;
	int index;
	UT_hash_handle hh;
};

/* What finds a function or an arc again while both runs are added. */
struct matching {
	struct name_entry *names;
	struct pv_pair *pairs;
};

struct pv_diff_change pv_diff_change_of(const struct pv_diff *d, uint64_t a, uint64_t b)
{
	struct pv_diff_change c;
	double scaled_a = d->scale * (double)a;
	c.share_a = 100 * scaled_a / d->reference;
	c.share_b = 100 * (double)b / d->reference;
	c.points = c.share_b - c.share_a;
	c.own = a ? 100 * ((double)b - scaled_a) / scaled_a : 0;
	return c;
}

/* ---- matching ---- */

/* f's module's file name, or "" for the program's own: two builds of one
 * program may be named differently. */
static const char *module_key(const struct pv_report *r, const struct pv_rfunc *f)
{
	const char *module = pv_path_base(f->sym.module);
	return r->program && !strcmp(module, pv_path_base(r->program)) ? "" : module;
}

static int func_of(struct pv_diff *d, struct matching *m, const struct pv_report *r,
		   const struct pv_rfunc *f)
{
	const char *module = module_key(r, f);
	size_t mlen = strlen(module) + 1, nlen = strlen(f->sym.name) + 1;
	char *key = malloc(mlen + nlen);
	if (!key)
		return -1;
	memcpy(key, module, mlen);
	memcpy(key + mlen, f->sym.name, nlen);
	struct name_entry *e;
	HASH_FIND(hh, m->names, key, mlen + nlen, e);
	if (e) {
		free(key);
		return e->index;
	}
	if (!(e = malloc(sizeof(*e)))) {
		free(key);
		return -1;
	}
	e->key = key;
	e->len = mlen + nlen;
	e->index = (int)d->n_funcs++;
	memset(&d->funcs[e->index], 0, sizeof(d->funcs[0]));
	d->funcs[e->index].f = f;
	HASH_ADD_KEYPTR(hh, m->names, e->key, e->len, e);
	if (!pv_htab_added(e, hh)) {
		free(key);
		free(e);
		return -1;
	}
	return e->index;
}

static int arc_of(struct pv_diff *d, struct matching *m, int caller, int callee)
{
	int created, slot = pv_pair_slot(&m->pairs, &d->n_arcs, caller, callee, &created);
	if (slot >= 0 && created) {
		memset(&d->arcs[slot], 0, sizeof(d->arcs[0]));
		d->arcs[slot].caller = caller;
		d->arcs[slot].callee = callee;
	}
	return slot;
}

static void matching_free(struct matching *m)
{
	struct name_entry *n, *ntmp;
	HASH_ITER(hh, m->names, n, ntmp) {
		HASH_DEL(m->names, n);
		free(n->key);
		free(n);
	}
	pv_pairs_free(&m->pairs);
}

/* One run's functions and arcs into the diff's; in_b: it is B. */
static int add_run(struct pv_diff *d, struct matching *m, const struct pv_report *r, int in_b)
{
	int *func = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*func));
	if (!func)
		return -1;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		/* Waits taken apart are outside the work compared. */
		if (r->waits_apart && f->kind == PV_FUNC_WAIT) {
			func[i] = -1;
			continue;
		}
		if ((func[i] = func_of(d, m, r, f)) < 0) {
			free(func);
			return -1;
		}
		struct pv_diff_func *df = &d->funcs[func[i]];
		struct pv_diff_side *s = in_b ? &df->b : &df->a;
		if (in_b)
			df->f = f;
		s->present = 1;
		s->calls += f->calls;
		s->inlined += f->inlined_calls;
		s->self += f->self[0];
		s->total += f->total[0];
	}
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		if (func[a->callee] < 0 || (a->caller >= 0 && func[a->caller] < 0))
			continue;
		int e = arc_of(d, m, a->caller < 0 ? -1 : func[a->caller], func[a->callee]);
		if (e < 0) {
			free(func);
			return -1;
		}
		struct pv_diff_side *s = in_b ? &d->arcs[e].b : &d->arcs[e].a;
		s->present = 1;
		s->calls += a->calls;
		s->nested += a->nested_calls;
		s->inlined += a->inlined_calls;
		s->total += a->total[0];
	}
	free(func);
	return 0;
}

/* ---- what is shown ---- */

static double larger_share(const struct pv_diff *d, const struct pv_diff_side *a,
			   const struct pv_diff_side *b)
{
	struct pv_diff_change c = pv_diff_change_of(d, a->total, b->total);
	return fmax(c.share_a, c.share_b);
}

static int by_weight(const void *x, const void *y, void *funcs)
{
	const struct pv_diff_func *a = (const struct pv_diff_func *)funcs + *(const int *)x;
	const struct pv_diff_func *b = (const struct pv_diff_func *)funcs + *(const int *)y;
	if (a->weight != b->weight)
		return a->weight < b->weight ? 1 : -1;
	return strcmp(a->f->sym.name, b->f->sym.name);
}

int pv_diff_arc_nested(const struct pv_diff_arc *e)
{
	const struct pv_diff_side *s = e->b.present ? &e->b : &e->a;
	return e->caller >= 0 && s->calls > 0 && s->nested == s->calls;
}

int pv_diff_all_inlined(const struct pv_diff_side *a, const struct pv_diff_side *b)
{
	const struct pv_diff_side *s = b->present ? b : a;
	return s->calls > 0 && s->inlined == s->calls;
}

/* Neither run has a total: no share to judge by, so everything is shown. */
static int without_totals(const struct pv_diff *d)
{
	return !d->a.run_total[0] && !d->b.run_total[0];
}

static int arc_shown(const struct pv_diff *d, const struct pv_diff_arc *e)
{
	if (!d->funcs[e->callee].shown || (e->caller >= 0 && !d->funcs[e->caller].shown))
		return 0;
	return pv_diff_arc_nested(e) || without_totals(d) ||
	       larger_share(d, &e->a, &e->b) >= d->limits.edge_min;
}

/* The thresholds, on the larger of a function's two shares, and the cap. */
static int select_shown(struct pv_diff *d)
{
	int *order = malloc((d->n_funcs ? d->n_funcs : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (unsigned i = 0; i < d->n_funcs; i++) {
		d->funcs[i].weight = larger_share(d, &d->funcs[i].a, &d->funcs[i].b);
		order[i] = (int)i;
	}
	qsort_r(order, d->n_funcs, sizeof(*order), by_weight, d->funcs);
	unsigned shown = 0, max_nodes = d->limits.max_nodes;
	for (unsigned k = 0; k < d->n_funcs; k++) {
		struct pv_diff_func *f = &d->funcs[order[k]];
		f->shown = without_totals(d) || f->weight >= d->limits.node_min;
		if (f->shown && max_nodes && shown >= max_nodes) {
			f->shown = 0;
			d->capped++;
		}
		shown += f->shown;
		d->hidden_funcs += !f->shown;
		if (f->shown)
			d->largest_shown = fmax(d->largest_shown,
						fabs(pv_diff_change_of(d, f->a.total, f->b.total).points));
	}
	for (unsigned i = 0; i < d->n_arcs; i++) {
		d->arcs[i].shown = arc_shown(d, &d->arcs[i]);
		d->hidden_arcs += !d->arcs[i].shown;
	}
	free(order);
	return 0;
}

/* ---- the diff ---- */

static void set_reference(struct pv_diff *d)
{
	uint64_t run_a = d->a.run_total[0], run_b = d->b.run_total[0];
	d->scale = 1;
	if (d->limits.normalize && run_a && run_b)
		d->scale = (double)run_b / (double)run_a;
	d->reference = d->scale * (double)run_a;
	if (!(d->reference > 0))
		d->reference = run_b ? (double)run_b : 1;
}

int pv_diff_build(struct pv_diff *d, const struct pv_report *a, const struct pv_report *b,
		  const struct pv_diff_limits *limits)
{
	memset(d, 0, sizeof(*d));
	d->limits = *limits;
	if (pv_copies_merge(a, &d->a) < 0)
		return -1;
	if (pv_copies_merge(b, &d->b) < 0) {
		pv_copies_free(&d->a);
		return -1;
	}
	set_reference(d);
	struct matching m = { NULL, NULL };
	d->funcs = calloc(d->a.n_funcs + d->b.n_funcs + 1, sizeof(*d->funcs));
	d->arcs = calloc(d->a.n_arcs + d->b.n_arcs + 1, sizeof(*d->arcs));
	int status = !d->funcs || !d->arcs || add_run(d, &m, &d->a, 0) < 0 ||
		     add_run(d, &m, &d->b, 1) < 0 || select_shown(d) < 0 ? -1 : 0;
	matching_free(&m);
	if (status < 0)
		pv_diff_free(d);
	return status;
}

void pv_diff_free(struct pv_diff *d)
{
	free(d->funcs);
	free(d->arcs);
	d->funcs = NULL;
	d->arcs = NULL;
	pv_copies_free(&d->a);
	pv_copies_free(&d->b);
}

/* ---- the largest changes ---- */

static int by_change(const void *x, const void *y, void *diff)
{
	const struct pv_diff *d = diff;
	const struct pv_diff_func *a = d->funcs + *(const int *)x, *b = d->funcs + *(const int *)y;
	double ca = fabs(pv_diff_change_of(d, a->a.total, a->b.total).points);
	double cb = fabs(pv_diff_change_of(d, b->a.total, b->b.total).points);
	if (ca != cb)
		return ca < cb ? 1 : -1;
	return strcmp(a->f->sym.name, b->f->sym.name);
}

unsigned pv_diff_changed(const struct pv_diff *d, int *order)
{
	unsigned n = 0;
	for (unsigned i = 0; i < d->n_funcs; i++)
		if (fabs(pv_diff_change_of(d, d->funcs[i].a.total, d->funcs[i].b.total).points) >=
		    PV_DIFF_UNCHANGED)
			order[n++] = (int)i;
	qsort_r(order, n, sizeof(*order), by_change, (void *)d);
	return n;
}
