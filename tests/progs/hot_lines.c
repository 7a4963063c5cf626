/* SPDX-License-Identifier: MIT */
/* Two functions busy about 3:1, each with one line that holds most of its
 * time: a chain of four dependent divisions (each waits for the one
 * before), beside a loop's cheap increment and test. A sampled PC is the
 * instruction after the one that stalled, so the last division's wait
 * shows on the loop's line: three of the four on the line marked HOT. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double heavy(long n)
{
	double s = 1;
	for (long i = 1; i < n; i++)
		s = s / 1.0000001 / 1.0000002 / 1.0000003 / 1.0000004 + 1e-9; /* HOT heavy */
	return s;
}

__attribute__((noinline)) static double light(long n)
{
	double s = 1;
	for (long i = 1; i < n; i++)
		s = s / 0.9999999 / 0.9999998 / 0.9999997 / 0.9999996 - 1e-9; /* HOT light */
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 40;
	double sum = 0;
	for (long r = 0; r < rounds; r++) {
		sum += heavy(750000);
		sum += light(250000);
	}
	printf("%.3f\n", sum);
	return 0;
}
