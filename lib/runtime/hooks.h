/* SPDX-License-Identifier: MIT */
/*
 * hooks.h — what a hook does, inlined into the hooks and into the tests.
 *
 * pv_hook_enter and pv_hook_exit are the hooks themselves: runtime.c ships
 * them counting alone (the default: time is sampled, no event is read per
 * call), with the TSC as the one event read per call (PROFVIZ_TIME=hooks),
 * and with the counter backends on its generic path (PROFVIZ_EVENTS); the
 * unit tests drive the very same code with a scripted counter. mode, nev
 * and read are compile-time constants at each use, so each shipped mode
 * becomes straight-line code (one rdtsc each in the TSC's), and every
 * branch off that line is a tail call.
 */
#ifndef PV_RUNTIME_HOOKS_H
#define PV_RUNTIME_HOOKS_H

#include "base/compiler.h"
#include "runtime/thread.h"

/* Push an activation of c (an edge from the top frame's innermost open
 * node, f->inl). The time so far is f's own node's, inlined bodies or not. */
PV_INLINE void pv_push(struct pv_thread *t, struct pv_frame *f, struct pv_node *c,
		       uintptr_t site, uintptr_t sp, const unsigned nev, pv_read_fn *read)
{
	uint64_t now[PV_MAX_EVENTS];
	struct pv_node *p = f->node;
	struct pv_node *n = c->target;
	uint64_t *caller_self = pv_node_self(p);

	c->calls++;
	read(t, now);
	for (unsigned i = 0; i < nev; i++) {
		caller_self[i] += now[i] - t->last[i]; /* the caller's self cost so far */
		t->last[i] = now[i];
	}
	struct pv_frame *nf = pv_frame_above(f, pv_frame_size(nev));
	nf->sp = sp;
	nf->site = site;
	nf->node = n;
	nf->inl = n;
	nf->sampled_start = pv_thread_sampled_clock(t);
	for (unsigned i = 0; i < nev; i++)
		nf->start[i] = now[i];
	n->func->active++;
	/* Publish a complete frame only (see signals.c for hooks interrupted midway). */
	pv_signal_fence();
	t->top = nf;
	pv_thread_publish(t, n);
}

/* Open the inlined body whose edge is c in frame f: counted, and the
 * innermost open there (never a fold edge: cct.c), so that calls made now
 * hang from it and its exit goes back to c's parent. No frame, no clock. */
PV_INLINE void pv_open_body(struct pv_frame *f, struct pv_node *c)
{
	c->calls++;
	f->inl = c;
}

/* Pop the top activation f, charging its cost up to now. */
PV_INLINE void pv_pop_at(struct pv_thread *t, struct pv_frame *f, const uint64_t *now,
			 const unsigned nev)
{
	struct pv_node *n = f->node;
	uint64_t *self = pv_node_self(n);
	for (unsigned i = 0; i < nev; i++) {
		self[i] += now[i] - t->last[i];
		t->last[i] = now[i];
	}
	/* Only the outermost activation of a function adds to totals. */
	if (--n->func->active == 0) {
		uint64_t *total = pv_node_total(n, nev);
		for (unsigned i = 0; i < nev; i++)
			total[i] += now[i] - f->start[i];
		n->sampled_total_ns += pv_thread_sampled_clock(t) - f->sampled_start;
	}
	struct pv_frame *below = pv_frame_below(f, pv_frame_size(nev));
	t->top = below;
	pv_thread_publish(t, below->node);
}

/* May a frame be pushed above f by a call at stack pointer sp, given site
 * (where the call returns to)? Only if sp is below f's: a real call's hooks
 * run deeper than its caller's. Equal, the hooks run in f's own frame: a
 * body the compiler inlined into f (gcc and clang hook inlined bodies where
 * they land), which is counted and opened in f, with no frame
 * (pv_thread_enter_inlined). Above, f was left without its exit hook. Nor
 * if the stack is full. Nor, for the slow path to tell (hooksites.h), if
 * site is f's own: a body's hooks are given its host's return address, and
 * gcc hooks some below the host's stack pointer (under arguments pushed for
 * a call, an alloca, in a part of the host it split off); so is a call made
 * by the instruction that called f, recursively or from a callback. Unless
 * that call's return address is where a call from f's own stack pointer
 * pushes it: a recursive call, as fib's are every other time. */
PV_INLINE int pv_can_push_above(const struct pv_thread *t, const struct pv_frame *f,
				uintptr_t site, uintptr_t sp)
{
	return f->sp > sp && f != t->stack_limit &&
	       (f->site != site || pv_arch_return_address(f->sp) == site);
}

/* Where the hooks' branches go. fn and site come first because they arrive
 * in the first two argument registers: the hooks' straight line then moves
 * nothing. */
typedef void pv_enter_fn(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);
typedef void pv_exit_fn(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);

/* The enter hook on a thread in mode: push fn if its edge from the caller's
 * node is in that node's cache; a cache miss goes to indexed, a call in the
 * top frame's own frame (an inlined body) to pv_thread_enter_inlined,
 * anything else (another mode, a frame left by a longjmp, a full stack, a
 * body below its host's stack pointer) to slow. So do CPU samples waiting
 * to be charged (cpusamples.h): slow's runtime section charges them to the
 * caller's node first, and the hooks' straight line keeps no call of its
 * own (which would cost every hook a prologue). An inlined body's hooks
 * publish NULL while they run, then the host again: the body's time is its
 * host's, as the samples find it. */
PV_INLINE void pv_hook_enter(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp,
			     const int mode, const unsigned nev, pv_read_fn *read,
			     pv_enter_fn *indexed, pv_enter_fn *slow)
{
	if (likely(t->mode == mode)) {
		struct pv_frame *f = t->top;
		if (likely(pv_can_push_above(t, f, site, sp))) {
			/* The clock line runs without samples. */
			if (mode != PV_MODE_CLOCK && unlikely(pv_thread_owes(t))) {
				slow(fn, site, sp, t);
				return;
			}
			pv_thread_publish(t, NULL); /* the hook's own time: the sampler drops it */
			struct pv_node *c = f->inl->cache[pv_child_slot(fn)];
			if (likely(c->fn == fn)) {
				pv_push(t, f, c, site, sp, nev, read);
				return;
			}
			indexed(fn, site, sp, t);
			return;
		}
		if (f->sp == sp) {
			/* Counted and opened, nothing else: not even the sampler's
			 * owed look, which is the host's either way. The hook's
			 * own time is dropped, as any hook's. A handler arriving
			 * midway hangs its calls from the body before or after,
			 * both open. (Never cached when bodies are pushed as
			 * frames: the thread.c half does that.) */
			pv_thread_publish(t, NULL);
			void *key = pv_inlined_key(fn);
			struct pv_node *c = f->inl->cache[pv_child_slot(key)];
			if (likely(c->fn == key)) {
				pv_open_body(f, c);
				pv_thread_publish(t, f->node);
				return;
			}
			pv_thread_enter_inlined(fn, site, sp, t);
			return;
		}
	}
	slow(fn, site, sp, t); /* its runtime section publishes NULL (guard.h) */
}

/* The enter hook's cache miss: the edge from the thread's index, or slow
 * when the path is new. Misses are counted: the look-up is hook cost that
 * lands on the caller, which compensation takes out. */
PV_INLINE void pv_hook_enter_indexed(struct pv_thread *t, void *fn, uintptr_t site,
				     uintptr_t sp, const unsigned nev, pv_read_fn *read,
				     pv_enter_fn *slow)
{
	struct pv_node *c = pv_cct_find(&t->cct, t->top->inl, fn);
	if (likely(c)) {
		c->misses++;
		pv_push(t, t->top, c, site, sp, nev, read);
	} else {
		slow(fn, site, sp, t);
	}
}

/* The exit hook on a thread in mode, called at stack pointer sp: pop the
 * top frame if it is fn's with no inlined body open in it, or close fn's
 * inlined body open innermost in the top frame; anything else (frames
 * skipped by unwinding, a stray exit, a body's below its host's stack
 * pointer, CPU samples to charge to the top frame first) goes to slow. */
PV_INLINE void pv_hook_exit(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp,
			    const int mode, const unsigned nev, pv_read_fn *read,
			    pv_exit_fn *slow)
{
	if (likely(t->mode == mode)) {
		struct pv_frame *f = t->top;
		struct pv_node *open = f->inl; /* f->node when no body is open */
		if (likely(open->fn == fn)) {
			uint64_t now[PV_MAX_EVENTS];
			if (mode != PV_MODE_CLOCK && unlikely(pv_thread_owes(t))) {
				slow(fn, site, sp, t);
				return;
			}
			pv_thread_publish(t, NULL);
			read(t, now);
			pv_pop_at(t, f, now, nev);
			return;
		}
		if (open->fn == pv_inlined_key(fn) && f->sp == sp) {
			pv_thread_publish(t, NULL);
			f->inl = open->parent; /* never a fold edge: cct.c */
			pv_thread_publish(t, f->node);
			return;
		}
	}
	slow(fn, site, sp, t);
}

#endif /* PV_RUNTIME_HOOKS_H */
