/* SPDX-License-Identifier: MIT */
/* A call graph with the shapes the command's views must get right: one
 * function (shared) reached from two callers with different shares, a leaf
 * only one caller reaches, a recursion, and an exit status and signal the
 * caller chooses. usage: cmd_shapes [EXIT_STATUS | kill] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void work(unsigned long n)
{
	spin(n);
}

static void shared(unsigned long n)
{
	work(n);
	spin(n / 4);
}

static void leaf(void)
{
	spin(20000);
}

static unsigned long rec(int depth)
{
	spin(3000);
	return depth ? rec(depth - 1) + 1 : 0;
}

static void alpha(void)
{
	for (int i = 0; i < 30; i++) {
		shared(20000);
		leaf();
	}
}

static void beta(void)
{
	for (int i = 0; i < 10; i++)
		shared(10000);
	sink += rec(12);
}

int main(int argc, char **argv)
{
	alpha();
	beta();
	printf("done %lu\n", sink % 7);
	if (argc > 1 && !strcmp(argv[1], "kill"))
		raise(SIGTERM);
	return argc > 1 ? atoi(argv[1]) : 0;
}
