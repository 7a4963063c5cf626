/* SPDX-License-Identifier: MIT */
/* A compute-bound threaded program, as a compressor is: two workers
 * compute (crunch, then tidy, 3:1) while main waits for them on a
 * condition, then joins them. Each worker times its functions on its own
 * CPU clock, and main its own CPU in main, so that a profile's CPU shares
 * can be held to the program's own measure. Prints, on one line,
 * "crunch_ns N tidy_ns N worker_ns N main_ns N waited_ns N": the CPU
 * in crunch and in tidy, in the workers' start routine (both summed), in
 * main, and main's wall time waiting.
 * usage: threads_work CPU_MS (each worker's CPU, about) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "sampled_work.h"

#define MS 1000000u
#define WORKERS 2
#define ROUNDS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

struct worker {
	pthread_t thread;
	uint64_t cpu_ns; /* the CPU each round's share asks for */
	uint64_t crunch_ns, tidy_ns, all_ns;
};

static void crunch(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void tidy(uint64_t ns)
{
	spin_cpu_ns(ns);
}

/* Rounds of crunch (3 parts) and tidy (1), each timed on this thread's
 * CPU clock from here. */
static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t start = thread_cpu_ns();
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t t0 = thread_cpu_ns();
		crunch(3 * w->cpu_ns / (4 * ROUNDS));
		uint64_t t1 = thread_cpu_ns();
		tidy(w->cpu_ns / (4 * ROUNDS));
		uint64_t t2 = thread_cpu_ns();
		w->crunch_ns += t1 - t0;
		w->tidy_ns += t2 - t1;
	}
	pthread_mutex_lock(&lock);
	done++;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&lock);
	w->all_ns = thread_cpu_ns() - start;
	return NULL;
}

static void wait_for_workers(void)
{
	pthread_mutex_lock(&lock);
	while (done < WORKERS)
		pthread_cond_wait(&done_cond, &lock);
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	uint64_t main_start = thread_cpu_ns();
	uint64_t cpu_ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	struct worker w[WORKERS] = { 0 };
	for (int i = 0; i < WORKERS; i++) {
		w[i].cpu_ns = cpu_ms * MS;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0)
			return 1;
	}
	uint64_t wall0 = monotonic_ns();
	wait_for_workers();
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i].thread, NULL);
	uint64_t waited = monotonic_ns() - wall0;
	uint64_t crunch_ns = 0, tidy_ns = 0, all_ns = 0;
	for (int i = 0; i < WORKERS; i++) {
		crunch_ns += w[i].crunch_ns;
		tidy_ns += w[i].tidy_ns;
		all_ns += w[i].all_ns;
	}
	printf("crunch_ns %llu tidy_ns %llu worker_ns %llu main_ns %llu waited_ns %llu\n",
	       (unsigned long long)crunch_ns, (unsigned long long)tidy_ns,
	       (unsigned long long)all_ns, (unsigned long long)(thread_cpu_ns() - main_start),
	       (unsigned long long)waited);
	return 0;
}
