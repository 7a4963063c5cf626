/*
 * compensate.h — taking the hooks' own cost out of the profile.
 *
 * Every call runs two hooks, and each hook reads the counters once. What a
 * hook does before its read lands on whoever was running before it, what it
 * does after lands on whoever runs next. So per call, a fixed part lands on
 * the caller's self (the enter hook before its read, the exit hook after
 * it, and an index look-up when the caller's cache missed) and another on
 * the callee's (the enter hook after its read, the exit hook before it).
 * Both are calibrated at start-up, per event, in the event's raw units
 * (calibrate.c). Compensation then works on the call-path tree, where it is
 * exact: a path's self loses callee x its entries plus caller x the calls it
 * made; a path's total loses what its whole subtree lost, so totals stay
 * consistent with selves, and no arc can exceed its caller.
 */
#ifndef PV_COMPENSATE_H
#define PV_COMPENSATE_H

#include <stdint.h>
#include "counters.h"

/* What the hooks add to each call, beyond glibc's no-op hooks, in raw
 * counts per event. */
struct pv_overhead {
	int calibrated;                    /* 0: nothing is compensated */
	double caller[PV_MAX_EVENTS];      /* lands on the caller, per call it makes */
	double caller_miss[PV_MAX_EVENTS]; /* more on the caller, per call that missed its cache */
	double callee[PV_MAX_EVENTS];      /* lands on the callee, per call */
};

/* One call path, one event, as compensation sees it. */
struct pv_comp_path {
	int parent;        /* index of the parent path (parents first), -1 at the top */
	int is_signal;     /* a signal's delivery: no hook ran for its entry */
	uint64_t calls;    /* entries, recursive ones included */
	uint64_t callees;  /* calls made from it through the hooks */
	uint64_t misses;   /* ... of which missed the cache */
	double self;       /* raw in, compensated out */
	double total;      /* raw in, compensated out */
};

/* Compensate n paths for one event's overhead (caller, caller_miss and
 * callee as in pv_overhead) in place. Returns what had to be clamped: the
 * overhead that could not be taken from a self without making it negative. */
double pv_compensate(struct pv_comp_path *paths, unsigned n, double caller, double caller_miss,
		     double callee);

#endif /* PV_COMPENSATE_H */
