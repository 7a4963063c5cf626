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
	uint64_t calls;
	uint64_t self[PV_MAX_EVENTS];
	UT_hash_handle hh; /* table order: every path after its parent */
};

struct pv_profile {
	unsigned nev;
	struct pv_fstat *funcs;
	struct pv_astat *arcs;
	struct pv_path *paths;
	uint64_t threads;     /* merged so far */
	uint64_t stray_exits; /* summed from the threads */
	uint64_t resyncs;
	uint64_t enabled[PV_MAX_EVENTS]; /* perf time_enabled / time_running sums */
	uint64_t running[PV_MAX_EVENTS];
	int out_of_memory;
};

void pv_profile_init(struct pv_profile *p, unsigned nev);

/* Add one thread's tree. */
void pv_profile_merge(struct pv_profile *p, const struct pv_cct *cct);

/* Add everything in src to dst (the ended threads into a dump's snapshot). */
void pv_profile_add(struct pv_profile *dst, const struct pv_profile *src);

void pv_profile_clear(struct pv_profile *p);

#endif /* PV_PROFILE_H */
