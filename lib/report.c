#define _GNU_SOURCE
#include "report.h"

#include <signal.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pv_event_unit(const struct pv_event *e)
{
	int clock = e->type == PERF_TYPE_SOFTWARE && (e->config == PERF_COUNT_SW_TASK_CLOCK ||
						      e->config == PERF_COUNT_SW_CPU_CLOCK);
	return e->is_tsc || clock ? "ns" : "count";
}

static uint64_t scaled(uint64_t v, double scale)
{
	return scale == 1.0 ? v : (uint64_t)llround((double)v * scale);
}

static int by_total_desc(const void *a, const void *b)
{
	const struct pv_rfunc *x = a, *y = b;
	if (x->total[0] != y->total[0])
		return x->total[0] < y->total[0] ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->sym.name, y->sym.name);
}

static int arc_by_total_desc(const void *a, const void *b)
{
	const struct pv_rarc *x = a, *y = b;
	if (x->total[0] != y->total[0])
		return x->total[0] < y->total[0] ? 1 : -1;
	if (x->caller != y->caller)
		return x->caller - y->caller;
	return x->callee - y->callee;
}

/* The node a signal's handlers ran under: "<signal SIGALRM>". */
static void signal_symbol(int sig, struct pv_symbol *sym)
{
	const char *abbrev = sigabbrev_np(sig);
	char name[64];
	if (abbrev)
		snprintf(name, sizeof(name), "<signal SIG%s>", abbrev);
	else
		snprintf(name, sizeof(name), "<signal %d>", sig);
	memset(sym, 0, sizeof(*sym));
	sym->name = strdup(name);
	sym->module = strdup("");
}

/* The function's index once sorted; looked up through a temporary table. */
struct fn_index {
	void *fn;
	int id;
	UT_hash_handle hh;
};

/* Paths in the profile's order (parents first), with indices for parents. */
struct path_index {
	const struct pv_path *path;
	int index;
	UT_hash_handle hh;
};

static int build_paths(struct pv_report *r, const struct pv_profile *p,
		       struct fn_index *by_fn, const double *scale)
{
	r->n_paths = HASH_CNT(hh, p->paths);
	r->paths = calloc(r->n_paths ? r->n_paths : 1, sizeof(*r->paths));
	struct path_index *slots = calloc(r->n_paths ? r->n_paths : 1, sizeof(*slots));
	if (!r->paths || !slots) {
		free(slots);
		return -1;
	}
	struct path_index *by_path = NULL;
	int i = 0;
	for (const struct pv_path *x = p->paths; x; x = x->hh.next, i++) {
		struct pv_rpath *rp = &r->paths[i];
		struct path_index *hit = NULL;
		struct fn_index *f;
		if (x->key.parent)
			HASH_FIND_PTR(by_path, &x->key.parent, hit);
		HASH_FIND_PTR(by_fn, &x->key.fn, f);
		rp->parent = hit ? hit->index : -1;
		rp->func = f ? f->id : 0;
		rp->calls = x->calls;
		for (unsigned e = 0; e < p->nev; e++)
			rp->self[e] = scaled(x->self[e], scale[e]);
		slots[i].path = x;
		slots[i].index = i;
		HASH_ADD_PTR(by_path, path, &slots[i]);
	}
	HASH_CLEAR(hh, by_path);
	free(slots);
	return 0;
}

int pv_report_build(struct pv_report *r, const struct pv_profile *p,
		    struct pv_symbolizer *syms, const double *scale)
{
	r->nev = p->nev;
	r->threads = p->threads;
	r->stray_exits = p->stray_exits;
	r->resyncs = p->resyncs;
	for (unsigned i = 0; i < p->nev; i++)
		r->multiplexed[i] = p->enabled[i] && p->running[i] < p->enabled[i]
					    ? (double)p->running[i] / (double)p->enabled[i]
					    : 1.0;
	r->n_funcs = HASH_COUNT(p->funcs);
	r->n_arcs = HASH_COUNT(p->arcs);
	r->funcs = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*r->funcs));
	r->arcs = calloc(r->n_arcs ? r->n_arcs : 1, sizeof(*r->arcs));
	struct fn_index *index = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*index));
	if (!r->funcs || !r->arcs || !index) {
		free(index);
		pv_report_free(r);
		return -1;
	}

	unsigned i = 0;
	for (struct pv_fstat *f = p->funcs; f; f = f->hh.next, i++) {
		struct pv_rfunc *rf = &r->funcs[i];
		rf->fn = f->fn;
		int sig = pv_signal_of(f->fn);
		if (sig)
			signal_symbol(sig, &rf->sym);
		else
			pv_symbols_lookup(syms, f->fn, &rf->sym);
		rf->calls = f->calls;
		for (unsigned e = 0; e < p->nev; e++) {
			rf->self[e] = scaled(f->self[e], scale[e]);
			rf->total[e] = scaled(f->total[e], scale[e]);
		}
	}
	qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), by_total_desc);
	struct fn_index *by_fn = NULL;
	pv_uthash_arena = NULL;
	for (i = 0; i < r->n_funcs; i++) {
		index[i].fn = r->funcs[i].fn;
		index[i].id = (int)i;
		r->funcs[i].id = (int)i;
		HASH_ADD_PTR(by_fn, fn, &index[i]);
	}

	i = 0;
	for (struct pv_astat *a = p->arcs; a; a = a->hh.next, i++) {
		struct pv_rarc *ra = &r->arcs[i];
		struct fn_index *hit;
		ra->caller = -1;
		if (a->key.caller) {
			HASH_FIND_PTR(by_fn, &a->key.caller, hit);
			ra->caller = hit ? hit->id : -1;
		}
		HASH_FIND_PTR(by_fn, &a->key.callee, hit);
		ra->callee = hit ? hit->id : 0;
		ra->calls = a->calls;
		for (unsigned e = 0; e < p->nev; e++)
			ra->total[e] = scaled(a->total[e], scale[e]);
		if (ra->caller < 0)
			for (unsigned e = 0; e < p->nev; e++)
				r->run_total[e] += ra->total[e];
	}
	qsort(r->arcs, r->n_arcs, sizeof(*r->arcs), arc_by_total_desc);
	int status = build_paths(r, p, by_fn, scale);
	HASH_CLEAR(hh, by_fn);
	free(index);
	if (status < 0)
		pv_report_free(r);
	return status;
}

void pv_report_free(struct pv_report *r)
{
	if (r->funcs)
		for (unsigned i = 0; i < r->n_funcs; i++)
			pv_symbol_free(&r->funcs[i].sym);
	free(r->funcs);
	free(r->arcs);
	free(r->paths);
	r->funcs = NULL;
	r->arcs = NULL;
	r->paths = NULL;
}
