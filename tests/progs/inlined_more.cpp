/* SPDX-License-Identifier: MIT */
// Inlined bodies in C++, and what else may happen while one is open:
// member functions inlined into their caller (Tally::bump, Tally::value);
// a recursion that passes through an inlined body (walk -> step -> walk);
// a signal handler that runs while a body is open (poke raises SIGUSR1,
// whose handler runs a body of its own). Built with -DOUT_OF_LINE every
// body is a call of its own: the same calls and arcs, the truth for the
// inlined build. usage: inlined_more [ROUNDS]
#include <csignal>
#include <cstdio>
#include <cstdlib>

#ifdef OUT_OF_LINE
#define BODY __attribute__((noinline))
#else
#define BODY inline __attribute__((always_inline))
#endif
#define CALL __attribute__((noinline))

static volatile int sink;

struct Tally {
	int n = 0;
	BODY void bump(int by) { n += by; }
	BODY int value() const { return n; }
};

static Tally handled;

BODY static void note(int sig) { handled.bump(sig); }

extern "C" CALL void on_usr1(int sig) { note(sig); }

BODY static void poke(int i)
{
	if (i % 50 == 0)
		std::raise(SIGUSR1); // the handler runs with poke's body open
	sink += i;
}

CALL static int walk(int depth);

BODY static int step(int depth)
{
	return depth > 0 ? walk(depth - 1) + 1 : 0;
}

CALL static int walk(int depth)
{
	return step(depth) + (depth & 1);
}

CALL static int round_of(Tally &t, int i)
{
	t.bump(i & 7);
	poke(i);
	return t.value() + walk(i % 5);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 100;
	std::signal(SIGUSR1, on_usr1);
	Tally t;
	long acc = 0;
	for (long i = 0; i < rounds; i++)
		acc += round_of(t, (int)i);
	std::printf("%ld %d\n", acc, handled.value());
	return 0;
}
