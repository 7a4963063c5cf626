/* SPDX-License-Identifier: MIT */
/*
 * clock.h — CLOCK_MONOTONIC in ns: the clock wall times are read on.
 */
#ifndef PV_BASE_CLOCK_H
#define PV_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pv_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* PV_BASE_CLOCK_H */
