/* SPDX-License-Identifier: MIT */
/* Threads that run instrumented code while main keeps closing every
 * descriptor from 3 up, the runtime's perf events included (a daemon's
 * closefrom, repeated). Takes no lock of its own. usage: reopen_race close|keep */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 24

static atomic_int stop;
static volatile long sink;

__attribute__((noinline)) static void leaf(long i) { sink += i; }
__attribute__((noinline)) static void step(long i) { leaf(i); }

static void *worker(void *unused)
{
	(void)unused;
	for (long i = 0; !atomic_load(&stop); i++)
		step(i);
	return NULL;
}

int main(int argc, char **argv)
{
	int closing = argc > 1 && !strcmp(argv[1], "close");
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	usleep(100000);
	for (int k = 0; k < 200; k++) {
		if (closing)
			closefrom(3);
		usleep(2000);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	puts("done");
	return 0;
}
