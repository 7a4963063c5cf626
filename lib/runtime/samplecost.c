/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/samplecost.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/sysraw.h"
#include "runtime/sandbox.h"
#include "runtime/arch.h"

unsigned pv_rate_for_cost(uint64_t cost_ns, unsigned default_hz)
{
	if (!cost_ns)
		return default_hz;
	double hz = PV_SAMPLE_BUDGET * 1e9 / (double)cost_ns;
	/* In doublings from the least: runs on one host, whose costs measure
	 * a little apart, get the same rate (profviz merge sums samples of one
	 * weight), and no more than the budget allows. */
	unsigned rate = PV_AUTO_RATE_MIN_HZ;
	while (rate * 2 <= PV_AUTO_RATE_MAX_HZ && rate * 2 <= hz)
		rate *= 2;
	return rate;
}

#if defined(__x86_64__) || defined(__i386__)

/* The calling thread's CPU time sampled every PV_COST_PERIOD_NS, as the
 * runtime's rings are (pcring.c) but into no ring: nothing is mapped into
 * the program's address space, where a library it reloads may want the
 * place (a ring's own writes cost little beside the interrupt). */
static int sample_self(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = PV_COST_PERIOD_NS;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.exclude_hv = 1;
	int fd = pv_sandbox_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		attr.exclude_kernel = 1;
		fd = pv_sandbox_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

/* The samples taken so far: the event's count (its CPU time) in periods. */
static unsigned samples_of(int fd)
{
	uint64_t ns = 0;
	if (syscall(SYS_read, fd, &ns, sizeof(ns)) != (long)sizeof(ns))
		return 0;
	return (unsigned)(ns / PV_COST_PERIOD_NS);
}

/* The median of the k largest of n values, sorting them (n is small). */
static uint64_t median_of_largest(uint64_t *v, unsigned n, unsigned k)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	if (k > n)
		k = n;
	return k ? v[n - k + k / 2] : 0;
}

/* Add gap to the at most max largest gaps kept in v[0..*n). */
static void keep_largest(uint64_t *v, unsigned *n, unsigned max, uint64_t gap)
{
	if (*n < max) {
		v[(*n)++] = gap;
		return;
	}
	unsigned least = 0;
	for (unsigned i = 1; i < max; i++)
		least = v[i] < v[least] ? i : least;
	if (gap > v[least])
		v[least] = gap;
}

uint64_t pv_sample_cost_ns(const int *stop, const int *interrupt)
{
	int fd = sample_self();
	if (fd < 0)
		return 0;
	/* Gaps in the readings longer than a few hundred ns: an interrupt, a
	 * sample's or another's (a tick, a cache's miss in the host). The
	 * samples' are the largest but for the few ticks: the median of as
	 * many of the largest as the ring holds samples. */
	enum { MIN_GAP_TICKS = 1000, MAX_GAPS = 4 * PV_COST_GAPS };
	uint64_t gaps[MAX_GAPS];
	unsigned n = 0;
	uint64_t began_ns = pv_sys_clock_ns(CLOCK_MONOTONIC), began = pv_arch_clock(), last = began;
	uint64_t now_ns = began_ns;
	for (unsigned spins = 1;; spins++) {
		uint64_t now = pv_arch_clock();
		if (now - last > MIN_GAP_TICKS)
			keep_largest(gaps, &n, MAX_GAPS, now - last);
		last = now;
		/* Enough samples, or 50 ms of the wall (a host that barely samples). */
		if (!(spins & 4095)) {
			now_ns = pv_sys_clock_ns(CLOCK_MONOTONIC);
			if (samples_of(fd) >= PV_COST_GAPS || now_ns - began_ns > 50000000u ||
			    __atomic_load_n(stop, __ATOMIC_ACQUIRE) ||
			    __atomic_load_n(interrupt, __ATOMIC_ACQUIRE))
				break;
		}
	}
	uint64_t ended = pv_arch_clock();
	now_ns = pv_sys_clock_ns(CLOCK_MONOTONIC);
	unsigned samples = samples_of(fd);
	pv_sys_close(fd);
	if (samples < PV_COST_GAPS || ended <= began || now_ns <= began_ns ||
	    __atomic_load_n(stop, __ATOMIC_ACQUIRE) || __atomic_load_n(interrupt, __ATOMIC_ACQUIRE))
		return 0;
	double ns_per_tick = (double)(now_ns - began_ns) / (double)(ended - began);
	return (uint64_t)((double)median_of_largest(gaps, n, samples) * ns_per_tick);
}

#else

uint64_t pv_sample_cost_ns(const int *stop, const int *interrupt)
{
	(void)stop;
	(void)interrupt;
	return 0; /* no TSC to read the gaps with */
}

#endif
