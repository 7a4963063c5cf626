/* SPDX-License-Identifier: MIT */
/* cpu.h — what bench/cpu's workloads share: a thread's own CPU clock and a
 * loop that burns a given amount of it. Built with the README's gcc flags,
 * a header's functions get no hooks (-finstrument-functions-exclude-file-list
 * =.h), and these are always inlined: their time is their caller's, under
 * profviz as under perf. */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <stdint.h>
#include <time.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))
/* A real frame in both builds, under its own name (no clone, no inlining):
 * the unit whose self time is compared. (clang makes no clones to refuse.) */
#ifdef __clang__
#define FRAME __attribute__((noinline))
#else
#define FRAME __attribute__((noinline, noclone))
#endif

ALWAYS_INLINE uint64_t clock_of(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This thread's CPU time, ns (a system call: no vDSO for CPU clocks). */
ALWAYS_INLINE uint64_t thread_cpu_ns(void)
{
	return clock_of(CLOCK_THREAD_CPUTIME_ID);
}

ALWAYS_INLINE uint64_t monotonic_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

/* Where the burning loop's result goes, so that the compiler keeps it. */
extern volatile uint64_t cpu_sink;

/* Burns ns of this thread's CPU: a dependent chain of multiplies, about a
 * microsecond between clock reads, so that most of it is the program's
 * own code rather than the clock's system call. Returns the CPU time it
 * took, measured from its first clock read to its last. */
ALWAYS_INLINE uint64_t burn_cpu(uint64_t ns)
{
	uint64_t x = cpu_sink, start = thread_cpu_ns(), now;
	do {
		for (int i = 0; i < 1024; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		now = thread_cpu_ns();
	} while (now - start < ns);
	cpu_sink = x;
	return now - start;
}

#endif
