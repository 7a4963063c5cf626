/* SPDX-License-Identifier: MIT */
/* The clocks profviz charges, read by the program itself around a phase of
 * its work: the truth a test holds the profile's shares to, measured in
 * the same run on the same work. This thread's CPU clock is the one the
 * sampler charges in deltas (sampled time); its task-clock, perf's software
 * event, is the one the hooks read with PROFVIZ_EVENTS=task-clock. The two
 * are near, not equal (task-clock also counts what the scheduler's clock
 * leaves out: time the hypervisor stole, interrupts), hence one of each.
 * Not instrumented: a hook inside them would be a node of their own in the
 * profile, and part of what they measure. */
#ifndef OWN_CLOCKS_H
#define OWN_CLOCKS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OWN_CLOCK __attribute__((no_instrument_function, noinline, unused))

/* This thread's CPU clock, ns. */
static OWN_CLOCK uint64_t own_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A task-clock event counting this thread, as profviz opens its own; -1
 * if perf events cannot be opened here. */
static OWN_CLOCK int own_task_clock_open(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Its count, ns; 0 if fd is not open. */
static OWN_CLOCK uint64_t own_task_clock_ns(int fd)
{
	uint64_t v;
	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : 0;
}

/* A phase's time on both clocks, summed over its runs. */
struct own_phase {
	uint64_t cpu_ns, task_clock_ns;
	uint64_t cpu0, tc0; /* at the current run's start */
};

/* The task-clock read outside the CPU clock, so that a phase's task-clock
 * holds all of its CPU clock's span. */
static OWN_CLOCK void own_phase_begin(struct own_phase *p, int fd)
{
	p->tc0 = own_task_clock_ns(fd);
	p->cpu0 = own_cpu_ns();
}

static OWN_CLOCK void own_phase_end(struct own_phase *p, int fd)
{
	p->cpu_ns += own_cpu_ns() - p->cpu0;
	p->task_clock_ns += own_task_clock_ns(fd) - p->tc0;
}

#endif /* OWN_CLOCKS_H */
