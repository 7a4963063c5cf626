/* SPDX-License-Identifier: MIT */
/* Calls a small function for as long as asked. usage: busy_for MILLISECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

static void step(void)
{
	sink++;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms_since(&t0) < ms)
		for (int i = 0; i < 1000; i++)
			step();
	puts("done");
	return 0;
}
