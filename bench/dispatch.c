/* SPDX-License-Identifier: MIT */
/* Interpreter-style workload: one dispatcher calling 64 handlers at random,
 * far more than a node's callee cache holds. usage: dispatch ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

#define OP(n) static void op##n(unsigned x) { sink += x * (n + 1); }
#define OPS8(a) OP(a##0) OP(a##1) OP(a##2) OP(a##3) OP(a##4) OP(a##5) OP(a##6) OP(a##7)
OPS8(1) OPS8(2) OPS8(3) OPS8(4) OPS8(5) OPS8(6) OPS8(7) OPS8(8)
#define REF8(a) op##a##0, op##a##1, op##a##2, op##a##3, op##a##4, op##a##5, op##a##6, op##a##7
static void (*const ops[64])(unsigned) = { REF8(1), REF8(2), REF8(3), REF8(4),
					   REF8(5), REF8(6), REF8(7), REF8(8) };

static void dispatch(unsigned pc)
{
	ops[pc % 64](pc);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned s = 12345;
	for (long r = 0; r < rounds; r++) {
		s = s * 1103515245u + 12345u;
		dispatch(s >> 16);
	}
	printf("%u\n", sink);
	return 0;
}
