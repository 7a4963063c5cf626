/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/sysraw.h"
#include "runtime/naming.h"

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* t's CPU clock in ns; 0 when it cannot be read. */
static uint64_t thread_cpu_ns(const struct pv_thread *t)
{
	struct timespec ts;
	if (!t->has_cpu_clock || clock_gettime(t->cpu_clock, &ts) != 0)
		return 0;
	return ns_of(&ts);
}

void pv_sampler_thread_begins(struct pv_thread *t)
{
	t->sampled_cpu_ns = thread_cpu_ns(t);
}

void pv_sampler_look(struct pv_sampling *account, struct pv_thread *t, uint64_t cpu_ns)
{
	if (!cpu_ns || cpu_ns <= t->sampled_cpu_ns)
		return; /* no clock, or it did not run since the last look */
	uint64_t used = cpu_ns - t->sampled_cpu_ns;
	t->sampled_cpu_ns = cpu_ns;
	struct pv_node *n = __atomic_load_n(&t->at, __ATOMIC_RELAXED);
	if (!n) {
		/* In a hook or the runtime: its own cost, never a function's. */
		account->own_samples++;
		account->own_ns += used;
		return;
	}
	/* Found waiting: what it used since the last look ran before the wait,
	 * in the function that waited (the wait's box holds blocked time). */
	if (n->parent && pv_runtime_kind_of(n->fn) == PV_FUNC_WAIT)
		n = n->parent;
	n->sampled_ns += used;
	n->samples++;
	account->samples++;
}

void pv_sampler_account(const struct pv_sampler *s, struct pv_sampling *out)
{
	*out = s->account;
	out->rate_hz = s->period_ns ? 1e9 / (double)s->period_ns : 0;
	out->wall_seconds = s->started ? (double)(pv_monotonic_ns() - s->began_ns) * 1e-9 : 0;
}

void pv_sampler_blocked(struct pv_thread *t, const void *fn, uint64_t ns)
{
	struct pv_node *n = t->top->node;
	if (n->fn == fn) /* else its frame could not be pushed: nowhere to put it */
		n->sampled_ns += ns;
	t->blocked_ns += ns;
}

static struct timespec timespec_of(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	return ts;
}

/* The sampler's own CPU time so far. */
static uint64_t own_cpu_ns(void)
{
	struct timespec ts;
	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? ns_of(&ts) : 0;
}

/* xorshift64: the jitter needs no more, and no libc state of the program's. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static void *sample(void *arg)
{
	struct pv_sampler *s = arg;
	uint64_t next = pv_monotonic_ns();
	uint64_t random = next | 1;
	uint64_t own_before = own_cpu_ns();
	for (;;) {
		/* A round that cost c of CPU waits at least PV_SAMPLER_BUDGET * c:
		 * many threads make rounds dear, and then rarer. */
		uint64_t own = own_cpu_ns();
		uint64_t period = s->period_ns;
		if (own > own_before && (own - own_before) * PV_SAMPLER_BUDGET > period)
			period = (own - own_before) * PV_SAMPLER_BUDGET;
		own_before = own;
		/* Spread uniformly over half to one and a half periods: a program
		 * whose loop repeats in step with a fixed period would show the
		 * same instant of it at every look. */
		next += period / 2 + next_random(&random) % (period + 1);
		uint64_t now = pv_monotonic_ns();
		if (next < now)
			next = now; /* late (descheduled): no burst of rounds to catch up */
		struct timespec at = timespec_of(next);
		while (pv_sys_sleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at) != 0 && errno == EINTR)
			;
		pv_lock_take(s->lock);
		s->account.looks++;
		for (struct pv_thread *t = *s->live; t; t = t->next)
			pv_sampler_look(&s->account, t, thread_cpu_ns(t));
		s->account.sampler_ns = own_cpu_ns();
		pv_lock_give(s->lock);
	}
	return NULL;
}

/* The thread, every signal blocked on it (the mask is inherited), so that
 * the program's signals go to the program's threads. */
static int start_thread(struct pv_sampler *s, char *why, size_t why_size)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		/* It calls little: a small stack leaves the program's address space alone. */
		pthread_attr_setstacksize(&attr, 64 * 1024);
		sigset_t all, saved;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		pthread_t thread;
		rc = pthread_create(&thread, &attr, sample, s);
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		snprintf(why, why_size, "no thread for the sampler: %s", strerror(rc));
		return -1;
	}
	s->started = 1;
	s->began_ns = pv_monotonic_ns();
	return 0;
}

int pv_sampler_start(struct pv_sampler *s, struct pv_lock *lock, struct pv_thread **live,
		     unsigned rate_hz, char *why, size_t why_size)
{
	memset(s, 0, sizeof(*s));
	s->lock = lock;
	s->live = live;
	s->period_ns = 1000000000u / (rate_hz ? rate_hz : 1);
	return start_thread(s, why, why_size);
}

int pv_sampler_restart_in_child(struct pv_sampler *s, char *why, size_t why_size)
{
	if (!s->started)
		return 0;
	memset(&s->account, 0, sizeof(s->account));
	s->started = 0;
	return start_thread(s, why, why_size);
}
