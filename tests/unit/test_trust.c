/* SPDX-License-Identifier: MIT */
/*
 * When a profile says its times are in doubt (trust.h): only compensated
 * runs, only time events, only with the hooks at 40 % of the raw run or
 * more; and which functions cost less than their hooks. Sampled time is
 * judged by its samples: what a share is good to, which selves rest on few
 * samples, when a run is short, and what the caption says of it.
 */
#include <math.h>
#include <stdlib.h>
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

/* A sampled run of `samples` samples over 1 s of time, `blocked` ns of it
 * in a wait, as the caption sees it: event 0 sampled at 1000 Hz, event 1 a
 * count; compensated, with the hooks at two thirds of the raw run (which
 * must not matter to sampled time). Its functions: the sampled CPU time
 * split 99:1 between work and rare (samples alike), and the wait. */
static struct pv_rfunc sampled_funcs[3];

static struct pv_report sampled_run(uint64_t samples, uint64_t blocked)
{
	static struct pv_event_desc desc[2];
	pv_event_describe(&desc[0], "time", PV_EVENT_SAMPLED, "sampler");
	pv_event_describe(&desc[1], "instructions", PV_EVENT_COUNT, "rdpmc");
	struct pv_report r;
	memset(&r, 0, sizeof(r));
	r.nev = 2;
	r.events = desc;
	r.compensated = 1;
	r.run_total[0] = 1000000000;
	r.raw_run_total[0] = 3 * r.run_total[0];
	r.caller_cost[0] = 6;
	r.callee_cost[0] = 4;
	uint64_t cpu = r.run_total[0] - blocked;
	memset(sampled_funcs, 0, sizeof(sampled_funcs));
	sampled_funcs[0] = (struct pv_rfunc){ .calls = 1, .samples = samples - samples / 100,
					      .self = { cpu - cpu / 100 } };
	sampled_funcs[1] = (struct pv_rfunc){ .calls = 1, .samples = samples / 100,
					      .self = { cpu / 100 } };
	sampled_funcs[2] = (struct pv_rfunc){ .kind = PV_FUNC_WAIT, .calls = 1,
					      .self = { blocked } };
	r.n_funcs = 3;
	r.funcs = sampled_funcs;
	r.sampling = (struct pv_sampling){ .rate_hz = 1000, .looks = samples,
					   .samples = samples, .own_samples = 100,
					   .blocked_ns = blocked };
	return r;
}

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

static void sampled_time(void)
{
	struct pv_report r = sampled_run(12345, 0);
	tap_ok(pv_sampled(&r, 0) && !pv_sampled(&r, 1) && !pv_sampled(&r, 2),
	       "sampled: event 0 only (and no event the run does not have)");
	tap_is(pv_samples_in(&r), 12345, "sampled: the samples are the functions'");
	tap_ok(near(pv_share_error(&r, 0, 0.1), 0.1 / sqrt(1234.5)),
	       "sampled: a share of 10%% of 12345 samples is good to 0.1/sqrt(1234.5) (%g)",
	       pv_share_error(&r, 0, 0.1));
	tap_ok(pv_share_error(&r, 0, 0) == 0, "sampled: a share of nothing has no error");
	tap_ok(!pv_times_doubtful(&r, 0),
	       "sampled: 12345 samples are not in doubt, though the hooks took 67%% of the "
	       "raw run (no hooks are in sampled time)");
	char text[1024];
	tap_ok(pv_sampling_text(&r, 0, text, sizeof(text)) &&
		       !strcmp(text, "time sampled at 1000 Hz: 12,345 samples; 0.8% dropped as "
				     "profviz's own\na share of 10% is good to \xc2\xb1" "0.28 points"),
	       "sampled: the caption's text: rate, samples, looks dropped, a share's precision");
	if (strcmp(text, "time sampled at 1000 Hz: 12,345 samples; 0.8% dropped as profviz's "
			 "own\na share of 10% is good to \xc2\xb1" "0.28 points"))
		printf("#   got '%s'\n", text);
	tap_ok(!pv_sampling_text(&r, 1, text, sizeof(text)) && !text[0],
	       "sampled: nothing to say of an event read by the hooks");
	tap_ok(!pv_doubt_text(&r, 0, text, sizeof(text)) && !text[0],
	       "sampled: no doubt said of a long run");

	/* Half the time blocked, measured: a share stands on the samples of
	 * the other half, so 10 % of the run is 20 % of the samples. */
	r = sampled_run(10000, 500000000);
	tap_ok(near(pv_share_error(&r, 0, 0.1), 0.1 / sqrt(2000)),
	       "sampled: with half the time blocked, a share of 10%% stands on 2000 of the 10000 "
	       "samples (%g)", pv_share_error(&r, 0, 0.1));
	tap_ok(pv_sampling_text(&r, 0, text, sizeof(text)) &&
		       strstr(text, "; 50.0% of it blocked in libc's waits (measured, not sampled)\n"),
	       "sampled: the caption says how much was blocked, and that it was measured");
	tap_ok(!pv_few_samples(&r, &sampled_funcs[2], 0),
	       "sampled: a wait is not marked: its self was measured, not sampled");

	r = sampled_run(999, 0);
	tap_ok(pv_short_run(&r, 0) && pv_times_doubtful(&r, 0),
	       "sampled: 999 samples are a short run, in doubt");
	static const char short_run[] = "a short run: 999 samples (under 1000): a function at 1% "
					"of it is good only to \xc2\xb1" "32% of itself;";
	tap_ok(pv_doubt_text(&r, 0, text, sizeof(text)) &&
		       !strncmp(text, short_run, sizeof(short_run) - 1),
	       "sampled: the doubt says the run was short, and what 1%% is good to");
	if (strncmp(text, short_run, sizeof(short_run) - 1))
		printf("#   got '%s'\n", text);
	r = sampled_run(1000, 0);
	tap_ok(!pv_short_run(&r, 0) && !pv_times_doubtful(&r, 0), "sampled: 1000 samples are not");

	sampled_funcs[1].samples = 9;
	tap_ok(pv_few_samples(&r, &sampled_funcs[1], 0), "sampled: 9 samples behind a self are few");
	sampled_funcs[1].samples = 10;
	tap_ok(!pv_few_samples(&r, &sampled_funcs[1], 0), "sampled: 10 are not");
	sampled_funcs[1].samples = 0;
	sampled_funcs[1].self[0] = 0;
	tap_ok(!pv_few_samples(&r, &sampled_funcs[1], 0), "sampled: no self, nothing to mark");
	sampled_funcs[1].self[1] = 7;
	tap_ok(!pv_few_samples(&r, &sampled_funcs[1], 1), "sampled: a count is never marked");
}

/* A thread's first CPU time timed at its hooks (timedstart.h): what was
 * timed has no sampling error, and the samples stand for the rest only. */
static void timed_time(void)
{
	char text[1024];
	/* All of it timed: no sample, yet nothing in doubt. */
	struct pv_report r = sampled_run(0, 0);
	sampled_funcs[0].timed_ns = sampled_funcs[0].self[0];
	sampled_funcs[1].timed_ns = sampled_funcs[1].self[0];
	r.sampling.timed_ns = r.run_total[0];
	r.sampling.timed_start_ns = 50000000;
	r.sampling.own_samples = 0;
	tap_is(pv_timed_in(&r), r.run_total[0], "timed: the functions' timed time is the run's");
	tap_ok(pv_share_error(&r, 0, 0.1) == 0, "timed: all of it timed, a share has no error");
	tap_ok(!pv_short_run(&r, 0) && !pv_times_doubtful(&r, 0),
	       "timed: no samples, but not a short run in doubt: it was all timed");
	tap_ok(!pv_few_samples(&r, &sampled_funcs[1], 0) && pv_self_error(&sampled_funcs[1], 0) == 0,
	       "timed: a self timed whole is not marked, and has no error");
	static const char all[] = "time timed at its hooks over each thread's first CPU "
				  "(1 s in all, 100% of it), then sampled at 1000 Hz: 0 samples\n"
				  "all of it timed, none sampled: no sampling error";
	tap_ok(pv_sampling_text(&r, 0, text, sizeof(text)) && !strcmp(text, all),
	       "timed: the caption says it was timed, and has no error to state");
	if (strcmp(text, all))
		printf("#   got '%s'\n", text);

	/* Three quarters timed, the rest sampled by 1000 samples: a share's
	 * error is its sampled quarter's, over the samples behind the share. */
	r = sampled_run(1000, 0);
	uint64_t timed = r.run_total[0] / 4 * 3;
	sampled_funcs[0].timed_ns = timed;
	r.sampling.timed_ns = timed;
	r.sampling.timed_start_ns = 50000000;
	tap_ok(near(pv_share_error(&r, 0, 0.1), 0.25 * 0.1 / sqrt(100)),
	       "timed: a quarter sampled, a share of 10%% is good to a quarter of 0.1/sqrt(100) "
	       "(%g)", pv_share_error(&r, 0, 0.1));
	tap_ok(!pv_short_run(&r, 0), "timed: 1000 samples over a quarter: not a short run");
	r.funcs[1].samples = 0;
	r.funcs[0].samples = 62; /* under 1000 / 16 */
	tap_ok(pv_short_run(&r, 0), "timed: 62 samples over a quarter of the run are short of "
				    "what 1000 over all of it give");
	r.funcs[0].samples = 63;
	tap_ok(!pv_short_run(&r, 0), "timed: 63 are not");
	static const char some[] = "time timed at its hooks over each thread's first CPU "
				   "(750 ms in all, 75% of it), then sampled at 1000 Hz: 63 samples";
	tap_ok(pv_sampling_text(&r, 0, text, sizeof(text)) &&
		       !strncmp(text, some, sizeof(some) - 1),
	       "timed: the caption says how much was timed");
	if (strncmp(text, some, sizeof(some) - 1))
		printf("#   got '%s'\n", text);
	/* work: 3/4 of its self timed, a quarter sampled: good to a quarter
	 * of 1/sqrt(samples); marked under what 10 samples over it all give. */
	sampled_funcs[0].timed_ns = sampled_funcs[0].self[0] / 4 * 3;
	sampled_funcs[0].samples = 1;
	double quarter = (double)(sampled_funcs[0].self[0] - sampled_funcs[0].timed_ns) /
			 (double)sampled_funcs[0].self[0];
	tap_ok(near(pv_self_error(&sampled_funcs[0], 0), quarter),
	       "timed: 1 sample behind the sampled quarter of a self: good to a quarter of it");
	tap_ok(!pv_few_samples(&r, &sampled_funcs[0], 0),
	       "timed: ... as good as 16 samples over all of it: not marked");
	sampled_funcs[0].timed_ns = 0;
	tap_ok(pv_few_samples(&r, &sampled_funcs[0], 0), "timed: none of it timed, 1 sample is few");
}

/* A threaded run whose threads wait as long as they work: the hooks took
 * 250 of the 500 raw units of work, which is half of it, and a quarter of
 * the run with its waits. Judged on the work, it is in doubt, whether the
 * waits are in the run or a view took them apart. */
static void judged_on_work(void)
{
	static struct pv_rfunc with_wait[2];
	struct pv_report r = run(0, 1);
	memset(with_wait, 0, sizeof(with_wait));
	with_wait[0] = (struct pv_rfunc){ .calls = 100, .self = { 250, 250 }, .raw_self = { 500, 500 } };
	with_wait[1] = (struct pv_rfunc){ .kind = PV_FUNC_WAIT, .calls = 1, .self = { 500, 500 },
					  .raw_self = { 500, 500 } };
	r.funcs = with_wait;
	r.n_funcs = 2;
	r.run_total[0] = 750;
	tap_ok(near(pv_hooks_share(&r, 0), 0.5),
	       "waits in the run: the hooks' share is of the raw work, waits aside (%.3f)",
	       pv_hooks_share(&r, 0));
	tap_ok(pv_times_doubtful(&r, 0), "waits in the run: half the work in the hooks is in doubt");
	char text[1024];
	tap_ok(pv_doubt_text(&r, 0, text, sizeof(text)) &&
		       !strncmp(text, "the hooks took 50% of the raw work (waits aside): ", 50),
	       "waits in the run: the caption says the share is of the work");
	if (strncmp(text, "the hooks took 50% of the raw work (waits aside): ", 50))
		printf("#   got '%s'\n", text);

	r.waits_apart = 1; /* as a view with the waits apart has it */
	r.waited[0] = 500;
	r.run_total[0] = 250;
	r.raw_run_total[0] = 500;
	tap_ok(near(pv_hooks_share(&r, 0), 0.5) && pv_times_doubtful(&r, 0),
	       "waits apart: the same share, in doubt (%.3f)", pv_hooks_share(&r, 0));
}

int main(void)
{
	timed_time();
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

	sampled_time();
	judged_on_work();
	return tap_done();
}
