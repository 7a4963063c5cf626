#include "compensate.h"

#include <stdlib.h>

double pv_compensate(struct pv_comp_path *paths, unsigned n, double caller, double caller_miss,
		     double callee)
{
	double clamped = 0;
	/* What each path's subtree lost, gathered children first (they come after
	 * their parents). */
	double *lost = calloc(n ? n : 1, sizeof(*lost));
	if (!lost)
		return 0; /* no memory: the costs stay raw */
	for (unsigned i = 0; i < n; i++) {
		struct pv_comp_path *p = &paths[i];
		double overhead = (p->is_signal ? 0 : (double)p->calls * callee) +
				  (double)p->callees * caller + (double)p->misses * caller_miss;
		double taken = overhead <= p->self ? overhead : p->self;
		clamped += overhead - taken;
		p->self -= taken;
		lost[i] = taken;
	}
	for (unsigned i = n; i-- > 0;)
		if (paths[i].parent >= 0)
			lost[paths[i].parent] += lost[i];
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
	return clamped;
}
