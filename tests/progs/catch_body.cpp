// SPDX-License-Identifier: MIT
// An exception that comes out of a body inlined into the function that
// catches it (t_catch_body.py): sort_some, always inlined into main, calls
// std::sort, whose comparator throws every other time 7 is compared; main
// catches, then calls after(). Prints a checksum.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

static int thrown;
__attribute__((noinline)) bool less_or_throw(int a, int b)
{
	if (a == 7 && thrown++ % 2 == 0)
		throw std::runtime_error("seven");
	return a < b;
}

/* Inlined into main: calls what throws; main catches. */
__attribute__((always_inline)) static inline void sort_some(std::vector<int> &v)
{
	std::sort(v.begin(), v.end(), less_or_throw);
}

__attribute__((noinline)) int after(int x) { return x + 1; }

int main()
{
	long s = 0;
	for (int r = 0; r < 100; r++) {
		std::vector<int> v = { 9, 7, 3, 1, 8 };
		try {
			sort_some(v);
		} catch (const std::exception &) {
			s++;
		}
		s += after(r);
	}
	printf("%ld\n", s);
	return 0;
}
