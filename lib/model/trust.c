/* SPDX-License-Identifier: MIT */
#include "model/trust.h"

#include <stdio.h>
#include <string.h>


double pv_hooks_per_call(const struct pv_report *r, unsigned e)
{
	return r->compensated ? r->caller_cost[e] + r->callee_cost[e] : 0;
}

double pv_hooks_share(const struct pv_report *r, unsigned e)
{
	if (!r->compensated || !r->raw_run_total[e] || r->run_total[e] >= r->raw_run_total[e])
		return 0;
	return (double)(r->raw_run_total[e] - r->run_total[e]) / (double)r->raw_run_total[e];
}

/* Time (clocks, cycles) is what out-of-order execution overlaps with the
 * hooks. */
int pv_times_doubtful(const struct pv_report *r, unsigned e)
{
	return e < r->nev && pv_event_hides_hooks(&r->events[e]) &&
	       pv_hooks_share(r, e) >= PV_HOOKS_SHARE_DOUBTFUL;
}

int pv_cheaper_than_hooks(const struct pv_report *r, const struct pv_rfunc *f, unsigned e)
{
	return f->calls && (double)f->self[e] < pv_hooks_per_call(r, e) * (double)f->calls;
}

int pv_doubt_text(const struct pv_report *r, unsigned e, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (!pv_times_doubtful(r, e))
		return 0;
	int time = pv_event_is_time(&r->events[e]);
	/* A part is judged on its own: the whole run's report may not doubt it. */
	const char *same = r->view_options;
	snprintf(buf, size,
		 "%sthe hooks took %.0f%% of the raw run: the times of functions that cost less than "
		 "their hooks (%.1f%s a call) are uncertain; profviz report%s%s lists them",
		 r->view ? "in this view, " : "", 100 * pv_hooks_share(r, e), pv_hooks_per_call(r, e),
		 time ? " ns" : "", same ? " " : "", same ? same : "");
	return 1;
}
