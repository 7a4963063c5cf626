/* SPDX-License-Identifier: MIT */
/*
 * trust.h — how far a compensated profile's times can be trusted.
 *
 * Compensation takes out a calibrated cost per call, but how much of a hook
 * a function's own work hides varies from function to function, by a few ns
 * a call (README, "Compensation"). Where the hooks took much of the raw run,
 * calls come every few ns of the program and that variation is as large as
 * the short functions' own times: no choice of constant cost fits them all.
 * A profile then says so, and names the functions cheaper than their hooks,
 * which the user can leave out of instrumentation.
 */
#ifndef PV_TRUST_H
#define PV_TRUST_H

#include "model/report.h"

/* Above this share of the raw run spent in the hooks, compensated self shares
 * were measured 13-40 % off a sampling truth (total variation distance), and
 * under a third of the run, 1-7 %. */
#define PV_HOOKS_SHARE_DOUBTFUL 0.4

/* The hooks' own share of the raw run in event e: 0 when not compensated. */
double pv_hooks_share(const struct pv_report *r, unsigned e);

/* Whether e's compensated times are in doubt: a time event (the hooks' cost
 * in counts of things done does not vary so), with the hooks at
 * PV_HOOKS_SHARE_DOUBTFUL of the raw run or more. */
int pv_times_doubtful(const struct pv_report *r, unsigned e);

/* Whether f's own compensated cost per call is below the hooks' per call. */
int pv_cheaper_than_hooks(const struct pv_report *r, const struct pv_rfunc *f, unsigned e);

/* The hooks' calibrated cost per call in e (caller's and callee's parts). */
double pv_hooks_per_call(const struct pv_report *r, unsigned e);

/* The sentence that says so, for the graph's caption and the HTML page,
 * into buf: 1 when e's times are in doubt, else 0 and buf empty. For a part
 * (r->view), it says so; the report it names takes r->view_options. */
int pv_doubt_text(const struct pv_report *r, unsigned e, char *buf, size_t size);

#endif
