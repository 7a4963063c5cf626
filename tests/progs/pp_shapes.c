/* SPDX-License-Identifier: MIT */
/* Shapes for the pprof output: distinct call counts, a function reached by
 * two paths, direct and mutual recursion, and a wait (a node outside any
 * module). argv[1]: rounds of the whole. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static void spin(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

static void alpha(void)
{
	spin(200000);
}

/* alpha is reached from main and from beta: two paths, one function. */
static void beta(void)
{
	spin(600000);
	alpha();
}

static int descend(int n)
{
	if (n == 0) {
		spin(300000);
		return 0;
	}
	return descend(n - 1) + 1;
}

static void pong(int n);

static void ping(int n)
{
	if (n > 0)
		pong(n - 1);
	else
		spin(100000);
}

static void pong(int n)
{
	spin(50000);
	if (n > 0)
		ping(n - 1);
}

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	int depth = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 3; i++)
			alpha();
		for (int i = 0; i < 5; i++)
			beta();
		depth += descend(9);
		ping(7);
		nap();
	}
	printf("%d\n", depth);
	return 0;
}
