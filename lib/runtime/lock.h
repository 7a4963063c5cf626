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

struct pv_lock {
	int word; /* 0 free, 1 taken, 2 taken and maybe waited for */
};

#define PV_LOCK_INITIALIZER { 0 }

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
