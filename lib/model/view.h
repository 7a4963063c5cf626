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
};

/* out: the part of in that v describes, its shares of the part's total
 * (the functions' total for FOCUS and ROOT). in must have its call paths. 0, or -1
 * when memory ran out. */
int pv_view_build(struct pv_report *out, const struct pv_report *in, const struct pv_view *v);

#endif /* PV_VIEW_H */
