/* SPDX-License-Identifier: MIT */
/* The quick start's flags on a program whose hot loop calls a helper from a
 * header: the helper is inlined and not hooked; the program's own
 * functions are. */
#include <stdio.h>
#include "qs_header.h"

static volatile int sink;

__attribute__((noinline)) static void own_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += qs_twice(i);
	sink += s;
}

int main(void)
{
	for (int i = 0; i < 100; i++)
		own_work(1000 + i);
	printf("%d\n", sink);
	return 0;
}
