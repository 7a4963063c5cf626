/* SPDX-License-Identifier: MIT */
/* wait_recursion.c — recursion, direct and mutual, in a program that waits
 * once (t_view_arcs.py): the default view puts the waits apart, and must
 * keep fib -> fib and pong -> ping as the profile has them. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long fib(int n);
long ping(int n);

long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long pong(int n)
{
	return n <= 0 ? 0 : 1 + ping(n - 1);
}

long ping(int n)
{
	return n <= 0 ? 0 : 1 + pong(n - 1);
}

static long run(int n)
{
	return fib(n) + ping(2 * n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 15;
	usleep(1000);
	printf("%ld\n", run(n));
	return 0;
}
