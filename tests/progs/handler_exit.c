/* SPDX-License-Identifier: MIT */
/*
 * A signal handler that ends the process, wherever the signal lands.
 * usage: handler_exit MODE
 *   malloc  a second thread exists (so malloc locks its arenas) and main
 *           allocates and frees 100 kB blocks without end; after 50 ms a
 *           SIGALRM handler calls exit(0), often while main holds an
 *           arena's lock
 *   busy    main runs instrumented code; after 50 ms the handler calls
 *           exit(0)
 *   _exit   the same with _exit(0)
 *   segv    100 ms of instrumented work, then SIGSEGV at its default
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static int quick;

static void on_alarm(int sig)
{
	(void)sig;
	if (quick)
		_exit(0);
	exit(0);
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void churn(void)
{
	void *p = malloc(100000 + (size_t)(sink & 4095));
	sink += (long)(p != NULL);
	free(p);
}

static void step(void)
{
	for (int i = 0; i < 1000; i++)
		sink++;
}

static long elapsed_ns(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000000L + t1.tv_nsec - t0->tv_nsec;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "busy";
	if (!strcmp(mode, "segv")) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (elapsed_ns(&t0) < 100000000L)
			step();
		raise(SIGSEGV);
		return 1;
	}
	quick = !strcmp(mode, "_exit");
	signal(SIGALRM, on_alarm);
	struct itimerval once = { { 0, 0 }, { 0, 50000 } };
	if (!strcmp(mode, "malloc")) {
		pthread_t t;
		pthread_create(&t, NULL, idle, NULL);
		setitimer(ITIMER_REAL, &once, NULL);
		for (;;)
			churn();
	}
	setitimer(ITIMER_REAL, &once, NULL);
	for (;;)
		step();
}
