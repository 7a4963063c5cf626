/* SPDX-License-Identifier: MIT */
/*
 * A fatal signal while a thread is inside the profiler, holding its lock:
 * the program's own allocator stalls (or takes the signal) in the first
 * allocation a worker makes once its work is done, which is where the
 * runtime merges an ending thread's profile under its lock. Without the
 * runtime no allocation happens there and the worker simply ends.
 * usage: fatal_lock elsewhere|here|allocator
 *   elsewhere  the worker stalls there for good; main then raises SIGTERM
 *   here       the worker raises SIGTERM there itself
 *   allocator  as elsewhere, the worker holding the allocator's own lock,
 *              which any allocation then waits for
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static const char *mode = "";
static pthread_mutex_t allocator_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stalled, sink;
static __thread int work_done;

#define QUIET __attribute__((no_instrument_function))

/* The worker's allocations after its work: stall, or die, right here. */
static QUIET void after_work_allocation(void)
{
	if (!work_done)
		return;
	work_done = 0;
	if (!strcmp(mode, "here"))
		raise(SIGTERM);
	if (!strcmp(mode, "allocator"))
		pthread_mutex_lock(&allocator_lock);
	__atomic_store_n(&stalled, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
}

QUIET void *malloc(size_t n)
{
	after_work_allocation();
	pthread_mutex_lock(&allocator_lock);
	void *p = __libc_malloc(n);
	pthread_mutex_unlock(&allocator_lock);
	return p;
}

QUIET void *calloc(size_t n, size_t size)
{
	after_work_allocation();
	pthread_mutex_lock(&allocator_lock);
	void *p = __libc_calloc(n, size);
	pthread_mutex_unlock(&allocator_lock);
	return p;
}

QUIET void *realloc(void *p, size_t n)
{
	after_work_allocation();
	pthread_mutex_lock(&allocator_lock);
	void *q = __libc_realloc(p, n);
	pthread_mutex_unlock(&allocator_lock);
	return q;
}

QUIET void free(void *p)
{
	pthread_mutex_lock(&allocator_lock);
	__libc_free(p);
	pthread_mutex_unlock(&allocator_lock);
}

static void work(int i)
{
	sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		work(i);
	work_done = 1;
	return NULL;
}

static void step(int i)
{
	sink += i;
}

static void event_here(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	/* Until the worker has ended, or stalled where the runtime merges it. */
	while (!__atomic_load_n(&stalled, __ATOMIC_SEQ_CST) && pthread_tryjoin_np(t, NULL) != 0)
		usleep(1000);
	raise(SIGTERM);
}

static void outer(void)
{
	for (int i = 0; i < 5; i++)
		step(i);
	event_here();
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "";
	printf("start %s\n", mode);
	fflush(stdout);
	outer();
	printf("end %s\n", mode);
	return 2;
}
