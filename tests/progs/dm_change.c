/* SPDX-License-Identifier: MIT */
/* One program, two kinds of run, for `profviz diff`: "after" makes grows()
 * do 16 times the work and shrinks() an eighth of it, calls only_after()
 * instead of only_before(), and leaves steady() as it was. The whole run
 * grows by half, so that --normalize has something to scale. */
#include <stdio.h>
#include <string.h>

static volatile unsigned long sink;

void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

void grows(int after)
{
	spin(after ? 16000000 : 1000000);
}

void shrinks(int after)
{
	spin(after ? 1000000 : 8000000);
}

void steady(void)
{
	spin(4000000);
}

void only_before(void)
{
	spin(2000000);
}

void only_after(void)
{
	spin(2000000);
}

int main(int argc, char **argv)
{
	int after = argc > 1 && !strcmp(argv[1], "after");
	for (int i = 0; i < 4; i++) {
		grows(after);
		shrinks(after);
		steady();
	}
	if (after)
		only_after();
	else
		only_before();
	printf("%lu\n", sink & 1);
	return 0;
}
