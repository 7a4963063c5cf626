#include "profile.h"

#include <string.h>

void pv_profile_init(struct pv_profile *p, unsigned nev)
{
	memset(p, 0, sizeof(*p));
	p->nev = nev;
}

static struct pv_fstat *fstat_of(struct pv_profile *p, void *fn)
{
	struct pv_fstat *f;
	HASH_FIND_PTR(p->funcs, &fn, f);
	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fn = fn;
	pv_uthash_failed = 0;
	HASH_ADD_PTR(p->funcs, fn, f);
	if (pv_uthash_failed) {
		free(f);
		return NULL;
	}
	return f;
}

static struct pv_astat *astat_of(struct pv_profile *p, void *caller, void *callee)
{
	struct pv_arc_key key = { caller, callee };
	struct pv_astat *a;
	HASH_FIND(hh, p->arcs, &key, sizeof(key), a);
	if (a)
		return a;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->key = key;
	pv_uthash_failed = 0;
	HASH_ADD(hh, p->arcs, key, sizeof(key), a);
	if (pv_uthash_failed) {
		free(a);
		return NULL;
	}
	return a;
}

static void merge_node(const struct pv_node *n, void *arg)
{
	struct pv_profile *p = arg;
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
	pv_cct_walk(cct, merge_node, p);
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
	pv_profile_init(p, p->nev);
}
