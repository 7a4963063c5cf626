/* SPDX-License-Identifier: MIT */
/*
 * timedstart.h — a thread's first CPU time, timed at its hooks.
 *
 * Samples at a rate the budget allows are too few for a short run (20 ms
 * of CPU: 20 samples, a 3:1 split read anywhere from 0.5 to 0.9), and a
 * denser rate costs a kernel sample (8 to 12 us here under KVM) the
 * program's own CPU would pay. Yet a thread's node changes only in its
 * hooks, so the CPU time between two hooks is the node's, exactly: the
 * wall time between them less the time the thread was off its CPU, which
 * the kernel writes into the thread's ring as switch records (pcring.h).
 * So a thread's first PV_TIMED_START_NS of CPU are timed: every hook takes
 * its slow path, which reads CLOCK_MONOTONIC (the vDSO's, no system call)
 * as its runtime section begins and as it ends, and charges the node on
 * top with the time between the previous section's end and this one's
 * start, less the switches' time off the CPU within it. The hooks' own
 * sections are left out; what the hooks' straight lines cost around them
 * (a few ns a call) stays in.
 *
 * Then the ring's samples take over, each weighed from the CPU clock at
 * the hand-over: the last sample's, plus the time on the CPU since. The
 * phase ends early when its cost would grow (PV_TIMED_START_SECTIONS sections),
 * when a record was lost, or when the switches stop being written (the
 * sampler closed their event): without them a time off the CPU cannot be
 * told from work.
 *
 * A thread with no ring is timed the same way, its switches told by its
 * rseq area instead (leftcpu.h): a span in which the thread never left its
 * CPU is its wall time; after one that did, the hook reads the thread's
 * CPU clock, and the span is what the clock moved since the code resumed.
 * Then the sampler's looks take over, from the CPU clock at the hand-over.
 */
#ifndef PV_RUNTIME_TIMEDSTART_H
#define PV_RUNTIME_TIMEDSTART_H

#include <stdint.h>

#include "runtime/pcring.h"

/* The CPU time each thread has timed before samples take over: a run this
 * short is timed whole, unless PV_TIMED_START_SECTIONS come first (calls
 * of a few hundred ns or less: an interpreter's). */
#define PV_TIMED_START_NS 50000000u

/* A timing this old on the wall clock is ended by the sampler (it stops
 * the switches, sampler.c): a thread that makes no call for that long,
 * blocked or idle in a pool, would hold its switches' descriptor. */
#define PV_TIMED_START_WALL_NS 1000000000u

/* ... and the most runtime sections it times: each costs about 120 ns more
 * than the hook's straight line here under KVM (two clock reads, 30 ns
 * each, and the slow path's bookkeeping), so a thread whose calls are
 * short pays at most about 6 ms of CPU for it (25,000 calls timed). */
#define PV_TIMED_START_SECTIONS 50000u

/* Timed by rseq, a span this long on the wall has the thread's CPU clock
 * read (a system call, about 0.7 us here), whether or not the thread said
 * it left its CPU (timedstart.c): at most 3.5 % of the span, and of the
 * timed phase's CPU. */
#define PV_TIMED_READ_AFTER_NS 20000u

/* A clock in ns: CLOCK_MONOTONIC, or the thread's own CPU clock (the
 * tests' are scripted). */
typedef uint64_t pv_wall_fn(void);
typedef uint64_t pv_cpu_fn(void);
/* Has the thread left its CPU since it last asked? (pv_leftcpu_since) */
typedef int pv_left_fn(void);

/* What tells the time a thread spent off its CPU. */
enum pv_timed_by {
	PV_TIMED_BY_SWITCHES, /* its ring's switch records */
	PV_TIMED_BY_RSEQ,     /* its rseq area, then its CPU clock */
};

struct pv_timed_start {
	int on;                 /* timing now (atomic: the sampler reads it) */
	enum pv_timed_by by;
	uint64_t began_ns;      /* when (the sampler ends a timing a long wall time old) */
	uint64_t resumed_ns;    /* when the thread went back to its code (atomic) */
	uint64_t ns;            /* the CPU time timed so far */
	uint64_t sections;      /* the runtime sections that timed it */
	struct pv_pcring_offcpu off; /* the ring's switches, carried over */
	/* By rseq: the thread's CPU clock at resumed_ns (atomic: a dump reads it). */
	uint64_t cpu_resumed_ns;
	/* ... and at the hand-over, from which the looks take over (atomic). */
	uint64_t handed_cpu_ns;
	pv_wall_fn *wall;
	pv_cpu_fn *cpu;
	pv_left_fn *left;
};

struct pv_pcring_news;
struct pv_thread;

/* A new thread's: not timed, its clocks the system's. */
void pv_timed_start_init(struct pv_timed_start *ts);

/* On t's own thread, which has no ring (and gets none while it is timed):
 * time it from now on by its rseq area. 0 if that has none. */
int pv_timed_start_begin_by_rseq(struct pv_thread *t);

/* t's ring (just attached, its switches written) times t from now on, by
 * whoever attached it. */
void pv_timed_start_begin(struct pv_thread *t);

/* Is the thread being timed? Read by any thread. */
static inline int pv_timed_start_on(const struct pv_timed_start *ts)
{
	return __atomic_load_n(&ts->on, __ATOMIC_RELAXED);
}

/* On t's own thread, as a runtime section begins: count the ring's records
 * into n (the samples are not the time: they feed the hot lines) and
 * return the CPU time since the thread's code last resumed; the phase may
 * end here, the ring's samples then weighed from now on. */
uint64_t pv_timed_start_count(struct pv_thread *t, struct pv_pcring_news *n);

/* On t's own thread, as a runtime section ends and the program's code
 * resumes. */
void pv_timed_start_resume(struct pv_thread *t);

/* CPU time before this, on t's CPU clock, was timed (by rseq): the looks
 * charge only what came after. Read by any thread. */
static inline uint64_t pv_timed_start_handed(const struct pv_timed_start *ts)
{
	return __atomic_load_n(&ts->handed_cpu_ns, __ATOMIC_ACQUIRE);
}

/* For a dump while t runs on (any thread): the CPU t has used since its
 * code last resumed, when it is timed by rseq and in the program's code
 * (read from its CPU clock); else 0. */
uint64_t pv_timed_start_pending(const struct pv_thread *t);

/* t's timing ends without a hand-over (its ring is going). */
void pv_timed_start_stop(struct pv_thread *t);

#endif /* PV_RUNTIME_TIMEDSTART_H */
