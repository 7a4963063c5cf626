/*
 * view.h — part of a profile, as a profile of its own (view.c).
 */
#ifndef PV_VIEW_H
#define PV_VIEW_H

#include "cmd.h"
#include "report.h"

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

/* What a sub-command's --focus FUNC or --root FUNC (NULL when not given),
 * --depth N (0: all) and --event NAME (or NULL) ask it to show, and the
 * words that say so. */
struct pv_view_asked {
	const char *focus, *root;
	unsigned long depth;
	const char *event;
	char caption[600]; /* the part's view */
	char options[600]; /* profviz report's options for the same part and event */
};

/* The part of l that a asks for into part, whose view points into a; cmd
 * names the sub-command. 0, or -1 after a message (no call paths in the
 * profile, no such function, out of memory). */
int pv_view_asked_build(struct pv_report *part, const struct pv_loaded *l,
			struct pv_view_asked *a, const char *cmd);

/* What profviz report takes to show what a asks for (its --depth aside),
 * each name a shell word, into a->options: "--focus FUNC --event NAME".
 * a->options, or NULL when that is the whole run in its first event. */
const char *pv_view_asked_options(struct pv_view_asked *a);

#endif /* PV_VIEW_H */
