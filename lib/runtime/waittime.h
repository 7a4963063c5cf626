/* SPDX-License-Identifier: MIT */
/*
 * waittime.h — a wait's time, with time sampled (sampler.h): told on the
 * waiting thread itself, around the wait (wrap/blocking.c). Apart from
 * sampler.c, whose thread no sanitizer knows, so that the sanitizers see
 * this code, which runs on the program's threads.
 */
#ifndef PV_WAITTIME_H
#define PV_WAITTIME_H

#include <stdint.h>

struct pv_thread;

/* t, on its own thread, has entered the wait whose stand-in is fn: until it
 * returns, a look charges nothing (what the thread used since the last look
 * ran before the wait, or in it: the next look that finds it running takes
 * the first, the wait measures the second; the wait's box holds blocked
 * time). */
void pv_wait_entered(struct pv_thread *t, const void *fn);

/* Blocked for ns in the wait whose stand-in is fn, on t's own thread: its
 * node, on top, holds the time. cpu_ns: what the wait used of t's CPU,
 * measured around it when t has no ring (else 0), charged to the function
 * that waited; the looks that found t in it charged nothing, and leave it
 * out of what they charge next. */
void pv_wait_blocked(struct pv_thread *t, const void *fn, uint64_t ns, uint64_t cpu_ns);

#endif /* PV_WAITTIME_H */
