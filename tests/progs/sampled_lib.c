/* SPDX-License-Identifier: MIT */
/* A library built without hooks that starts threads of its own (as a
 * thread pool or an I/O library does), for sampled_lib_host.c. One runs the
 * caller's function after some CPU of the library's own; the other never
 * calls instrumented code at all. */
#include <pthread.h>
#include <stdint.h>

#include "sampled_work.h"

struct job {
	void (*fn)(uint64_t);
	uint64_t arg, before_ns;
};

/* The library's own work first, then a tail call into the caller's. */
static void *run_job(void *arg)
{
	struct job *j = arg;
	spin_cpu_ns(j->before_ns);
	j->fn(j->arg);
	return NULL;
}

static void *own_work(void *arg)
{
	spin_cpu_ns(*(uint64_t *)arg);
	return NULL;
}

/* fn(arg) on a thread of the library's, after before_ns of its own CPU. */
void lib_run_on_thread(void (*fn)(uint64_t), uint64_t arg, uint64_t before_ns)
{
	struct job j = { fn, arg, before_ns };
	pthread_t t;
	if (pthread_create(&t, NULL, run_job, &j) == 0)
		pthread_join(t, NULL);
}

/* A thread of the library's that uses ns of CPU and nothing else. */
void lib_busy_thread(uint64_t ns)
{
	pthread_t t;
	if (pthread_create(&t, NULL, own_work, &ns) == 0)
		pthread_join(t, NULL);
}
