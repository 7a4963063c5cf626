/* SPDX-License-Identifier: MIT */
// C++ exceptions unwinding through instrumented frames: caught several
// frames up, and caught, rethrown and caught again. usage: exceptions N
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static volatile int sink;
static int handled, rehandled;

static void leaf(int i) { sink += i; }

static void thrower(int i)
{
	if (i % 2)
		throw std::runtime_error("odd");
	leaf(i);
}

static void middle(int i) { thrower(i); }
static void deeper(int i) { middle(i); }

static void catcher(int i)
{
	try {
		deeper(i);
	} catch (const std::exception &) {
		handled++;
	}
}

static void rethrower(int i)
{
	try {
		middle(i);
	} catch (...) {
		throw;
	}
}

static void outer_catch(int i)
{
	try {
		rethrower(i);
	} catch (const std::runtime_error &) {
		rehandled++;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++) {
		catcher(i);
		outer_catch(i);
		leaf(i);
	}
	std::printf("%d %d\n", handled, rehandled);
	return 0;
}
