/* SPDX-License-Identifier: MIT */
/* Calls the compiler inlines: kind_of into sum_kinds at every call, and
 * weight into sum_kinds while main also calls it through a pointer (a
 * frame of its own). gcc and clang keep an inlined body's hooks, which run
 * in its host's frame. usage: inlined [ROUNDS] (each of 1000 inlined calls
 * of each) */
#include <stdlib.h>

struct item {
	int kind;
};

static volatile int sink;

static inline __attribute__((always_inline)) int kind_of(const struct item *p)
{
	return p->kind;
}

static inline __attribute__((always_inline)) int weight(int k)
{
	return k * 3 + 1;
}

__attribute__((noinline)) static int sum_kinds(const struct item *a, int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += weight(kind_of(a + i % 4));
	return t;
}

int main(int argc, char **argv)
{
	struct item items[4] = { { 1 }, { 2 }, { 3 }, { 4 } };
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	int (*volatile by_pointer)(int) = weight; /* a call the compiler cannot inline */
	int t = 0;
	for (long j = 0; j < rounds; j++)
		t += sum_kinds(items, 1000) + by_pointer((int)j);
	sink = t;
	return 0;
}
