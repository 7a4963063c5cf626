/* SPDX-License-Identifier: MIT */
/*
 * report.h — the profile as the writers see it: named, in output units
 * (pv_event_unit: ns for clocks, counts for other events), functions sorted
 * hottest first. Building it is where raw counts are converted, once, for
 * every writer.
 */
#ifndef PV_REPORT_H
#define PV_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "model/compensate.h"
#include "model/event.h"
#include "model/lines.h"
#include "model/profile.h"
#include "model/symbol.h"

/* Costs are in output units. self and total have the hooks' own cost taken
 * out when the run was compensated (raw_self, raw_total never). */
struct pv_rfunc {
	int id;
	void *fn; /* its address, the key of the profile's tables */
	struct pv_symbol sym;
	enum pv_func_kind kind;
	uint64_t calls;
	uint64_t inlined_calls; /* ... of which ran inlined into a caller (no frame) */
	uint64_t samples; /* the sampler's looks charged to its self (sampled runs) */
	uint64_t timed_ns; /* ... and what of its self was timed instead */
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS];
	uint64_t raw_self[PV_MAX_EVENTS];
	uint64_t raw_total[PV_MAX_EVENTS];
	uint64_t waited[PV_MAX_EVENTS]; /* what a view took apart from its total: the waits
					 * below it (view.h); 0 in a wait, and otherwise */
	unsigned copies; /* in a graph's view: how many copies it stands for (copies.h) */
	struct pv_lines lines; /* its hot lines (lines.h); none when no PC was sampled */
};

struct pv_rarc {
	int caller; /* function id, or -1 for calls from uninstrumented code */
	int callee;
	uint64_t calls;
	uint64_t nested_calls; /* calls into an open activation of the callee */
	uint64_t inlined_calls; /* calls that ran the callee inlined into the caller */
	uint64_t total[PV_MAX_EVENTS];
	uint64_t raw_total[PV_MAX_EVENTS];
	uint64_t waited[PV_MAX_EVENTS]; /* as a function's */
};

/* A call path (flame graphs, call trees): its function and its parent path. */
struct pv_rpath {
	int parent; /* index in paths[], or -1 at the root */
	int func;   /* function id */
	unsigned group; /* at the root: its threads' (groups[group - 1]); 0: none */
	uint64_t calls;
	uint64_t inlined_calls; /* ... of which its body inlined into the parent's */
	uint64_t samples; /* the sampler's looks charged to its self */
	uint64_t timed_ns; /* ... and what of its self was timed instead */
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS];
	uint64_t raw_self[PV_MAX_EVENTS];
};

/* Recursive calls from path `from` to a function open above it, counted in
 * the calls of that function's path `into` up there (model/profile.h's
 * pv_fold): the arc func(from) -> func(into), nested. */
struct pv_rfold {
	int from, into; /* indices in paths[]; into <= from */
	uint64_t calls;
};

/* One thread: its run in output units, and its wall and CPU time. */
struct pv_rthread {
	pid_t tid;
	char name[PV_THREAD_NAME_MAX]; /* "" when unknown */
	int main_thread;
	uint64_t calls;
	uint64_t total[PV_MAX_EVENTS];     /* compensated, as the functions' */
	uint64_t raw_total[PV_MAX_EVENTS];
	double cpu_seconds; /* -1: unknown */
	double wall_seconds;
	int cut_short; /* its open calls' costs stop before the dump (losses) */
};

/* to[e] += from[e] for each of nev events: one function's, arc's or path's
 * costs added to another's (copies, merges). */
void pv_costs_add(uint64_t *to, const uint64_t *from, unsigned nev);

/* How a thread is named to a user: "29327 main (redis-server)", "29330
 * bio_close_file", or "29330" when its name is unknown. */
void pv_report_thread_label(const struct pv_rthread *t, char *out, size_t size);

/* A process whose profile went into a merged one. */
struct pv_rprocess {
	char *program;
	int pid;
	char *from; /* the file it was read from, or NULL */
};

struct pv_report {
	const char *program;     /* the executable's path */
	int pid;
	unsigned nev;
	const struct pv_event_desc *events;
	double multiplexed[PV_MAX_EVENTS]; /* running / enabled; 1 when never multiplexed */
	uint64_t run_total[PV_MAX_EVENTS]; /* sum of the root arcs = sum of selves */
	uint64_t raw_run_total[PV_MAX_EVENTS];
	/* What pv_report_hold_run_total added to run_total: 0 in a whole profile */
	uint64_t run_total_raised[PV_MAX_EVENTS];
	int compensated;                   /* the hooks' cost was taken out */
	double caller_cost[PV_MAX_EVENTS]; /* the calibrated overhead per call, output units */
	double caller_miss_cost[PV_MAX_EVENTS];
	double callee_cost[PV_MAX_EVENTS];
	double callee_span[PV_MAX_EVENTS]; /* the stand-in callee's self per call (compensate.h) */
	double inlined_cost[PV_MAX_EVENTS]; /* on the host, per inlined body */
	uint64_t clamped[PV_MAX_EVENTS];   /* overhead left in: selves too small to take it */
	uint64_t threads;
	uint64_t stray_exits, resyncs;
	struct pv_losses losses;
	struct pv_sampling sampling; /* rate_hz 0: event 0 was not sampled */
	uint64_t lost_records; /* arcs and paths left out: their functions were lost */
	double wall_seconds;
	double node_threshold, edge_threshold; /* percent */
	unsigned max_nodes;  /* a graph's boxes: the hottest this many at most (0: all) */
	/* How a graph shows it (0 each for the runtime's own): */
	int colour_by_self;  /* boxes coloured by self share, not total */
	const char *view;    /* a caption line saying what part this is, or NULL */
	const char *view_options; /* what profviz report takes to show the same, or NULL */
	int waits_inside;    /* the waits' time left inside the shares (PROFVIZ_WAITS=in,
			      * --waits in); 0: the graph takes them apart (view.h) */
	/* Set by a view that took the waits apart (view.h): run_total and every
	 * total above a wait leave their time out; waited is that time. */
	int waits_apart;
	uint64_t waited[PV_MAX_EVENTS];
	unsigned n_funcs, n_arcs;
	struct pv_rfunc *funcs; /* id i at index i, hottest first */
	struct pv_rarc *arcs;   /* hottest first */
	unsigned n_paths;
	struct pv_rpath *paths; /* every path after its parent */
	unsigned n_folds;
	struct pv_rfold *folds; /* by from, then into */
	unsigned n_thread_list;
	struct pv_rthread *thread_list; /* in the order they were merged */
	struct pv_thread_group *groups; /* the root paths' threads, by name */
	unsigned n_groups;
	unsigned n_processes;           /* 0 for one process's own run */
	const struct pv_rprocess *processes; /* not freed with the report */
};

/* How a report names the functions of a profile (the runtime's namer reads
 * its process's symbols, and knows its own stand-in addresses). */
struct pv_namer {
	/* Fill sym for fn, which stands for what kind says (strings malloc'd). */
	void (*name)(void *arg, void *fn, enum pv_func_kind kind, struct pv_symbol *sym);
	/* For a function of an object unloaded, then loaded again where it was:
	 * its address now, so its calls add up with the reloaded object's
	 * (NULL: none is). May be NULL. */
	pv_rekey_fn *reloaded;
	void *arg;
};

/* The report of p, named by names, its raw counts compensated for overhead
 * (if calibrated) and converted by conv (r->events set by the caller). 0,
 * or -1 when memory ran out. */
int pv_report_build(struct pv_report *r, const struct pv_profile *p,
		    const struct pv_namer *names, const struct pv_conversion *conv,
		    const struct pv_overhead *overhead);
void pv_report_free(struct pv_report *r);

/* r's folds in their order: by from, then into. */
void pv_report_sort_folds(struct pv_report *r);

/* The run's total is never below the sum of its functions' selves, which
 * add up to it when every activation's cost was counted: a profile some of
 * whose open activations are in no total (written before they were counted
 * at the dump) would read every share too large, a self over 100 %. Raise
 * it (and the raw one) to that sum, saying by how much in run_total_raised;
 * a profile whose selves add up is left as it is, to the rounding. With
 * the waits apart, the waits' selves are outside the run (waited). */
void pv_report_hold_run_total(struct pv_report *r);

/* Functions hottest first, ids their positions, and everything that refers
 * to them renumbered; arcs hottest first. (Ids on entry: positions.) 0, or
 * -1 when memory ran out. */
int pv_report_sort(struct pv_report *r);

/* The run with its waits: run_total, and the waits' own time when a view
 * took it apart (view.h). With sampled time: every thread's CPU time and
 * its time blocked in libc's waits. */
static inline uint64_t pv_report_wall(const struct pv_report *r, unsigned e)
{
	return r->run_total[e] + r->waited[e];
}

/* What f's shares in e are of: the wall (pv_report_wall) for a wait whose
 * time a view took apart, the run for anything else. */
static inline uint64_t pv_report_share_base(const struct pv_report *r,
					    const struct pv_rfunc *f, unsigned e)
{
	return r->waits_apart && f->kind == PV_FUNC_WAIT ? pv_report_wall(r, e) : r->run_total[e];
}

/* The index of the event named name in r, or -1. */
int pv_report_event(const struct pv_report *r, const char *name);

/* What the profile is missing, in one sentence naming only what it lacks
 * ("the profile is incomplete: 3 calls unrecorded (...), ..."), for stderr,
 * the graph's caption and profviz report. 1 if it lacks anything, else 0
 * with buf empty. */
int pv_report_losses_text(const struct pv_report *r, char *buf, size_t size);

/* Say on stderr, in one line, what the profile is missing, if anything. */
void pv_report_warn_losses(const struct pv_report *r);

#endif /* PV_REPORT_H */
