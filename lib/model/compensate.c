/* SPDX-License-Identifier: MIT */
#include "model/compensate.h"

#include <stdlib.h>

double pv_callee_share(double own, double span)
{
	if (span <= 0)
		return 1;
	double share = own / (2 * span);
	return share < 0.5 ? 0.5 : share > 1 ? 1 : share;
}

double pv_compensate_costs(struct pv_comp_path *paths, unsigned n, const struct pv_hook_costs *c,
			   double *modelled)
{
	double clamped = 0, whole = 0, model = 0, raw = 0, taken_all = 0;
	/* What each path's subtree lost, and its raw selves, gathered children
	 * first (they come after their parents). */
	double *lost = calloc(n ? 2 * (size_t)n : 1, sizeof(*lost));
	if (modelled)
		*modelled = 1;
	if (!lost)
		return 0; /* no memory: the costs stay raw */
	double *subtree_raw = lost + n;
	for (unsigned i = 0; i < n; i++) {
		struct pv_comp_path *p = &paths[i];
		subtree_raw[i] = p->self;
		if (!p->is_wait) /* blocked: no hook ran in that time */
			raw += p->self;
		double as_caller = (double)p->callees * c->caller + (double)p->misses * c->caller_miss +
				   (double)p->bodies * c->inlined;
		double as_callee = 0;
		uint64_t framed = p->calls - p->inlined_calls;
		if (!p->is_signal && framed) {
			double own = (p->self - as_caller) / (double)framed;
			as_callee = (double)framed * c->callee;
			whole += as_callee;
			as_callee *= pv_callee_share(own, c->callee_span);
		}
		double overhead = as_caller + as_callee;
		whole += as_caller;
		model += overhead;
		double taken = overhead <= p->self ? overhead : p->self;
		clamped += overhead - taken;
		p->self -= taken;
		lost[i] = taken;
		if (!p->is_wait)
			taken_all += taken;
	}
	for (unsigned i = n; i-- > 0;) {
		if (paths[i].parent >= 0) {
			lost[paths[i].parent] += lost[i];
			subtree_raw[paths[i].parent] += subtree_raw[i];
		}
	}
	/* Recursion through other functions (a -> b -> a) is folded back onto
	 * the ancestor's path, so the work beneath b's activations is partly
	 * counted on paths outside b's subtree, with the hooks' cost in it. That
	 * part of b's raw total, beyond its subtree's raw selves, loses the
	 * share the hooks took of the run's working time (waits left out). The
	 * same holds for the other stacks' work inside a suspended ucontext
	 * frame's total. */
	double share = raw > 0 ? taken_all / raw : 0;
	for (unsigned i = 0; i < n; i++) {
		double folded = paths[i].total - subtree_raw[i];
		if (folded > 0)
			lost[i] += share * folded;
	}
	/* A total covers the path's outermost activations, and every activation
	 * below it happens inside one. (A path whose activations were all nested
	 * in another of its function's has no total to take from.) */
	for (unsigned i = 0; i < n; i++) {
		struct pv_comp_path *p = &paths[i];
		p->total = p->total > lost[i] ? p->total - lost[i] : 0;
		/* Never more than the caller's path, whatever recursion through an
		 * ancestor did to the subtrees. */
		if (p->parent >= 0 && paths[p->parent].total > 0 && p->total > paths[p->parent].total)
			p->total = paths[p->parent].total;
	}
	free(lost);
	if (modelled && whole > 0)
		*modelled = model / whole;
	return clamped;
}
