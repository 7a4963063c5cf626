/* SPDX-License-Identifier: MIT */
#include "model/window.h"

#include <stdlib.h>
#include <string.h>

/* a - b, never below 0: a record read while its thread ran may lag. */
static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void costs_less(uint64_t *a, const uint64_t *b, unsigned nev)
{
	for (unsigned i = 0; i < nev; i++)
		a[i] = less(a[i], b[i]);
}

static int any(const uint64_t *v, unsigned nev)
{
	for (unsigned i = 0; i < nev; i++)
		if (v[i])
			return 1;
	return 0;
}

static void funcs_since(struct pv_profile *now, const struct pv_profile *then)
{
	for (const struct pv_fstat *f = then->funcs; f; f = f->hh.next) {
		struct pv_fstat *d;
		HASH_FIND(hh, now->funcs, &f->fn, sizeof(f->fn), d);
		if (!d)
			continue;
		d->calls = less(d->calls, f->calls);
		d->inlined_calls = less(d->inlined_calls, f->inlined_calls);
		d->samples = less(d->samples, f->samples);
		d->timed_ns = less(d->timed_ns, f->timed_ns);
		costs_less(d->self, f->self, now->nev);
		costs_less(d->total, f->total, now->nev);
	}
	for (const struct pv_astat *a = then->arcs; a; a = a->hh.next) {
		struct pv_astat *d;
		HASH_FIND(hh, now->arcs, &a->key, sizeof(a->key), d);
		if (!d)
			continue;
		d->calls = less(d->calls, a->calls);
		d->nested_calls = less(d->nested_calls, a->nested_calls);
		d->inlined_calls = less(d->inlined_calls, a->inlined_calls);
		costs_less(d->total, a->total, now->nev);
	}
}

/* then's paths and folds out of now's, matched through their parents (a
 * path's key holds its parent's address, which differs between the two). */
static void paths_since(struct pv_profile *now, const struct pv_profile *then)
{
	struct pv_path_map m = { now, NULL };
	for (const struct pv_path *x = then->paths; x; x = x->hh.next) {
		struct pv_path_key key = { NULL, x->key.fn, 0 };
		if (x->key.parent && !(key.parent = pv_path_map_get(&m, x->key.parent)))
			continue;
		if (!x->key.parent && x->key.group) { /* its threads' group, by name */
			const struct pv_thread_group *g = &then->groups[x->key.group - 1];
			if (!(key.group = pv_profile_find_group(now, g->name, g->main_thread)))
				continue;
		}
		struct pv_path *d;
		HASH_FIND(hh, now->paths, &key, sizeof(key), d);
		if (!d)
			continue;
		d->calls = less(d->calls, x->calls);
		d->inlined_calls = less(d->inlined_calls, x->inlined_calls);
		d->callees = less(d->callees, x->callees);
		d->callee_misses = less(d->callee_misses, x->callee_misses);
		d->samples = less(d->samples, x->samples);
		d->timed_ns = less(d->timed_ns, x->timed_ns);
		costs_less(d->self, x->self, now->nev);
		costs_less(d->total, x->total, now->nev);
		pv_path_map_put(&m, x, d);
	}
	for (const struct pv_fold *x = then->folds; x; x = x->hh.next) {
		struct pv_fold_key key = { pv_path_map_get(&m, x->key.from),
					   pv_path_map_get(&m, x->key.into) };
		struct pv_fold *d = NULL;
		if (key.from && key.into)
			HASH_FIND(hh, now->folds, &key, sizeof(key), d);
		if (d)
			d->calls = less(d->calls, x->calls);
	}
	pv_path_map_clear(&m);
}

/* Each thread of then out of its record in now (the same tid, the first
 * not yet taken that has as many calls or more: a tid can come back). */
static void threads_since(struct pv_profile *now, const struct pv_profile *then)
{
	char *taken = calloc(now->n_thread_stats + 1, 1);
	if (!taken)
		return;
	for (unsigned i = 0; i < then->n_thread_stats; i++) {
		const struct pv_thread_stat *t = &then->thread_stats[i];
		for (unsigned j = 0; j < now->n_thread_stats; j++) {
			struct pv_thread_stat *d = &now->thread_stats[j];
			if (taken[j] || d->tid != t->tid || d->calls < t->calls)
				continue;
			taken[j] = 1;
			d->calls -= t->calls;
			d->outer_calls = less(d->outer_calls, t->outer_calls);
			d->inner_misses = less(d->inner_misses, t->inner_misses);
			d->inlined_calls = less(d->inlined_calls, t->inlined_calls);
			costs_less(d->total, t->total, now->nev);
			if (d->cpu_seconds >= 0 && t->cpu_seconds >= 0)
				d->cpu_seconds = d->cpu_seconds > t->cpu_seconds
							 ? d->cpu_seconds - t->cpu_seconds : 0;
			d->wall_seconds = d->wall_seconds > t->wall_seconds
						  ? d->wall_seconds - t->wall_seconds : 0;
			break;
		}
	}
	free(taken);
	/* A thread that did nothing in the window is not of it. */
	unsigned kept = 0;
	for (unsigned j = 0; j < now->n_thread_stats; j++) {
		const struct pv_thread_stat *d = &now->thread_stats[j];
		if (d->calls || any(d->total, now->nev) || d->cpu_seconds > 0)
			now->thread_stats[kept++] = *d;
	}
	now->n_thread_stats = kept;
	now->threads = kept;
}

static void run_since(struct pv_profile *now, const struct pv_profile *then)
{
	now->stray_exits = less(now->stray_exits, then->stray_exits);
	now->resyncs = less(now->resyncs, then->resyncs);
	costs_less(now->enabled, then->enabled, now->nev);
	costs_less(now->running, then->running, now->nev);
	/* threads_cut_short and threads_shared say how the threads stand at
	 * the snapshot, not what grew: the window's are now's. */
	struct pv_losses at_end = now->losses;
#define PV_LOSS_LESS(name) now->losses.name = less(now->losses.name, then->losses.name);
	PV_LOSSES(PV_LOSS_LESS)
#undef PV_LOSS_LESS
	now->losses.threads_cut_short = at_end.threads_cut_short;
	now->losses.threads_shared = at_end.threads_shared;
	struct pv_sampling *s = &now->sampling;
	const struct pv_sampling *b = &then->sampling;
	s->wall_seconds = s->wall_seconds > b->wall_seconds ? s->wall_seconds - b->wall_seconds : 0;
	s->looks = less(s->looks, b->looks);
	s->samples = less(s->samples, b->samples);
	s->own_samples = less(s->own_samples, b->own_samples);
	s->own_ns = less(s->own_ns, b->own_ns);
	s->unsampled_ns = less(s->unsampled_ns, b->unsampled_ns);
	s->blocked_ns = less(s->blocked_ns, b->blocked_ns);
	s->timed_ns = less(s->timed_ns, b->timed_ns);
	s->sampler_ns = less(s->sampler_ns, b->sampler_ns);
}

static int path_touched(const struct pv_path *x, unsigned nev)
{
	return x->calls || x->callees || x->samples || x->timed_ns || any(x->self, nev) ||
	       any(x->total, nev);
}

static void keep_path(struct pv_path_map *keep, const struct pv_path *x)
{
	if (!pv_path_map_get(keep, x))
		pv_path_map_put(keep, x, (struct pv_path *)x);
}

/* Drop the records the window did not touch: a path when neither it nor a
 * path below it was; a function or an arc when no figure of its is left
 * and no path or arc kept runs it. */
static void drop_untouched(struct pv_profile *p)
{
	size_t n = HASH_COUNT(p->paths);
	struct pv_path **order = malloc((n + 1) * sizeof(*order));
	if (!order)
		return;
	size_t k = 0;
	for (struct pv_path *x = p->paths; x; x = x->hh.next)
		order[k++] = x;
	/* Children come after their parents: from the last, each path kept
	 * keeps its parent. */
	struct pv_path_map keep = { p, NULL };
	for (size_t i = n; i-- > 0;) {
		struct pv_path *x = order[i];
		if (!path_touched(x, p->nev) && !pv_path_map_get(&keep, x))
			continue;
		keep_path(&keep, x);
		if (x->key.parent)
			keep_path(&keep, x->key.parent);
	}
	struct pv_fold *f, *ftmp;
	HASH_ITER(hh, p->folds, f, ftmp) {
		if (!f->calls || !pv_path_map_get(&keep, f->key.from) ||
		    !pv_path_map_get(&keep, f->key.into)) {
			HASH_DEL(p->folds, f);
			free(f);
		}
	}
	struct pv_profile used; /* the functions kept paths and arcs run */
	pv_profile_init(&used, 0);
	for (size_t i = 0; i < n; i++) {
		struct pv_path *x = order[i];
		if (pv_path_map_get(&keep, x)) {
			pv_profile_func(&used, x->key.fn);
		} else {
			HASH_DEL(p->paths, x);
			free(x);
		}
	}
	free(order);
	pv_path_map_clear(&keep);
	struct pv_astat *a, *atmp;
	HASH_ITER(hh, p->arcs, a, atmp) {
		if (a->calls || any(a->total, p->nev)) {
			pv_profile_func(&used, a->key.caller);
			pv_profile_func(&used, a->key.callee);
		} else {
			HASH_DEL(p->arcs, a);
			free(a);
		}
	}
	struct pv_fstat *fs, *fstmp, *u;
	HASH_ITER(hh, p->funcs, fs, fstmp) {
		HASH_FIND(hh, used.funcs, &fs->fn, sizeof(fs->fn), u);
		if (!u && !fs->calls && !fs->samples && !any(fs->self, p->nev) &&
		    !any(fs->total, p->nev)) {
			HASH_DEL(p->funcs, fs);
			free(fs);
		}
	}
	pv_profile_clear(&used);
}

void pv_profile_since(struct pv_profile *now, const struct pv_profile *then)
{
	funcs_since(now, then);
	paths_since(now, then);
	threads_since(now, then);
	run_since(now, then);
	drop_untouched(now);
}
