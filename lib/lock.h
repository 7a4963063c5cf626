/*
 * lock.h — the runtime's own locks.
 *
 * A futex word taken and given with atomic operations and raw system calls,
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

/* errno is kept by all three. */
void pv_lock_take(struct pv_lock *l);
int pv_lock_try(struct pv_lock *l); /* 1 if taken now, 0 if held */
void pv_lock_give(struct pv_lock *l);

/* Free again, in a copy of the process (a fork child) where its holder,
 * another thread, does not exist. */
static inline void pv_lock_reset(struct pv_lock *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
}

#endif /* PV_LOCK_H */
