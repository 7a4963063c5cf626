/*
 * counters.h — what the hooks count, and how each event is read.
 *
 * Every event is read as one 64-bit running value per hook; the hooks only
 * ever subtract two readings. Three backends:
 *   tsc   — the time-stamp counter (converted to ns at output);
 *   rdpmc — a perf event read in user space through its mmap page (rdpmc.h);
 *   read  — a perf event read with read(2) on its group leader's fd.
 * The backend of each event is chosen once at start-up (counters.c) and every
 * thread opens its own group of perf events on its first hook.
 */
#ifndef PV_COUNTERS_H
#define PV_COUNTERS_H

#include <stdint.h>
#include <linux/perf_event.h>

#ifndef PV_MAX_EVENTS
#define PV_MAX_EVENTS 8
#endif

enum pv_backend {
	PV_BACKEND_TSC,
	PV_BACKEND_RDPMC,
	PV_BACKEND_READ,
};

/* One event as the user named it, and how it is read here. */
struct pv_event {
	char name[128];
	int is_tsc;
	uint32_t type; /* perf_event_attr fields */
	uint64_t config, config1, config2;
	enum pv_backend backend;
};

struct pv_event_set {
	unsigned n;
	struct pv_event ev[PV_MAX_EVENTS];
};

/* A thread's open perf events. Hardware events form one group, so they are
 * scheduled (and multiplexed) together; each software event leads a group
 * of its own, because a group read does not bring a member from another
 * software PMU up to date (task-clock under page-faults reads stale). */
struct pv_counters {
	const struct pv_event_set *events; /* what was opened, for a reopen */
	unsigned n;                       /* events, in the set's order */
	enum pv_backend backend[PV_MAX_EVENTS];
	int fd[PV_MAX_EVENTS];            /* -1 for the TSC */
	struct perf_event_mmap_page *page[PV_MAX_EVENTS];
	int leader[PV_MAX_EVENTS];        /* the event leading event i's group, or -1 */
	unsigned slot[PV_MAX_EVENTS];     /* index in that group's read(2) buffer */
	int lost;                         /* the program closed one of our fds (2: for good) */
	uint64_t base[PV_MAX_EVENTS];     /* added to readings: continuity over a reopen */
	uint64_t enabled[PV_MAX_EVENTS];  /* latest time_enabled / time_running */
	uint64_t running[PV_MAX_EVENTS];
};

const char *pv_backend_name(enum pv_backend b);

/* At start-up, on the main thread: try each event, leave out (and report)
 * those that cannot be counted, choose each one's backend, and fall back to
 * the TSC if nothing is left. defaulted: the user asked for nothing, so the
 * default (cycles) is quietly replaced. Writes the start-up summary. */
void pv_counters_select(struct pv_event_set *set, int defaulted, char *summary,
			unsigned summary_size);

/* Does any event need perf (rather than the TSC alone)? */
int pv_counters_need_perf(const struct pv_event_set *set);

/* Open the calling thread's group of set's events (set must outlive c).
 * 0, or -errno (nothing left open). */
int pv_counters_open(struct pv_counters *c, const struct pv_event_set *set);
void pv_counters_close(struct pv_counters *c);

/* fd, one of c's, is being closed or replaced by the program: forget it now
 * (any thread may call this). The owner reopens its group on its next read. */
void pv_counters_forget_fd(struct pv_counters *c, int fd);

struct pv_thread;
/* Read every event of the calling thread (t must be the caller's own). */
void pv_counters_read(struct pv_thread *t, uint64_t *now);

#endif /* PV_COUNTERS_H */
