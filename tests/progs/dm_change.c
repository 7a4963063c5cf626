/* One program, two kinds of run, for `profviz diff`: "after" makes grows()
 * do more work and shrinks() less than "before" does, calls only_after()
 * instead of only_before(), and leaves steady() as it was. */
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
	spin(after ? 8000000 : 2000000);
}

void shrinks(int after)
{
	spin(after ? 3000000 : 6000000);
}

void steady(void)
{
	spin(4000000);
}

void only_before(void)
{
	spin(1000000);
}

void only_after(void)
{
	spin(1000000);
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
