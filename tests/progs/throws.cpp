// SPDX-License-Identifier: MIT
// Exceptions thrown and caught every way a program does, with the calls
// made after each catch: every arc's calls must be as the program made
// them, whether the compiler runs exit hooks while unwinding (gcc) or not
// (clang). Each function has one caller and counts its own calls, printed
// at the end as "caller callee calls" (t_throws). usage: throws N
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline))
#define OWN __attribute__((no_instrument_function))

enum { ONE, TWO_MID, TWO, FIVE_A, FIVE_B, FIVE_C, FIVE_D, FIVE, RE_MID, RE, CMP, SORT_CMP,
       INL, INL_HOST, AFTER, W_CATCH, W_THROW, COUNTED };
static int calls[COUNTED];
static volatile int sink;

OWN static void count(int f)
{
	__atomic_fetch_add(&calls[f], 1, __ATOMIC_RELAXED);
}

NOINLINE void one_throw(int i)
{
	count(ONE);
	if (i & 1)
		throw std::runtime_error("one");
	sink += i;
}

NOINLINE void catch_one(int i)
{
	try {
		one_throw(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
	one_throw(0); // a call after the catch, at the unwound frame's depth
}

NOINLINE void two_throw(int i)
{
	count(TWO);
	if (i & 1)
		throw std::runtime_error("two");
}

NOINLINE void two_mid(int i)
{
	count(TWO_MID);
	two_throw(i);
	sink++;
}

NOINLINE void catch_two(int i)
{
	try {
		two_mid(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
}

NOINLINE void five_throw(int i)
{
	count(FIVE);
	if (i & 1)
		throw std::runtime_error("five");
}
NOINLINE void five_d(int i) { count(FIVE_D); five_throw(i); sink++; }
NOINLINE void five_c(int i) { count(FIVE_C); five_d(i); sink++; }
NOINLINE void five_b(int i) { count(FIVE_B); five_c(i); sink++; }
NOINLINE void five_a(int i) { count(FIVE_A); five_b(i); sink++; }

NOINLINE void catch_five(int i)
{
	try {
		five_a(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
}

NOINLINE void re_throw(int i)
{
	count(RE);
	if (i & 1)
		throw std::runtime_error("re");
}

NOINLINE void re_mid(int i)
{
	count(RE_MID);
	try {
		re_throw(i);
	} catch (...) {
		sink--;
		throw; // rethrown, caught again one frame up
	}
}

NOINLINE void catch_re(int i)
{
	try {
		re_mid(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
}

// Through an uninstrumented library: qsort (C) and std::sort (a header's,
// uninstrumented with gcc's exclusion list) call the comparator, which
// throws at its first call on odd rounds.
static int round_throws;

NOINLINE int cmp(const void *a, const void *b)
{
	count(CMP);
	if (round_throws)
		throw std::runtime_error("cmp");
	return *(const int *)a - *(const int *)b;
}

NOINLINE bool sort_cmp(int a, int b)
{
	count(SORT_CMP);
	if (round_throws)
		throw std::runtime_error("sort_cmp");
	return a < b;
}

NOINLINE void catch_callbacks(int i)
{
	int xs[] = { 3, 1, 2 };
	round_throws = i & 1;
	try {
		qsort(xs, 3, sizeof(xs[0]), cmp);
	} catch (const std::runtime_error &) {
		sink--;
	}
	std::vector<int> v = { 3, 1, 2 };
	try {
		std::sort(v.begin(), v.end(), sort_cmp);
	} catch (const std::runtime_error &) {
		sink--;
	}
}

// A body inlined into its caller that throws.
__attribute__((always_inline)) inline void inl_throw(int i)
{
	count(INL);
	if (i & 1)
		throw std::runtime_error("inl");
}

NOINLINE void inl_host(int i)
{
	count(INL_HOST);
	try {
		inl_throw(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
	inl_throw(0);
}

NOINLINE void after(int i)
{
	count(AFTER);
	sink += i;
}

NOINLINE void w_throw(int i)
{
	count(W_THROW);
	if (i & 1)
		throw std::runtime_error("worker");
}

NOINLINE void w_catch(int i)
{
	count(W_CATCH);
	try {
		w_throw(i);
	} catch (const std::runtime_error &) {
		sink--;
	}
}

NOINLINE void worker(int n)
{
	for (int i = 0; i < n; i++)
		w_catch(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	std::thread a(worker, n), b(worker, n);
	for (int i = 0; i < n; i++) {
		catch_one(i);
		catch_two(i);
		catch_five(i);
		catch_re(i);
		catch_callbacks(i);
		inl_host(i);
		after(i);
	}
	a.join();
	b.join();
	static const char *const arcs[COUNTED][2] = {
		{ "catch_one", "one_throw" }, { "catch_two", "two_mid" }, { "two_mid", "two_throw" },
		{ "catch_five", "five_a" }, { "five_a", "five_b" }, { "five_b", "five_c" },
		{ "five_c", "five_d" }, { "five_d", "five_throw" }, { "catch_re", "re_mid" },
		{ "re_mid", "re_throw" }, { "catch_callbacks", "cmp" },
		{ "catch_callbacks", "sort_cmp" }, { "inl_host", "inl_throw" }, { "inl_host", "" },
		{ "main", "after" }, { "worker", "w_catch" }, { "w_catch", "w_throw" },
	};
	for (int f = 0; f < COUNTED; f++)
		if (arcs[f][1][0])
			printf("%s %s %d\n", arcs[f][0], arcs[f][1], calls[f]);
	printf("main inl_host %d\n", calls[INL_HOST]);
	return 0;
}
