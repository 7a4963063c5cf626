/* SPDX-License-Identifier: MIT */
/* Many tiny calls: a caller that does little but call a leaf that does
 * little, the shape in which the hooks' own cost dominates a raw profile.
 * Prints the section's own elapsed time, measured without any hook inside
 * the measurement. usage: tiny CALLS
 *
 * The leaf's chain is kept short on purpose. A long dependent chain is
 * still in flight when the exit hook reads the clock (rdtsc does not wait
 * for it), so part of the leaf's time is read on its caller's side: a
 * limit of the measurement, not of the compensation this program tests. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

static unsigned leaf(unsigned x)
{
	for (int i = 0; i < 2; i++)
		x = x * 2654435761u + 7;
	return x;
}

static void section(long calls)
{
	unsigned x = 1;
	for (long i = 0; i < calls; i++)
		x = leaf(x);
	sink = x;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	double t0 = now_ns();
	section(calls);
	printf("%.0f\n", now_ns() - t0);
	return 0;
}
