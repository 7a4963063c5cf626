/* SPDX-License-Identifier: MIT */
/* Candidate 1: a POSIX timer per thread on the thread's own CPU clock,
 * delivered to that thread (SIGEV_THREAD_ID) as a real-time signal.
 * SMP_TIMER_CLOCK=wall puts it on CLOCK_MONOTONIC instead (a wall-clock
 * sampler, as TAU's): the control that shows the EINTR tests can fail. */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <string.h>
#include "handler.h"

const char *smp_name = "timer";
static clockid_t timer_clock = CLOCK_THREAD_CPUTIME_ID;

int smp_init(long period_ns)
{
	const char *c = getenv("SMP_TIMER_CLOCK");
	if (c && !strcmp(c, "wall")) {
		timer_clock = CLOCK_MONOTONIC;
		smp_name = "timer-wall";
	}
	smp_period_ns = period_ns;
	return smp_install_handler(SI_TIMER, 0);
}

int smp_thread_begin(struct smp_thread *t)
{
	struct sigevent sev = {0};
	timer_t id;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SMP_SIGNAL;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	smp_self = t;
	if (timer_create(timer_clock, &sev, &id))
		return -1;
	struct itimerspec its = {
		.it_interval = {0, smp_period_ns},
		.it_value = {0, smp_period_ns},
	};
	if (smp_period_ns >= 1000000000L)
		its.it_interval = its.it_value = (struct timespec){smp_period_ns / 1000000000L, smp_period_ns % 1000000000L};
	t->timer = id;
	t->timer_ok = 1;
	return timer_settime(id, 0, &its, 0);
}

void smp_thread_end(struct smp_thread *t)
{
	if (t->timer_ok)
		timer_delete((timer_t)t->timer);
	t->timer_ok = 0;
	smp_self = 0;
}

void smp_flush(void) {}
