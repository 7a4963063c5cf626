/* SPDX-License-Identifier: MIT */
/* A program that opens files until its descriptor limit stops it, while
 * THREADS threads of its own are alive (each has run instrumented code).
 * usage: fdlimit THREADS. Says how many files it could open, and the number
 * of the first. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void *worker(void *arg)
{
	(void)arg;
	work();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&finish);
	return NULL;
}

static int open_all(int *fds, int max, int *err)
{
	int n = 0;
	for (; n < max; n++)
		if ((fds[n] = open("/dev/null", O_RDONLY)) < 0)
			break;
	*err = errno;
	return n;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t tid[256];
	pthread_barrier_init(&started, NULL, (unsigned)threads + 1);
	pthread_barrier_init(&finish, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, NULL);
	pthread_barrier_wait(&started);
	static int fds[1 << 16];
	int err;
	int n = open_all(fds, 1 << 16, &err);
	printf("opened %d files, the first at %d, until: %s\n", n, n ? fds[0] : -1, strerror(err));
	for (int i = 0; i < n; i++)
		close(fds[i]);
	pthread_barrier_wait(&finish);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
