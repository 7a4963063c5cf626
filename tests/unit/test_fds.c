/* SPDX-License-Identifier: MIT */
/*
 * fds.c's rules for the program's descriptor-taking calls against the
 * runtime's sections that open and close its own descriptors (fds.h): they
 * exclude each other, yet a call the runtime makes itself while it holds
 * one of its locks or is inside its own section goes in at once, and a
 * thread inside one of the program's calls opens nothing. The exit
 * snapshot's deadlock: the runtime's lock held, a sanitizer's symbolizer
 * closing a file, a thread's set-up waiting for that lock. A check that a
 * waiter is still out after a pause can only fail if it got in.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "runtime/fds.h"
#include "runtime/lock.h"
#include "tap.h"

static void pause_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

static struct pv_lock runtime_lock = PV_LOCK_INITIALIZER;
static int closer_done, section_entered;

/* A program thread in a close that finds one of the runtime's descriptors:
 * it takes the runtime's lock to tell the thread that owns it. */
static void *program_close(void *unused)
{
	(void)unused;
	pv_fds_program_begins();
	pv_lock_take(&runtime_lock);
	pv_lock_give(&runtime_lock);
	pv_fds_program_ends();
	__atomic_store_n(&closer_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* A thread's set-up: its section waits for the program's calls to end. */
static void *runtime_section(void *unused)
{
	(void)unused;
	sigset_t saved;
	pv_fds_runtime_begins(1, &saved);
	__atomic_store_n(&section_entered, 1, __ATOMIC_SEQ_CST);
	pv_fds_runtime_ends(&saved);
	return NULL;
}

static int is_set(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_SEQ_CST);
}

static void test_runtime_lock_holder(void)
{
	pv_lock_take(&runtime_lock); /* the exit snapshot */
	pthread_t closer, section;
	pthread_create(&closer, NULL, program_close, NULL);
	pause_ms(20);
	pthread_create(&section, NULL, runtime_section, NULL);
	pause_ms(20);
	tap_ok(!is_set(&section_entered), "a runtime section waits for the program's close");
	/* The symbolizer's close, under the runtime's lock: at once, or the
	 * alarm ends the test. */
	pv_fds_program_begins();
	pv_fds_program_ends();
	tap_ok(!is_set(&section_entered), "a close under the runtime's lock goes in at once");
	pv_lock_give(&runtime_lock);
	pthread_join(closer, NULL);
	pthread_join(section, NULL);
	tap_ok(is_set(&closer_done) && is_set(&section_entered),
	       "the program's close ends, then the section runs");
}

static void test_inside_program_call(void)
{
	sigset_t saved;
	pv_fds_program_begins();
	tap_ok(!pv_fds_runtime_begins(1, &saved),
	       "inside one of the program's calls (a handler's hooks), no runtime section");
	pv_fds_program_begins(); /* a handler's own close */
	pv_fds_program_ends();
	pv_fds_program_ends();
	tap_ok(pv_fds_runtime_begins(0, &saved), "a section once the call is over");
	tap_ok(pv_fds_runtime_begins(0, &saved), "sections nest");
	pv_fds_program_begins(); /* a close the runtime makes inside its own section */
	pv_fds_program_ends();
	tap_ok(1, "a call inside the runtime's own section goes in at once");
	pv_fds_runtime_ends(&saved);
	pv_fds_runtime_ends(&saved);
}

int main(void)
{
	alarm(60); /* a deadlock fails here */
	test_runtime_lock_holder();
	test_inside_program_call();
	return tap_done();
}
