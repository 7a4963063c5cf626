/* SPDX-License-Identifier: MIT */
/* A known hot chain (main -> hot_outer -> hot_inner: most of the run), a
 * cold corner whose only arc carries nearly all of its caller's time but
 * little of the run (cold_parent -> cold_child), a quick function that
 * touches no new memory, and a recursion. usage: hotchain N */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void spin(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static void hot_inner(long n)
{
	spin(n);
}

static void hot_outer(long n)
{
	hot_inner(n);
}

static void cold_child(long n)
{
	spin(n);
}

static void cold_parent(long n)
{
	cold_child(n);
}

static int quick(int x)
{
	return x + 1;
}

static long recurse(int depth)
{
	return depth ? 1 + recurse(depth - 1) : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	int q = 0;
	hot_outer(n);
	cold_parent(n / 100);
	for (int i = 0; i < 3; i++)
		q = quick(q);
	printf("%d %ld\n", q, recurse(5));
	return 0;
}
