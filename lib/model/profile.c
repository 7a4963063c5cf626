/* SPDX-License-Identifier: MIT */
#include "model/profile.h"

#include <math.h>
#include <string.h>

#include "base/compiler.h"
#include "base/nametable.h"

static const char *const func_kind_names[] = {
	[PV_FUNC_PLAIN] = "plain",
	[PV_FUNC_SIGNAL] = "signal",
	[PV_FUNC_WAIT] = "wait",
};

const char *pv_func_kind_name(enum pv_func_kind k)
{
	return pv_name_of(func_kind_names, PV_ARRAY_SIZE(func_kind_names), (unsigned)k, "plain");
}

int pv_func_kind_named(const char *name, enum pv_func_kind *k)
{
	int v = pv_value_named(func_kind_names, PV_ARRAY_SIZE(func_kind_names), name);
	if (v >= 0)
		*k = (enum pv_func_kind)v;
	return v >= 0;
}

void pv_losses_add(struct pv_losses *dst, const struct pv_losses *src)
{
#define PV_LOSS_ADD(name) dst->name += src->name;
	PV_LOSSES(PV_LOSS_ADD)
#undef PV_LOSS_ADD
}

int pv_losses_any(const struct pv_losses *l)
{
#define PV_LOSS_ANY(name) || l->name
	return 0 PV_LOSSES(PV_LOSS_ANY);
#undef PV_LOSS_ANY
}

void pv_sampling_add(struct pv_sampling *dst, const struct pv_sampling *src)
{
	if (!dst->rate_hz)
		dst->rate_hz = src->rate_hz;
	dst->wall_seconds += src->wall_seconds;
	dst->looks += src->looks;
	dst->samples += src->samples;
	dst->own_samples += src->own_samples;
	dst->own_ns += src->own_ns;
	dst->unsampled_ns += src->unsampled_ns;
	dst->blocked_ns += src->blocked_ns;
	dst->timed_ns += src->timed_ns;
	if (!dst->timed_start_ns)
		dst->timed_start_ns = src->timed_start_ns;
	if (!dst->sample_cost_ns)
		dst->sample_cost_ns = src->sample_cost_ns;
	dst->sampler_ns += src->sampler_ns;
}

double pv_sampling_error(uint64_t n)
{
	return n ? 1.0 / sqrt((double)n) : 1.0;
}

void pv_profile_init(struct pv_profile *p, unsigned nev)
{
	memset(p, 0, sizeof(*p));
	p->nev = nev;
}

/* The entry of table (a uthash table of structs with a hh handle) whose
 * keyfield equals *keyptr, added zeroed if new; NULL only without memory. */
#define FIND_OR_ADD(table, keyfield, keyptr, out)                                   \
	do {                                                                        \
		HASH_FIND(hh, table, keyptr, sizeof(*(keyptr)), out);               \
		if (!(out) && ((out) = calloc(1, sizeof(*(out))))) {                \
			(out)->keyfield = *(keyptr);                                \
			HASH_ADD(hh, table, keyfield, sizeof((out)->keyfield), out); \
			if (!pv_htab_added(out, hh)) {                              \
				free(out);                                          \
				(out) = NULL;                                       \
			}                                                           \
		}                                                                   \
	} while (0)

struct pv_fstat *pv_profile_func(struct pv_profile *p, void *fn)
{
	struct pv_fstat *f;
	FIND_OR_ADD(p->funcs, fn, &fn, f);
	return f;
}

struct pv_astat *pv_profile_arc(struct pv_profile *p, void *caller, void *callee)
{
	struct pv_arc_key key = { caller, callee };
	struct pv_astat *a;
	FIND_OR_ADD(p->arcs, key, &key, a);
	return a;
}

struct pv_path *pv_profile_path(struct pv_profile *p, const struct pv_path *parent, void *fn)
{
	struct pv_path_key key = { parent, fn, 0 };
	struct pv_path *x;
	FIND_OR_ADD(p->paths, key, &key, x);
	return x;
}

struct pv_path *pv_profile_root_path(struct pv_profile *p, void *fn, unsigned group)
{
	struct pv_path_key key = { NULL, fn, group };
	struct pv_path *x;
	FIND_OR_ADD(p->paths, key, &key, x);
	return x;
}

unsigned pv_profile_find_group(const struct pv_profile *p, const char *name, int main_thread)
{
	for (unsigned g = 0; g < p->n_groups; g++)
		if (p->groups[g].main_thread == !!main_thread &&
		    !strncmp(p->groups[g].name, name, PV_THREAD_NAME_MAX))
			return g + 1;
	return 0;
}

unsigned pv_profile_group(struct pv_profile *p, const char *name, int main_thread)
{
	unsigned found = pv_profile_find_group(p, name, main_thread);
	if (found)
		return found;
	struct pv_thread_group *grown = realloc(p->groups, (p->n_groups + 1) * sizeof(*grown));
	if (!grown)
		return 0;
	p->groups = grown;
	struct pv_thread_group *g = &grown[p->n_groups++];
	memset(g, 0, sizeof(*g));
	strncpy(g->name, name, PV_THREAD_NAME_MAX - 1);
	g->main_thread = !!main_thread;
	return p->n_groups;
}

unsigned pv_profile_same_group(struct pv_profile *dst, const struct pv_profile *src,
			       unsigned g)
{
	if (!g || g > src->n_groups)
		return 0;
	return pv_profile_group(dst, src->groups[g - 1].name, src->groups[g - 1].main_thread);
}

struct pv_fold *pv_profile_fold(struct pv_profile *p, const struct pv_path *from,
				const struct pv_path *into)
{
	struct pv_fold_key key = { from, into };
	struct pv_fold *x;
	FIND_OR_ADD(p->folds, key, &key, x);
	return x;
}

/* One record of a path map. */
struct pv_path_map_entry {
	const void *from;
	struct pv_path *to;
	UT_hash_handle hh;
};

struct pv_path *pv_path_map_get(const struct pv_path_map *m, const void *from)
{
	struct pv_path_map_entry *e;
	HASH_FIND_PTR(m->entries, &from, e);
	return e ? e->to : NULL;
}

void pv_path_map_put(struct pv_path_map *m, const void *from, struct pv_path *to)
{
	struct pv_path_map_entry *e = malloc(sizeof(*e));
	if (!e) {
		m->p->losses.merge_failures++;
		return;
	}
	e->from = from;
	e->to = to;
	HASH_ADD_PTR(m->entries, from, e);
	if (!pv_htab_added(e, hh)) {
		free(e);
		m->p->losses.merge_failures++;
	}
}

void pv_path_map_clear(struct pv_path_map *m)
{
	struct pv_path_map_entry *e, *tmp;
	HASH_ITER(hh, m->entries, e, tmp) {
		HASH_DEL(m->entries, e);
		free(e);
	}
}

struct pv_thread_stat *pv_profile_thread_add(struct pv_profile *p)
{
	if (p->n_thread_stats == p->thread_stats_cap) {
		unsigned cap = p->thread_stats_cap ? 2 * p->thread_stats_cap : 8;
		struct pv_thread_stat *more = realloc(p->thread_stats, cap * sizeof(*more));
		if (!more)
			return NULL;
		p->thread_stats = more;
		p->thread_stats_cap = cap;
	}
	struct pv_thread_stat *ts = &p->thread_stats[p->n_thread_stats++];
	memset(ts, 0, sizeof(*ts));
	return ts;
}

struct rekeying {
	pv_rekey_fn *rekey;
	void *arg;
};

static void *new_key(const struct rekeying *k, void *fn)
{
	void *key = fn && k->rekey ? k->rekey(fn, k->arg) : NULL;
	return key ? key : fn;
}

void pv_profile_add(struct pv_profile *dst, const struct pv_profile *src)
{
	pv_profile_add_rekeyed(dst, src, NULL, NULL);
}

void pv_profile_add_rekeyed(struct pv_profile *dst, const struct pv_profile *src,
			    pv_rekey_fn *rekey, void *arg)
{
	const struct rekeying k = { rekey, arg };
	for (const struct pv_fstat *f = src->funcs; f; f = f->hh.next) {
		struct pv_fstat *d = pv_profile_func(dst, new_key(&k, f->fn));
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->kind = f->kind;
		d->calls += f->calls;
		d->inlined_calls += f->inlined_calls;
		d->samples += f->samples;
		d->timed_ns += f->timed_ns;
		for (unsigned i = 0; i < dst->nev; i++) {
			d->self[i] += f->self[i];
			d->total[i] += f->total[i];
		}
	}
	for (const struct pv_astat *a = src->arcs; a; a = a->hh.next) {
		struct pv_astat *d =
			pv_profile_arc(dst, new_key(&k, a->key.caller), new_key(&k, a->key.callee));
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->calls += a->calls;
		d->nested_calls += a->nested_calls;
		d->inlined_calls += a->inlined_calls;
		for (unsigned i = 0; i < dst->nev; i++)
			d->total[i] += a->total[i];
	}
	for (unsigned i = 0; i < src->n_thread_stats; i++) {
		struct pv_thread_stat *ts = pv_profile_thread_add(dst);
		if (ts)
			*ts = src->thread_stats[i];
		else
			dst->losses.merge_failures++;
	}
	/* src's paths come parents first, so each parent is mapped before use. */
	struct pv_path_map m = { dst, NULL };
	for (const struct pv_path *x = src->paths; x; x = x->hh.next) {
		struct pv_path *parent = x->key.parent ? pv_path_map_get(&m, x->key.parent) : NULL;
		struct pv_path *d =
			!x->key.parent ? pv_profile_root_path(dst, new_key(&k, x->key.fn),
							      pv_profile_same_group(dst, src, x->key.group))
			: parent       ? pv_profile_path(dst, parent, new_key(&k, x->key.fn))
				       : NULL;
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->calls += x->calls;
		d->inlined_calls += x->inlined_calls;
		d->callees += x->callees;
		d->callee_misses += x->callee_misses;
		d->samples += x->samples;
		d->timed_ns += x->timed_ns;
		for (unsigned i = 0; i < dst->nev; i++) {
			d->self[i] += x->self[i];
			d->total[i] += x->total[i];
		}
		pv_path_map_put(&m, x, d);
	}
	for (const struct pv_fold *x = src->folds; x; x = x->hh.next) {
		struct pv_path *from = pv_path_map_get(&m, x->key.from);
		struct pv_path *into = pv_path_map_get(&m, x->key.into);
		struct pv_fold *d = from && into ? pv_profile_fold(dst, from, into) : NULL;
		if (d)
			d->calls += x->calls;
		else
			dst->losses.merge_failures++;
	}
	pv_path_map_clear(&m);
	dst->threads += src->threads;
	dst->stray_exits += src->stray_exits;
	dst->resyncs += src->resyncs;
	pv_losses_add(&dst->losses, &src->losses);
	pv_sampling_add(&dst->sampling, &src->sampling);
	for (unsigned i = 0; i < dst->nev; i++) {
		dst->enabled[i] += src->enabled[i];
		dst->running[i] += src->running[i];
	}
}

void pv_profile_clear(struct pv_profile *p)
{
	struct pv_fstat *f, *ftmp;
	HASH_ITER(hh, p->funcs, f, ftmp) {
		HASH_DEL(p->funcs, f);
		free(f);
	}
	struct pv_astat *a, *atmp;
	HASH_ITER(hh, p->arcs, a, atmp) {
		HASH_DEL(p->arcs, a);
		free(a);
	}
	struct pv_path *x, *xtmp;
	HASH_ITER(hh, p->paths, x, xtmp) {
		HASH_DEL(p->paths, x);
		free(x);
	}
	struct pv_fold *o, *otmp;
	HASH_ITER(hh, p->folds, o, otmp) {
		HASH_DEL(p->folds, o);
		free(o);
	}
	free(p->thread_stats);
	free(p->groups);
	pv_profile_init(p, p->nev);
}

/* Move every entry of *table, in order, into a new table, re-keyed by
 * fix(entry); an entry that cannot be added again (no memory) is freed and
 * counted lost. */
#define REBUILD(table, keyfield, type, fix, losses)                                 \
	do {                                                                        \
		type *rebuilt_ = NULL, *e_, *tmp_;                                  \
		HASH_ITER(hh, table, e_, tmp_) {                                     \
			HASH_DEL(table, e_);                                         \
			fix(e_);                                                     \
			HASH_ADD(hh, rebuilt_, keyfield, sizeof(e_->keyfield), e_);  \
			if (!pv_htab_added(e_, hh))                                  \
				free(e_), (losses)++;                                \
		}                                                                   \
		table = rebuilt_;                                                   \
	} while (0)

void pv_profile_rekey(struct pv_profile *p, pv_rekey_fn *rekey, void *arg)
{
	const struct rekeying k = { rekey, arg };
#define FIX_FUNC(f) ((f)->fn = new_key(&k, (f)->fn))
#define FIX_ARC(a) ((a)->key.caller = new_key(&k, (a)->key.caller), \
		    (a)->key.callee = new_key(&k, (a)->key.callee))
#define FIX_PATH(x) ((x)->key.fn = new_key(&k, (x)->key.fn))
	REBUILD(p->funcs, fn, struct pv_fstat, FIX_FUNC, p->losses.merge_failures);
	REBUILD(p->arcs, key, struct pv_astat, FIX_ARC, p->losses.merge_failures);
	REBUILD(p->paths, key, struct pv_path, FIX_PATH, p->losses.merge_failures);
#undef FIX_FUNC
#undef FIX_ARC
#undef FIX_PATH
}
