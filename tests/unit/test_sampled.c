/* SPDX-License-Identifier: MIT */
/*
 * A sampled profile made by hand, as the runtime's sampler hands it over
 * (event 0 sampled time, event 1 a count read by the hooks), through the
 * report: no hooks' cost taken out of sampled time even with the hooks
 * calibrated, the samples carried to every function and path, the run's
 * sampling account kept, and the samples summed again in a graph's view (a
 * header function's copies as one box) and in a part (a focus).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "model/copies.h"
#include "model/trust.h"
#include "model/view.h"
#include "output/format.h"
#include "render.h"
#include "tap.h"

#define MS 1000000ull

/* The program's functions, by address: main calls work (and a copy of it,
 * compiled from the same header line into another file), rare, and waits. */
enum { MAIN, WORK, WORK_COPY, RARE, WAIT, N_FUNCS };
static char code[N_FUNCS];
static const char *const names[N_FUNCS] = { "main", "work", "work", "rare",
					     "<blocked: nanosleep>" };

static void name_by_table(void *arg, void *fn, enum pv_func_kind kind, struct pv_symbol *sym)
{
	(void)arg, (void)kind;
	int i = (int)((char *)fn - code);
	sym->name = strdup(names[i]);
	sym->module = strdup(i == WAIT ? "" : "/bin/prog");
	sym->file = i == WORK || i == WORK_COPY ? strdup("work.h") : NULL;
	sym->line = i == WORK || i == WORK_COPY ? 3 : 0;
}

/* Per function: calls, samples, self in ns and in instructions. */
static const struct {
	uint64_t calls, samples, ns, instructions;
} given[N_FUNCS] = {
	[MAIN] = { 1, 5, 5 * MS, 1000 },
	[WORK] = { 20, 900, 900 * MS, 50000 },
	[WORK_COPY] = { 5, 50, 50 * MS, 2000 },
	[RARE] = { 2, 3, 3 * MS, 300 },
	[WAIT] = { 1, 0, 100 * MS, 10 }, /* blocked: measured, not sampled */
};

static const struct pv_sampling sampling = {
	.rate_hz = 1000, .wall_seconds = 1.2, .looks = 1200, .samples = 958, .own_samples = 7,
	.own_ns = 7 * MS, .unsampled_ns = 123456, .blocked_ns = 100 * MS, .sampler_ns = 3 * MS,
};

/* main's one path and, below it, one path per other function. */
static void make_profile(struct pv_profile *p)
{
	pv_profile_init(p, 2);
	uint64_t all_ns = 0, all_instructions = 0, callees = 0;
	for (int i = 0; i < N_FUNCS; i++) {
		all_ns += given[i].ns;
		all_instructions += given[i].instructions;
		callees += i == MAIN ? 0 : given[i].calls;
	}
	struct pv_path *top = pv_profile_path(p, NULL, &code[MAIN]);
	for (int i = 0; i < N_FUNCS; i++) {
		struct pv_fstat *f = pv_profile_func(p, &code[i]);
		struct pv_path *x = i == MAIN ? top : pv_profile_path(p, top, &code[i]);
		struct pv_astat *a = pv_profile_arc(p, i == MAIN ? NULL : &code[MAIN], &code[i]);
		f->kind = i == WAIT ? PV_FUNC_WAIT : PV_FUNC_PLAIN;
		f->calls = x->calls = a->calls = given[i].calls;
		f->samples = x->samples = given[i].samples;
		f->self[0] = x->self[0] = given[i].ns;
		f->self[1] = x->self[1] = given[i].instructions;
		f->total[0] = x->total[0] = a->total[0] = i == MAIN ? all_ns : given[i].ns;
		f->total[1] = x->total[1] = a->total[1] =
			i == MAIN ? all_instructions : given[i].instructions;
		x->callees = i == MAIN ? callees : 0;
	}
	p->thread_stats = calloc(1, sizeof(*p->thread_stats));
	p->n_thread_stats = p->thread_stats_cap = 1;
	p->thread_stats[0] = (struct pv_thread_stat){ .tid = 7, .calls = callees + 1, .outer_calls = 1,
						      .total = { all_ns, all_instructions },
						      .cpu_seconds = 0.96, .wall_seconds = 1.2 };
	p->threads = 1;
	p->sampling = sampling;
}

static const struct pv_rfunc *named(const struct pv_report *r, const char *name, int nth)
{
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (!strcmp(r->funcs[i].sym.name, name) && nth-- == 0)
			return &r->funcs[i];
	static const struct pv_rfunc none;
	return &none;
}

int main(void)
{
	struct pv_event_desc events[2];
	pv_event_describe(&events[0], "time", PV_EVENT_SAMPLED, "sampler");
	pv_event_describe(&events[1], "instructions", PV_EVENT_COUNT, "rdpmc");
	struct pv_profile p;
	make_profile(&p);
	/* The hooks calibrated in both events: only the count may lose them. */
	const struct pv_overhead overhead = { .calibrated = 1, .caller = { 10, 10 },
					      .callee = { 5, 5 }, .callee_span = { 20, 0 } };
	const struct pv_conversion conv = { .factor = { 1, 1 }, .running_ratio = { 1, 1 },
					    .wall_seconds = 1.2 };
	const struct pv_namer namer = { .name = name_by_table };
	struct pv_report r = { .program = "/bin/prog", .events = events, .node_threshold = 0,
			       .edge_threshold = 0 };
	tap_ok(pv_report_build(&r, &p, &namer, &conv, &overhead) == 0, "report built");

	const struct pv_rfunc *work = named(&r, "work", 0), *rare = named(&r, "rare", 0);
	const struct pv_rfunc *wait = named(&r, "<blocked: nanosleep>", 0);
	const struct pv_rfunc *main_fn = named(&r, "main", 0);
	tap_ok(work->self[0] == 900 * MS && work->raw_self[0] == 900 * MS &&
		       main_fn->self[0] == 5 * MS && main_fn->total[0] == main_fn->raw_total[0],
	       "sampled time: no hooks' cost taken out, with the hooks calibrated");
	tap_ok(r.run_total[0] == r.raw_run_total[0] && r.clamped[0] == 0 &&
		       r.caller_cost[0] == 0 && r.callee_cost[0] == 0 && r.callee_span[0] == 0,
	       "sampled time: the run's total is its raw total, and its hooks' cost is 0");
	tap_ok(r.thread_list[0].total[0] == r.thread_list[0].raw_total[0],
	       "sampled time: the thread's total loses nothing either");
	tap_ok(main_fn->self[1] < main_fn->raw_self[1] && r.caller_cost[1] == 10 &&
		       r.run_total[1] < r.raw_run_total[1],
	       "the count read by the hooks is compensated as before (main's self %" PRIu64
	       " of %" PRIu64 ")", main_fn->self[1], main_fn->raw_self[1]);
	tap_ok(work->samples == 900 && named(&r, "work", 1)->samples == 50 && rare->samples == 3 &&
		       wait->samples == 0 && main_fn->samples == 5,
	       "every function's samples carried into the report");
	uint64_t path_samples = 0;
	for (unsigned i = 0; i < r.n_paths; i++)
		path_samples += r.paths[i].samples;
	tap_is(path_samples, 958, "every path's samples too");
	tap_ok(!memcmp(&r.sampling, &sampling, sizeof(sampling)), "the run's sampling account kept");
	tap_ok(wait->kind == PV_FUNC_WAIT && !pv_few_samples(&r, wait, 0) &&
		       pv_few_samples(&r, rare, 0) && pv_few_samples(&r, main_fn, 0) &&
		       !pv_few_samples(&r, work, 0),
	       "few samples: rare (3) and main (5) are marked; work (900) and the wait not");
	tap_ok(pv_short_run(&r, 0) && pv_times_doubtful(&r, 0),
	       "958 samples: a short run, in doubt");

	/* The graph's view: the two copies of work as one box. */
	struct pv_report view;
	tap_ok(pv_copies_merge(&r, &view) == 0, "copies merged");
	const struct pv_rfunc *box = named(&view, "work", 0);
	tap_ok(box->copies == 2 && box->samples == 950 && named(&view, "work", 1)->samples == 0,
	       "the copies' box has both copies' samples (%" PRIu64 ")", box->samples);
	pv_copies_free(&view);

	/* A part: work focused (both copies), with main as its caller. */
	char chosen[N_FUNCS] = { 0 };
	for (unsigned i = 0; i < r.n_funcs; i++)
		chosen[i] = !strcmp(r.funcs[i].sym.name, "work");
	struct pv_view focus = { PV_VIEW_FOCUS, chosen, 0 };
	struct pv_report part;
	tap_ok(pv_view_build(&part, &r, &focus) == 0, "focus on work built");
	tap_ok(named(&part, "main", 0)->samples == 0 && pv_samples_in(&part) == 950,
	       "the focus: the caller keeps no samples (only what flows into work), the part 950");
	tap_ok(named(&part, "<blocked: nanosleep>", 0)->calls == 0,
	       "the focus leaves the wait out");
	pv_report_free(&part);

	char *json;
	/* The work apart from the waits: main's 100 ms wait leaves the run and
	 * main's total, and stays the wait's own. */
	struct pv_report work_view;
	tap_ok(pv_view_waits_apart(&work_view, &r) == 1, "the waits taken apart");
	const struct pv_rfunc *w_main = named(&work_view, "main", 0);
	const struct pv_rfunc *w_wait = named(&work_view, "<blocked: nanosleep>", 0);
	uint64_t work_selves = 0;
	for (unsigned i = 0; i < work_view.n_funcs; i++)
		if (work_view.funcs[i].kind != PV_FUNC_WAIT)
			work_selves += work_view.funcs[i].self[0];
	tap_ok(work_view.waits_apart && work_view.waited[0] == 100 * MS &&
		       work_view.run_total[0] == r.run_total[0] - 100 * MS &&
		       work_selves == work_view.run_total[0],
	       "apart: the run is the work (%" PRIu64 " ns), the selves but the wait's add up to "
	       "it, the waits' 100 ms in waited", work_view.run_total[0]);
	tap_ok(w_main->total[0] == main_fn->total[0] - 100 * MS && w_main->waited[0] == 100 * MS &&
		       w_wait->total[0] == 100 * MS && w_wait->self[0] == 100 * MS &&
		       pv_report_wall(&work_view, 0) == r.run_total[0],
	       "apart: main's total leaves its wait out and says how much; the wait keeps its own, "
	       "of the wall, which is the run with its waits");
	tap_ok(work_view.waited[1] == wait->self[1] &&
		       work_view.run_total[1] == r.run_total[1] - wait->self[1],
	       "apart: in every event (the wait's instructions too)");
	tap_ok(work_view.n_thread_list == r.n_thread_list && pv_samples_in(&work_view) == 958,
	       "apart: the threads and every sample kept");
	struct pv_report again;
	tap_ok(pv_view_waits_apart(&again, &work_view) == 0,
	       "apart: nothing more to take apart from a view whose waits are apart");
	json = render(pv_write_json, &work_view);
	char waited[64];
	snprintf(waited, sizeof(waited), "\"waited\":[%llu,", 100 * MS);
	tap_ok(json && strstr(json, waited) && strstr(json, "\"run_total\":[958000000,"),
	       "apart: the JSON's run is the work's, its waits in waited");
	free(json);
	char *dot = render(pv_write_dot, &work_view);
	tap_ok(dot && strstr(dot, "\\n9.45% of wall\\n1\xc3\x97\\ninstructions: 0.01% (0.01%)\", "
			       "fillcolor=\"#b0b0b0\"") &&
		       strstr(dot, "\\nwaits: 9.45% of wall"),
	       "apart: the graph's wait box has its share of the wall (100 of 1058 ms), main "
	       "says how much it waited");
	free(dot);
	pv_report_free(&work_view);

	/* A part with its waits apart: main focused, its wait apart from its total. */
	memset(chosen, 0, sizeof(chosen));
	for (unsigned i = 0; i < r.n_funcs; i++)
		chosen[i] = !strcmp(r.funcs[i].sym.name, "main");
	struct pv_view main_apart = { PV_VIEW_FOCUS, chosen, 0, 1 };
	tap_ok(pv_view_build(&part, &r, &main_apart) == 0 &&
		       part.run_total[0] == main_fn->total[0] - 100 * MS && part.waited[0] == 100 * MS,
	       "a focus with its waits apart: its run is the focus's work, its waits apart");
	pv_report_free(&part);

	json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"name\":\"<blocked: nanosleep>\",\"module\":\"\","
				    "\"address\":") && strstr(json, "\"kind\":\"wait\",\"calls\":1,"
								     "\"samples\":0,"),
	       "JSON: the wait's kind");
	tap_ok(json && strstr(json, "\"kind\":\"plain\",\"calls\":20,\"samples\":900,"
				    "\"self\":[900000000,"),
	       "JSON: a function's samples");
	tap_ok(json && strstr(json, "\"calls\":20,\"samples\":900,\"self\":[900000000,") &&
		       strstr(json, "{\"parent\":0,\"function\":"),
	       "JSON: a path's samples");
	tap_ok(json && strstr(json, "\"sampling\":{\"rate_hz\":1000,\"wall_seconds\":1.200000000,"
				    "\"looks\":1200,\"samples\":958,\"own_samples\":7,"
				    "\"own_ns\":7000000,\"unsampled_ns\":123456,"
				    "\"blocked_ns\":100000000,\"sampler_ns\":3000000}"),
	       "JSON: the sampling account, every field");
	tap_ok(json && strstr(json, "\"kinds\":[\"sampled\",\"count\"]") &&
		       strstr(json, "\"backends\":[\"sampler\",\"rdpmc\"]") &&
		       strstr(json, "\"revision\":6,"),
	       "JSON: revision 6, event 0 sampled by the sampler");
	free(json);

	/* No time at all (a few milliseconds, no ring, no look that found the
	 * threads running): the graph weighs its boxes and arcs by calls. */
	for (unsigned i = 0; i < r.n_funcs; i++)
		r.funcs[i].self[0] = r.funcs[i].total[0] = 0;
	for (unsigned i = 0; i < r.n_arcs; i++)
		r.arcs[i].total[0] = 0;
	for (unsigned i = 0; i < r.n_paths; i++)
		r.paths[i].self[0] = r.paths[i].raw_self[0] = r.paths[i].total[0] = 0;
	r.run_total[0] = r.raw_run_total[0] = 0;
	char *by_calls = render(pv_write_dot, &r);
	tap_ok(by_calls && strstr(by_calls, "no time was sampled or timed: boxes and arcs weighed by their "
				  "calls"), "no time: the caption says the graph is weighed by calls");
	const char *at_work = by_calls ? strstr(by_calls, "[label=\"work\\n") : NULL;
	const char *at_rare = by_calls ? strstr(by_calls, "[label=\"rare\\n") : NULL;
	at_work = at_work ? strstr(at_work, "fillcolor=") : NULL;
	at_rare = at_rare ? strstr(at_rare, "fillcolor=") : NULL;
	tap_ok(at_work && at_rare && strncmp(at_work, at_rare, 20),
	       "no time: work (20 calls) and rare (2) are coloured apart");
	free(by_calls);
	pv_report_free(&r);
	pv_profile_clear(&p);
	return tap_done();
}
