/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "model/report.h"

#include <stdio.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/paths.h"

/* A raw count in output units. */
static uint64_t scaled(uint64_t v, double factor)
{
	return factor == 1.0 ? v : (uint64_t)llround((double)v * factor);
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

/* Look-up tables for one build: a function's slot by address, an arc's
 * slot by its two addresses, a path's index by its profile record. */
struct fn_slot {
	void *fn;
	int slot;
	UT_hash_handle hh;
};

struct arc_slot {
	struct pv_arc_key key;
	int slot;
	UT_hash_handle hh;
};

struct path_slot {
	const struct pv_path *path;
	int slot;
	UT_hash_handle hh;
};

/* Compensated costs gathered from the paths, raw units, per slot. */
struct sums {
	double (*func_self)[PV_MAX_EVENTS];
	double (*func_total)[PV_MAX_EVENTS];
	double (*arc_total)[PV_MAX_EVENTS];
	double (*path_self)[PV_MAX_EVENTS];
	double (*path_total)[PV_MAX_EVENTS];
	const struct pv_path **path_of; /* each report path's profile record */
	double clamped[PV_MAX_EVENTS];
	double modelled[PV_MAX_EVENTS]; /* share of the whole overhead the paths lost */
};

static int find_fn(struct fn_slot *table, void *fn)
{
	struct fn_slot *hit;
	HASH_FIND_PTR(table, &fn, hit);
	return hit ? hit->slot : -1;
}

static int find_arc(struct arc_slot *table, void *caller, void *callee)
{
	struct pv_arc_key key = { caller, callee };
	struct arc_slot *hit;
	HASH_FIND(hh, table, &key, sizeof(key), hit);
	return hit ? hit->slot : -1;
}

/* The profile's folds between the paths kept (by_path: their slots). */
static int build_folds(struct pv_report *r, const struct pv_profile *p, struct path_slot *by_path)
{
	unsigned n = HASH_CNT(hh, p->folds);
	r->folds = calloc(n ? n : 1, sizeof(*r->folds));
	if (!r->folds)
		return -1;
	for (const struct pv_fold *x = p->folds; x; x = x->hh.next) {
		struct path_slot *from = NULL, *into = NULL;
		HASH_FIND_PTR(by_path, &x->key.from, from);
		HASH_FIND_PTR(by_path, &x->key.into, into);
		if (!from || !into) {
			r->lost_records++;
			continue;
		}
		r->folds[r->n_folds++] = (struct pv_rfold){ from->slot, into->slot, x->calls };
	}
	pv_report_sort_folds(r);
	return 0;
}

/* The paths in the profile's order (parents first), their functions as
 * slots of r->funcs; paths whose function or parent was lost are left out. */
static int build_paths(struct pv_report *r, const struct pv_profile *p, struct fn_slot *fns,
		       const struct pv_path **path_of)
{
	unsigned n = HASH_CNT(hh, p->paths);
	r->paths = calloc(n ? n : 1, sizeof(*r->paths));
	struct path_slot *slots = calloc(n ? n : 1, sizeof(*slots));
	if (!r->paths || !slots) {
		free(slots);
		return -1;
	}
	struct path_slot *by_path = NULL;
	int i = 0;
	const struct pv_path *x;
	for (x = p->paths; x; x = x->hh.next) {
		struct pv_rpath *rp = &r->paths[i];
		struct path_slot *parent = NULL;
		if (x->key.parent)
			HASH_FIND_PTR(by_path, &x->key.parent, parent);
		int func = find_fn(fns, x->key.fn);
		if (func < 0 || (x->key.parent && !parent)) {
			r->lost_records++; /* lost merging, and so is everything below it */
			continue;
		}
		rp->parent = parent ? parent->slot : -1;
		rp->func = func;
		rp->group = (unsigned)x->key.group;
		rp->calls = x->calls;
		rp->inlined_calls = x->inlined_calls;
		rp->samples = x->samples;
		rp->timed_ns = x->timed_ns;
		path_of[i] = x;
		slots[i].path = x;
		slots[i].slot = i;
		HASH_ADD_PTR(by_path, path, &slots[i]);
		if (!pv_htab_added(&slots[i], hh))
			break;
		i++;
	}
	int complete = !x;
	r->n_paths = (unsigned)i;
	if (complete && build_folds(r, p, by_path) < 0)
		complete = 0;
	HASH_CLEAR(hh, by_path);
	free(slots);
	return complete ? 0 : -1;
}

/* Whether event e's raw costs hold the hooks' calibrated cost: not when
 * it is sampled time, whose samples in the runtime's code are dropped. */
static int hooks_in(const struct pv_report *r, const struct pv_overhead *o, unsigned e)
{
	return o->calibrated && !pv_event_is_sampled(&r->events[e]);
}

/* Each path's inlined calls ran their hooks in their host's frame: the
 * nearest path up that ran as a frame of its own, and so has a self. */
static void inlined_into_hosts(const struct pv_report *r, struct pv_comp_path *cp)
{
	for (unsigned i = 0; i < r->n_paths; i++) {
		uint64_t bodies = r->paths[i].inlined_calls;
		int host = r->paths[i].parent;
		while (host >= 0 && r->paths[host].inlined_calls == r->paths[host].calls)
			host = r->paths[host].parent;
		if (bodies && host >= 0)
			cp[host].bodies += bodies;
	}
}

/* Each event's overhead out of the paths' raw costs (pv_compensate), then
 * gathered by function and by arc. */
static int compensate_paths(struct pv_report *r, const struct pv_overhead *o,
			    const double *running_ratio, struct arc_slot *arcs, struct sums *s)
{
	struct pv_comp_path *cp = calloc(r->n_paths ? r->n_paths : 1, sizeof(*cp));
	int *arc_of = malloc((r->n_paths ? r->n_paths : 1) * sizeof(*arc_of));
	if (!cp || !arc_of) {
		free(cp);
		free(arc_of);
		return -1;
	}
	for (unsigned i = 0; i < r->n_paths; i++) {
		const struct pv_rpath *rp = &r->paths[i];
		void *caller = rp->parent >= 0 ? r->funcs[r->paths[rp->parent].func].fn : NULL;
		arc_of[i] = find_arc(arcs, caller, r->funcs[rp->func].fn);
	}
	/* The paths' calls, the same for every event (compensation writes
	 * only self and total). */
	for (unsigned i = 0; i < r->n_paths; i++) {
		const struct pv_path *x = s->path_of[i];
		cp[i] = (struct pv_comp_path){
			.parent = r->paths[i].parent,
			.is_signal = r->funcs[r->paths[i].func].kind == PV_FUNC_SIGNAL,
			.is_wait = r->funcs[r->paths[i].func].kind == PV_FUNC_WAIT,
			.calls = x->calls,
			.inlined_calls = x->inlined_calls,
			.callees = x->callees,
			.misses = x->callee_misses,
		};
	}
	inlined_into_hosts(r, cp);
	for (unsigned e = 0; e < r->nev; e++) {
		for (unsigned i = 0; i < r->n_paths; i++) {
			cp[i].self = (double)s->path_of[i]->self[e];
			cp[i].total = (double)s->path_of[i]->total[e];
		}
		/* A multiplexed event counted only part of the time: per call, the
		 * raw counts hold that part of the overhead calibration measured;
		 * a sampled one none of it. */
		double part = hooks_in(r, o, e) ? running_ratio[e] : 0;
		double span = pv_event_hides_hooks(&r->events[e]) ? o->callee_span[e] * part : 0;
		struct pv_hook_costs c = { o->caller[e] * part, o->caller_miss[e] * part,
					   o->callee[e] * part, span, o->inlined[e] * part };
		if (o->calibrated)
			s->clamped[e] = pv_compensate_costs(cp, r->n_paths, &c, &s->modelled[e]);
		for (unsigned i = 0; i < r->n_paths; i++) {
			int func = r->paths[i].func;
			s->path_self[i][e] = cp[i].self;
			s->path_total[i][e] = cp[i].total;
			s->func_self[func][e] += cp[i].self;
			s->func_total[func][e] += cp[i].total;
			if (arc_of[i] >= 0)
				s->arc_total[arc_of[i]][e] += cp[i].total;
		}
	}
	free(cp);
	free(arc_of);
	return 0;
}

static int alloc_sums(struct sums *s, unsigned funcs, unsigned arcs, unsigned paths)
{
	s->func_self = calloc(funcs ? funcs : 1, sizeof(*s->func_self));
	s->func_total = calloc(funcs ? funcs : 1, sizeof(*s->func_total));
	s->arc_total = calloc(arcs ? arcs : 1, sizeof(*s->arc_total));
	s->path_self = calloc(paths ? paths : 1, sizeof(*s->path_self));
	s->path_total = calloc(paths ? paths : 1, sizeof(*s->path_total));
	s->path_of = calloc(paths ? paths : 1, sizeof(*s->path_of));
	return s->func_self && s->func_total && s->arc_total && s->path_self && s->path_total &&
			       s->path_of
		       ? 0
		       : -1;
}

static void free_sums(struct sums *s)
{
	free(s->func_self);
	free(s->func_total);
	free(s->arc_total);
	free(s->path_self);
	free(s->path_total);
	free(s->path_of);
}

static uint64_t out_units(double v, double factor)
{
	return v <= 0 ? 0 : (uint64_t)llround(v * factor);
}

/* Every cost into output units, once. */
static void convert(struct pv_report *r, const struct pv_profile *p, const double *factor,
		    const struct sums *s, const int *arc_slot_of)
{
	unsigned i = 0;
	for (const struct pv_fstat *f = p->funcs; f && i < r->n_funcs; f = f->hh.next, i++)
		for (unsigned e = 0; e < r->nev; e++) {
			r->funcs[i].raw_self[e] = scaled(f->self[e], factor[e]);
			r->funcs[i].raw_total[e] = scaled(f->total[e], factor[e]);
			r->funcs[i].self[e] = out_units(s->func_self[i][e], factor[e]);
			r->funcs[i].total[e] = out_units(s->func_total[i][e], factor[e]);
		}
	i = 0;
	for (const struct pv_astat *a = p->arcs; a; a = a->hh.next, i++) {
		int slot = arc_slot_of[i];
		if (slot < 0)
			continue;
		struct pv_rarc *ra = &r->arcs[slot];
		for (unsigned e = 0; e < r->nev; e++) {
			ra->raw_total[e] = scaled(a->total[e], factor[e]);
			ra->total[e] = out_units(s->arc_total[slot][e], factor[e]);
			if (ra->caller < 0) {
				r->run_total[e] += ra->total[e];
				r->raw_run_total[e] += ra->raw_total[e];
			}
		}
	}
	for (i = 0; i < r->n_paths; i++)
		for (unsigned e = 0; e < r->nev; e++) {
			r->paths[i].raw_self[e] = scaled(s->path_of[i]->self[e], factor[e]);
			r->paths[i].self[e] = out_units(s->path_self[i][e], factor[e]);
			r->paths[i].total[e] = out_units(s->path_total[i][e], factor[e]);
		}
	for (unsigned e = 0; e < r->nev; e++)
		r->clamped[e] = out_units(s->clamped[e], factor[e]);
}

void pv_report_hold_run_total(struct pv_report *r)
{
	/* Each amount was rounded to output units on its own. */
	uint64_t rounding = (uint64_t)r->n_funcs + r->n_arcs;
	for (unsigned e = 0; e < r->nev; e++) {
		uint64_t selves = 0, raw_selves = 0;
		for (unsigned i = 0; i < r->n_funcs; i++) {
			if (r->waits_apart && r->funcs[i].kind == PV_FUNC_WAIT)
				continue; /* outside the run, in waited */
			selves += r->funcs[i].self[e];
			raw_selves += r->funcs[i].raw_self[e];
		}
		r->run_total_raised[e] = 0;
		if (selves > r->run_total[e] + rounding) {
			r->run_total_raised[e] = selves - r->run_total[e];
			r->run_total[e] = selves;
		}
		if (raw_selves > r->raw_run_total[e] + rounding)
			r->raw_run_total[e] = raw_selves;
	}
}

int pv_report_sort(struct pv_report *r)
{
	int *id_of = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*id_of));
	if (!id_of)
		return -1;
	for (unsigned i = 0; i < r->n_funcs; i++)
		r->funcs[i].id = (int)i; /* the slot, until sorted */
	qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), by_total_desc);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		id_of[r->funcs[i].id] = (int)i;
		r->funcs[i].id = (int)i;
	}
	for (unsigned i = 0; i < r->n_arcs; i++) {
		if (r->arcs[i].caller >= 0)
			r->arcs[i].caller = id_of[r->arcs[i].caller];
		r->arcs[i].callee = id_of[r->arcs[i].callee];
	}
	for (unsigned i = 0; i < r->n_paths; i++)
		r->paths[i].func = id_of[r->paths[i].func];
	free(id_of);
	qsort(r->arcs, r->n_arcs, sizeof(*r->arcs), arc_by_total_desc);
	return 0;
}

/* Per call, in output units: a multiplexed event's factor extrapolates by
 * enabled/running, which the calibrated cost (counted while running) needs not. */
static void overhead_in_units(struct pv_report *r, const struct pv_overhead *o,
			      const struct pv_conversion *conv)
{
	r->compensated = o->calibrated;
	for (unsigned e = 0; e < r->nev && o->calibrated; e++) {
		double unit = hooks_in(r, o, e) ? conv->factor[e] * conv->running_ratio[e] : 0;
		r->caller_cost[e] = o->caller[e] * unit;
		r->caller_miss_cost[e] = o->caller_miss[e] * unit;
		r->callee_cost[e] = o->callee[e] * unit;
		/* 0 for events whose counts the hooks add to in full */
		r->callee_span[e] = pv_event_hides_hooks(&r->events[e]) ? o->callee_span[e] * unit : 0;
		r->inlined_cost[e] = o->inlined[e] * unit;
	}
}

/* Each thread's run: its calls from outside lose what the hooks added
 * beneath them, as the paths' totals do (compensate.h). */
static int build_threads(struct pv_report *r, const struct pv_profile *p,
			 const struct pv_overhead *o, const struct pv_conversion *conv,
			 const double *modelled)
{
	r->n_thread_list = 0;
	r->thread_list = calloc(p->n_thread_stats ? p->n_thread_stats : 1,
				sizeof(*r->thread_list));
	if (!r->thread_list)
		return -1;
	for (unsigned i = 0; i < p->n_thread_stats; i++) {
		const struct pv_thread_stat *ts = &p->thread_stats[i];
		struct pv_rthread *rt = &r->thread_list[i];
		rt->tid = ts->tid;
		memcpy(rt->name, ts->name, sizeof(rt->name));
		rt->main_thread = ts->main_thread;
		rt->calls = ts->calls;
		rt->cpu_seconds = ts->cpu_seconds;
		rt->wall_seconds = ts->wall_seconds;
		rt->cut_short = ts->cut_short;
		for (unsigned e = 0; e < r->nev; e++) {
			double raw = (double)ts->total[e], added = 0;
			uint64_t framed = ts->calls - ts->inlined_calls;
			if (hooks_in(r, o, e))
				added = conv->running_ratio[e] * modelled[e] *
					((double)framed * o->callee[e] +
					 (double)(framed - ts->outer_calls) * o->caller[e] +
					 (double)ts->inner_misses * o->caller_miss[e] +
					 (double)ts->inlined_calls * o->inlined[e]);
			rt->raw_total[e] = scaled(ts->total[e], conv->factor[e]);
			rt->total[e] = out_units(raw - added, conv->factor[e]);
		}
	}
	r->n_thread_list = p->n_thread_stats;
	r->groups = malloc((p->n_groups + 1) * sizeof(*r->groups));
	if (!r->groups)
		return -1;
	memcpy(r->groups, p->groups, p->n_groups * sizeof(*r->groups));
	r->n_groups = p->n_groups;
	return 0;
}

/* Does p hold functions of an object unloaded, then loaded again where it was? */
static int has_reloaded(const struct pv_profile *p, const struct pv_namer *names)
{
	if (names->reloaded)
		for (const struct pv_fstat *f = p->funcs; f; f = f->hh.next)
			if (names->reloaded(f->fn, names->arg))
				return 1;
	return 0;
}

int pv_report_build(struct pv_report *r, const struct pv_profile *given,
		    const struct pv_namer *names, const struct pv_conversion *conv,
		    const struct pv_overhead *overhead)
{
	/* A plugin reloaded where it was: one function per function, whichever
	 * time it was loaded. */
	struct pv_profile merged;
	const struct pv_profile *p = given;
	pv_profile_init(&merged, given->nev);
	if (has_reloaded(given, names)) {
		pv_profile_add_rekeyed(&merged, given, names->reloaded, names->arg);
		p = &merged;
	}

	r->nev = p->nev;
	r->threads = p->threads;
	r->stray_exits = p->stray_exits;
	r->resyncs = p->resyncs;
	r->losses = p->losses;
	r->sampling = p->sampling;
	r->wall_seconds = conv->wall_seconds;
	for (unsigned i = 0; i < p->nev; i++)
		r->multiplexed[i] = conv->running_ratio[i];
	overhead_in_units(r, overhead, conv);
	r->n_funcs = HASH_COUNT(p->funcs);
	unsigned n_arcs = HASH_COUNT(p->arcs);
	r->funcs = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*r->funcs));
	r->arcs = calloc(n_arcs ? n_arcs : 1, sizeof(*r->arcs));
	struct fn_slot *fn_slots = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*fn_slots));
	struct arc_slot *arc_slots = calloc(n_arcs ? n_arcs : 1, sizeof(*arc_slots));
	int *arc_slot_of = calloc(n_arcs ? n_arcs : 1, sizeof(*arc_slot_of));
	struct sums sums = { 0 };
	struct fn_slot *fns = NULL;
	struct arc_slot *arcs = NULL;
	int status = -1;
	if (!r->funcs || !r->arcs || !fn_slots || !arc_slots || !arc_slot_of)
		goto out;

	unsigned i = 0;
	for (const struct pv_fstat *f = p->funcs; f; f = f->hh.next, i++) {
		struct pv_rfunc *rf = &r->funcs[i];
		rf->fn = f->fn;
		rf->kind = f->kind;
		names->name(names->arg, f->fn, f->kind, &rf->sym);
		if (rf->sym.file)
			pv_path_normalise(rf->sym.file); /* as compilers write it: a/b/../c.h */
		rf->calls = f->calls;
		rf->inlined_calls = f->inlined_calls;
		rf->samples = f->samples;
		rf->timed_ns = f->timed_ns;
		fn_slots[i].fn = f->fn;
		fn_slots[i].slot = (int)i;
		HASH_ADD_PTR(fns, fn, &fn_slots[i]);
		if (!pv_htab_added(&fn_slots[i], hh))
			goto out;
	}

	i = 0;
	for (const struct pv_astat *a = p->arcs; a; a = a->hh.next, i++) {
		int caller = a->key.caller ? find_fn(fns, a->key.caller) : -1;
		int callee = find_fn(fns, a->key.callee);
		arc_slot_of[i] = -1;
		if (callee < 0 || (a->key.caller && caller < 0)) {
			r->lost_records++; /* a function record was lost merging */
			continue;
		}
		struct pv_rarc *ra = &r->arcs[r->n_arcs];
		ra->caller = caller;
		ra->callee = callee;
		ra->calls = a->calls;
		ra->nested_calls = a->nested_calls;
		ra->inlined_calls = a->inlined_calls;
		arc_slots[r->n_arcs].key = a->key;
		arc_slots[r->n_arcs].slot = (int)r->n_arcs;
		HASH_ADD(hh, arcs, key, sizeof(struct pv_arc_key), &arc_slots[r->n_arcs]);
		if (!pv_htab_added(&arc_slots[r->n_arcs], hh))
			goto out;
		arc_slot_of[i] = (int)r->n_arcs++;
	}

	if (alloc_sums(&sums, r->n_funcs, r->n_arcs, HASH_CNT(hh, p->paths)) < 0 ||
	    build_paths(r, p, fns, sums.path_of) < 0 ||
	    compensate_paths(r, overhead, conv->running_ratio, arcs, &sums) < 0 ||
	    build_threads(r, p, overhead, conv, sums.modelled) < 0)
		goto out;
	convert(r, p, conv->factor, &sums, arc_slot_of);
	pv_report_hold_run_total(r);
	status = pv_report_sort(r);
out:
	HASH_CLEAR(hh, fns);
	HASH_CLEAR(hh, arcs);
	free(fn_slots);
	free(arc_slots);
	free(arc_slot_of);
	free_sums(&sums);
	pv_profile_clear(&merged);
	if (status < 0)
		pv_report_free(r);
	return status;
}

void pv_report_free(struct pv_report *r)
{
	if (r->funcs)
		for (unsigned i = 0; i < r->n_funcs; i++) {
			pv_symbol_free(&r->funcs[i].sym);
			pv_lines_free(&r->funcs[i].lines);
		}
	free(r->funcs);
	free(r->arcs);
	free(r->paths);
	free(r->folds);
	free(r->thread_list);
	r->thread_list = NULL;
	free(r->groups);
	r->groups = NULL;
	r->n_groups = 0;
	r->funcs = NULL;
	r->arcs = NULL;
	r->paths = NULL;
	r->folds = NULL;
	r->n_folds = 0;
}

static int by_from_then_into(const void *a, const void *b)
{
	const struct pv_rfold *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->into < y->into ? -1 : x->into > y->into;
}

void pv_report_sort_folds(struct pv_report *r)
{
	if (r->n_folds)
		qsort(r->folds, r->n_folds, sizeof(*r->folds), by_from_then_into);
}

int pv_report_event(const struct pv_report *r, const char *name)
{
	for (unsigned i = 0; i < r->nev; i++)
		if (!strcmp(r->events[i].name, name))
			return (int)i;
	return -1;
}

/* Appends ", N what" (or "N what" first) to buf when n is not 0. */
static void add_loss(char *buf, size_t size, uint64_t n, const char *what)
{
	size_t len = strlen(buf);
	if (n && len < size)
		snprintf(buf + len, size - len, "%s%" PRIu64 " %s",
			 buf[len - 1] == ' ' ? "" : ", ", n, what);
}

int pv_report_losses_text(const struct pv_report *r, char *buf, size_t size)
{
	const struct pv_losses *l = &r->losses;
	if (size)
		buf[0] = '\0';
	if (size < 2 || (!pv_losses_any(l) && !r->lost_records))
		return 0;
	snprintf(buf, size, "the profile is incomplete: ");
	add_loss(buf, size, l->unrecorded_calls,
		 "calls unrecorded (by signal handlers that ran inside profviz's own work, "
		 "or for lack of memory or stack depth)");
	add_loss(buf, size, l->merge_failures, "records lost for lack of memory");
	add_loss(buf, size, r->lost_records, "arcs or call paths left out without their functions");
	add_loss(buf, size, l->counters_lost,
		 "threads' events lost (closed by the program and not reopened)");
	add_loss(buf, size, l->rekeys_incomplete,
		 "threads' calls into an unloaded object not told apart from a later one's");
	add_loss(buf, size, l->threads_cut_short,
		 "threads still running whose events could not be read at the end (their open "
		 "calls' costs stop at their last hook)");
	add_loss(buf, size, l->threads_shared,
		 "threads that made a clone(2) share their TLS (CLONE_VM without CLONE_SETTLS): "
		 "nothing recorded on them after it");
	add_loss(buf, size, l->contexts_unplaced,
		 "ucontexts made while their thread kept 3072 apart (its most): their calls hang "
		 "from the code that switched to them");
	add_loss(buf, size, l->catches_in_bodies,
		 "C++ catches in a function whose inlined bodies the exception came out of "
		 "without their exit hooks (clang): calls after them may hang from those bodies "
		 "until the function returns");
	return 1;
}

void pv_report_warn_losses(const struct pv_report *r)
{
	char text[2048];
	if (pv_report_losses_text(r, text, sizeof(text)))
		pv_log("%s", text);
}

void pv_report_thread_label(const struct pv_rthread *t, char *out, size_t size)
{
	if (t->main_thread)
		snprintf(out, size, "%d main%s%s%s", (int)t->tid, t->name[0] ? " (" : "", t->name,
			 t->name[0] ? ")" : "");
	else
		snprintf(out, size, "%d%s%s", (int)t->tid, t->name[0] ? " " : "", t->name);
}

void pv_costs_add(uint64_t *to, const uint64_t *from, unsigned nev)
{
	for (unsigned e = 0; e < nev; e++)
		to[e] += from[e];
}
