/* SPDX-License-Identifier: MIT */
/* Threads that run instrumented code and then wait, and files opened until
 * the descriptor limit stops them: what fdlimit.c and fd_budget.c share. */
#ifndef FD_THREADS_H
#define FD_THREADS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t started, finish;
static volatile double sink;

static void work(void)
{
	double x = 0;
	for (int i = 0; i < 1000; i++)
		x += i;
	sink = x;
}

/* Runs work, then waits until every worker has, and until the program is
 * done with its files. */
static void *worker(void *arg)
{
	(void)arg;
	work();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&finish);
	return NULL;
}

/* n workers started; returns once each has run work. */
static void start_workers(pthread_t *tid, int n)
{
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	pthread_barrier_init(&finish, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, worker, NULL);
	pthread_barrier_wait(&started);
}

static void finish_workers(pthread_t *tid, int n)
{
	pthread_barrier_wait(&finish);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
}

/* /dev/null opened until max or a failure (its errno in *err). */
static int open_all(int *fds, int max, int *err)
{
	int n = 0;
	for (; n < max; n++)
		if ((fds[n] = open("/dev/null", O_RDONLY)) < 0)
			break;
	*err = errno;
	return n;
}

#endif /* FD_THREADS_H */
