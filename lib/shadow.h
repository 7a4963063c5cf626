/*
 * shadow.h — what a hook does, inlined into the hooks and into the tests.
 *
 * nev and read are compile-time constants at each use, so the TSC path
 * becomes straight-line code with one rdtsc per hook. The "try" functions
 * return 0 when they need the slow path and have then changed nothing.
 */
#ifndef PV_SHADOW_H
#define PV_SHADOW_H

#include "compiler.h"
#include "thread.h"

/* Push an activation of c (an edge from the top frame's node). */
PV_INLINE void pv_push(struct pv_thread *t, struct pv_frame *f, struct pv_node *c,
		       uintptr_t sp, const unsigned nev, pv_read_fn *read)
{
	uint64_t now[PV_MAX_EVENTS];
	struct pv_node *p = f->node;
	struct pv_node *n = c->target;

	c->calls++;
	read(t, now);
	for (unsigned i = 0; i < nev; i++) {
		p->cost[i] += now[i] - t->last[i]; /* the caller's self time so far */
		t->last[i] = now[i];
	}
	struct pv_frame *nf = pv_frame_above(f, pv_frame_size(nev));
	nf->sp = sp;
	nf->node = n;
	for (unsigned i = 0; i < nev; i++)
		nf->start[i] = now[i];
	n->func->active++;
	/* Publish a complete frame only (see signals.c for hooks interrupted midway). */
	pv_signal_fence();
	t->top = nf;
}

/* Pop the top activation f, charging its cost up to now. */
PV_INLINE void pv_pop_at(struct pv_thread *t, struct pv_frame *f, const uint64_t *now,
			 const unsigned nev)
{
	struct pv_node *n = f->node;
	for (unsigned i = 0; i < nev; i++) {
		n->cost[i] += now[i] - t->last[i];
		t->last[i] = now[i];
	}
	/* Only the outermost activation of a function adds to totals. */
	if (--n->func->active == 0)
		for (unsigned i = 0; i < nev; i++)
			n->cost[nev + i] += now[i] - f->start[i];
	t->top = pv_frame_below(f, pv_frame_size(nev));
}

/* May a frame be pushed above f by a call at stack pointer sp? Not if f
 * lies below sp: it was left without its exit hook (equal is normal: gcc
 * calls the hooks of inlined bodies from one frame). Nor if the stack is full. */
PV_INLINE int pv_can_push_above(const struct pv_thread *t, const struct pv_frame *f,
				uintptr_t sp)
{
	return f->sp >= sp && f != t->stack_limit;
}

PV_INLINE int pv_try_enter(struct pv_thread *t, void *fn, uintptr_t sp,
			   const unsigned nev, pv_read_fn *read)
{
	struct pv_frame *f = t->top;
	if (unlikely(!pv_can_push_above(t, f, sp)))
		return 0;
	struct pv_node *c = f->node->cache[pv_child_slot(fn)];
	if (unlikely(c->fn != fn)) {
		c = pv_cct_find(&t->cct, f->node, fn);
		if (unlikely(!c))
			return 0;
	}
	pv_push(t, f, c, sp, nev, read);
	return 1;
}

PV_INLINE int pv_try_exit(struct pv_thread *t, void *fn, const unsigned nev,
			  pv_read_fn *read)
{
	struct pv_frame *f = t->top;
	if (unlikely(f->node->fn != fn))
		return 0;
	uint64_t now[PV_MAX_EVENTS];
	read(t, now);
	pv_pop_at(t, f, now, nev);
	return 1;
}

#endif /* PV_SHADOW_H */
