/* SPDX-License-Identifier: MIT */
/* A SIGTERM handler that calls exit() while threads come and go. A spawner
 * starts threads one after another, each making many distinct call paths
 * (so that the runtime takes a while to take its data over when it ends);
 * once ENDED of them have ended, SIGTERM is sent to the process, and only
 * those threads can take it. usage: term_churn ENDED */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_paths.h"

static int ended;

static void goodbye(void)
{
	sink++;
}

static void on_term(int sig)
{
	(void)sig;
	goodbye();
	exit(3);
}

static void *churn(void *arg)
{
	(void)arg;
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &term, NULL);
	onward(0);
	__atomic_add_fetch(&ended, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, NULL, churn, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static void main_work(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	int until = argc > 1 ? atoi(argv[1]) : 5;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	/* Blocked here and inherited: only the churning threads can take it. */
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	for (int i = 0; i < 1000; i++)
		main_work();
	printf("started\n");
	fflush(stdout);
	pthread_t t;
	pthread_create(&t, NULL, spawner, NULL);
	while (__atomic_load_n(&ended, __ATOMIC_SEQ_CST) < until)
		usleep(100);
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}
