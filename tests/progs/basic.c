/* SPDX-License-Identifier: MIT */
/* Known shapes: fib's calls have a closed form; heavy does 3x light's work. */
#include <stdio.h>
#include <stdlib.h>

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
	printf("fib(%d) = %d\n", n, fib(n));
	for (int i = 0; i < rounds; i++) {
		light();
		heavy();
	}
	fprintf(stderr, "done\n");
	return 3;
}
