#include "trust.h"

#include <string.h>

#include "events.h"

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

/* Clocks and cycles: what out-of-order execution overlaps with the hooks. */
static int is_time(const struct pv_event *ev)
{
	return !strcmp(pv_event_unit(ev), "ns") || !strcmp(ev->name, "cycles") ||
	       !strcmp(ev->name, "ref-cycles");
}

int pv_times_doubtful(const struct pv_report *r, unsigned e)
{
	return e < r->nev && is_time(&r->events[e]) &&
	       pv_hooks_share(r, e) >= PV_HOOKS_SHARE_DOUBTFUL;
}

int pv_cheaper_than_hooks(const struct pv_report *r, const struct pv_rfunc *f, unsigned e)
{
	return f->calls && (double)f->self[e] < pv_hooks_per_call(r, e) * (double)f->calls;
}
