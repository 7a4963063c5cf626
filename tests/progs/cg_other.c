/* SPDX-License-Identifier: MIT */
/* The second file of cg_main: its functions carry another fl= line. */
static volatile int sink;

void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static int scale(int x)
{
	spin(300);
	return 3 * x;
}

int other_sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += scale(i);
	return s;
}
