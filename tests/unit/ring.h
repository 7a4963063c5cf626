/* SPDX-License-Identifier: MIT */
/* ring.h — what the tests on real PC rings share: the thread's CPU clock,
 * its task-clock (the clock a ring's period runs on), and a ring opened or
 * the test reported skipped, with the system's reason, where this host
 * refuses task-clock sampling. */
#ifndef PV_TEST_RING_H
#define PV_TEST_RING_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../progs/own_clocks.h"
#include "runtime/pcring.h"
#include "tap.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A task-clock event counting this thread, without samples, and its count
 * (own_task_clock_open and own_task_clock_ns, as the test programs read
 * theirs): a ring takes one sample each period of this clock, which counts
 * what the thread's CPU clock leaves out (time the hypervisor stole while
 * it ran), so a ring's samples are held to it. */

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
