/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/inlined.h"

int pv_all_inlined(const struct pv_rfunc *f)
{
	return f->calls && f->inlined_calls == f->calls;
}

int pv_arc_all_inlined(const struct pv_rarc *a)
{
	return a->calls && a->inlined_calls == a->calls;
}

struct pv_host *pv_inlined_hosts(const struct pv_report *r)
{
	struct pv_host *h = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*h));
	uint64_t *most = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*most));
	if (!h || !most) {
		free(h);
		free(most);
		return NULL;
	}
	for (unsigned i = 0; i < r->n_funcs; i++)
		h[i] = (struct pv_host){ -1, 0 };
	/* An arc per caller and callee: each inlining arc is another host.
	 * Calls from uninstrumented code have no function to run in. */
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		if (a->caller < 0 || !a->inlined_calls)
			continue;
		struct pv_host *x = &h[a->callee];
		if (x->func < 0) {
			x->func = a->caller;
		} else {
			x->others++;
			/* ids are hottest first */
			if (a->inlined_calls < most[a->callee] ||
			    (a->inlined_calls == most[a->callee] && a->caller > x->func))
				continue;
			x->func = a->caller;
		}
		most[a->callee] = a->inlined_calls;
	}
	free(most);
	return h;
}

/* The functions named, the most called first. */
#define PV_INLINED_NAMED 3

static int by_calls(const void *x, const void *y, void *report)
{
	const struct pv_report *r = report;
	const struct pv_rfunc *a = &r->funcs[*(const int *)x];
	const struct pv_rfunc *b = &r->funcs[*(const int *)y];
	if (a->inlined_calls != b->inlined_calls)
		return a->inlined_calls > b->inlined_calls ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

int pv_inlined_text(const struct pv_report *r, const char *shown, char *buf, size_t size)
{
	struct pv_host *hosts = pv_inlined_hosts(r);
	int *melted = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*melted));
	unsigned n = 0;
	for (unsigned i = 0; hosts && melted && i < r->n_funcs; i++)
		if (r->funcs[i].inlined_calls && hosts[i].func >= 0 &&
		    (!shown || shown[hosts[i].func]))
			melted[n++] = (int)i;
	if (!n) {
		free(hosts);
		free(melted);
		return 0;
	}
	qsort_r(melted, n, sizeof(*melted), by_calls, (void *)r);
	/* One host for all of them ("heavy, light and rare ran inside main"),
	 * or each named with its own. */
	int one_host = 1;
	for (unsigned i = 0; i < n; i++)
		one_host &= hosts[melted[i]].func == hosts[melted[0]].func && !hosts[melted[i]].others;
	size_t used = 0;
	unsigned named = n < PV_INLINED_NAMED ? n : PV_INLINED_NAMED;
	buf[0] = '\0';
	for (unsigned i = 0; i < named && used < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == named && named == n ? " and " : ", ";
		used += (size_t)snprintf(buf + used, size - used, "%s%s", sep,
					 r->funcs[melted[i]].sym.name);
		if (!one_host && used < size)
			used += (size_t)snprintf(buf + used, size - used, " (in %s)",
						 r->funcs[hosts[melted[i]].func].sym.name);
	}
	if (named < n && used < size)
		used += (size_t)snprintf(buf + used, size - used, " and %u more", n - named);
	if (used < size) {
		if (one_host)
			snprintf(buf + used, size - used,
				 " ran inlined into %s: %s time is %s's; to time them apart, "
				 "PROFVIZ_INLINED=frames or -fno-inline",
				 r->funcs[hosts[melted[0]].func].sym.name, n == 1 ? "its" : "their",
				 r->funcs[hosts[melted[0]].func].sym.name);
		else
			snprintf(buf + used, size - used,
				 " ran inlined into their callers: their time is the callers'; to "
				 "time them apart, PROFVIZ_INLINED=frames or -fno-inline");
	}
	free(hosts);
	free(melted);
	return 1;
}
