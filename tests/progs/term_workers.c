/* SPDX-License-Identifier: MIT */
/*
 * "SIGTERM handler calls exit()" while worker threads come and go. The main
 * thread blocks SIGTERM; workers, two at a time, each take a few thousand
 * call paths they have not taken before and end; once ENDED of them have
 * ended the program sends itself SIGTERM, which only a worker can take,
 * wherever it is: in its own code, starting, or ending. The handler prints
 * and calls exit(0).
 * usage: term_workers [ENDED]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_paths.h"

static int ended;

static void on_term(int sig)
{
	(void)sig;
	static const char bye[] = "terminated\n";
	if (write(1, bye, sizeof(bye) - 1) < 0)
		sink++;
	exit(0);
}

static int alive;

static void *worker(void *arg)
{
	(void)arg;
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &term, NULL);
	onward(0);
	__atomic_add_fetch(&ended, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&alive, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Two workers at a time, each replaced as it ends; detached, so that none
 * is left unjoined when the handler ends the process. */
static void *spawner(void *arg)
{
	(void)arg;
	pthread_attr_t detached;
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	for (;;) {
		if (__atomic_load_n(&alive, __ATOMIC_SEQ_CST) < 2) {
			pthread_t t;
			__atomic_add_fetch(&alive, 1, __ATOMIC_SEQ_CST);
			if (pthread_create(&t, &detached, worker, NULL) != 0)
				__atomic_sub_fetch(&alive, 1, __ATOMIC_SEQ_CST);
		} else {
			usleep(50);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int until = argc > 1 ? atoi(argv[1]) : 6;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL); /* inherited: the workers unblock it */
	pthread_t t;
	pthread_create(&t, NULL, spawner, NULL);
	while (__atomic_load_n(&ended, __ATOMIC_SEQ_CST) < until)
		usleep(100);
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}
