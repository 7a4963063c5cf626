/* SPDX-License-Identifier: MIT */
/*
 * window_server.c — a small server for windows of a run: start-up work,
 * two worker threads ("worker") fed by an event loop on standard input,
 * and a handler of SIGUSR1 of its own.
 *
 * Lines in: "req N" (a worker computes fib(N) and answers "done N"),
 * "start", "stop", "reset", "window" (profviz's API, answered "api R"),
 * "rename NAME" (the main thread's name), "retitle" (its environment
 * written over, as a server's process title is), "quit". At the end it says whether its SIGUSR1 handler ran.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "profviz.h"

#define WORKERS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static int queue[64], queued, quitting;
static volatile sig_atomic_t got_usr1;
extern char **environ;

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void answer(int n, int value)
{
	pthread_mutex_lock(&lock);
	printf("done %d %d\n", n, value);
	fflush(stdout);
	pthread_mutex_unlock(&lock);
}

static void handle_request(int n)
{
	answer(n, fib(n));
}

static void *worker(void *unused)
{
	(void)unused;
	pthread_setname_np(pthread_self(), "worker");
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!queued && !quitting)
			pthread_cond_wait(&more, &lock);
		if (!queued) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		int n = queue[--queued];
		pthread_mutex_unlock(&lock);
		handle_request(n);
	}
}

static void load_config(void)
{
	volatile int sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += i;
}

static void warm_up(int n)
{
	fib(n);
}

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* profviz's API, when the runtime is there. */
static int call_api(const char *what)
{
	int (*fn)(void) = !strcmp(what, "start")   ? profviz_start
			  : !strcmp(what, "stop")  ? profviz_stop
			  : !strcmp(what, "reset") ? profviz_reset
						   : profviz_window;
	return fn ? fn() : -2;
}

/* One line of input: 1 to go on, 0 at "quit". */
static int serve_line(const char *line)
{
	int n;
	if (sscanf(line, "req %d", &n) == 1) {
		pthread_mutex_lock(&lock);
		queue[queued++] = n;
		pthread_cond_signal(&more);
		pthread_mutex_unlock(&lock);
	} else if (!strncmp(line, "quit", 4)) {
		return 0;
	} else if (!strncmp(line, "retitle", 7)) { /* as a server's process title does */
		char *end = environ[0];
		for (char **e = environ; *e; e++)
			end = *e + strlen(*e) + 1;
		memset(environ[0], 0, (size_t)(end - environ[0]));
		pthread_mutex_lock(&lock);
		printf("retitled\n");
		fflush(stdout);
		pthread_mutex_unlock(&lock);
	} else if (!strncmp(line, "rename ", 7)) { /* the main thread's name */
		prctl(PR_SET_NAME, line + 7, 0, 0, 0);
		pthread_mutex_lock(&lock);
		printf("renamed\n");
		fflush(stdout);
		pthread_mutex_unlock(&lock);
	} else {
		char what[16] = "";
		sscanf(line, "%15s", what);
		int rc = call_api(what);
		pthread_mutex_lock(&lock);
		printf("api %d\n", rc);
		fflush(stdout);
		pthread_mutex_unlock(&lock);
	}
	return 1;
}

int main(void)
{
	load_config();
	for (int i = 0; i < 3; i++)
		warm_up(15);
	signal(SIGUSR1, on_usr1);
	pthread_t threads[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&threads[i], NULL, worker, NULL);
	printf("ready\n");
	fflush(stdout);
	char line[128];
	size_t used = 0;
	for (int going = 1; going;) {
		struct pollfd in = { 0, POLLIN, 0 };
		if (poll(&in, 1, -1) < 0)
			continue; /* a signal */
		ssize_t got = read(0, line + used, sizeof(line) - 1 - used);
		if (got <= 0)
			break;
		used += (size_t)got;
		line[used] = '\0';
		char *end;
		while (going && (end = strchr(line, '\n'))) {
			*end = '\0';
			going = serve_line(line);
			used -= (size_t)(end + 1 - line);
			memmove(line, end + 1, used + 1);
		}
	}
	pthread_mutex_lock(&lock);
	quitting = 1;
	pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(threads[i], NULL);
	printf("usr1 %d\n", (int)got_usr1);
	return 0;
}
