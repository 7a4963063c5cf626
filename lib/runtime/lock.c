/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/lock.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The locks this thread holds. */
static __thread unsigned held;

int pv_lock_held(void)
{
	return held != 0;
}

void pv_lock_take(struct pv_lock *l)
{
	int saved_errno = errno;
	pv_lock_take_bare(l);
	errno = saved_errno;
	held++;
}

int pv_lock_try(struct pv_lock *l)
{
	int seen = 0;
	if (!__atomic_compare_exchange_n(&l->word, &seen, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;
	held++;
	return 1;
}

void pv_lock_give(struct pv_lock *l)
{
	held--;
	int saved_errno = errno;
	pv_lock_give_bare(l);
	errno = saved_errno;
}

/* The gate's word as a futex (same size and alignment). */
static int *gate_futex(struct pv_gate *g)
{
	return (int *)&g->word;
}

void pv_gate_enter_shared(struct pv_gate *g, int nested)
{
	if (nested) {
		__atomic_add_fetch(&g->word, 1, __ATOMIC_ACQUIRE);
		return;
	}
	int saved_errno = errno;
	unsigned seen = __atomic_load_n(&g->word, __ATOMIC_RELAXED);
	for (;;) {
		if (seen & PV_GATE_SOLE) {
			pv_futex_wait(gate_futex(g), (int)seen);
			seen = __atomic_load_n(&g->word, __ATOMIC_RELAXED);
		} else if (__atomic_compare_exchange_n(&g->word, &seen, seen + 1, 1, __ATOMIC_ACQUIRE,
						       __ATOMIC_RELAXED)) {
			break;
		}
	}
	errno = saved_errno;
}

void pv_gate_leave_shared(struct pv_gate *g)
{
	/* The last one out lets a waiting sole holder in (every waiter wakes:
	 * shared ones sleep on the same word, and go back to sleep). */
	if (__atomic_sub_fetch(&g->word, 1, __ATOMIC_RELEASE) == PV_GATE_SOLE) {
		int saved_errno = errno;
		pv_futex_wake(gate_futex(g), INT_MAX);
		errno = saved_errno;
	}
}

int pv_gate_enter_sole(struct pv_gate *g, int wait)
{
	if (!wait && __atomic_load_n(&g->word, __ATOMIC_RELAXED) != 0)
		return 0; /* at once, without a system call */
	if (wait)
		pv_lock_take(&g->sole);
	else if (!pv_lock_try(&g->sole))
		return 0;
	int saved_errno = errno;
	unsigned seen = __atomic_or_fetch(&g->word, PV_GATE_SOLE, __ATOMIC_ACQUIRE);
	while (seen != PV_GATE_SOLE) {
		if (!wait) {
			pv_gate_leave_sole(g);
			errno = saved_errno;
			return 0;
		}
		pv_futex_wait(gate_futex(g), (int)seen);
		seen = __atomic_load_n(&g->word, __ATOMIC_ACQUIRE);
	}
	errno = saved_errno;
	return 1;
}

void pv_gate_leave_sole(struct pv_gate *g)
{
	int saved_errno = errno;
	__atomic_and_fetch(&g->word, ~PV_GATE_SOLE, __ATOMIC_RELEASE);
	pv_futex_wake(gate_futex(g), INT_MAX);
	pv_lock_give(&g->sole);
	errno = saved_errno;
}

void pv_gate_reset(struct pv_gate *g, unsigned shared)
{
	pv_lock_reset(&g->sole);
	__atomic_store_n(&g->word, shared, __ATOMIC_RELEASE);
}
