/* SPDX-License-Identifier: MIT */
/*
 * event.h — an event as the profile's readers see it: its name, what kind of
 * amount it counts, and how it was read. The runtime knows events by their
 * perf attributes (runtime/counters.h); everything after the hooks knows them
 * by this alone, so a profile read back from JSON is the same to a writer as
 * the run's own.
 */
#ifndef PV_MODEL_EVENT_H
#define PV_MODEL_EVENT_H

/* Events counted at once; every per-event array in profviz has this size. */
#define PV_MAX_EVENTS 8

enum pv_event_kind {
	PV_EVENT_COUNT,  /* things done: instructions, misses, page faults */
	PV_EVENT_TIME,   /* a clock, in ns: the TSC, task-clock, cpu-clock */
	PV_EVENT_CYCLES, /* processor cycles: a count, but spent as time is */
	PV_EVENT_SAMPLED, /* time in ns, sampled by the runtime's sampler, not read
			   * per call: CPU time, plus blocked time at libc's waits */
};

struct pv_event_desc {
	char name[128];          /* as the user named it */
	enum pv_event_kind kind;
	char backend[8];         /* how it was read: "tsc", "rdpmc", "read", "sampler" */
};

/* Output units are ns for a time, plain counts for anything else. */
static inline int pv_event_is_time(const struct pv_event_desc *e)
{
	return e->kind == PV_EVENT_TIME || e->kind == PV_EVENT_SAMPLED;
}

/* "ns" or "count": the unit the outputs write. */
static inline const char *pv_event_unit(const struct pv_event_desc *e)
{
	return pv_event_is_time(e) ? "ns" : "count";
}

/* Whether a callee's work can hide part of the hooks' cost in this event
 * (compensate.h): time and cycles read per call, but no count of things
 * done, and no sampled time (samples in the runtime's code are dropped). */
static inline int pv_event_hides_hooks(const struct pv_event_desc *e)
{
	return e->kind == PV_EVENT_TIME || e->kind == PV_EVENT_CYCLES;
}

/* Whether the event's amounts are estimates from samples (each carries a
 * sampling error: pv_sampling_error). */
static inline int pv_event_is_sampled(const struct pv_event_desc *e)
{
	return e->kind == PV_EVENT_SAMPLED;
}

/* How a run's raw counts become output units (the runtime's counters
 * measure it; the report applies it once). */
struct pv_conversion {
	double factor[PV_MAX_EVENTS];        /* output units per raw count */
	double running_ratio[PV_MAX_EVENTS]; /* running / enabled; 1 when never multiplexed */
	double wall_seconds;                 /* since the run began */
};

/* "count", "time", "cycles", "sampled": the kind's name in a saved profile. */
const char *pv_event_kind_name(enum pv_event_kind k);

/* The kind named so; 0 if the name is none of them. */
int pv_event_kind_named(const char *name, enum pv_event_kind *k);

/* The kind of an event saved before profiles recorded kinds, from its unit
 * ("ns" or "count") and its name (perf's names for cycles). */
enum pv_event_kind pv_event_kind_of(const char *name, const char *unit);

/* Fill d (name and backend cut to fit). */
void pv_event_describe(struct pv_event_desc *d, const char *name, enum pv_event_kind kind,
		       const char *backend);

#endif /* PV_MODEL_EVENT_H */
