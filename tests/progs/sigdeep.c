/* SPDX-License-Identifier: MIT */
/* A signal handler that crosses the points where the shadow stack grows: a
 * thread DEPTH frames deep raises SIGUSR1, and the handler recurses EXTRA
 * frames deeper. usage: sigdeep DEPTH EXTRA */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long extra;
static volatile long sink;

static long handler_descend(long n)
{
	if (n == 0)
		return 0;
	return 1 + handler_descend(n - 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	sink += handler_descend(extra);
}

static long descend(long n)
{
	if (n == 0) {
		raise(SIGUSR1);
		return 0;
	}
	return 1 + descend(n - 1);
}

static void *run(void *arg)
{
	printf("%ld %ld\n", descend((long)arg), (long)sink);
	return NULL;
}

int main(int argc, char **argv)
{
	long depth = atol(argv[1]);
	extra = atol(argv[2]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)(depth + extra) * 128 + (1 << 20));
	pthread_t t;
	pthread_create(&t, &attr, run, (void *)depth);
	pthread_join(t, NULL);
	return 0;
}
