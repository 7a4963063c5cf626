/* SPDX-License-Identifier: MIT */
/* bursty.c — threads that work in short bursts between waits, the case
 * where a sampler that looks every millisecond or so finds a thread
 * waiting far more often than working (bench/cpu_time.py, make bench-cpu).
 *
 * usage: bursty poll|cond|epoll BURST_US THREADS SECONDS [OUT]
 *
 * Each of THREADS threads, for SECONDS of wall time, runs work(), which
 * burns BURST_US of the thread's own CPU (CLOCK_THREAD_CPUTIME_ID), then
 * wait_io(), which waits about 1 ms: poll(NULL, 0, 1), a
 * pthread_cond_timedwait 1 ms ahead that no one signals, or epoll_wait on
 * an empty epoll set with a 1 ms timeout. The truth by the program's own
 * clock: the thread CPU time work() burned and the thread CPU time taken
 * around the wait call, summed over threads, and the threads' whole CPU
 * time, written as one line of key=value to OUT (else stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cpu.h"

volatile uint64_t cpu_sink = 1;

enum wait_kind { WAIT_POLL, WAIT_COND, WAIT_EPOLL };

struct worker {
	pthread_t thread;
	enum wait_kind kind;
	uint64_t burst_ns;
	uint64_t until_ns; /* CLOCK_MONOTONIC */
	int epfd;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	/* What the thread measured of itself. */
	uint64_t work_ns, wait_ns, thread_ns, bursts;
};

FRAME static uint64_t work(uint64_t ns)
{
	return burn_cpu(ns);
}

/* Waits about 1 ms; returns the CPU time the wait call took. */
FRAME static uint64_t wait_io(struct worker *w)
{
	uint64_t before = 0, after;
	struct epoll_event ev;
	struct timespec at;
	switch (w->kind) {
	case WAIT_POLL:
		before = thread_cpu_ns();
		poll(NULL, 0, 1);
		break;
	case WAIT_COND:
		pthread_mutex_lock(&w->mutex);
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += 1000000;
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		before = thread_cpu_ns();
		while (pthread_cond_timedwait(&w->cond, &w->mutex, &at) != ETIMEDOUT)
			;
		after = thread_cpu_ns();
		pthread_mutex_unlock(&w->mutex);
		return after - before;
	case WAIT_EPOLL:
		before = thread_cpu_ns();
		epoll_wait(w->epfd, &ev, 1, 1);
		break;
	}
	return thread_cpu_ns() - before;
}

FRAME static void *worker_main(void *arg)
{
	struct worker *w = arg;
	while (monotonic_ns() < w->until_ns) {
		w->work_ns += work(w->burst_ns);
		w->wait_ns += wait_io(w);
		w->bursts++;
	}
	w->thread_ns = thread_cpu_ns();
	return NULL;
}

static void usage(void)
{
	fputs("usage: bursty poll|cond|epoll BURST_US THREADS SECONDS [OUT]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "poll", "cond", "epoll" };
	if (argc < 5 || argc > 6)
		usage();
	int kind = -1;
	for (int i = 0; i < 3; i++)
		if (!strcmp(argv[1], kinds[i]))
			kind = i;
	long burst_us = atol(argv[2]), threads = atol(argv[3]);
	double seconds = atof(argv[4]);
	if (kind < 0 || burst_us <= 0 || threads <= 0 || threads > 64 || seconds <= 0)
		usage();
	struct worker *ws = calloc((size_t)threads, sizeof(*ws));
	if (!ws)
		return 1;
	uint64_t until = monotonic_ns() + (uint64_t)(seconds * 1e9);
	for (long i = 0; i < threads; i++) {
		struct worker *w = &ws[i];
		pthread_condattr_t attr;
		w->kind = (enum wait_kind)kind;
		w->burst_ns = (uint64_t)burst_us * 1000;
		w->until_ns = until;
		w->epfd = epoll_create1(0);
		pthread_mutex_init(&w->mutex, NULL);
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&w->cond, &attr);
		pthread_condattr_destroy(&attr);
		if (w->epfd < 0 || pthread_create(&w->thread, NULL, worker_main, w)) {
			perror("bursty");
			return 1;
		}
	}
	uint64_t work_ns = 0, wait_ns = 0, thread_ns = 0, bursts = 0;
	for (long i = 0; i < threads; i++) {
		pthread_join(ws[i].thread, NULL);
		work_ns += ws[i].work_ns;
		wait_ns += ws[i].wait_ns;
		thread_ns += ws[i].thread_ns;
		bursts += ws[i].bursts;
		close(ws[i].epfd);
	}
	FILE *out = argc == 6 ? fopen(argv[5], "w") : stderr;
	if (!out) {
		perror(argv[5]);
		return 1;
	}
	fprintf(out,
		"wait=%s burst_us=%ld threads=%ld bursts=%llu work_ns=%llu wait_ns=%llu"
		" threads_ns=%llu main_ns=%llu\n",
		kinds[kind], burst_us, threads, (unsigned long long)bursts,
		(unsigned long long)work_ns, (unsigned long long)wait_ns,
		(unsigned long long)thread_ns, (unsigned long long)thread_cpu_ns());
	free(ws);
	return out == stderr || !fclose(out) ? 0 : 1;
}
