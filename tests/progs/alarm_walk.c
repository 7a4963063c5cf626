/* SPDX-License-Identifier: MIT */
/*
 * A timeout done the classic way: an interval timer's SIGALRM handler
 * siglongjmps back to the main loop, ALARMS times, while the interrupted
 * code keeps taking call paths it has not taken before (a pseudo-random
 * walk through 64 functions, 7 deep, as an interpreter or a search does):
 * under profviz the signal often lands while the runtime adds to its tree.
 * Says how many times the handler ran, and how many of those the signal
 * interrupted profviz.so's own code.
 * usage: alarm_walk [ALARMS [resethand]]
 * resethand: the handler is installed with SA_RESETHAND before each round,
 * whose timer is a one-shot: a handler whose action the kernel has already
 * reset cannot wait for the runtime.
 */
#define _GNU_SOURCE /* runtime_text.h: dl_iterate_phdr, REG_RIP */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "runtime_text.h"

static sigjmp_buf back_to_loop;
static volatile sig_atomic_t alarms, in_runtime;
static volatile unsigned long sink;
static unsigned long seed = 1;

static void on_alarm(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	in_runtime += interrupted_runtime(context);
	alarms++;
	siglongjmp(back_to_loop, 1);
}

/* 64 functions; each but the seventh on a path calls one of them picked at
 * random, so that almost every call takes a path not taken before. */
#define DEPTH 7
typedef void step_fn(int depth);
static step_fn *const steps[64];
#define NEXT(depth) \
	((depth) < DEPTH ? steps[(seed = seed * 6364136223846793005u + 1442695040888963407u) >> 58]((depth) + 1) : (void)0)
#define STEP(n) static void step##n(int depth) { sink += n; NEXT(depth); }
#define STEP8(n) STEP(n##0) STEP(n##1) STEP(n##2) STEP(n##3) STEP(n##4) STEP(n##5) STEP(n##6) STEP(n##7)
STEP8(0) STEP8(1) STEP8(2) STEP8(3) STEP8(4) STEP8(5) STEP8(6) STEP8(7)
#define REF8(n) step##n##0, step##n##1, step##n##2, step##n##3, step##n##4, step##n##5, step##n##6, step##n##7
static step_fn *const steps[64] = { REF8(0), REF8(1), REF8(2), REF8(3),
				    REF8(4), REF8(5), REF8(6), REF8(7) };

static void walk(void)
{
	for (;;)
		NEXT(0);
}

static void after(void)
{
	sink++;
}

/* Past the thread's first 60 ms of CPU, in one call: profviz times the
 * first 50 ms at every hook, in its own code (lib/runtime/timedstart.h),
 * after which the alarms land in hooks that take their slow path for new
 * paths only, as in a longer run. */
static void warm_up(void)
{
	while (clock() < 60 * (CLOCKS_PER_SEC / 1000))
		sink++;
}

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 30;
	int resethand = argc > 2 && !strcmp(argv[2], "resethand");
	find_runtime_text();
	warm_up();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_alarm;
	sa.sa_flags = SA_SIGINFO | (resethand ? SA_RESETHAND : 0);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval every = { { 0, 2000 }, { 0, 2000 } };
	struct itimerval once = { { 0, 0 }, { 0, 2000 } };
	if (!resethand)
		setitimer(ITIMER_REAL, &every, NULL);
	while (alarms < want) {
		if (sigsetjmp(back_to_loop, 1) == 0) {
			if (resethand) {
				sigaction(SIGALRM, &sa, NULL);
				setitimer(ITIMER_REAL, &once, NULL);
			}
			walk();
		}
	}
	struct itimerval stop = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &stop, NULL);
	after();
	printf("alarms %d, in profviz %d\n", (int)alarms, (int)in_runtime);
	return 0;
}
