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
 *
 * Sampled time (PV_EVENT_SAMPLED) carries no hooks' cost: the sampler drops
 * the looks that find a thread in profviz's own code. Its doubt is the
 * sampling's: a function's self estimated from n samples is good to about
 * 1/sqrt(n) of itself (pv_sampling_error), so few samples say little.
 */
#ifndef PV_TRUST_H
#define PV_TRUST_H

#include "model/report.h"

/* Above this share of the raw run spent in the hooks, compensated self shares
 * were measured 13-40 % off a sampling truth (total variation distance), and
 * under a third of the run, 1-7 %. */
#define PV_HOOKS_SHARE_DOUBTFUL 0.4

/* The hooks' own share of the raw work in event e, the run less its waits
 * (their self is blocked time, when no hook runs): 0 when not compensated. */
double pv_hooks_share(const struct pv_report *r, unsigned e);

/* Below this many samples in all, a sampled run (or part) is short: a
 * function at 1 % of it rests on fewer than PV_FEW_SAMPLES samples, its self
 * good to ±32 % at best, and so do boxes the graph shows by default (from
 * 0.5 %). At 1000 Hz, that is under a second of CPU time. */
#define PV_SHORT_RUN_SAMPLES (100 * PV_FEW_SAMPLES)

/* The share whose precision a sampled profile's caption quotes. */
#define PV_QUOTED_SHARE 0.10

/* Whether r's waits hold anything in e, in its run or apart from it. */
int pv_has_waits(const struct pv_report *r, unsigned e);

/* Whether e's compensated times are in doubt: a time event (the hooks' cost
 * in counts of things done does not vary so), with the hooks at
 * PV_HOOKS_SHARE_DOUBTFUL of the raw work (pv_hooks_share) or more. Sampled time is judged by
 * its samples instead: in doubt when the run is short. */
int pv_times_doubtful(const struct pv_report *r, unsigned e);

/* Whether f's own compensated cost per call is below the hooks' per call,
 * over its calls that had a frame (an inlined body has no time of its own). */
int pv_cheaper_than_hooks(const struct pv_report *r, const struct pv_rfunc *f, unsigned e);

/* The hooks' calibrated cost per call in e (caller's and callee's parts). */
double pv_hooks_per_call(const struct pv_report *r, unsigned e);

/* The sentence that says so, for the graph's caption and the HTML page,
 * into buf: 1 when e's times are in doubt, else 0 and buf empty. For a part
 * (r->view), it says so; the report it names takes r->view_options. */
int pv_doubt_text(const struct pv_report *r, unsigned e, char *buf, size_t size);

/* Whether r has event e, and it is sampled time. */
int pv_sampled(const struct pv_report *r, unsigned e);

/* The samples behind r's sampled amounts: its functions' (a part's own). */
uint64_t pv_samples_in(const struct pv_report *r);

/* The CPU time in r's sampled amounts that was timed at the hooks instead
 * (timedstart.h): its functions' (a part's own). */
uint64_t pv_timed_in(const struct pv_report *r);

/* The standard error of a share (0-1) of r's total in sampled event e, in
 * the same terms: share / sqrt(the samples expected behind it), over the
 * share's part that was sampled. Time blocked in libc's waits is measured,
 * and a thread's first CPU time timed, not sampled: a share stands on the
 * samples of the sampled rest, as if its mix were the run's. */
double pv_share_error(const struct pv_report *r, unsigned e, double share);

/* The relative standard error of f's self in sampled event e: its sampled
 * part's 1/sqrt(samples), of the whole self (its timed part has none). */
double pv_self_error(const struct pv_rfunc *f, unsigned e);

/* Whether f's self in sampled event e is no better than PV_FEW_SAMPLES
 * samples make it: it has a self, it is not a wait (whose self is
 * measured), and too few samples stand for its part that was not timed. */
int pv_few_samples(const struct pv_report *r, const struct pv_rfunc *f, unsigned e);

/* Whether sampled event e of r is no better than PV_SHORT_RUN_SAMPLES
 * samples over all of it make it: fewer than those, or as many for its
 * part that was not timed. */
int pv_short_run(const struct pv_report *r, unsigned e);

/* How e was sampled, for the graph's caption and profviz report, into buf:
 * the rate, the samples, the share of looks dropped as profviz's own, the
 * share of the run blocked (measured; none when a view took the waits
 * apart, which its reader says); then, on a line of its own (after a
 * '\n'), what a share of PV_QUOTED_SHARE is good to. 1 when e is sampled,
 * else 0 and buf empty. */
int pv_sampling_text(const struct pv_report *r, unsigned e, char *buf, size_t size);

/* What is wrong with r's totals in e, for the graph's caption and profviz
 * report, into buf: threads still running at the end whose events could not
 * be read then (their open calls' costs stop at their last hook), and a run
 * total raised to its functions' selves (pv_report_hold_run_total). 1 when
 * there is something to say, else 0 and buf empty. */
int pv_totals_text(const struct pv_report *r, unsigned e, char *buf, size_t size);

#endif
