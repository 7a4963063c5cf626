/* SPDX-License-Identifier: MIT */
/* A known hot chain for the page's tests: main -> alpha -> beta -> gamma
 * holds most of the run; side branches (side_one, side_two, side_three),
 * a leaf beta also calls, a function called often (often), and one too
 * cold for the graph (tiny_cold). usage: vw_hot [N] */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void work(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink += x;
}

void gamma_(long n) __asm__("gamma");
void gamma_(long n)
{
	work(n);
}

void leaf(long n)
{
	work(n);
}

void beta(long n)
{
	gamma_(n);
	leaf(n / 10);
}

void side_three(long n)
{
	work(n);
}

void alpha(long n)
{
	beta(n);
	side_three(n / 20);
}

void side_one(long n)
{
	work(n);
}

void side_two(long n)
{
	work(n);
}

int often(int x)
{
	return x + 1;
}

void tiny_cold(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	int q = 0;
	alpha(n);
	side_one(n / 8);
	side_two(n / 12);
	for (int i = 0; i < 500; i++)
		q = often(q);
	tiny_cold();
	printf("%d\n", q);
	return 0;
}
