/* SPDX-License-Identifier: MIT */
/* ring.h — what the tests on real PC rings share: the thread's CPU clock,
 * and a ring opened or the test reported skipped, with the system's
 * reason, where this host refuses task-clock sampling. */
#ifndef PV_TEST_RING_H
#define PV_TEST_RING_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "runtime/pcring.h"
#include "tap.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1 with r open on this thread; 0 after a TAP skip line. */
static int ring_or_skip(struct pv_pcring *r, uint64_t period_ns, unsigned data_pages)
{
	int err = pv_pcring_open(r, period_ns, data_pages);
	if (err == 0)
		return 1;
	char why[200];
	pv_pcring_explain(err, why, sizeof(why));
	printf("ok %d # skip no task-clock sampling here: %s\n", ++tap_count, why);
	return 0;
}

#endif
