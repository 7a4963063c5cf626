/* SPDX-License-Identifier: MIT */
/* Mixed workload: a caller alternating between callees (so the cached last
 * callee often misses), a little work in each, and some depth.
 * usage: mixed ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

static unsigned leaf_add(unsigned x) { return x + 3; }
static unsigned leaf_mul(unsigned x) { return x * 7; }
static unsigned leaf_xor(unsigned x) { return x ^ 0x5a5a; }
static unsigned leaf_shift(unsigned x) { return (x << 3) | (x >> 29); }

static unsigned step(unsigned x, unsigned i)
{
	switch (i & 3) {
	case 0: return leaf_add(x);
	case 1: return leaf_mul(x);
	case 2: return leaf_xor(x);
	default: return leaf_shift(x);
	}
}

static unsigned inner(unsigned x)
{
	for (unsigned i = 0; i < 8; i++)
		x = step(x, i);
	return x;
}

static unsigned outer(unsigned x)
{
	x = inner(x);
	return leaf_add(inner(x));
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100000;
	unsigned x = 1;
	for (long r = 0; r < rounds; r++)
		x = outer(x);
	sink = x;
	printf("%u\n", x);
	return 0;
}
