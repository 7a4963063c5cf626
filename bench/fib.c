/* SPDX-License-Identifier: MIT */
/* Recursive micro workload: nothing but calls. usage: fib N */
#include <stdio.h>
#include <stdlib.h>

static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	printf("%ld\n", fib(argc > 1 ? atoi(argv[1]) : 30));
	return 0;
}
