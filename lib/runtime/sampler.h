/* SPDX-License-Identifier: MIT */
/*
 * sampler.h — a thread of the runtime's own that opens each profiled
 * thread's ring, drains the PCs the thread has counted, and looks at the
 * threads that have no ring.
 *
 * A thread's time comes from its own ring (cpusamples.h). The sampler's
 * thread gives up its share of the program's descriptor table first thing
 * (close_range's CLOSE_RANGE_UNSHARE, which copies none): the rings, which
 * it opens for each thread as the thread starts (woken for it), then take
 * no number of the program's, not even for a moment. Nothing is delivered
 * into the program: no signal, no timer, no descriptor.
 *
 * A thread without a ring (perf_event_open refused, or not yet opened) is
 * looked at instead, a thousand times a second: each thread publishes
 * where it is in one word (pv_thread.at), its top node while the program's
 * code runs, NULL while the hooks or the runtime run, so the runtime's own
 * time is dropped, never charged to a function. What a look finds in the
 * program's code the thread owes, and charges itself to its top node when
 * its next hook or runtime section begins (pv_thread_settle), so that its
 * self and total costs move together. A thread in a wait (blocking.c)
 * publishes the function that waited, which its CPU is charged to; the
 * wait's own box gets the blocked time, measured around it.
 */
#ifndef PV_RUNTIME_SAMPLER_H
#define PV_RUNTIME_SAMPLER_H

#include <stdint.h>

#include "model/profile.h"
#include "runtime/hotpcs.h"
#include "runtime/lock.h"
#include "runtime/thread.h"

/* A look costs about 17 us of CPU on a VM, most of it the wake-up: the
 * period is stretched so that the sampler's own CPU stays under 1/this of
 * the time it runs, however many threads it looks at. */
#define PV_SAMPLER_BUDGET 33

/* When every thread has its ring, the sampler only drains their PCs (a
 * ring holds a second of them, cpusamples.h) and opens new threads' rings
 * (woken for it): it wakes ten times a second. */
#define PV_SAMPLER_DRAIN_NS 100000000u

/* How the sampler paces its rounds. */
enum pv_sampler_pace {
	PV_PACE_LOOKS, /* a thread without a ring: looks at the rate asked */
	PV_PACE_DRAIN, /* every thread has its ring: only PCs to drain */
};

/* The wait before the next round: the period asked (looks) or
 * PV_SAMPLER_DRAIN_NS (drain, at the least), stretched so that a round that
 * cost round_ns of the sampler's CPU stays within 1/PV_SAMPLER_BUDGET of the
 * time it covers. */
uint64_t pv_sampler_period(enum pv_sampler_pace pace, uint64_t asked_ns, uint64_t round_ns);

/* The sampler keeps this many rings' descriptors in its own table, to
 * change their periods at random at each round: a loop in step with a
 * fixed period would be seen at the same instant at every sample. */
#define PV_SAMPLER_FDS 256

struct pv_sampler {
	struct pv_lock *lock;     /* held while looking: threads end under it */
	struct pv_thread **live;  /* the profiled threads */
	unsigned rate_hz;         /* looks per second asked for */
	uint64_t period_ns;       /* ... and their period */
	uint64_t began_ns;        /* CLOCK_MONOTONIC when it started */
	struct pv_sampling account; /* under lock */
	struct pv_hotpcs *hot;    /* the threads' PC rings drained here at each look, or NULL */
	uint64_t pc_period_ns;    /* the rings' period, for those it opens */
	uint64_t timed_period_ns; /* ... while their thread is timed: the rate it started at */
	int rate_forced;          /* PROFVIZ_RATE: else the rate is set by a sample's cost */
	uint64_t sample_cost_ns;  /* ... as measured (samplecost.h), 0 until then */
	struct pv_thread *first;  /* the thread that starts it: its ring first */
	int started;
	/* Set by the sampler's thread as it starts, which its starter waits
	 * for: 1 when it has a descriptor table of its own, and opens every
	 * thread's PC ring itself (else each thread opens its own); 2 when not. */
	int table;
	int newcomers; /* 1: a thread has started, whose ring to open now */
	int running_tid; /* its thread's, 0 once it has gone (the kernel's CLONE_CHILD_CLEARTID) */
	int stopping;    /* 1: its thread is to end (pv_sampler_stop) */
	unsigned fds_kept;           /* rings' descriptors in its table (under lock) */
	int ending[PV_SAMPLER_FDS];  /* ... of rings whose thread has ended: to close */
	unsigned n_ending;
};

/* Does the sampler open the threads' PC rings? */
static inline int pv_sampler_opens_rings(const struct pv_sampler *s)
{
	return s->started && __atomic_load_n(&s->table, __ATOMIC_ACQUIRE) == 1;
}

/* Start sampling the threads on *live every 1/rate_hz s, from a thread
 * with every signal blocked; with hot, draining their PC rings into it at
 * each look, and opening those of period pc_period_ns that are missing
 * (pv_sampler_opens_rings), first's (the caller's, not yet live) before it
 * returns. Returns once the thread has started: 0, or -1 with a reason in
 * why. */
int pv_sampler_start(struct pv_sampler *s, struct pv_lock *lock, struct pv_thread **live,
		     struct pv_hotpcs *hot, unsigned rate_hz, int rate_forced, uint64_t pc_period_ns,
		     struct pv_thread *first, char *why, size_t why_size);

/* In a fork child (the sampler thread is not there): start again, with an
 * account of its own, first (the forking thread) its first ring. */
int pv_sampler_restart_in_child(struct pv_sampler *s, struct pv_thread *first, char *why,
				size_t why_size);

/* A thread has just gone on the live list: the sampler, if it opens the
 * rings, wakes to open its own (a futex wake), so that its PCs are taken
 * from its start. */
void pv_sampler_thread_added(struct pv_sampler *s);

/* End the sampler's thread and wait until it has gone, on a thread of the
 * program's with every signal blocked and s->lock not held: a task the
 * program's libc does not know must not exist while the program changes
 * what its threads may do (set*id, capabilities, namespaces: glibc's
 * broadcast of set*id reaches only the threads it made, and unshare
 * refuses a process that shares its memory). Its descriptor table goes
 * with it, and the rings' descriptors kept there: the rings live on, in
 * their mappings. 1 if it was running. */
int pv_sampler_stop(struct pv_sampler *s);

/* Had it been started in this process (since a fork)? */
static inline int pv_sampler_was_started(const struct pv_sampler *s)
{
	return s->began_ns != 0;
}

/* Start it again from the calling thread, whose credentials it takes (the
 * rest of the state, its account included, goes on). 0, or -1 with a
 * reason in why. */
int pv_sampler_resume(struct pv_sampler *s, struct pv_thread *first, char *why,
		      size_t why_size);

/* r's thread is ending (under s->lock): the sampler closes the ring's
 * descriptor, if it kept one, at its next round. */
void pv_sampler_ring_ends(struct pv_sampler *s, struct pv_pcring *r);

/* A period drawn uniformly from half to one and a half of period_ns. */
uint64_t pv_sampler_jitter(uint64_t period_ns, uint64_t *random);

/* On t itself, before it goes on the live list: its CPU time so far is not
 * the sampler's to charge. */
void pv_sampler_thread_begins(struct pv_thread *t);

/* One look at t, whose CPU clock reads cpu_ns now (under s->lock): what it
 * used since the last look is owed, if it publishes a node. Apart from
 * pv_sampler_start's thread, for the tests' scripted samplers. */
void pv_sampler_look(struct pv_sampling *account, struct pv_thread *t, uint64_t cpu_ns);

/* The account so far, for a dump (under s->lock). */
void pv_sampler_account(const struct pv_sampler *s, struct pv_sampling *out);

#endif /* PV_RUNTIME_SAMPLER_H */
