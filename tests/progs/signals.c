/* SPDX-License-Identifier: MIT */
/* An instrumented signal handler interrupting everything, hooks included.
 * usage: signals ROUNDS */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile long ticks, sink;

static void tick_work(void)
{
	sink++;
}

static void on_tick(int sig)
{
	(void)sig;
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
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGALRM); /* every call path exists before the storm */
	round_of_work(0);

	struct itimerval every = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &every, NULL);
	for (long i = 1; i <= rounds; i++)
		round_of_work(i);
	struct itimerval stop = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &stop, NULL);
	printf("%ld\n", ticks);
	return 0;
}
