/* SPDX-License-Identifier: MIT */
/*
 * part.h — the part of a saved profile a sub-command is asked to show.
 */
#ifndef PV_CMD_PART_H
#define PV_CMD_PART_H

#include "cmd/cmd.h"

/* What a sub-command's --focus FUNC or --root FUNC (NULL when not given),
 * --depth N (0: all) and --event NAME (or NULL) ask it to show, and the
 * words that say so. */
struct pv_view_asked {
	const char *focus, *root;
	unsigned long depth;
	const char *event;
	int waits_inside; /* --waits in: the part's shares hold its waits */
	const char *thread; /* --thread NAME: the threads so named alone, or NULL */
	char caption[600]; /* the part's view */
	char options[600]; /* profviz report's options for the same part and event */
};

/* The part of l that a asks for into part, whose view points into a, its
 * waits apart unless a says inside; cmd names the sub-command. 0, or -1
 * after a message (no call paths in the profile, no such function, out of
 * memory). */
int pv_view_asked_build(struct pv_report *part, const struct pv_loaded *l,
			struct pv_view_asked *a, const char *cmd);

/* What profviz report takes to show what a asks for (its --depth aside),
 * each name a shell word, into a->options: "--focus FUNC --event NAME
 * --waits in". a->options, or NULL when that is the whole run in its first
 * event, its waits apart. */
const char *pv_view_asked_options(struct pv_view_asked *a);

/* What l shows as a asks, in a's event: the part, its waits apart unless a
 * says inside (into part, *shown then part: free it with
 * pv_view_asked_free), or l's own report (the whole run, no waits to take
 * apart). 0, or -1 after a message. */
int pv_view_asked_show(struct pv_report *part, struct pv_loaded *l, struct pv_view_asked *a,
		       const char *cmd, struct pv_report **shown);
void pv_view_asked_free(struct pv_report *part, const struct pv_report *shown);

#endif /* PV_CMD_PART_H */
