/* SPDX-License-Identifier: MIT */
/* What one look of the poll sampler costs: clock_gettime on another
 * thread's CPU clock (a system call; the vDSO serves only the global
 * clocks). The poll sampler pays this per registered thread per period. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "work.h"

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return 0;
}

int main(void)
{
	pthread_t th;
	clockid_t c;
	int n = 200000;
	pthread_create(&th, 0, idle, 0);
	pthread_getcpuclockid(th, &c);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		clock_ns(c);
	printf("name=lookcost ns_per_clock_read=%.0f\n", (double)(clock_ns(CLOCK_MONOTONIC) - t0) / n);
	return 0;
}
