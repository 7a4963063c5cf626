/* SPDX-License-Identifier: MIT */
#include "model/copies.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int same_source(const struct pv_symbol *a, const struct pv_symbol *b)
{
	return a->file && b->file && a->line == b->line && !strcmp(a->name, b->name) &&
	       !strcmp(a->module, b->module) && !strcmp(a->file, b->file);
}

int pv_copies_compare(const struct pv_rfunc *a, const struct pv_rfunc *b)
{
	int c = strcmp(a->sym.name, b->sym.name);
	if (!c)
		c = strcmp(a->sym.module, b->sym.module);
	if (!c && (!a->sym.file || !b->sym.file))
		c = (a->sym.file != NULL) - (b->sym.file != NULL);
	if (!c && a->sym.file)
		c = strcmp(a->sym.file, b->sym.file);
	if (!c)
		c = (a->sym.line > b->sym.line) - (a->sym.line < b->sym.line);
	if (!c && !a->sym.file) /* no file: no copies, each its own */
		c = ((uintptr_t)a->fn > (uintptr_t)b->fn) - ((uintptr_t)a->fn < (uintptr_t)b->fn);
	return c;
}

/* Order for finding copies: by source, the hottest copy first. */
static int by_source(const void *x, const void *y)
{
	const struct pv_rfunc *a = *(const struct pv_rfunc *const *)x;
	const struct pv_rfunc *b = *(const struct pv_rfunc *const *)y;
	int c = pv_copies_compare(a, b);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

static int arc_by_ends(const void *x, const void *y)
{
	const struct pv_rarc *a = x, *b = y;
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return (a->callee > b->callee) - (a->callee < b->callee);
}

/* Copies are never active inside one another in practice, but a total must
 * still not exceed the run (a wait's, whose time a view took apart, the
 * run with its waits). */
static void cap_at_run(uint64_t *v, const struct pv_report *r, int wait, int raw)
{
	for (unsigned e = 0; e < r->nev; e++) {
		uint64_t run = raw ? r->raw_run_total[e] : r->run_total[e];
		if (wait && r->waits_apart)
			run += r->waited[e]; /* raw too: a wait's self is no hook's */
		if (run && v[e] > run)
			v[e] = run;
	}
}

int pv_copies_merge(const struct pv_report *r, struct pv_report *view)
{
	*view = *r;
	view->funcs = NULL;
	view->arcs = NULL;
	view->paths = NULL;
	view->n_paths = 0;
	view->folds = NULL;
	view->n_folds = 0;
	unsigned n = r->n_funcs;
	const struct pv_rfunc **order = malloc((n ? n : 1) * sizeof(*order));
	int *box_of = malloc((n ? n : 1) * sizeof(*box_of)); /* r's id -> view's slot */
	view->funcs = calloc(n ? n : 1, sizeof(*view->funcs));
	view->arcs = calloc(r->n_arcs ? r->n_arcs : 1, sizeof(*view->arcs));
	if (!order || !box_of || !view->funcs || !view->arcs) {
		free(order);
		free(box_of);
		pv_copies_free(view);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		order[i] = &r->funcs[i];
	qsort(order, n, sizeof(*order), by_source);
	unsigned boxes = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct pv_rfunc *f = order[i];
		if (i > 0 && same_source(&order[i - 1]->sym, &f->sym)) {
			struct pv_rfunc *b = &view->funcs[boxes - 1];
			b->calls += f->calls;
			b->inlined_calls += f->inlined_calls;
			b->samples += f->samples;
			b->timed_ns += f->timed_ns;
			pv_costs_add(b->self, f->self, r->nev);
			pv_costs_add(b->total, f->total, r->nev);
			pv_costs_add(b->raw_self, f->raw_self, r->nev);
			pv_costs_add(b->raw_total, f->raw_total, r->nev);
			pv_costs_add(b->waited, f->waited, r->nev);
			b->copies++;
			if (f->id < b->id)
				b->id = f->id, b->fn = f->fn; /* the hottest copy's address */
		} else {
			view->funcs[boxes] = *f;
			view->funcs[boxes++].copies = 1;
		}
		box_of[f->id] = (int)boxes - 1;
	}
	for (unsigned i = 0; i < boxes; i++) {
		int wait = view->funcs[i].kind == PV_FUNC_WAIT;
		cap_at_run(view->funcs[i].total, r, wait, 0);
		cap_at_run(view->funcs[i].raw_total, r, wait, 1);
		view->funcs[i].id = (int)i; /* its slot, until sorted */
	}
	view->n_funcs = boxes;

	/* Arcs between the same two boxes are one. */
	for (unsigned i = 0; i < r->n_arcs; i++) {
		struct pv_rarc *a = &view->arcs[i];
		*a = r->arcs[i];
		a->caller = a->caller < 0 ? -1 : box_of[a->caller];
		a->callee = box_of[a->callee];
	}
	qsort(view->arcs, r->n_arcs, sizeof(*view->arcs), arc_by_ends);
	unsigned arcs = 0;
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &view->arcs[i];
		if (arcs && !arc_by_ends(&view->arcs[arcs - 1], a)) {
			struct pv_rarc *m = &view->arcs[arcs - 1];
			m->calls += a->calls;
			m->nested_calls += a->nested_calls;
			m->inlined_calls += a->inlined_calls;
			pv_costs_add(m->total, a->total, r->nev);
			pv_costs_add(m->raw_total, a->raw_total, r->nev);
			pv_costs_add(m->waited, a->waited, r->nev);
		} else {
			view->arcs[arcs++] = *a;
		}
	}
	for (unsigned i = 0; i < arcs; i++) {
		int wait = view->funcs[view->arcs[i].callee].kind == PV_FUNC_WAIT;
		cap_at_run(view->arcs[i].total, r, wait, 0);
		cap_at_run(view->arcs[i].raw_total, r, wait, 1);
	}
	view->n_arcs = arcs;
	free(order);
	free(box_of);
	/* Hottest first, renumbered, as a report is. */
	if (pv_report_sort(view) < 0) {
		pv_copies_free(view);
		return -1;
	}
	return 0;
}

void pv_copies_free(struct pv_report *view)
{
	free(view->funcs);
	free(view->arcs);
	view->funcs = NULL;
	view->arcs = NULL;
}
