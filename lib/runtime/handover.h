/* SPDX-License-Identifier: MIT */
/*
 * handover.h — a thread's calling-context tree into the process's profile.
 *
 * The tree is the runtime's (cct.h); the profile is the model's: this is the
 * one place that reads a thread's state to fill the model, so the model
 * never knows threads.
 */
#ifndef PV_RUNTIME_HANDOVER_H
#define PV_RUNTIME_HANDOVER_H

#include "model/profile.h"
#include "runtime/thread.h"

/* Add everything t gathered to p: its tree (functions, arcs, call paths),
 * its bookkeeping and losses, its counters' enabled and running times, and a
 * summary of the thread (its calls, CPU and wall time). In a sampled run
 * (p has one event more than t), its sampled time first. */
void pv_thread_hand_over(struct pv_profile *p, const struct pv_thread *t);

/* A live thread's readings, taken by whoever hands it over. */
struct pv_thread_now {
	uint64_t now[PV_MAX_EVENTS]; /* its events (t->nev), read now */
	int at_last_hook; /* they could not be read: now holds its last hook's
			   * readings, so what it ran since is in no cost */
};

/* The same for a thread whose activations are still open (a dump's snapshot
 * of a live thread): each counted as if it returned at now's readings (and
 * at the sampled clock with what the thread owes), as pv_pop_at would count
 * it, in p only: t is not written, and goes on. A thread whose open
 * activations cannot all be counted to now (at_last_hook, or no memory) is
 * marked cut short in its summary and in p's losses. */
void pv_thread_hand_over_live(struct pv_profile *p, const struct pv_thread *t,
			      const struct pv_thread_now *now);

#endif /* PV_RUNTIME_HANDOVER_H */
