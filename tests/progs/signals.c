/* SPDX-License-Identifier: MIT */
/* An instrumented signal handler interrupting everything, hooks included.
 * usage: signals ROUNDS [HOW]
 * HOW installs the handler: sigaction (the default), signal, bsd_signal,
 * ssignal, sysv_signal or sigset. sysv_signal's handler is reset as it is
 * delivered and installs itself again: a timer's signal could come in
 * between, so that one is raised by the program, every 16th round. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* Still in glibc, no longer in its headers. */
extern sighandler_t bsd_signal(int sig, sighandler_t handler);
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static volatile long ticks, sink;
static int again; /* sysv_signal's handler installs itself again */

static void tick_work(void)
{
	sink++;
}

static void on_tick(int sig)
{
	if (again)
		sysv_signal(sig, on_tick);
	ticks++;
	tick_work();
}

static void work_a(long i) { sink += i; }
static void work_b(long i) { sink ^= i; }

static void round_of_work(long i)
{
	work_a(i);
	work_b(i);
}

int main(int argc, char **argv)
{
	long rounds = atol(argv[1]);
	const char *how = argc > 2 ? argv[2] : "sigaction";
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	if (!strcmp(how, "sigaction"))
		sigaction(SIGALRM, &sa, NULL);
	else if (!strcmp(how, "signal"))
		signal(SIGALRM, on_tick);
	else if (!strcmp(how, "bsd_signal"))
		bsd_signal(SIGALRM, on_tick);
	else if (!strcmp(how, "ssignal"))
		ssignal(SIGALRM, on_tick);
	else if (!strcmp(how, "sysv_signal"))
		again = sysv_signal(SIGALRM, on_tick) != SIG_ERR;
	else if (!strcmp(how, "sigset"))
		sigset(SIGALRM, on_tick);
	else
		return 2;
	raise(SIGALRM); /* every call path exists before the storm */
	round_of_work(0);

	struct itimerval every = { { 0, 50 }, { 0, 50 } };
	if (!again)
		setitimer(ITIMER_REAL, &every, NULL);
	for (long i = 1; i <= rounds; i++) {
		round_of_work(i);
		if (again && i % 16 == 0)
			raise(SIGALRM);
	}
	struct itimerval stop = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &stop, NULL);
	printf("%ld\n", ticks);
	return 0;
}
