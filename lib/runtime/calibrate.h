/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h — measuring what the hooks cost, at start-up.
 *
 * The real hooks are driven with stand-in function addresses on a thread
 * state of the calibration's own, so the code measured is the code every
 * call takes, read with the events the run counts, in their raw units.
 * glibc's no-op hooks are measured the same way: the program pays for them
 * without profviz too, so what is taken out is what profviz adds to them.
 * The stand-in callee's whole self per call (its span) is kept too: it
 * tells compensation which callees are short (compensate.h).
 */
#ifndef PV_CALIBRATE_H
#define PV_CALIBRATE_H

#include "model/compensate.h"
#include "runtime/thread.h"

typedef void pv_hook_fn(void *fn, void *call_site);

struct pv_hooks {
	pv_hook_fn *enter, *exit;           /* the hooks to measure */
	pv_hook_fn *noop_enter, *noop_exit; /* the baseline: glibc's no-op hooks */
	struct pv_thread **self;            /* where the hooks find their thread */
};

/* Fill out with the overhead per call, each figure the lower quartile of
 * several trials. t is set up (pv_thread_init) with the run's events and counters;
 * *hooks->self points at it during the measurement and is restored after.
 * calls: hook pairs per trial. 0, or -1 if it could not be measured. */
int pv_calibrate(struct pv_thread *t, const struct pv_hooks *hooks, unsigned calls,
		 struct pv_overhead *out);

#endif /* PV_CALIBRATE_H */
