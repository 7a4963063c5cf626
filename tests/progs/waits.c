/* SPDX-License-Identifier: MIT */
/* Waits a profile should show as waits: a worker blocked on a condition
 * while main works, main sleeping, and a lock held by another thread.
 * usage: waits */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int job;
static volatile unsigned long sink;

static void work(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

static void wait_for_job(void)
{
	pthread_mutex_lock(&lock);
	while (!job)
		pthread_cond_wait(&ready, &lock);
	pthread_mutex_unlock(&lock);
}

static void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	struct timespec d = { 0, 50 * 1000 * 1000 };
	nanosleep(&d, NULL); /* 50 ms while main wants the lock */
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	(void)arg;
	wait_for_job();
	hold_lock();
	return NULL;
}

static void pause_a_bit(void)
{
	struct timespec d = { 0, 100 * 1000 * 1000 };
	nanosleep(&d, NULL);
}

static void take_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	work(20000000);
	pause_a_bit();
	pthread_mutex_lock(&lock);
	job = 1;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
	struct timespec d = { 0, 10 * 1000 * 1000 };
	nanosleep(&d, NULL); /* the worker takes the lock first */
	take_lock();
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
