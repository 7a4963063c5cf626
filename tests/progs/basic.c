/* SPDX-License-Identifier: MIT */
/* Known shapes: fib's calls have a closed form; heavy does 3x light's work.
 * usage: basic N ROUNDS [clocks]: with "clocks", light's and heavy's time
 * on the thread's own clocks (own_clocks.h), summed over the rounds, as a
 * last line on stdout: "light_cpu_ns A heavy_cpu_ns B light_task_clock_ns
 * C heavy_task_clock_ns D" (task-clock 0 where perf events cannot be
 * opened). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "own_clocks.h"

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static volatile double sink;

static void work(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

/* Long enough that scheduler time slices average out in wall-clock shares. */
static void light(void)
{
	work(10000000);
}

static void heavy(void)
{
	work(30000000);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	int clocks = argc > 3 && !strcmp(argv[3], "clocks");
	int fd = clocks ? own_task_clock_open() : -1;
	struct own_phase l = { 0 }, h = { 0 };
	printf("fib(%d) = %d\n", n, fib(n));
	for (int i = 0; i < rounds; i++) {
		if (clocks)
			own_phase_begin(&l, fd);
		light();
		if (clocks) {
			own_phase_end(&l, fd);
			own_phase_begin(&h, fd);
		}
		heavy();
		if (clocks)
			own_phase_end(&h, fd);
	}
	if (clocks)
		printf("light_cpu_ns %llu heavy_cpu_ns %llu light_task_clock_ns %llu "
		       "heavy_task_clock_ns %llu\n",
		       (unsigned long long)l.cpu_ns, (unsigned long long)h.cpu_ns,
		       (unsigned long long)l.task_clock_ns, (unsigned long long)h.task_clock_ns);
	fprintf(stderr, "done\n");
	return 3;
}
