/* SPDX-License-Identifier: MIT */
/*
 * cpusamples.h — a thread's CPU time, sampled where it ran.
 *
 * The kernel samples each thread's PC every period of the thread's own CPU
 * time into the thread's ring (pcring.h): a thread that waits is not
 * sampled, and a burst before a wait is sampled in the burst. A thread's
 * node changes only in its hooks, so the samples a hook finds in the ring
 * were all taken in the node that was on top since the previous hook: the
 * hook charges them there (pv_thread_settle), each for the CPU time since
 * the sample before (the event's count, read into each sample), and
 * samples whose PC is in the runtime's own code are its cost, dropped.
 * The hooks learn that there is something to charge from one word, the
 * ring's head (pv_thread_owes); the counting is off their straight line,
 * and no system call is made.
 *
 * A thread without a ring (perf_event_open refused, or not opened yet) is
 * looked at by the sampler's thread instead (sampler.h), which moves the
 * thread's `looks` word when it leaves something owed; one that will get
 * none has its first CPU timed at its hooks first (timedstart.h).
 */
#ifndef PV_RUNTIME_CPUSAMPLES_H
#define PV_RUNTIME_CPUSAMPLES_H

#include <stdint.h>

#include "runtime/thread.h"

/* A ring holds a second of samples at any rate: a thread that runs longer
 * than that without a hook (inside uninstrumented code) loses the rest,
 * which the kernel counts (pcring.h's lost); their CPU time is then the
 * next sample's, charged where the thread is at its next hook. */
#define PV_RING_HOLDS_NS 1000000000u

/* A new thread: no ring yet; the sampler's looks speak for it. */
void pv_cpusamples_init(struct pv_thread *t);

/* t's ring has just been opened (by t, or for it under the lock the
 * sampler looks under): from now on its samples are t's time, and PCs in
 * [own_lo, own_hi) the runtime's. */
void pv_cpusamples_attach(struct pv_thread *t, uintptr_t own_lo, uintptr_t own_hi);

/* On t's own thread, before it goes live, where no ring will come (every
 * one was refused): its first CPU timed at its hooks, by its rseq area.
 * 0 if it has none. */
int pv_cpusamples_time_without_ring(struct pv_thread *t);

/* Does t's time come from its own ring? */
static inline int pv_cpusamples_from_ring(const struct pv_thread *t)
{
	return __atomic_load_n(&t->news, __ATOMIC_ACQUIRE) != &t->looks;
}

/* On t's own thread (or with t stopped): its ring is about to be closed or
 * forgotten (a fork's child has no mapping): the looks speak for it again.
 * What the ring held past its last collection is dropped. */
void pv_cpusamples_detach(struct pv_thread *t);

/* What t's ring holds that t has not collected yet, in ns and samples of
 * the program's code: for a dump while t runs on. */
void pv_cpusamples_pending(const struct pv_thread *t, uint64_t *ns, uint64_t *samples);

/* The sampler's looks found t, which has no ring, running the program's
 * code: ns of CPU over samples looks owed, and the hooks told. */
void pv_cpusamples_looked(struct pv_thread *t, uint64_t ns, uint64_t samples);

#endif /* PV_RUNTIME_CPUSAMPLES_H */
