/* SPDX-License-Identifier: MIT */
/*
 * When a profile says its times are in doubt (trust.h): only compensated
 * runs, only time events, only with the hooks at 40 % of the raw run or
 * more; and which functions cost less than their hooks.
 */
#include <string.h>

#include "tap.h"
#include "model/trust.h"

static struct pv_event_desc events[2];
static struct pv_rfunc funcs[3];

/* A run of 1000 raw units, of which hooks_taken were taken out, at 10 units
 * a call of the hooks (6 on the caller, 4 on the callee). */
static struct pv_report run(uint64_t hooks_taken, int compensated)
{
	struct pv_report r;
	memset(&r, 0, sizeof(r));
	r.nev = 2;
	r.events = events;
	r.compensated = compensated;
	for (unsigned e = 0; e < 2; e++) {
		r.raw_run_total[e] = 1000;
		r.run_total[e] = compensated ? 1000 - hooks_taken : 1000;
		r.caller_cost[e] = 6;
		r.callee_cost[e] = 4;
	}
	r.n_funcs = 3;
	r.funcs = funcs;
	return r;
}

int main(void)
{
	pv_event_describe(&events[0], "tsc", PV_EVENT_TIME, "tsc");
	pv_event_describe(&events[1], "instructions", PV_EVENT_COUNT, "rdpmc");

	struct pv_report r = run(600, 1);
	tap_ok(pv_hooks_share(&r, 0) > 0.599 && pv_hooks_share(&r, 0) < 0.601,
	       "the hooks' share is what compensation took out of the raw run (%.3f)",
	       pv_hooks_share(&r, 0));
	tap_ok(pv_times_doubtful(&r, 0), "a time event with the hooks at 60%% is in doubt");
	tap_ok(!pv_times_doubtful(&r, 1), "a count is not (the hooks' counts do not vary so)");
	tap_ok(!pv_times_doubtful(&r, 2), "nor an event the run does not have");
	pv_event_describe(&events[1], "cpu-cycles", PV_EVENT_CYCLES, "rdpmc");
	tap_ok(pv_times_doubtful(&r, 1), "cycles are time: in doubt too");

	r = run(399, 1);
	tap_ok(!pv_times_doubtful(&r, 0), "under 40%% of the raw run: not in doubt");
	r = run(400, 1);
	tap_ok(pv_times_doubtful(&r, 0), "at 40%%: in doubt");
	r = run(600, 0);
	tap_ok(pv_hooks_share(&r, 0) == 0 && !pv_times_doubtful(&r, 0),
	       "a run not compensated says nothing of the hooks");
	tap_ok(pv_hooks_per_call(&r, 0) == 0, "and has no cost per call");

	r = run(600, 1);
	tap_ok(pv_hooks_per_call(&r, 0) == 10, "the hooks' cost a call is caller's and callee's part");
	funcs[0].calls = 100, funcs[0].self[0] = 999;  /* 9.99 a call */
	funcs[1].calls = 100, funcs[1].self[0] = 1000; /* 10 a call */
	funcs[2].calls = 0, funcs[2].self[0] = 0;      /* never called (a copy, say) */
	tap_ok(pv_cheaper_than_hooks(&r, &funcs[0], 0), "9.99 a call is cheaper than hooks of 10");
	tap_ok(!pv_cheaper_than_hooks(&r, &funcs[1], 0), "10 a call is not");
	tap_ok(!pv_cheaper_than_hooks(&r, &funcs[2], 0), "a function never called is not");
	return tap_done();
}
