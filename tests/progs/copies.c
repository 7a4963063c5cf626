/* SPDX-License-Identifier: MIT */
/* Copies of one header function in two files (one box in the graph), and
 * two different static functions that share a name (two boxes, told apart).
 * usage: copies */
#include <stdio.h>
#include "copies.h"

int other_file(int x);

static int step(int x) /* another file has its own, different step() */
{
	return helper(x) + 2;
}

int main(void)
{
	int x = 0;
	for (int i = 0; i < 5; i++)
		x = step(x);
	for (int i = 0; i < 3; i++)
		x = other_file(x);
	printf("%d\n", x & 0xff);
	return 0;
}
