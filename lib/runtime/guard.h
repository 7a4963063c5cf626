/* SPDX-License-Identifier: MIT */
/*
 * guard.h — the runtime boundary.
 *
 * Everything the runtime does on a thread beyond the hooks' fast paths
 * (slow paths, thread set-up and end, signal handlers, counter reopens,
 * dumps) runs inside it: the thread is BUSY, so hooks of instrumented code
 * the runtime calls (a program's malloc, say) and the wait wrappers record
 * nothing, and the program's errno is back when it leaves.
 */
#ifndef PV_RUNTIME_GUARD_H
#define PV_RUNTIME_GUARD_H

#include <errno.h>

#include "base/compiler.h"
#include "runtime/sigdefer.h"
#include "runtime/thread.h"

struct pv_guard {
	struct pv_thread *t;
	int mode; /* the thread's mode after leaving; the caller may change it */
	int saved_errno;
	int was_abandonable; /* t->in_slow_path before an abandonable section */
};

/* Enter on t; 1 if the thread was profiling and is now BUSY under this
 * guard, 0 if it was already inside the runtime or is not profiled (errno
 * is kept either way). */
static inline int pv_guard_enter(struct pv_guard *g, struct pv_thread *t)
{
	g->saved_errno = errno;
	g->t = t;
	g->mode = t->mode;
	if (g->mode >= PV_MODE_BUSY)
		return 0;
	t->mode = PV_MODE_BUSY;
	pv_thread_publish(t, NULL); /* the sampler drops what it finds here */
	pv_thread_settle_owed(t, t->top->node);
	return 1;
}

/* Leave: a BUSY thread goes to g->mode (a thread the runtime has meanwhile
 * turned off, at exit, stays off); errno is the program's again. */
static inline void pv_guard_leave(struct pv_guard *g)
{
	/* Shared sentinels are BUSY for good: never written, not even to BUSY. */
	if (g->t->mode == PV_MODE_BUSY && g->mode != PV_MODE_BUSY) {
		if (g->mode < PV_MODE_BUSY) { /* back to the program's code */
			pv_thread_publish(g->t, g->t->top->node);
			if (unlikely(pv_timed_start_on(&g->t->timed)))
				pv_timed_start_resume(g->t); /* its section is not the program's */
		}
		g->t->mode = g->mode;
	}
	errno = g->saved_errno;
}

/* The same around a section a signal handler may abandon by longjmp (the
 * hooks' slow paths, the trampoline's own work): the thread is marked
 * abandonable before it turns BUSY and until it no longer is, so no instant
 * is BUSY but unmarked, which would leave it BUSY for good. */
static inline int pv_guard_enter_abandonable(struct pv_guard *g, struct pv_thread *t)
{
	/* Sections nest (a handler's trampoline inside a slow path's first
	 * instructions): each puts back the mark it found. */
	int was = t->in_slow_path;
	if (t->mode < PV_MODE_BUSY) {
		t->in_slow_path = 1;
		pv_signal_fence();
	}
	int entered = pv_guard_enter(g, t);
	g->was_abandonable = was;
	if (!entered && t->mode < PV_MODE_BUSY)
		t->in_slow_path = was;
	return entered;
}

/* Leave; a thread left BUSY on purpose (a handler that runs unrecorded)
 * stays marked: its handler may still leave by longjmp. Signals that landed
 * in the section were set aside (sigdefer.h): they come now. */
static inline void pv_guard_leave_abandonable(struct pv_guard *g, int entered)
{
	pv_guard_leave(g);
	if (entered && g->t->mode != PV_MODE_BUSY) {
		pv_signal_fence();
		g->t->in_slow_path = g->was_abandonable;
		pv_sigdefer_send();
	}
}

/* Take over the runtime section that a signal handler, now leaving by
 * longjmp, interrupted (t is BUSY on its account): leaving returns the
 * thread to its run mode. */
static inline void pv_guard_take_over(struct pv_guard *g, struct pv_thread *t)
{
	g->saved_errno = errno;
	g->t = t;
	g->mode = t->run_mode;
}

#endif /* PV_RUNTIME_GUARD_H */
