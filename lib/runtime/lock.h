/* SPDX-License-Identifier: MIT */
/*
 * lock.h — the runtime's own locks.
 *
 * Futex words taken and given with atomic operations and raw system calls,
 * never through pthread_mutex_lock: profviz.so wraps that one to record the
 * program's waits (blocking.c), and a runtime lock going through it would be
 * recorded as the program's, with a hook run from inside the runtime. A
 * sanitizer sees the lock through its atomics.
 */
#ifndef PV_LOCK_H
#define PV_LOCK_H

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pv_lock {
	int word; /* 0 free, 1 taken, 2 taken and maybe waited for */
};

#define PV_LOCK_INITIALIZER { 0 }

/* Sleep while *word is still value (woken, interrupted or not, the caller
 * looks again); wake waiters. Private: the word is never shared with
 * another process. errno may change. */
static inline void pv_futex_wait(int *word, int value)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static inline void pv_futex_wake(int *word, int waiters)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, waiters, NULL, NULL, 0);
}

/* The protocol alone, inlined where it is used: for the sampler's thread
 * (sampler.c), which has no thread-local state of libc's and runs no
 * sanitizer's code, and under pv_lock_take/give. errno may change. */
static inline void pv_lock_take_bare(struct pv_lock *l)
{
	int seen = 0;
	if (!__atomic_compare_exchange_n(&l->word, &seen, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		/* Held: mark it waited for, and sleep until a give finds it free. */
		while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
			pv_futex_wait(&l->word, 2);
	}
}

static inline void pv_lock_give_bare(struct pv_lock *l)
{
	if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
		pv_futex_wake(&l->word, 1);
}

/* errno is kept by these and by the gate's functions. */
void pv_lock_take(struct pv_lock *l);
int pv_lock_try(struct pv_lock *l); /* 1 if taken now, 0 if held */
void pv_lock_give(struct pv_lock *l);

/* Does the calling thread hold any of these locks? */
int pv_lock_held(void);

/* Free again, in a copy of the process where its holder does not exist
 * (the copy a dying process writes its profile from). */
static inline void pv_lock_reset(struct pv_lock *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
}

/* Two sides that exclude each other: any number of holders on the shared
 * side at once, one at a time on the sole side. A sole holder that waits
 * for the shared side to empty keeps newcomers out of it meanwhile. */
struct pv_gate {
	unsigned word;       /* shared holders; PV_GATE_SOLE: the sole side holds or waits */
	struct pv_lock sole; /* one sole holder (or waiter) at a time */
};

#define PV_GATE_SOLE 0x80000000u
#define PV_GATE_INITIALIZER { 0, PV_LOCK_INITIALIZER }

/* Enter the shared side, waiting while the sole side is held or waited
 * for; nested: the caller already holds the shared side (it then never
 * waits, which would be for itself). */
void pv_gate_enter_shared(struct pv_gate *g, int nested);
void pv_gate_leave_shared(struct pv_gate *g);

/* Enter the sole side: 1, or 0 when wait is 0 and it is not free now (the
 * other side, or another sole holder, is in). */
int pv_gate_enter_sole(struct pv_gate *g, int wait);
void pv_gate_leave_sole(struct pv_gate *g);

/* Free again, in a fork child: shared is what its one thread holds. */
void pv_gate_reset(struct pv_gate *g, unsigned shared);

#endif /* PV_LOCK_H */
