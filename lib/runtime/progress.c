/* SPDX-License-Identifier: MIT */
#include "runtime/progress.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/counters.h"

static unsigned (*count_threads)(void);
static unsigned every;

static void *report(void *unused)
{
	(void)unused;
	uint64_t began = pv_monotonic_ns();
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_sec += every;
		while (pv_sys_sleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next) != 0)
			; /* interrupted: the same deadline */
		unsigned threads = count_threads();
		pv_log("still profiling: %.0f s so far, %u thread%s", (double)(pv_monotonic_ns() - began) * 1e-9, threads,
		       threads == 1 ? "" : "s");
	}
	return NULL;
}

int pv_progress_start(unsigned seconds, unsigned (*live_threads)(void))
{
	if (!seconds)
		return 0;
	count_threads = live_threads;
	every = seconds;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return -1;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Every signal blocked on it (the mask is inherited): the program's
	 * signals keep going to the program's threads. */
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_t thread;
	int rc = pthread_create(&thread, &attr, report, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	return rc == 0 ? 0 : -1;
}
