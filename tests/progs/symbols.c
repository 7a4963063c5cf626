/* SPDX-License-Identifier: MIT */
/* Static functions in a PIE executable, plus calls into a shared library. */
#include <stdio.h>

void shape_entry(int n);

static volatile int sink;

static void local_static(int i)
{
	sink += i;
}

int main(void)
{
	for (int i = 0; i < 7; i++)
		local_static(i);
	shape_entry(5);
	printf("%d\n", sink);
	return 0;
}
