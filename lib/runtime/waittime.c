/* SPDX-License-Identifier: MIT */
#include "runtime/waittime.h"

#include "base/clock.h"
#include "runtime/cpusamples.h"
#include "runtime/thread.h"
#include "runtime/timedstart.h"

void pv_wait_entered(struct pv_thread *t, const void *fn)
{
	struct pv_node *n = t->top->node;
	if (n->fn == fn && n->parent)
		pv_thread_publish(t, n->parent);
	if (n->fn == fn) /* a dump meanwhile counts the wait so far */
		__atomic_store_n(&t->waiting_since_ns, pv_monotonic_ns(), __ATOMIC_RELAXED);
}

void pv_wait_blocked(struct pv_thread *t, const void *fn, uint64_t ns, uint64_t cpu_ns)
{
	struct pv_node *n = t->top->node;
	if (pv_timed_start_on(&t->timed))
		cpu_ns = 0; /* in the span its hooks time */
	if (cpu_ns) { /* before the wait is over for the looks: they leave it out */
		__atomic_fetch_add(&t->waits_cpu_ns, cpu_ns, __ATOMIC_RELAXED);
		if (n->fn == fn)
			pv_cpusamples_looked(t, cpu_ns, 0);
	}
	__atomic_store_n(&t->waiting_since_ns, 0, __ATOMIC_RELAXED);
	if (n->fn == fn) { /* else its frame could not be pushed: nowhere to put it */
		pv_thread_settle_owed(t, n); /* the waiting function's (pv_thread_settle) */
		/* As pv_thread_settle adds: a handler may interrupt a wait. */
		__atomic_fetch_add(&n->sampled_ns, ns, __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->sampled_clock, ns, __ATOMIC_RELAXED);
	}
	t->blocked_ns += ns;
}
