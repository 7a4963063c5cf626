/* SPDX-License-Identifier: MIT */
/*
 * samplecost.h — what a kernel sample costs the thread it lands in, and the
 * rate that cost allows.
 *
 * Each sample of a thread's CPU time interrupts the thread: about 11 us
 * here under KVM (the timer's exits), about a tenth of that on bare metal.
 * At a fixed rate the first host pays three times what the budget allows
 * of the second, which gets a tenth of the samples it could afford. So the
 * sampler measures the cost once, on its own thread: it samples itself
 * every PV_COST_PERIOD_NS while it spins reading the TSC, and each sample
 * shows as a gap in the readings; the median gap is the cost (the rare
 * other interrupt, a timer tick, is an outlier). The rate is then the one
 * that spends PV_SAMPLE_BUDGET of a thread's CPU on its samples, within
 * [PV_AUTO_RATE_MIN_HZ, PV_AUTO_RATE_MAX_HZ], in doublings of the least.
 */
#ifndef PV_RUNTIME_SAMPLECOST_H
#define PV_RUNTIME_SAMPLECOST_H

#include <stdint.h>

/* The share of a thread's CPU its samples may cost. */
#define PV_SAMPLE_BUDGET 0.03
/* The rates it may choose: the least keeps a second of CPU to a few
 * hundred samples; the most is what a thread's ring is sized for, a second
 * of samples at it (64 KiB of locked memory a thread): a call longer than
 * the ring holds loses samples, whose time the next sample carries to
 * wherever the thread is then. */
#define PV_AUTO_RATE_MIN_HZ 250u
#define PV_AUTO_RATE_MAX_HZ 2000u /* the least doubled three times */

/* The measurement: its samples' period, and how many gaps it takes. */
#define PV_COST_PERIOD_NS 100000u
#define PV_COST_GAPS 63u

/* The rate for samples that cost cost_ns each: the most in doublings of
 * PV_AUTO_RATE_MIN_HZ that spends no more than the budget (0: not
 * measured, default_hz). */
unsigned pv_rate_for_cost(uint64_t cost_ns, unsigned default_hz);

/* Measure on the calling thread, which must have a descriptor table of its
 * own (the sampler's): ns a sample costs, or 0 where it cannot be measured
 * (no TSC, perf_event_open refused, or *stop or *interrupt set meanwhile:
 * the caller has other work, and may try again). Spins about PV_COST_GAPS
 * periods of its CPU, some 7 ms; nothing of libc's but system calls. */
uint64_t pv_sample_cost_ns(const int *stop, const int *interrupt);

#endif /* PV_RUNTIME_SAMPLECOST_H */
