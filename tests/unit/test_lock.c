/* SPDX-License-Identifier: MIT */
/*
 * The runtime's own locks (lock.h): a lock that excludes, keeps errno, and
 * wakes its waiter; the gate whose two sides exclude each other, and whose
 * shared side a nested holder enters while the sole side waits for it.
 * A check that a waiter is still out after a pause can only fail if it got
 * in, whatever the machine's load.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "runtime/lock.h"
#include "tap.h"

static void pause_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

/* ---- the lock ---- */

static struct pv_lock lock = PV_LOCK_INITIALIZER;
static long counted;
static int waiter_errno;

static void *count_under_lock(void *unused)
{
	(void)unused;
	for (int i = 0; i < 200000; i++) {
		pv_lock_take(&lock);
		counted++;
		pv_lock_give(&lock);
	}
	return NULL;
}

static void *take_after_errno(void *unused)
{
	(void)unused;
	errno = 77;
	pv_lock_take(&lock); /* held by main: sleeps in the kernel */
	waiter_errno = errno;
	pv_lock_give(&lock);
	return NULL;
}

static void test_lock(void)
{
	tap_ok(pv_lock_try(&lock), "lock: a free lock is taken at once");
	tap_ok(!pv_lock_try(&lock), "lock: a held lock is not");
	pthread_t waiter;
	pthread_create(&waiter, NULL, take_after_errno, NULL);
	pause_ms(20);
	errno = 5;
	pv_lock_give(&lock);
	tap_is(errno, 5, "lock: giving it to a waiter keeps errno");
	pthread_join(waiter, NULL);
	tap_is(waiter_errno, 77, "lock: a waiter woken keeps its errno");

	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, count_under_lock, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	tap_is(counted, 4 * 200000, "lock: 4 threads' increments under it are all there");
	pv_lock_reset(&lock);
	tap_ok(pv_lock_try(&lock), "lock: free again after a reset");
	pv_lock_give(&lock);
}

/* ---- the gate ---- */

static struct pv_gate gate = PV_GATE_INITIALIZER;
static int entered;

static void *enter_shared(void *unused)
{
	(void)unused;
	pv_gate_enter_shared(&gate, 0);
	__atomic_store_n(&entered, 1, __ATOMIC_SEQ_CST);
	pv_gate_leave_shared(&gate);
	return NULL;
}

static void *enter_sole(void *unused)
{
	(void)unused;
	pv_gate_enter_sole(&gate, 1);
	__atomic_store_n(&entered, 1, __ATOMIC_SEQ_CST);
	pv_gate_leave_sole(&gate);
	return NULL;
}

/* fn on a thread of its own, given time to get in if it can. */
static pthread_t start_and_pause(void *(*fn)(void *))
{
	pthread_t th;
	entered = 0;
	pthread_create(&th, NULL, fn, NULL);
	pause_ms(20);
	return th;
}

static int got_in(void)
{
	return __atomic_load_n(&entered, __ATOMIC_SEQ_CST);
}

static void test_gate(void)
{
	pv_gate_enter_shared(&gate, 0);
	pv_gate_enter_shared(&gate, 0);
	tap_ok(!pv_gate_enter_sole(&gate, 0), "gate: the sole side gives up while shared holders are in");
	pv_gate_leave_shared(&gate);
	pv_gate_leave_shared(&gate);
	tap_ok(pv_gate_enter_sole(&gate, 0), "gate: ... and gets in once they are out");
	tap_ok(!pv_gate_enter_sole(&gate, 0), "gate: one sole holder at a time");

	pthread_t th = start_and_pause(enter_shared);
	tap_ok(!got_in(), "gate: the shared side waits while the sole side is held");
	pv_gate_leave_sole(&gate);
	pthread_join(th, NULL);
	tap_ok(got_in(), "gate: ... and gets in once it is left");

	/* The sole side waits for a shared holder, which enters again inside
	 * (a signal handler's call within the program's): not for itself. */
	pv_gate_enter_shared(&gate, 0);
	th = start_and_pause(enter_sole);
	tap_ok(!got_in(), "gate: the sole side waits for the shared holders");
	pv_gate_enter_shared(&gate, 1); /* or the alarm ends the test */
	tap_ok(1, "gate: a nested shared holder gets in while the sole side waits");
	pv_gate_leave_shared(&gate);
	tap_ok(!got_in(), "gate: the sole side still waits for the outer holder");
	pv_gate_leave_shared(&gate);
	pthread_join(th, NULL);
	tap_ok(got_in(), "gate: ... and gets in once it is out");

	/* A fork child, say: what another thread held is free. */
	pv_gate_enter_sole(&gate, 1);
	pv_gate_reset(&gate, 0);
	tap_ok(pv_gate_enter_sole(&gate, 0), "gate: free again after a reset");
	pv_gate_leave_sole(&gate);
}

int main(void)
{
	alarm(60); /* a lock or gate that never lets a waiter in fails here */
	test_lock();
	test_gate();
	return tap_done();
}
