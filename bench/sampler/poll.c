/* SPDX-License-Identifier: MIT */
/* Candidate 3: no signal. A sampler thread wakes at a fixed rate, reads each
 * registered thread's published slot and CPU clock, and charges the CPU time
 * the thread used since the previous look to the slot it is in now. Nothing
 * is delivered into the program; registering and leaving take a lock (at
 * thread start and end, never on the hot path). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include "sampler.h"

const char *smp_name = "poll";
__thread struct smp_thread *smp_self __attribute__((tls_model("initial-exec")));

enum { MAX_THREADS = 4096 };
static struct smp_thread *threads[MAX_THREADS];
static int nthreads;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long period;

static uint64_t cpu_ns(int clock)
{
	struct timespec ts;
	if (clock_gettime((clockid_t)clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void look(struct smp_thread *t)
{
	uint64_t now = cpu_ns(t->clock);
	int s = t->cur;
	if (now > t->last_ns) {
		t->hits[s]++;
		t->weight_ns[s] += now - t->last_ns;
		t->last_ns = now;
	}
}

static void *sampler(void *arg)
{
	(void)arg;
	struct timespec next;
	/* The default 50 us of timer slack would stretch a 100 us period. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += period;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, 0);
		pthread_mutex_lock(&lock);
		for (int i = 0; i < nthreads; i++)
			look(threads[i]);
		pthread_mutex_unlock(&lock);
		/* Fell behind (a loaded host): skip the lost wake-ups, no burst. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
			next = now;
	}
	return 0;
}

int smp_init(long period_ns)
{
	pthread_t th;
	sigset_t all, old;
	period = period_ns;
	/* The sampler thread takes none of the program's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&th, 0, sampler, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (r)
		return -1;
	pthread_detach(th);
	return 0;
}

int smp_thread_begin(struct smp_thread *t)
{
	clockid_t c;
	smp_self = t;
	if (pthread_getcpuclockid(pthread_self(), &c))
		return -1;
	t->clock = (int)c;
	t->last_ns = cpu_ns(t->clock);
	pthread_mutex_lock(&lock);
	int ok = nthreads < MAX_THREADS;
	if (ok) {
		threads[nthreads++] = t;
		t->registered = 1;
	}
	pthread_mutex_unlock(&lock);
	return ok ? 0 : -1;
}

void smp_thread_end(struct smp_thread *t)
{
	pthread_mutex_lock(&lock);
	if (t->registered) {
		look(t);
		for (int i = 0; i < nthreads; i++)
			if (threads[i] == t) {
				threads[i] = threads[--nthreads];
				break;
			}
		t->registered = 0;
	}
	pthread_mutex_unlock(&lock);
	smp_self = 0;
}

void smp_flush(void) {}
