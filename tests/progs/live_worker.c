/* SPDX-License-Identifier: MIT */
/* A worker still alive when the process ends, blocked in a condition wait
 * after its work, as a thread pool's workers are when main returns without
 * joining them. main then ends the process (exit), or first writes the
 * profile so far into mid.json (dump), or first closes every descriptor
 * from 3 up, the runtime's events among them (closefrom).
 * usage: live_worker exit|dump|closefrom */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profviz.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t to_main = PTHREAD_COND_INITIALIZER, never = PTHREAD_COND_INITIALIZER;
static int crunched;
static volatile unsigned long sink;

static void crunch(void)
{
	for (unsigned long i = 0; i < 800000000ul; i++)
		sink += i;
}

static void *worker(void *unused)
{
	(void)unused;
	crunch();
	pthread_mutex_lock(&mu);
	crunched = 1;
	pthread_cond_signal(&to_main);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&mu);
	while (!crunched)
		pthread_cond_wait(&to_main, &mu);
	pthread_mutex_unlock(&mu); /* the worker let go of it: it is in its wait */
	if (!strcmp(how, "dump") && profviz_dump) {
		profviz_dump();
		rename("prof.json", "mid.json");
	}
	if (!strcmp(how, "closefrom"))
		closefrom(3);
	puts("done");
	return 0;
}
