/*
 * profile.h — the process-wide profile: functions and arcs, summed over threads.
 *
 * Threads hand their call-path trees over when they end, and the threads
 * still alive at exit are merged then. Everything here runs under the
 * runtime's lock, never on the hot path, so it may use malloc.
 */
#ifndef PV_PROFILE_H
#define PV_PROFILE_H

#include <stdint.h>
#include "cct.h"
#include "counters.h"
#include "pv_uthash.h"

struct pv_fstat {
	void *fn;
	uint64_t calls;
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS];
	UT_hash_handle hh;
};

struct pv_arc_key {
	void *caller; /* NULL: called from uninstrumented code */
	void *callee;
};

struct pv_astat {
	struct pv_arc_key key;
	uint64_t calls;
	/* ... of which entered an activation of the callee already open (its
	 * recursion): those add nothing to the arc's total. */
	uint64_t nested_calls;
	uint64_t total[PV_MAX_EVENTS];
	UT_hash_handle hh;
};

/* One call path, merged over threads: recursion folded as in the trees. */
struct pv_path_key {
	const struct pv_path *parent; /* NULL: called from uninstrumented code */
	void *fn;
};

struct pv_path {
	struct pv_path_key key;
	uint64_t calls;   /* entries, recursive ones (folded into it) included */
	uint64_t callees; /* calls made from it through the hooks (not signal deliveries) */
	uint64_t callee_misses; /* ... of which missed the cache (a costlier hook) */
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS]; /* of its outermost activations */
	UT_hash_handle hh; /* table order: every path after its parent */
};

/* What the profile is missing, each counted so that the outputs can say so. */
struct pv_losses {
	uint64_t unrecorded_calls; /* no memory on the thread for a frame or a node */
	uint64_t merge_failures;   /* records lost merging threads (no memory) */
	uint64_t counters_lost;    /* threads whose events could not be reopened */
};

/* One thread as a whole: how much it ran, in wall and CPU time. */
struct pv_thread_stat {
	pid_t tid;
	uint64_t calls;         /* through the hooks (not signal deliveries) */
	uint64_t outer_calls;   /* ... of which came from outside instrumented code */
	uint64_t inner_misses;  /* calls from instrumented code that missed the cache */
	uint64_t total[PV_MAX_EVENTS]; /* raw: its calls from outside instrumented code */
	double cpu_seconds;     /* its CPU time, or -1 if unknown */
	double wall_seconds;    /* from its first profiled call to its summary */
};

struct pv_profile {
	unsigned nev;
	struct pv_thread_stat *thread_stats; /* one per merged thread, in merge order */
	unsigned n_thread_stats, thread_stats_cap;
	struct pv_fstat *funcs;
	struct pv_astat *arcs;
	struct pv_path *paths;
	uint64_t threads;     /* merged so far */
	uint64_t stray_exits; /* summed from the threads */
	uint64_t resyncs;
	uint64_t enabled[PV_MAX_EVENTS]; /* perf time_enabled / time_running sums */
	uint64_t running[PV_MAX_EVENTS];
	struct pv_losses losses;
};

void pv_profile_init(struct pv_profile *p, unsigned nev);

struct pv_thread;
/* Add everything one thread gathered: its tree, its bookkeeping, its
 * counters' times. */
void pv_profile_merge_thread(struct pv_profile *p, const struct pv_thread *t);

/* Add everything in src to dst (the ended threads into a dump's snapshot). */
void pv_profile_add(struct pv_profile *dst, const struct pv_profile *src);

/* The same, each function taking the key rekey maps it to (cct.h): records
 * whose keys become equal add up, call paths included. */
void pv_profile_add_rekeyed(struct pv_profile *dst, const struct pv_profile *src,
			    pv_rekey_fn *rekey, void *arg);

void pv_profile_clear(struct pv_profile *p);

/* Give every function, arc and path the key rekey maps its functions to
 * (cct.h), keeping each table's order (paths stay after their parents). */
void pv_profile_rekey(struct pv_profile *p, pv_rekey_fn *rekey, void *arg);

#endif /* PV_PROFILE_H */
