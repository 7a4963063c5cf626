/* SPDX-License-Identifier: MIT */
/* The process ends while its threads are busy: two detached threads recurse
 * DEEP frames deep over and over, and a spawner keeps starting detached
 * threads that recurse SHALLOW frames deep (each growing a fresh shadow
 * stack) and end. main returns meanwhile, saying how many calls it made.
 * usage: busy_exit DEEP SHALLOW CALLS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long deep, shallow;
static volatile long sink;
static int deep_reached;

static long descend(long n)
{
	if (n == 0)
		return 0;
	return 1 + descend(n - 1);
}

static void *deep_thread(void *arg)
{
	(void)arg;
	for (;;) {
		sink += descend(deep);
		__atomic_add_fetch(&deep_reached, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void *short_thread(void *arg)
{
	(void)arg;
	sink += descend(shallow);
	return NULL;
}

static void start_detached(void *(*fn)(void *), long frames)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, (size_t)frames * 128 + (1 << 20));
	pthread_t t;
	pthread_create(&t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
}

static void *spawner(void *arg)
{
	(void)arg;
	for (;;)
		start_detached(short_thread, shallow);
	return NULL;
}

static void main_work(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	deep = atol(argv[1]);
	shallow = atol(argv[2]);
	long calls = atol(argv[3]);
	start_detached(deep_thread, deep);
	start_detached(deep_thread, deep);
	start_detached(spawner, 0);
	/* Until both deep threads have been all the way down once. */
	long made = 0;
	for (; __atomic_load_n(&deep_reached, __ATOMIC_SEQ_CST) < 2; made++)
		main_work();
	for (long i = 0; i < calls; i++, made++)
		main_work();
	printf("main_work %ld\n", made);
	return 0;
}
