/* SPDX-License-Identifier: MIT */
/*
 * view.c — part of a profile as a profile of its own, rebuilt from its call
 * paths: the callers and callees of one function (a focus), what runs below
 * one function (a root), or the top levels of the tree (a depth). The
 * functions and arcs are summed again from the paths kept, so every writer
 * shows the part as it would a whole run.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/pairs.h"
#include "model/view.h"

struct building {
	const struct pv_report *in;
	struct pv_report *out;
	int *func_of;           /* new function id of an old one, or -1 */
	struct pv_pair *arcs;   /* (caller, callee) -> slot in out->arcs */
};

static int new_function(struct building *b, int old)
{
	if (b->func_of[old] >= 0)
		return b->func_of[old];
	struct pv_rfunc *f = &b->out->funcs[b->out->n_funcs];
	f->id = (int)b->out->n_funcs;
	f->fn = b->in->funcs[old].fn;
	f->copies = b->in->funcs[old].copies;
	if (pv_symbol_copy(&f->sym, &b->in->funcs[old].sym) < 0)
		return -1;
	return b->func_of[old] = (int)b->out->n_funcs++;
}

/* Whether func is open further up path i's chain (its parents). */
static int open_above(const struct pv_report *r, int i, int func)
{
	for (int at = r->paths[i].parent; at >= 0; at = r->paths[at].parent)
		if (r->paths[at].func == func)
			return 1;
	return 0;
}

static int add_arc(struct building *b, int caller, const struct pv_rpath *p, int nested,
		   const uint64_t *raw_total)
{
	struct pv_report *r = b->out;
	int created, slot = pv_pair_slot(&b->arcs, &r->n_arcs, caller, p->func, &created);
	if (slot < 0)
		return -1;
	struct pv_rarc *a = &r->arcs[slot];
	if (created) {
		a->caller = caller;
		a->callee = p->func;
	}
	a->calls += p->calls;
	if (nested) {
		a->nested_calls += p->calls;
		return 0;
	}
	for (unsigned ev = 0; ev < r->nev; ev++) {
		a->total[ev] += p->total[ev];
		a->raw_total[ev] += raw_total[ev];
	}
	return 0;
}

/* Functions and arcs from out's paths, whose func fields are still the
 * input's ids; raw_total: each path's raw total (from the input's whole
 * subtree, or what flows through the focus). */
static int sum_paths(struct building *b, const uint64_t (*raw_total)[PV_MAX_EVENTS])
{
	struct pv_report *r = b->out;
	unsigned nev = r->nev;
	int status = 0;
	for (unsigned i = 0; i < r->n_paths && status == 0; i++) {
		struct pv_rpath *p = &r->paths[i];
		int id = new_function(b, p->func);
		if (id < 0) {
			status = -1;
			break;
		}
		p->func = id; /* parents come first, so open_above sees new ids */
		int nested = open_above(r, (int)i, id);
		struct pv_rfunc *f = &r->funcs[id];
		f->calls += p->calls;
		for (unsigned ev = 0; ev < nev; ev++) {
			f->self[ev] += p->self[ev];
			f->raw_self[ev] += p->raw_self[ev];
			if (!nested) {
				f->total[ev] += p->total[ev];
				f->raw_total[ev] += raw_total[i][ev];
			}
		}
		int caller = p->parent >= 0 ? r->paths[p->parent].func : -1;
		status = add_arc(b, caller, p, nested, raw_total[i]);
	}
	return status;
}

int pv_view_build(struct pv_report *out, const struct pv_report *in, const struct pv_view *v)
{
	unsigned n = in->n_paths;
	const char *target = v->funcs;
	*out = *in;
	out->funcs = NULL;
	out->arcs = NULL;
	out->paths = NULL;
	out->thread_list = NULL; /* the threads' totals are of the whole run */
	out->n_thread_list = 0;
	out->n_funcs = out->n_arcs = out->n_paths = 0;
	memset(out->run_total, 0, sizeof(out->run_total)); /* summed below */

	char *under = calloc(n + 1, 1), *reach = calloc(n + 1, 1);
	unsigned *dist = calloc(n + 1, sizeof(*dist));
	int *index_of = malloc((n + 1) * sizeof(*index_of));
	/* What flows into the focus through each of its callers' paths, and
	 * each path's raw total in the input and what of it flows so. */
	uint64_t (*flow)[PV_MAX_EVENTS] = calloc(n + 1, sizeof(*flow));
	uint64_t (*raw_in)[PV_MAX_EVENTS] = calloc(n + 1, sizeof(*raw_in));
	uint64_t (*raw_flow)[PV_MAX_EVENTS] = calloc(n + 1, sizeof(*raw_flow));
	uint64_t (*raw_out)[PV_MAX_EVENTS] = calloc(n + 1, sizeof(*raw_out));
	struct building b = { in, out, malloc((in->n_funcs + 1) * sizeof(int)), NULL };
	out->funcs = calloc(in->n_funcs + 1, sizeof(*out->funcs));
	out->arcs = calloc(n + 1, sizeof(*out->arcs));
	out->paths = calloc(n + 1, sizeof(*out->paths));
	int status = -1;
	if (!under || !reach || !dist || !index_of || !flow || !raw_in || !raw_flow || !raw_out ||
	    !b.func_of ||
	    !out->funcs || !out->arcs || !out->paths)
		goto done;
	memset(b.func_of, -1, (in->n_funcs + 1) * sizeof(int));

	/* Parents come before children: one pass down, one up. */
	for (unsigned i = 0; i < n; i++) {
		const struct pv_rpath *p = &in->paths[i];
		int parent_under = p->parent >= 0 && under[p->parent];
		if (v->kind == PV_VIEW_WHOLE) {
			under[i] = 1;
			dist[i] = p->parent >= 0 ? dist[p->parent] + 1 : 0;
		} else {
			under[i] = target[p->func] || parent_under;
			dist[i] = parent_under ? dist[p->parent] + 1 : 0;
		}
	}
	for (unsigned i = n; i-- > 0;) {
		const struct pv_rpath *p = &in->paths[i];
		for (unsigned ev = 0; ev < in->nev; ev++) {
			raw_in[i][ev] += p->raw_self[ev];
			if (p->parent >= 0)
				raw_in[p->parent][ev] += raw_in[i][ev];
		}
		int outermost = v->kind != PV_VIEW_WHOLE && target[p->func] &&
				!(p->parent >= 0 && under[p->parent]);
		if (outermost) {
			reach[i] = 1;
			memcpy(flow[i], p->total, sizeof(flow[i]));
			memcpy(raw_flow[i], raw_in[i], sizeof(raw_flow[i]));
			for (unsigned ev = 0; ev < in->nev; ev++)
				out->run_total[ev] += p->total[ev];
		}
		if (p->parent >= 0 && reach[i] && (outermost || !under[i])) {
			reach[p->parent] = 1;
			for (unsigned ev = 0; ev < in->nev; ev++) {
				flow[p->parent][ev] += flow[i][ev];
				raw_flow[p->parent][ev] += raw_flow[i][ev];
			}
		}
	}
	if (v->kind == PV_VIEW_WHOLE)
		memcpy(out->run_total, in->run_total, sizeof(out->run_total));

	for (unsigned i = 0; i < n; i++) {
		const struct pv_rpath *p = &in->paths[i];
		int deep_enough = !v->depth || dist[i] <= v->depth;
		int keep = under[i] ? deep_enough : v->kind == PV_VIEW_FOCUS && reach[i];
		index_of[i] = -1;
		if (!keep)
			continue;
		struct pv_rpath *q = &out->paths[out->n_paths];
		*q = *p;
		q->parent = p->parent >= 0 ? index_of[p->parent] : -1;
		memcpy(raw_out[out->n_paths], under[i] ? raw_in[i] : raw_flow[i], sizeof(raw_out[0]));
		if (!under[i]) { /* a caller of the focus: only what flows through it */
			memset(q->self, 0, sizeof(q->self));
			memset(q->raw_self, 0, sizeof(q->raw_self));
			memcpy(q->total, flow[i], sizeof(q->total));
		}
		index_of[i] = (int)out->n_paths++;
	}
	if (sum_paths(&b, (const uint64_t (*)[PV_MAX_EVENTS])raw_out) < 0)
		goto done;
	/* Raw costs of a part: its own raw costs over the whole's. */
	uint64_t raw_sum[PV_MAX_EVENTS] = { 0 };
	for (unsigned i = 0; i < out->n_arcs; i++)
		if (out->arcs[i].caller < 0)
			for (unsigned ev = 0; ev < in->nev; ev++)
				raw_sum[ev] += out->arcs[i].raw_total[ev];
	memcpy(out->raw_run_total, raw_sum, sizeof(raw_sum));
	status = pv_report_sort(out);
done:
	pv_pairs_free(&b.arcs);
	free(b.func_of);
	free(under);
	free(reach);
	free(dist);
	free(index_of);
	free(flow);
	free(raw_in);
	free(raw_flow);
	free(raw_out);
	if (status < 0) {
		pv_report_free(out);
		memset(out, 0, sizeof(*out));
	}
	return status;
}
