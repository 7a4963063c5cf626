/* SPDX-License-Identifier: MIT */
/* Inlined bodies: a loop whose calls the compiler inlined, as accessors
 * are at -O2. Their hooks stay (gcc and clang hook inlined bodies), and run
 * in the host's own frame: every call but main's is such a body, one in
 * four nested in another (always_inline: -fno-inline does not apply).
 * usage: inlined ROUNDS */
#include <stdio.h>
#include <stdlib.h>

#define INLINE static inline __attribute__((always_inline))

static volatile unsigned sink;

INLINE unsigned get(const unsigned *p) { return *p; }
INLINE unsigned scaled(const unsigned *p) { return get(p) * 3; }

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned v[4] = { 1, 2, 3, 4 }, x = 0;
	for (long i = 0; i < rounds; i++) {
		x += get(&v[i & 3]);
		x ^= get(&v[(i + 1) & 3]);
		x += scaled(&v[(i + 2) & 3]);
		sink = x;
	}
	printf("%u\n", x);
	return 0;
}
