/* SPDX-License-Identifier: MIT */
/* Inlined bodies that break the simple case: inner inlined into outer,
 * itself inlined into host; a real call made from inside an inlined body
 * (outer calls real_leaf); an inlined body left by longjmp before its exit
 * hook (bail, inlined into jumper). Built with -DOUT_OF_LINE every one of
 * them is a call of its own: the same calls and arcs, the truth for the
 * inlined build. usage: inlined_nest [ROUNDS] */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef OUT_OF_LINE
#define BODY __attribute__((noinline)) static
#else
#define BODY static inline __attribute__((always_inline))
#endif

static volatile int sink;
static jmp_buf back;

__attribute__((noinline)) static void real_leaf(int x)
{
	sink += x;
}

BODY int inner(int x)
{
	return x * 3 + 1;
}

BODY int outer(int x)
{
	int v = inner(x) + inner(x + 1);
	if ((x & 1023) == 0)
		real_leaf(v);
	return v;
}

BODY void bail(int x)
{
	if (x % 100 == 99)
		longjmp(back, 1);
	sink += x;
}

__attribute__((noinline)) static int host(int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += outer(i);
	return t;
}

__attribute__((noinline)) static int jumper(int n)
{
	volatile int jumps = 0;
	for (volatile int i = 0; i < n; i++) {
		if (setjmp(back)) {
			jumps++;
			continue;
		}
		bail(i);
	}
	return jumps;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	int t = 0, jumps = 0;
	for (long r = 0; r < rounds; r++) {
		t += host(1000);
		jumps += jumper(1000);
	}
	printf("%d %d\n", t, jumps);
	return 0;
}
