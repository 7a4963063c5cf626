/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

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
