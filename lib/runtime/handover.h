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

#endif /* PV_RUNTIME_HANDOVER_H */
