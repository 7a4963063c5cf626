/* SPDX-License-Identifier: MIT */
/*
 * counters.h — what the hooks count, how each event is read, and what its
 * readings mean in output units.
 *
 * Every event is read as one 64-bit raw running value per hook, which never
 * goes down; the hooks only ever subtract two readings. Three backends:
 *   tsc   — the time-stamp counter, in ticks;
 *   rdpmc — a perf event read in user space through its mmap page (rdpmc.h);
 *   read  — a perf event read with read(2) on its group leader's fd.
 * Raw means unscaled: a multiplexed perf event counts only while it runs, and
 * the scaling to its whole enabled time is applied once, to the run's sums,
 * by pv_counters_conversion (with the TSC's ticks-to-ns calibration). The
 * backend of each event is chosen once at start-up, and every thread opens
 * its own group of perf events on its first hook.
 */
#ifndef PV_COUNTERS_H
#define PV_COUNTERS_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "base/clock.h"
#include "model/event.h"

/* How an event is read. 0 is none: a zeroed struct never reads a clock for
 * a count. */
enum pv_backend {
	PV_BACKEND_NONE, /* nothing to read: the reading stays at its floor */
	PV_BACKEND_TSC,
	PV_BACKEND_RDPMC,
	PV_BACKEND_READ,
};

/* One event as the user named it, and how it is read here. */
struct pv_event {
	char name[128];
	uint32_t type; /* perf_event_attr fields */
	uint64_t config, config1, config2;
	enum pv_backend backend;
	int with_kernel; /* counted in the kernel too: it happens only there */
	double read_ns;  /* read(2) backend: what one read cost at start-up */
};

/* The TSC is an event of its own, read by no perf backend. */
static inline int pv_event_is_tsc(const struct pv_event *e)
{
	return e->backend == PV_BACKEND_TSC;
}

struct pv_event_set {
	unsigned n;
	struct pv_event ev[PV_MAX_EVENTS];
};

/* Whether a thread's events can be read. Only OPEN events are: in any
 * other state a reading stays at its floor. */
enum pv_counters_state {
	PV_COUNTERS_OPEN, /* (also a set of no events) */
	PV_COUNTERS_LOST, /* the program took one of the descriptors: reopen first */
	PV_COUNTERS_GONE, /* they could not be reopened: the counts stop there */
};

/* A thread's open perf events. Hardware events form one group, so they are
 * scheduled (and multiplexed) together; each software event leads a group
 * of its own, because a group read does not bring a member from another
 * software PMU up to date (task-clock under page-faults reads stale).
 * Only the owning thread writes here, but for two fields, both atomic:
 * another thread that sees the program take a descriptor clears its fd
 * and sets state (pv_counters_forget_fd). */
struct pv_counters {
	const struct pv_event_set *events; /* what was opened, for a reopen */
	unsigned n;                       /* events, in the set's order */
	enum pv_backend backend[PV_MAX_EVENTS];
	int fd[PV_MAX_EVENTS];            /* -1 for the TSC */
	struct perf_event_mmap_page *page[PV_MAX_EVENTS];
	int leader[PV_MAX_EVENTS];        /* the event leading event i's group, or -1 */
	unsigned slot[PV_MAX_EVENTS];     /* index in that group's read(2) buffer */
	int state;                        /* enum pv_counters_state */
	uint64_t base[PV_MAX_EVENTS];     /* added to readings: continuity over a reopen */
	uint64_t enabled[PV_MAX_EVENTS];  /* time_enabled / time_running so far (ns), */
	uint64_t running[PV_MAX_EVENTS];  /* of every descriptor the thread had */
	uint64_t enabled_base[PV_MAX_EVENTS]; /* the part from descriptors closed */
	uint64_t running_base[PV_MAX_EVENTS];
};

const char *pv_backend_name(enum pv_backend b);

/* e as the profile's readers see it (model/event.h): a clock (the TSC,
 * task-clock, cpu-clock) is a time in ns, cycles are cycles, anything else a
 * count; with the name of its backend. */
void pv_counters_describe(const struct pv_event *e, struct pv_event_desc *d);

/* The run starts now: TSC and CLOCK_MONOTONIC are taken together, so that
 * the TSC can be converted to ns over the run (at start-up; in a forked child). */
void pv_counters_mark_start(void);


/* The conversion for the run so far: TSC ticks to ns, multiplexed events
 * extrapolated by their summed enabled / running times. A short run waits a
 * few ms for a precise TSC rate. */
void pv_counters_conversion(const struct pv_event_set *set, const uint64_t *enabled,
			    const uint64_t *running, struct pv_conversion *out);

/* Which event leads each event's group (-1 for the TSC) and its slot in that
 * group's read(2) buffer. */
void pv_counters_plan(const struct pv_event_set *set, int *leader, unsigned *slot);

/* At start-up, on the main thread: try each event, leave out (and report)
 * those that cannot be counted, choose each one's backend, and fall back to
 * the TSC if nothing is left (none_ok: leave none, time being sampled).
 * defaulted: the user asked for nothing, so the default (cycles) is quietly
 * replaced. Writes the start-up summary. */
void pv_counters_select(struct pv_event_set *set, int defaulted, int none_ok, char *summary,
			unsigned summary_size);

/* Open the calling thread's group of set's events into c, which no other
 * thread sees yet (set must outlive c). 0, or -errno with c untouched and
 * nothing left open: -EMFILE also when the runtime's share of descriptor
 * numbers is full (fds.h). */
int pv_counters_open(struct pv_counters *c, const struct pv_event_set *set);
void pv_counters_close(struct pv_counters *c);

static inline enum pv_counters_state pv_counters_state(const struct pv_counters *c)
{
	return (enum pv_counters_state)__atomic_load_n(&c->state, __ATOMIC_SEQ_CST);
}

/* fd, one of c's, is being closed or replaced by the program: forget it now
 * (any thread may call this). c is LOST until its owner reopens it. */
void pv_counters_forget_fd(struct pv_counters *c, int fd);

/* On the owning thread, inside the runtime boundary (the opening may run
 * the program's wrapped functions): open c's events again, each continuing
 * from its floor, its times from the descriptors' closed. The new
 * descriptors are opened aside, and c stays LOST until they are all in
 * place: then OPEN, or GONE if they cannot be opened. */
void pv_counters_reopen(struct pv_counters *c, const uint64_t *floor);

/* Read every event of the calling thread's c: raw values, each at least its
 * floor (the thread's last readings). Returns c's state: when not OPEN,
 * before the reads or after them (the program took a descriptor meanwhile,
 * whose number may be another file's by now), now is the floor. errno is
 * kept (the hooks call this outside the runtime boundary). */
enum pv_counters_state pv_counters_read(struct pv_counters *c, const uint64_t *floor,
					uint64_t *now);

/* The same from another thread than c's (a dump's snapshot of a thread
 * still running): the TSC, and each perf event with read(2), which the
 * kernel answers for the thread that opened it wherever it runs. Nothing of
 * c is written. */
enum pv_counters_state pv_counters_read_elsewhere(struct pv_counters *c, const uint64_t *floor,
						  uint64_t *now);

/* The same reader with the rdpmc and clock instructions replaced, for tests
 * on simulated mmap pages. */
#include "runtime/rdpmc.h"
enum pv_counters_state pv_counters_read_simulated(struct pv_counters *c, const uint64_t *floor,
						  uint64_t *now, pv_rdpmc_insn *rdpmc,
						  pv_clock_insn *clock, void *ctx);

#endif /* PV_COUNTERS_H */
