/*
 * report.h — the profile as the writers see it: symbolized, in output units
 * (ns for the TSC, counts for perf events), functions sorted hottest first.
 */
#ifndef PV_REPORT_H
#define PV_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "profile.h"
#include "symbols.h"

struct pv_rfunc {
	int id;
	void *fn; /* its address, the key of the profile's tables */
	struct pv_symbol sym;
	uint64_t calls;
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS];
};

struct pv_rarc {
	int caller; /* function id, or -1 for calls from uninstrumented code */
	int callee;
	uint64_t calls;
	uint64_t total[PV_MAX_EVENTS];
};

/* A call path for flame graphs: its function and its parent path. */
struct pv_rpath {
	int parent; /* index in paths[], or -1 at the root */
	int func;   /* function id */
	uint64_t calls;
	uint64_t self[PV_MAX_EVENTS];
};

struct pv_report {
	const char *program;     /* the executable's path */
	int pid;
	unsigned nev;
	const struct pv_event *events;
	double multiplexed[PV_MAX_EVENTS]; /* running / enabled; 1 when never multiplexed */
	uint64_t run_total[PV_MAX_EVENTS]; /* sum of the root arcs = sum of selves */
	uint64_t threads;
	uint64_t stray_exits, resyncs;
	double wall_seconds;
	double node_threshold, edge_threshold; /* percent */
	unsigned n_funcs, n_arcs;
	struct pv_rfunc *funcs; /* id i at index i, hottest first */
	struct pv_rarc *arcs;   /* hottest first */
	unsigned n_paths;
	struct pv_rpath *paths; /* every path after its parent */
};

/* scale[i] converts event i's raw count to its output unit (1 for counts). */
int pv_report_build(struct pv_report *r, const struct pv_profile *p,
		    struct pv_symbolizer *syms, const double *scale);
void pv_report_free(struct pv_report *r);

/* Output unit of an event: "ns" or "count". */
const char *pv_event_unit(const struct pv_event *e);

typedef int pv_writer_fn(FILE *out, const struct pv_report *r);
pv_writer_fn pv_write_dot;
pv_writer_fn pv_write_json;
pv_writer_fn pv_write_folded;

#endif /* PV_REPORT_H */
