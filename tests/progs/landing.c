/* SPDX-License-Identifier: MIT */
/*
 * longjmp and siglongjmp that land in a function whose prologue differs
 * from the one jumped out of: thrower saves no registers, after (called by
 * main right after each landing) saves several, so the hooks' stack
 * pointers of the two are not comparable.
 * usage: landing N MODE, MODE one of
 *   longjmp   thrower longjmps to main
 *   nested    a SIGUSR1 handler raises SIGUSR2, whose handler siglongjmps
 *             out of both handlers into main
 *   reuse     as longjmp, but probe() first sets the same jmp_buf and
 *             returns: its record is stale when main sets it again
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static sigjmp_buf senv;
static volatile long sink;

static void thrower(int i)
{
	longjmp(env, i + 1);
}

/* Enough live values across calls that its prologue saves registers. */
static long after(long a, long b, long c)
{
	long x = a * 3 + b, y = b * 5 + c, z = c * 7 + a;
	sink += x;
	sink += y;
	sink += z;
	return x ^ y ^ z;
}

static int probe(void)
{
	return setjmp(env);
}

static void on_usr2(int sig)
{
	siglongjmp(senv, sig);
}

static void on_usr1(int sig)
{
	(void)sig;
	raise(SIGUSR2);
}

static void raise_nested(void)
{
	raise(SIGUSR1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	const char *mode = argc > 2 ? argv[2] : "longjmp";
	int nested = !strcmp(mode, "nested"), reuse = !strcmp(mode, "reuse");
	if (nested) {
		signal(SIGUSR1, on_usr1);
		signal(SIGUSR2, on_usr2);
	}
	long landed = 0, acc = 0;
	for (int i = 0; i < n; i++) {
		if (reuse && probe())
			abort(); /* never jumped to */
		int v = nested ? sigsetjmp(senv, 1) : setjmp(env);
		if (v) {
			landed++;
			acc += after(i, v, landed);
			continue;
		}
		if (nested)
			raise_nested();
		else
			thrower(i);
	}
	printf("landed %ld acc %ld\n", landed, acc);
	return 0;
}
