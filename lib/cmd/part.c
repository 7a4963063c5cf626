/* SPDX-License-Identifier: MIT */
/*
 * part.c — the part of a saved profile that a sub-command's --focus, --root,
 * --depth and --event ask for (profviz dot and profviz report show the same
 * part), and the words that name it.
 */
#define _GNU_SOURCE
#include "base/words.h"
#include "cmd/part.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"

/* name as the user would type it again: in single quotes when it holds more
 * than a shell leaves alone ("f(int)", "operator<"). */
static void shell_word(const char *name, char *out, size_t size)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_:~.+-/=@%,";
	int quote = !name[0] || name[strspn(name, plain)];
	snprintf(out, size, quote ? "'%s'" : "%s", name);
}

/* Whether group g of r is what --thread asked: "main" for the main
 * thread, else a part of its threads' name. */
static int group_asked(const struct pv_thread_group *g, const char *asked)
{
	return (g->main_thread && !strcmp(asked, "main")) || strstr(g->name, asked);
}

/* Mark in groups (by number from 1) the threads --thread asked for: how
 * many groups, or -1 after a message naming those there are. */
static int choose_threads(const struct pv_loaded *l, const char *asked, char *groups,
			  char *said, size_t size)
{
	const struct pv_report *r = &l->r;
	int n = 0;
	size_t used = 0;
	said[0] = '\0';
	for (unsigned g = 0; g < r->n_groups; g++)
		if ((groups[g + 1] = (char)group_asked(&r->groups[g], asked))) {
			used += (size_t)snprintf(said + used, used < size ? size - used : 0, "%s%s%s",
						 n ? ", " : "", r->groups[g].main_thread ? "main " : "",
						 r->groups[g].name);
			n++;
		}
	if (n)
		return n;
	if (!r->n_groups) {
		fprintf(stderr, "profviz: %s: no thread names in it (written by a profviz before "
			"JSON revision 6): --thread needs them\n", l->path);
		return -1;
	}
	fprintf(stderr, "profviz: %s: no thread named '%s'; its threads:", l->path, asked);
	for (unsigned g = 0; g < r->n_groups; g++)
		fprintf(stderr, "%s %s%s", g ? "," : "", r->groups[g].main_thread ? "main " : "",
			r->groups[g].name[0] ? r->groups[g].name : "(no name)");
	fputc('\n', stderr);
	return -1;
}

int pv_view_asked_build(struct pv_report *part, const struct pv_loaded *l,
			struct pv_view_asked *a, const char *cmd)
{
	const struct pv_report *r = &l->r;
	const char *func = a->focus ? a->focus : a->root;
	char *chosen = calloc(r->n_funcs + 1, 1); /* the focus's or root's function ids */
	char *groups = calloc(r->n_groups + 2, 1); /* --thread's, by number from 1 */
	char threads[256];
	struct pv_view v = { a->focus ? PV_VIEW_FOCUS : a->root ? PV_VIEW_ROOT : PV_VIEW_WHOLE,
			     chosen, (unsigned)a->depth, !a->waits_inside && pv_view_has_waits(r),
			     a->thread ? groups : NULL };
	int status = -1;
	if (!chosen || !groups) {
		fprintf(stderr, "profviz %s: out of memory\n", cmd);
		goto out;
	}
	if (a->thread && choose_threads(l, a->thread, groups, threads, sizeof(threads)) < 0)
		goto out;
	if (!r->n_paths) {
		fprintf(stderr, "profviz: %s: no call paths in it (written by a profviz "
			"before JSON revision 2): --focus, --root and --depth need them\n",
			l->path);
		goto out;
	}
	if (func && pv_find_functions(r, func, l->path, chosen) < 0)
		goto out;
	if (pv_view_build(part, r, &v) < 0) {
		fprintf(stderr, "profviz %s: out of memory\n", cmd);
		goto out;
	}
	if (func)
		snprintf(a->caption, sizeof(a->caption), "%s %.400s: shares are of its total%s",
			 a->focus ? "focused on" : "below",
			 r->funcs[(char *)memchr(chosen, 1, r->n_funcs) - chosen].sym.name,
			 a->depth ? "; callees cut at that depth" : "");
	else if (a->depth)
		snprintf(a->caption, sizeof(a->caption), "%lu level%s of calls shown", a->depth,
			 pv_s(a->depth));
	else
		a->caption[0] = '\0';
	if (a->thread) {
		size_t used = strlen(a->caption);
		snprintf(a->caption + used, sizeof(a->caption) - used, "%sthreads %.200s alone",
			 used ? "; " : "", threads);
	}
	part->view = a->caption[0] ? a->caption : NULL; /* the whole run is no part */
	part->waits_inside = a->waits_inside;
	status = 0;
out:
	free(chosen);
	free(groups);
	return status;
}

const char *pv_view_asked_options(struct pv_view_asked *a)
{
	const char *func = a->focus ? a->focus : a->root;
	char word[sizeof(a->options) / 2 - 16]; /* two fit */
	int n = 0;
	a->options[0] = '\0';
	if (func) {
		shell_word(func, word, sizeof(word));
		n = snprintf(a->options, sizeof(a->options), "--%s %s", a->focus ? "focus" : "root",
			     word);
	}
	if (a->event) {
		shell_word(a->event, word, sizeof(word));
		n += snprintf(a->options + n, sizeof(a->options) - (size_t)n, "%s--event %s",
			      n ? " " : "", word);
	}
	if (a->thread) {
		shell_word(a->thread, word, sizeof(word));
		n += snprintf(a->options + n, sizeof(a->options) - (size_t)n, "%s--thread %s",
			      n ? " " : "", word);
	}
	if (a->waits_inside)
		snprintf(a->options + n, sizeof(a->options) - (size_t)n, "%s--waits in", n ? " " : "");
	return a->options[0] ? a->options : NULL;
}

int pv_view_asked_show(struct pv_report *part, struct pv_loaded *l, struct pv_view_asked *a,
		       const char *cmd, struct pv_report **shown)
{
	*shown = &l->r;
	l->r.waits_inside = a->waits_inside;
	if (a->event && pv_lead_with_event(l, a->event) < 0)
		return -1;
	int waits = !a->waits_inside && pv_view_has_waits(&l->r) && l->r.n_paths;
	if (a->focus || a->root || a->depth || a->thread || waits) {
		if (pv_view_asked_build(part, l, a, cmd) < 0)
			return -1;
		*shown = part;
	}
	(*shown)->view_options = pv_view_asked_options(a);
	return 0;
}

void pv_view_asked_free(struct pv_report *part, const struct pv_report *shown)
{
	if (shown == part)
		pv_report_free(part);
}
