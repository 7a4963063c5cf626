/* SPDX-License-Identifier: MIT */
/* A call tree for the callgrind writer's test: distinct call counts on each
 * arc, direct and mutual recursion, functions in a second file (cg_other.c),
 * and one function called both from the start-up code (a constructor) and
 * from main. usage: cg_main [rounds] */
#include <stdio.h>
#include <stdlib.h>

int other_sum(int n); /* cg_other.c */
void spin(int n);

static int leaf(int x)
{
	spin(200);
	return x + 1;
}

static int fact(int n)
{
	spin(100);
	return n <= 1 ? 1 : n * fact(n - 1);
}

static int is_odd(int n);

static int is_even(int n)
{
	spin(50);
	return n == 0 ? 1 : is_odd(n - 1);
}

static int is_odd(int n)
{
	spin(50);
	return n == 0 ? 0 : is_even(n - 1);
}

static int branch(int k)
{
	int s = 0;
	for (int i = 0; i < k; i++)
		s += leaf(i);
	return s;
}

__attribute__((constructor)) static void warm_up(void)
{
	spin(1000);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2;
	int s = 0;
	warm_up();
	for (int r = 0; r < rounds; r++) {
		s += branch(3);
		s += leaf(r);
		s += fact(6);
		s += is_even(7);
		s += other_sum(4);
	}
	printf("%d\n", s & 0xff);
	return 0;
}
