/* SPDX-License-Identifier: MIT */
/* The workloads the drivers share: a calibrated busy loop, and the thread
 * CPU clock that is their truth. */
#ifndef WORK_H
#define WORK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define thread_ns() clock_ns(CLOCK_THREAD_CPUTIME_ID)

static volatile uint64_t sink __attribute__((unused));

__attribute__((noinline, unused)) static void spin(long n)
{
	uint64_t x = sink;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}

/* Iterations of spin() per microsecond of this thread's CPU. */
static inline long spin_per_us(void)
{
	long n = 1 << 20;
	uint64_t t0 = thread_ns();
	spin(n);
	uint64_t dt = thread_ns() - t0;
	return dt ? (long)((double)n * 1000.0 / (double)dt) + 1 : 1000;
}
#endif
