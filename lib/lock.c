#define _GNU_SOURCE
#include "lock.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sleep while *word is still value (woken, interrupted or not, the caller
 * looks again). Private: the word is never shared with another process. */
static void futex_wait(int *word, int value)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake_one(int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void pv_lock_take(struct pv_lock *l)
{
	int seen = 0;
	if (__atomic_compare_exchange_n(&l->word, &seen, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	/* Held: mark it waited for, and sleep until a give finds it free. */
	int saved_errno = errno;
	while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
		futex_wait(&l->word, 2);
	errno = saved_errno;
}

int pv_lock_try(struct pv_lock *l)
{
	int seen = 0;
	return __atomic_compare_exchange_n(&l->word, &seen, 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

void pv_lock_give(struct pv_lock *l)
{
	if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2) {
		int saved_errno = errno;
		futex_wake_one(&l->word);
		errno = saved_errno;
	}
}
