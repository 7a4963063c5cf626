#include "profile.h"

#include <string.h>

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
		m->p->out_of_memory = 1;
		return;
	}
	e->from = from;
	e->to = to;
	pv_uthash_failed = 0;
	HASH_ADD_PTR(m->map, from, e);
	if (pv_uthash_failed)
		free(e), m->p->out_of_memory = 1;
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
 * calls on the path of the node they fold into. */
static void merge_path(struct merge *m, const struct pv_node *n)
{
	if (pv_node_is_fold(n)) {
		struct pv_path *target = mapped(m, n->target);
		if (target)
			target->calls += n->calls;
		return;
	}
	struct pv_path *parent = n->parent->fn ? mapped(m, n->parent) : NULL;
	if (n->parent->fn && !parent)
		return; /* its parent could not be merged (no memory) */
	struct pv_path *x = path_of(m->p, parent, n->fn);
	if (!x) {
		m->p->out_of_memory = 1;
		return;
	}
	x->calls += n->calls;
	for (unsigned i = 0; i < m->p->nev; i++)
		x->self[i] += n->cost[i];
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
		p->out_of_memory = 1;
		return;
	}
	f->calls += n->calls;
	a->calls += n->calls;
	if (pv_node_is_fold(n))
		return; /* nested activations: their cost is in the target's self */
	for (unsigned i = 0; i < p->nev; i++) {
		f->self[i] += n->cost[i];
		f->total[i] += n->cost[p->nev + i];
		a->total[i] += n->cost[p->nev + i];
	}
}

void pv_profile_merge(struct pv_profile *p, const struct pv_cct *cct)
{
	pv_uthash_arena = NULL; /* the profile's tables use malloc */
	struct merge m = { p, NULL };
	pv_cct_walk(cct, merge_node, &m);
	unmap_all(&m);
	p->threads++;
}

void pv_profile_add(struct pv_profile *dst, const struct pv_profile *src)
{
	pv_uthash_arena = NULL;
	for (const struct pv_fstat *f = src->funcs; f; f = f->hh.next) {
		struct pv_fstat *d = fstat_of(dst, f->fn);
		if (!d) {
			dst->out_of_memory = 1;
			continue;
		}
		d->calls += f->calls;
		for (unsigned i = 0; i < dst->nev; i++) {
			d->self[i] += f->self[i];
			d->total[i] += f->total[i];
		}
	}
	for (const struct pv_astat *a = src->arcs; a; a = a->hh.next) {
		struct pv_astat *d = astat_of(dst, a->key.caller, a->key.callee);
		if (!d) {
			dst->out_of_memory = 1;
			continue;
		}
		d->calls += a->calls;
		for (unsigned i = 0; i < dst->nev; i++)
			d->total[i] += a->total[i];
	}
	/* src's paths come parents first, so each parent is mapped before use. */
	struct merge m = { dst, NULL };
	for (const struct pv_path *x = src->paths; x; x = x->hh.next) {
		struct pv_path *parent = x->key.parent ? mapped(&m, x->key.parent) : NULL;
		struct pv_path *d = (!x->key.parent || parent) ? path_of(dst, parent, x->key.fn)
							       : NULL;
		if (!d) {
			dst->out_of_memory = 1;
			continue;
		}
		d->calls += x->calls;
		for (unsigned i = 0; i < dst->nev; i++)
			d->self[i] += x->self[i];
		map_to(&m, x, d);
	}
	unmap_all(&m);
	dst->threads += src->threads;
	dst->stray_exits += src->stray_exits;
	dst->resyncs += src->resyncs;
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
	pv_profile_init(p, p->nev);
}
