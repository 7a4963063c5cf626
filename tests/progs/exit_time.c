/* SPDX-License-Identifier: MIT */
/* Code the program runs at exit: its pthread key destructors on THREADS
 * ending threads, an atexit handler, and the static destructor of an
 * instrumented shared library (libfini.c). usage: exit_time THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void lib_call(void);

static pthread_key_t key;
static volatile long sink;
static int value;

static void on_key_dtor(void)
{
	sink++;
}

static void key_dtor(void *value)
{
	(void)value;
	on_key_dtor();
}

static void thread_work(void)
{
	sink++;
}

static void *run(void *arg)
{
	pthread_setspecific(key, arg);
	thread_work();
	return NULL;
}

static void on_exit_work(void)
{
	sink++;
}

static void at_exit_handler(void)
{
	on_exit_work();
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	pthread_key_create(&key, key_dtor);
	atexit(at_exit_handler);
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, run, &value);
		pthread_join(t, NULL);
	}
	lib_call();
	printf("%d threads\n", threads);
	return 0;
}
