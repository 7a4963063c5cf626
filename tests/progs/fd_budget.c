/* SPDX-License-Identifier: MIT */
/*
 * A program near its descriptor limit: it lowers RLIMIT_NOFILE to 128 (soft
 * and hard, as a sandbox does), starts THREADS threads that run instrumented
 * code and wait, then counts how many descriptors it can still open, and the
 * entries of /proc/self/fd (the leak check many test suites make).
 * usage: fd_budget [THREADS]
 *        fd_budget race THREADS: with one descriptor number left, opens and
 *        closes a file again and again while THREADS threads start and end,
 *        one after another, and says how often the file did not get that
 *        number.
 *        fd_budget pipe: a pipe made before main (and profviz's first
 *        hook); main closes its write end and reads: the pipe's end, unless
 *        someone else holds that end (a copy of the descriptor table).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LIMIT 128
#include "fd_threads.h"

/* Entries of /proc/self/fd, the directory's own descriptor left out. */
static int fd_entries(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d);
	closedir(d);
	return n;
}

static void *short_worker(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

static volatile int starting = 1;

static void *starter(void *arg)
{
	int threads = *(int *)arg;
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_worker, NULL) == 0)
			pthread_join(t, NULL);
	}
	starting = 0;
	return NULL;
}

/* Every number but one taken: each open must get that one. */
static int race(int threads)
{
	static int fds[LIMIT];
	int err, n = open_all(fds, LIMIT, &err);
	if (n == 0)
		return 1;
	int left = fds[--n];
	close(left);
	pthread_t t;
	pthread_create(&t, NULL, starter, &threads);
	long opens = 0, other = 0;
	while (starting) {
		int fd = open("/dev/null", O_RDONLY);
		opens++;
		other += fd != left;
		if (fd >= 0)
			close(fd);
	}
	pthread_join(t, NULL);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	printf("%d threads; files not at the one number left: %ld of %ld\n", threads, other,
	       opens > 0 ? opens : 1);
	return 0;
}

static int early_pipe[2] = { -1, -1 };

__attribute__((constructor, no_instrument_function)) static void make_pipe(void)
{
	if (pipe(early_pipe) != 0)
		early_pipe[0] = early_pipe[1] = -1;
}

static int pipe_end(void)
{
	close(early_pipe[1]);
	alarm(10); /* held open elsewhere: killed, not hung */
	char c;
	printf("the pipe's end: read %d\n", (int)read(early_pipe[0], &c, 1));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "pipe"))
		return pipe_end();
	struct rlimit lim = { LIMIT, LIMIT };
	if (argc > 2 && !strcmp(argv[1], "race")) {
		setrlimit(RLIMIT_NOFILE, &lim);
		return race(atoi(argv[2]));
	}
	int threads = argc > 1 ? atoi(argv[1]) : 40;
	if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
		perror("setrlimit");
	pthread_t tid[256];
	start_workers(tid, threads);
	work();
	int entries = fd_entries();
	static int fds[LIMIT];
	int err, n = open_all(fds, LIMIT, &err);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	printf("opened %d, fd entries %d\n", n, entries);
	finish_workers(tid, threads);
	return 0;
}
