/* SPDX-License-Identifier: MIT */
/*
 * A timeout handler that siglongjmps out, while the program keeps taking
 * call paths it never took before: under profviz the signal often lands
 * while the runtime extends its call-path tree. Rounds go on until the
 * signal has interrupted the runtime (profviz.so's code) LANDINGS times, or
 * for at most 5000 rounds; then main calls after() 1000 times.
 * usage: timeout LANDINGS [resethand]
 * resethand: the handler is installed with SA_RESETHAND, again each round;
 * one whose action the kernel has reset cannot wait for the runtime's work
 * to end (sigdefer.h), so it runs there and its longjmp abandons it.
 */
#define _GNU_SOURCE /* runtime_text.h: dl_iterate_phdr, REG_RIP */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "runtime_text.h"

static sigjmp_buf timed_out;
static volatile sig_atomic_t landed_in_runtime;
static volatile unsigned long sink;
static unsigned long seed = 1;

static void on_timeout(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	landed_in_runtime += interrupted_runtime(context);
	siglongjmp(timed_out, 1);
}

/* Five levels of eight functions, each calling one of the next level's in
 * an order that rarely repeats: no function twice on a path (no recursion,
 * which the tree folds), and most calls a call path not seen yet, until
 * the 32768 paths have all been taken. */
#define PICK(table) (table)[(seed = seed * 6364136223846793005u + 1442695040888963407u) >> 61]
#define LEVEL(name, next)                                                     \
	static void name##0(void) { sink += 0; PICK(next)(); }              \
	static void name##1(void) { sink += 1; PICK(next)(); }              \
	static void name##2(void) { sink += 2; PICK(next)(); }              \
	static void name##3(void) { sink += 3; PICK(next)(); }              \
	static void name##4(void) { sink += 4; PICK(next)(); }              \
	static void name##5(void) { sink += 5; PICK(next)(); }              \
	static void name##6(void) { sink += 6; PICK(next)(); }              \
	static void name##7(void) { sink += 7; PICK(next)(); }              \
	static void (*const name##s[8])(void) = { name##0, name##1, name##2, name##3, \
						 name##4, name##5, name##6, name##7 };
static void leaf(void)
{
	sink++;
}
static void (*const leafs[8])(void) = { leaf, leaf, leaf, leaf, leaf, leaf, leaf, leaf };
LEVEL(e, leafs)
LEVEL(d, es)
LEVEL(c, ds)
LEVEL(b, cs)
LEVEL(a, bs)

/* SIGALRM is blocked from before the timer is set until here, past this
 * function's enter hook: on a loaded host the 200 us could otherwise run
 * out before the call, and a round would have no call to count. */
static void work_until_timeout(void)
{
	sigset_t alarm;
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alarm, NULL);
	for (;;)
		PICK(as)();
}

static void after(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 20;
	int resethand = argc > 2 && !strcmp(argv[2], "resethand");
	volatile int rounds = 0; /* read after siglongjmp */
	find_runtime_text();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_timeout;
	sa.sa_flags = SA_SIGINFO | (resethand ? SA_RESETHAND : 0);
	sigaction(SIGALRM, &sa, NULL);
	while (landed_in_runtime < want && rounds < 5000) {
		if (sigsetjmp(timed_out, 1) == 0) {
			rounds++;
			if (resethand)
				sigaction(SIGALRM, &sa, NULL);
			sigset_t alarm; /* the jump back restores sigsetjmp's mask */
			sigemptyset(&alarm);
			sigaddset(&alarm, SIGALRM);
			sigprocmask(SIG_BLOCK, &alarm, NULL);
			struct itimerval once = { { 0, 0 }, { 0, 200 } };
			setitimer(ITIMER_REAL, &once, NULL);
			work_until_timeout();
		}
	}
	for (int i = 0; i < 1000; i++)
		after(i);
	printf("rounds %d landed in the runtime %d\n", rounds, (int)landed_in_runtime);
	return 0;
}
