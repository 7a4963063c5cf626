/* SPDX-License-Identifier: MIT */
/*
 * inlined.h — calls the compiler inlined, as the views name them.
 *
 * gcc and clang keep -finstrument-functions' hooks in a body they inline;
 * the runtime counts such a call on its arc (inlined_calls) and gives its
 * self to the function whose code it ran in, its host: the arc's caller.
 * A function inlined everywhere is typically called often, with no self
 * and a small total; the views say where its time went instead.
 */
#ifndef PV_INLINED_H
#define PV_INLINED_H

#include "model/report.h"

/* Whether every call of f ran inlined: it never had a frame of its own. */
int pv_all_inlined(const struct pv_rfunc *f);

/* Whether every call of a ran the callee inlined into the caller. */
int pv_arc_all_inlined(const struct pv_rarc *a);

/* Where a function's inlined calls ran. */
struct pv_host {
	int func;        /* the caller that inlined most of its calls, or -1 */
	unsigned others; /* how many other functions inlined some of them */
};

/* Each function's host, by id (malloc'd, r->n_funcs entries), from r's
 * arcs; NULL when memory ran out. A tie goes to the hotter caller. */
struct pv_host *pv_inlined_hosts(const struct pv_report *r);

/* One line for a view's heading when functions the compiler melted into
 * their callers ran (their calls counted, their time the hosts'): which,
 * and how to time them apart; shown (by function id, or NULL: all) keeps
 * only those whose host the view draws. 1 and the line in buf, or 0. */
int pv_inlined_text(const struct pv_report *r, const char *shown, char *buf, size_t size);

#endif /* PV_INLINED_H */
