/* SPDX-License-Identifier: MIT */
/*
 * compensate.h — taking the hooks' own cost out of the profile.
 *
 * Every call runs two hooks, and each hook reads the counters once. What a
 * hook does before its read lands on whoever was running before it, what it
 * does after lands on whoever runs next. So per call, a part lands on the
 * caller's self (the enter hook before its read, the exit hook after
 * it, and an index look-up when the caller's cache missed) and another on
 * the callee's (the enter hook after its read, the exit hook before it).
 * Both are calibrated at start-up, per event, in the event's raw units
 * (calibrate.c). Compensation then works on the call-path tree: a path's
 * self loses its callee part for its entries plus the caller part for the
 * calls it made; a path's total loses what its whole subtree lost, so totals
 * stay consistent with selves, and no arc can exceed its caller. Work that
 * recursion through another function folded onto an ancestor's path (a ->
 * b -> a: the inner a's) lies beneath b's activations but outside b's
 * subtree: that part of b's total loses the share the hooks took of the
 * run's working time.
 *
 * The callee part is not the same for every callee. The processor runs a
 * short callee's own work alongside the hooks' (a counter read does not wait
 * for earlier instructions), so some of that part may be hidden in the
 * callee's work rather than added to it. Calibration also measures the
 * stand-in callee's whole self per call under the hooks: its span. A callee
 * whose own cost per entry is no more than the span may have hidden anything
 * from none to all of the callee part: half of it is taken. Longer callees
 * lose a share growing with their own cost per entry, all of it from twice
 * the span on. (Twice is a choice, not a measurement: on the bench's
 * programs, 1.5 to 3 times make little difference; make bench-truth.)
 * Only time hides so: counts of things done (instructions, misses) add up,
 * and every callee loses all of its part.
 */
#ifndef PV_COMPENSATE_H
#define PV_COMPENSATE_H

#include <stdint.h>
#include "model/event.h"

/* What the hooks add to each call, beyond glibc's no-op hooks, in raw
 * counts per event. */
struct pv_overhead {
	int calibrated;                    /* 0: nothing is compensated */
	double caller[PV_MAX_EVENTS];      /* lands on the caller, per call it makes */
	double caller_miss[PV_MAX_EVENTS]; /* more on the caller, per call that missed its cache */
	double callee[PV_MAX_EVENTS];      /* lands on the callee, per call */
	double callee_span[PV_MAX_EVENTS]; /* the stand-in callee's whole self per call */
	double inlined[PV_MAX_EVENTS];     /* on the host, per body inlined into it: both
					    * of its hooks run with the host's frame on top */
};

/* One event's overhead per call, as pv_overhead's fields (0 span: the
 * callee part is taken whole from every callee). */
struct pv_hook_costs {
	double caller, caller_miss, callee, callee_span, inlined;
};

/* One call path, one event, as compensation sees it. */
struct pv_comp_path {
	int parent;        /* index of the parent path (parents first), -1 at the top */
	int is_signal;     /* a signal's delivery: no hook ran for its entry */
	int is_wait;       /* a libc wait's node: its self is blocked time */
	uint64_t calls;    /* entries, recursive ones included */
	uint64_t inlined_calls; /* ... of which ran as bodies inlined into the parent's
				 * frame: their hooks cost their host (bodies) */
	uint64_t callees;  /* calls made from it through the hooks */
	uint64_t misses;   /* ... of which missed the cache */
	uint64_t bodies;   /* bodies inlined into its frame that ran (their hooks: its self) */
	double self;       /* raw in, compensated out */
	double total;      /* raw in, compensated out */
};

/* Compensate n paths for one event's overhead in place. Returns what had to
 * be clamped: the overhead that could not be taken from a self without
 * making it negative. *modelled (if not NULL) is set to the share of the
 * hooks' whole cost per call (all of the callee part) that was to be taken,
 * for figures that count calls but not paths (a thread's run). */
double pv_compensate_costs(struct pv_comp_path *paths, unsigned n, const struct pv_hook_costs *c,
			   double *modelled);

/* The share of the callee part taken from a callee whose own cost per
 * entry (raw, less the caller part of the calls it made) is own. */
double pv_callee_share(double own, double span);

#endif /* PV_COMPENSATE_H */
