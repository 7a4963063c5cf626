/* SPDX-License-Identifier: MIT */
/*
 * view.h — part of a profile, as a profile of its own (view.c).
 */
#ifndef PV_VIEW_H
#define PV_VIEW_H

#include "model/report.h"

enum pv_view_kind {
	PV_VIEW_WHOLE, /* the whole run: only depth applies */
	PV_VIEW_FOCUS, /* func's callers (only what flows into it) and callees */
	PV_VIEW_ROOT,  /* func and what runs below it */
};

struct pv_view {
	enum pv_view_kind kind;
	const char *funcs; /* FOCUS and ROOT: by function id of the input, 1 for
			    * the function (its copies, if a header's) */
	unsigned depth; /* levels of callees below func (the roots: WHOLE); 0: all */
	int waits_apart; /* the waits' time apart from the work (below) */
	/* By thread group (1 to in's n_groups), 1 for the threads kept: only
	 * their call paths are in the view, its run theirs; NULL: all. */
	const char *groups;
};

/* out: the part of in that v describes, its shares of the part's total
 * (the functions' total for FOCUS and ROOT). in must have its call paths. 0, or -1
 * when memory ran out.
 *
 * With waits_apart, the time a thread spent blocked in libc's waits (the
 * self of each PV_FUNC_WAIT path) is left out of the run and of every
 * total above a wait, so that shares are of the work alone; the waits
 * keep their own amounts, which out->waited sums (out->waits_apart set),
 * to be read as shares of the work and the waits together
 * (pv_report_wall). A wait's self is measured around the call, so what
 * it holds is time the thread did no work, whatever the event. */
int pv_view_build(struct pv_report *out, const struct pv_report *in, const struct pv_view *v);

/* Whether any of r's waits holds time (in any event) that a view with
 * waits_apart would take apart: none in a run without waits, nor in one
 * whose waits are apart already. */
int pv_view_has_waits(const struct pv_report *r);

/* out: the whole run of in, its waits apart, when in has waits to take
 * apart (pv_view_has_waits): 1, out to be freed; 0 when there were none
 * (out untouched: in is its own work view); -1 when memory ran out. */
int pv_view_waits_apart(struct pv_report *out, const struct pv_report *in);

#endif /* PV_VIEW_H */
