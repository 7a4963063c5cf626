#include "profile.h"

#include <string.h>

#include "thread.h"

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
			pv_uthash_failed = 0;                                       \
			HASH_ADD(hh, table, keyfield, sizeof((out)->keyfield), out); \
			if (pv_uthash_failed) {                                     \
				free(out);                                          \
				(out) = NULL;                                       \
			}                                                           \
		}                                                                   \
	} while (0)

static struct pv_fstat *fstat_of(struct pv_profile *p, void *fn)
{
	struct pv_fstat *f;
	FIND_OR_ADD(p->funcs, fn, &fn, f);
	return f;
}

static struct pv_astat *astat_of(struct pv_profile *p, void *caller, void *callee)
{
	struct pv_arc_key key = { caller, callee };
	struct pv_astat *a;
	FIND_OR_ADD(p->arcs, key, &key, a);
	return a;
}

static struct pv_path *path_of(struct pv_profile *p, const struct pv_path *parent, void *fn)
{
	struct pv_path_key key = { parent, fn };
	struct pv_path *x;
	FIND_OR_ADD(p->paths, key, &key, x);
	return x;
}

/* Where a thread's node went in the merged path tree, during one merge. */
struct node_path {
	const void *from; /* a node, or a path of another profile */
	struct pv_path *to;
	UT_hash_handle hh;
};

struct merge {
	struct pv_profile *p;
	struct node_path *map;
	struct pv_thread_stat *ts; /* the thread's summary, or NULL */
};

static struct pv_path *mapped(struct merge *m, const void *from)
{
	struct node_path *e;
	HASH_FIND_PTR(m->map, &from, e);
	return e ? e->to : NULL;
}

static void map_to(struct merge *m, const void *from, struct pv_path *to)
{
	struct node_path *e = malloc(sizeof(*e));
	if (!e) {
		m->p->losses.merge_failures++;
		return;
	}
	e->from = from;
	e->to = to;
	pv_uthash_failed = 0;
	HASH_ADD_PTR(m->map, from, e);
	if (pv_uthash_failed)
		free(e), m->p->losses.merge_failures++;
}

static void unmap_all(struct merge *m)
{
	struct node_path *e, *tmp;
	HASH_ITER(hh, m->map, e, tmp) {
		HASH_DEL(m->map, e);
		free(e);
	}
}

/* A node's path: its parent's path extended by it. Fold edges count their
 * calls on the path of the node they fold into. Every edge's calls are also
 * calls its parent's path made (a signal's delivery is no hook call). */
static void merge_path(struct merge *m, const struct pv_node *n)
{
	struct pv_path *parent = n->parent->fn ? mapped(m, n->parent) : NULL;
	if (n->parent->fn && !parent)
		return; /* its parent could not be merged (no memory) */
	if (parent && !pv_signal_of(n->fn)) {
		parent->callees += n->calls;
		parent->callee_misses += n->misses;
	}
	if (pv_node_is_fold(n)) {
		struct pv_path *target = mapped(m, n->target);
		if (target)
			target->calls += n->calls;
		return;
	}
	struct pv_path *x = path_of(m->p, parent, n->fn);
	if (!x) {
		m->p->losses.merge_failures++;
		return;
	}
	x->calls += n->calls;
	const uint64_t *self = pv_node_self(n), *total = pv_node_total(n, m->p->nev);
	for (unsigned i = 0; i < m->p->nev; i++) {
		x->self[i] += self[i];
		x->total[i] += total[i];
	}
	map_to(m, n, x);
}

static void merge_node(const struct pv_node *n, void *arg)
{
	struct merge *m = arg;
	struct pv_profile *p = m->p;
	merge_path(m, n);
	struct pv_fstat *f = fstat_of(p, n->fn);
	struct pv_astat *a = astat_of(p, n->parent->fn, n->fn);
	if (!f || !a) {
		p->losses.merge_failures++;
		return;
	}
	f->calls += n->calls;
	a->calls += n->calls;
	if (m->ts && !pv_signal_of(n->fn)) {
		m->ts->calls += n->calls;
		if (n->parent->fn)
			m->ts->inner_misses += n->misses;
		else
			m->ts->outer_calls += n->calls;
	}
	if (pv_node_is_fold(n)) {
		/* Nested activations: their cost is in the target's self. */
		a->nested_calls += n->calls;
		return;
	}
	const uint64_t *self = pv_node_self(n);
	const uint64_t *total = pv_node_total(n, p->nev);
	for (unsigned i = 0; i < p->nev; i++) {
		f->self[i] += self[i];
		f->total[i] += total[i];
		a->total[i] += total[i];
		if (m->ts && !n->parent->fn) /* called from outside: the thread's run */
			m->ts->total[i] += total[i];
	}
}

/* A new zeroed thread summary in p; NULL without memory. */
static struct pv_thread_stat *thread_stat_add(struct pv_profile *p)
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

static double seconds_of(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

/* The thread's times, read now: its CPU clock, and wall time since it began. */
static void thread_times(const struct pv_thread *t, struct pv_thread_stat *ts)
{
	struct timespec now;
	ts->cpu_seconds = -1;
	if (t->has_cpu_clock && clock_gettime(t->cpu_clock, &now) == 0)
		ts->cpu_seconds = seconds_of(&now);
	ts->wall_seconds = t->began_ns ? (double)(pv_monotonic_ns() - t->began_ns) * 1e-9 : 0;
}

void pv_profile_merge_thread(struct pv_profile *p, const struct pv_thread *t)
{
	pv_uthash_arena = NULL; /* the profile's tables use malloc */
	struct merge m = { p, NULL, thread_stat_add(p) };
	if (m.ts) {
		m.ts->tid = t->tid;
		thread_times(t, m.ts);
	} else {
		p->losses.merge_failures++;
	}
	pv_cct_walk(&t->cct, merge_node, &m);
	unmap_all(&m);
	p->threads++;
	p->stray_exits += t->stray_exits;
	p->resyncs += t->resyncs;
	p->losses.unrecorded_calls += t->unrecorded;
	p->losses.counters_lost += pv_counters_state(&t->counters) == PV_COUNTERS_GONE;
	for (unsigned i = 0; i < t->counters.n && i < p->nev; i++) {
		p->enabled[i] += t->counters.enabled[i];
		p->running[i] += t->counters.running[i];
	}
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
	pv_uthash_arena = NULL;
	for (const struct pv_fstat *f = src->funcs; f; f = f->hh.next) {
		struct pv_fstat *d = fstat_of(dst, new_key(&k, f->fn));
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->calls += f->calls;
		for (unsigned i = 0; i < dst->nev; i++) {
			d->self[i] += f->self[i];
			d->total[i] += f->total[i];
		}
	}
	for (const struct pv_astat *a = src->arcs; a; a = a->hh.next) {
		struct pv_astat *d =
			astat_of(dst, new_key(&k, a->key.caller), new_key(&k, a->key.callee));
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->calls += a->calls;
		d->nested_calls += a->nested_calls;
		for (unsigned i = 0; i < dst->nev; i++)
			d->total[i] += a->total[i];
	}
	for (unsigned i = 0; i < src->n_thread_stats; i++) {
		struct pv_thread_stat *ts = thread_stat_add(dst);
		if (ts)
			*ts = src->thread_stats[i];
		else
			dst->losses.merge_failures++;
	}
	/* src's paths come parents first, so each parent is mapped before use. */
	struct merge m = { dst, NULL, NULL };
	for (const struct pv_path *x = src->paths; x; x = x->hh.next) {
		struct pv_path *parent = x->key.parent ? mapped(&m, x->key.parent) : NULL;
		struct pv_path *d = (!x->key.parent || parent)
					    ? path_of(dst, parent, new_key(&k, x->key.fn))
					    : NULL;
		if (!d) {
			dst->losses.merge_failures++;
			continue;
		}
		d->calls += x->calls;
		d->callees += x->callees;
		d->callee_misses += x->callee_misses;
		for (unsigned i = 0; i < dst->nev; i++) {
			d->self[i] += x->self[i];
			d->total[i] += x->total[i];
		}
		map_to(&m, x, d);
	}
	unmap_all(&m);
	dst->threads += src->threads;
	dst->stray_exits += src->stray_exits;
	dst->resyncs += src->resyncs;
	dst->losses.unrecorded_calls += src->losses.unrecorded_calls;
	dst->losses.merge_failures += src->losses.merge_failures;
	dst->losses.counters_lost += src->losses.counters_lost;
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
	free(p->thread_stats);
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
			pv_uthash_failed = 0;                                        \
			HASH_ADD(hh, rebuilt_, keyfield, sizeof(e_->keyfield), e_);  \
			if (pv_uthash_failed)                                        \
				free(e_), (losses)++;                                \
		}                                                                   \
		table = rebuilt_;                                                   \
	} while (0)

void pv_profile_rekey(struct pv_profile *p, pv_rekey_fn *rekey, void *arg)
{
	const struct rekeying k = { rekey, arg };
	pv_uthash_arena = NULL;
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
