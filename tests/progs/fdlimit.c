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

#include "fd_threads.h"

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t tid[256];
	start_workers(tid, threads);
	static int fds[1 << 16];
	int err;
	int n = open_all(fds, 1 << 16, &err);
	printf("opened %d files, the first at %d, until: %s\n", n, n ? fds[0] : -1, strerror(err));
	for (int i = 0; i < n; i++)
		close(fds[i]);
	finish_workers(tid, threads);
	return 0;
}
