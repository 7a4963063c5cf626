/* SPDX-License-Identifier: MIT */
/* A shared library whose internal function is static (.symtab only). */
static volatile int shape_sink;

static void shape_helper(int i)
{
	shape_sink += i;
}

void shape_entry(int n)
{
	for (int i = 0; i < n; i++)
		shape_helper(i);
}
