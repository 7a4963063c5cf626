/* SPDX-License-Identifier: MIT */
#include "runtime/progress.h"

#include <time.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/counters.h"
#include "runtime/ownthread.h"

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
	return pv_own_thread_start(report, NULL) == 0 ? 0 : -1;
}
