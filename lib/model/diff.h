/* SPDX-License-Identifier: MIT */
/*
 * diff.h — what changed between two runs of a program, A before and B
 * after, function by function and arc by arc (diff.c). Functions are matched
 * by their module's file name and their own name, so that a rebuilt
 * program, loaded elsewhere, still matches; the program's own functions by
 * their name alone, so that two builds named differently match too. Only
 * the first event is compared; libc's waits not at all in runs whose waits
 * a view took apart (view.h).
 *
 * Every share is of one reference total, A's run (A's scaled to B's total
 * with normalize), so that A's share plus the change is B's share.
 */
#ifndef PV_DIFF_H
#define PV_DIFF_H

#include <stdint.h>

#include "model/report.h"

/* Points: a change under this is no change, noise. */
#define PV_DIFF_UNCHANGED 0.1

/* One side of a function or an arc: its figures in one run (first event). */
struct pv_diff_side {
	int present;
	uint64_t calls, nested, self, total;
	uint64_t inlined; /* calls that ran as bodies the compiler inlined */
};

struct pv_diff_func {
	const struct pv_rfunc *f; /* B's when it has it: names, file and tooltip */
	struct pv_diff_side a, b;
	double weight;            /* max(share in A, share in B), percent */
	int shown;
};

struct pv_diff_arc {
	int caller, callee; /* indexes in funcs; caller -1: from uninstrumented code */
	struct pv_diff_side a, b;
	int shown;
};

/* How the diff is taken, and which of it is shown. */
struct pv_diff_limits {
	int normalize;      /* scale A's costs so that its total is B's */
	double node_min;    /* percent: hide functions under this in both runs */
	double edge_min;    /* percent: hide arcs under this in both runs */
	unsigned max_nodes; /* at most the largest this many functions; 0: all */
};

struct pv_diff {
	struct pv_report a, b; /* the two runs, copies merged (copies.h) */
	struct pv_diff_limits limits;
	double scale;     /* A's costs times this: 1, or B's run over A's with normalize */
	double reference; /* the total percentages are of: A's run, scaled */
	struct pv_diff_func *funcs;
	unsigned n_funcs;
	struct pv_diff_arc *arcs;
	unsigned n_arcs;
	double largest_shown; /* points: the largest change of a shown function */
	unsigned hidden_funcs, hidden_arcs;
	unsigned capped; /* above the threshold but beyond max_nodes */
};

/* d: a (before) against b (after), with every function and arc of either,
 * each marked shown or not by limits. d shares a's and b's names (they must
 * outlive it). 0, or -1 when memory ran out. */
int pv_diff_build(struct pv_diff *d, const struct pv_report *a, const struct pv_report *b,
		  const struct pv_diff_limits *limits);
void pv_diff_free(struct pv_diff *d);

/* The change of one function or arc, in percent of the reference total. */
struct pv_diff_change {
	double share_a, share_b, points;
	double own; /* percent of A's own figure; meaningless when A has none */
};

/* The change from figure a in A to figure b in B. */
struct pv_diff_change pv_diff_change_of(const struct pv_diff *d, uint64_t a, uint64_t b);

/* Whether all of an arc's calls entered an open activation of its callee. */
int pv_diff_arc_nested(const struct pv_diff_arc *e);

/* Whether every call of a function or an arc ran inlined into its caller,
 * in B when it is there, else in A. */
int pv_diff_all_inlined(const struct pv_diff_side *a, const struct pv_diff_side *b);

/* The functions whose total changed by PV_DIFF_UNCHANGED points or more,
 * the largest change first: their indexes into order (room for n_funcs).
 * How many there are. */
unsigned pv_diff_changed(const struct pv_diff *d, int *order);

#endif /* PV_DIFF_H */
