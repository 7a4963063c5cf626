/* SPDX-License-Identifier: MIT */
/* CPU work and the thread's own CPU clock for the sampled-time programs
 * (t_sampled). The helpers are not instrumented: they are the programs'
 * measuring instruments, and a hook inside them would put a node of their
 * own under the function whose work they measure. */
#ifndef SAMPLED_WORK_H
#define SAMPLED_WORK_H

#include <stdint.h>
#include <time.h>

#define UNTRACED __attribute__((no_instrument_function, noinline, unused))

static volatile uint64_t sampled_sink;

/* This thread's CPU clock, ns. */
static UNTRACED uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static UNTRACED uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A fixed amount of work: n rounds of a loop the compiler keeps. */
static UNTRACED void spin(uint64_t n)
{
	uint64_t x = sampled_sink;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + i;
	sampled_sink = x;
}

/* Work until this thread has used ns more of CPU; a clock read every
 * few microseconds of it. */
static UNTRACED void spin_cpu_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	while (thread_cpu_ns() < end)
		spin(2000);
}

#endif /* SAMPLED_WORK_H */
