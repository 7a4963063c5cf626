/* SPDX-License-Identifier: MIT */
/* The writers on a report made by hand: what only a PMU would produce here
 * (IPC from cycles and instructions, a multiplexed event), names that need
 * escaping, amounts written in their event's unit, and sampled time (until
 * the runtime samples): what the graph's caption says of it, and which
 * boxes it marks. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "output/format.h"
#include "render.h"
#include "tap.h"

/* The graph of a one-function run of 108.12 M units of event e, 104397 of
 * them in main itself. */
static char *render_single(const struct pv_event_desc *e)
{
	struct pv_rfunc main_fn = { .id = 0, .calls = 1, .self = { 104397 },
				    .total = { 108120000 } };
	main_fn.sym.name = "main";
	main_fn.sym.module = "/bin/prog";
	struct pv_rarc arc = { .caller = -1, .callee = 0, .calls = 1, .total = { 108120000 } };
	struct pv_report r = {
		.program = "/bin/prog", .pid = 42, .nev = 1, .events = e, .multiplexed = { 1.0 },
		.run_total = { 108120000 }, .threads = 1, .node_threshold = 0.5,
		.edge_threshold = 0.1, .n_funcs = 1, .n_arcs = 1, .funcs = &main_fn, .arcs = &arc,
	};
	return render(pv_write_dot, &r);
}

/* A perf clock is a time like the TSC, whichever backend reads it; any
 * other event is a count. */
static void amounts_in_units(void)
{
	struct pv_event_desc clock = { .name = "task-clock", .kind = PV_EVENT_TIME,
				       .backend = "read" };
	char *dot = render_single(&clock);
	tap_ok(dot && strstr(dot, "event: task-clock [ns] via read\\ltotal: 108.120 ms over") != NULL,
	       "task-clock: the graph's total in time units");
	tap_ok(dot && strstr(dot, "(program)\\n100.00%\\n108.120 ms\"") != NULL,
	       "task-clock: the program's total in time units");
	tap_ok(dot && strstr(dot, "total 108.120 ms, self 104.397 us\"") != NULL,
	       "task-clock: a function's total and self in time units");
	free(dot);

	struct pv_event_desc faults = { .name = "page-faults", .kind = PV_EVENT_COUNT,
					.backend = "read" };
	dot = render_single(&faults);
	tap_ok(dot && strstr(dot, "event: page-faults [count] via read\\ltotal: 108.120 M over") !=
			      NULL,
	       "page-faults: the graph's total in counts");
	tap_ok(dot && strstr(dot, "total 108.120 M, self 104.397 k\"") != NULL,
	       "page-faults: a function's total and self both in counts");
	free(dot);
}


/* The attributes of the edge "from -> to" in dot: its colour's hue in
 * degrees (0 red .. 240 blue) and its pen width; 0 if it is not there. */
static int edge_look(const char *dot, const char *edge, double *hue, double *width,
		     int *dashed)
{
	const char *e = dot ? strstr(dot, edge) : NULL;
	if (!e)
		return 0;
	const char *end = strchr(e, '\n');
	const char *c = strstr(e, "color=\"#");
	unsigned rgb[3];
	if (!c || c > end || sscanf(c + 8, "%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]) != 3)
		return 0;
	double r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
	double max = r > g ? (r > b ? r : b) : (g > b ? g : b);
	double min = r < g ? (r < b ? r : b) : (g < b ? g : b);
	double h = 0;
	if (max > min)
		h = max == r ? 60 * fmod((g - b) / (max - min) + 6, 6)
		  : max == g ? 60 * ((b - r) / (max - min) + 2) : 60 * ((r - g) / (max - min) + 4);
	*hue = h;
	const char *w = strstr(e, "penwidth=");
	*width = w && w < end ? atof(w + 9) : 0;
	const char *d = strstr(e, "style=dashed");
	*dashed = d && d < end;
	return 1;
}

/* A hot chain (main -> hot: 60% of the run) and a cold corner whose only
 * arc carries 99% of its caller but 1% of the run: the hot arc must look
 * hotter. And an arc that cost nothing of the first event is drawn as any
 * other, while one whose every call was nested in its callee is dashed. */
static void arcs_by_share_of_run(const struct pv_event_desc *events)
{
	struct pv_rfunc funcs[5];
	memset(funcs, 0, sizeof(funcs));
	static char names[5][16] = { "main", "hot", "cold_parent", "cold_child", "quick" };
	uint64_t self[5] = { 29, 600, 1, 99, 0 }, total[5] = { 1000, 600, 100, 99, 0 };
	for (int i = 0; i < 5; i++) {
		funcs[i] = (struct pv_rfunc){ .id = i, .calls = 1, .self = { self[i] },
					      .total = { total[i] } };
		funcs[i].sym.name = names[i];
		funcs[i].sym.module = "/bin/prog";
	}
	struct pv_rarc arcs[6] = {
		{ .caller = -1, .callee = 0, .calls = 1, .total = { 1000 } },
		{ .caller = 0, .callee = 1, .calls = 1, .total = { 600 } },
		{ .caller = 0, .callee = 2, .calls = 1, .total = { 100 } },
		{ .caller = 2, .callee = 3, .calls = 1, .total = { 99 } },
		{ .caller = 0, .callee = 4, .calls = 3, .total = { 0 } },
		{ .caller = 1, .callee = 1, .calls = 5, .nested_calls = 5, .total = { 0 } },
	};
	struct pv_report r = {
		.program = "/bin/prog", .pid = 42, .nev = 1, .events = events,
		.multiplexed = { 1.0 }, .run_total = { 1000 }, .threads = 1,
		.node_threshold = 0, .edge_threshold = 0, .n_funcs = 5, .n_arcs = 6,
		.funcs = funcs, .arcs = arcs,
	};
	char *dot = render(pv_write_dot, &r);
	double hot_hue = 0, hot_w = 0, cold_hue = 0, cold_w = 0, quick_hue, quick_w, rec_hue, rec_w;
	int hot_d, cold_d, quick_d, rec_d;
	int found = edge_look(dot, "f0 -> f1 ", &hot_hue, &hot_w, &hot_d) &&
		    edge_look(dot, "f2 -> f3 ", &cold_hue, &cold_w, &cold_d) &&
		    edge_look(dot, "f0 -> f4 ", &quick_hue, &quick_w, &quick_d) &&
		    edge_look(dot, "f1 -> f1 ", &rec_hue, &rec_w, &rec_d);
	tap_ok(found, "every arc drawn");
	tap_ok(found && hot_w > 2 * cold_w,
	       "the hot arc is thicker than the cold corner's (%.2f, %.2f)", hot_w, cold_w);
	tap_ok(found && hot_hue + 60 < cold_hue,
	       "the hot arc is redder than the cold corner's (hue %.0f, %.0f)", hot_hue, cold_hue);
	tap_ok(dot && strstr(dot, "f2 -> f3 [label=\"  9.90%\\l  99.0% of caller\\l") != NULL,
	       "the cold arc's label keeps its share of the caller");
	tap_ok(found && !quick_d, "an arc that cost nothing of the event is not drawn as nested");
	tap_ok(found && rec_d, "an arc whose calls were all nested is dashed");
	free(dot);
}

/* The attributes of dot's node "fN [" (its line), or NULL. */
static char *node_line(const char *dot, int id)
{
	char key[32];
	snprintf(key, sizeof(key), "\n  f%d [", id);
	const char *at = dot ? strstr(dot, key) : NULL;
	return at ? strndup(at + 1, strcspn(at + 1, "\n")) : NULL;
}

/* A run of 2000 samples of sampled time at 1000 Hz (with a count read by
 * the hooks), 20 % of it blocked; then the same run cut to 500 samples. */
static void sampled_graph(void)
{
	struct pv_event_desc events[2];
	pv_event_describe(&events[0], "time", PV_EVENT_SAMPLED, "sampler");
	pv_event_describe(&events[1], "page-faults", PV_EVENT_COUNT, "read");
	struct pv_rfunc funcs[4];
	memset(funcs, 0, sizeof(funcs));
	static char names[4][24] = { "main", "work", "rare", "<blocked: poll>" };
	uint64_t self[4] = { 2, 1590, 8, 500 }, samples[4] = { 2, 1990, 8, 0 };
	for (int i = 0; i < 4; i++) {
		funcs[i] = (struct pv_rfunc){ .id = i, .calls = 1, .samples = samples[i],
					      .self = { self[i] * 1000000, 1 },
					      .total = { i ? self[i] * 1000000 : 2100000000, 1 } };
		funcs[i].raw_self[0] = funcs[i].self[0];
		funcs[i].raw_total[0] = funcs[i].total[0];
		funcs[i].sym.name = names[i];
		funcs[i].sym.module = i == 3 ? "" : "/bin/prog";
	}
	funcs[1].self[0] = funcs[1].total[0] = 1590000000;
	funcs[3].kind = PV_FUNC_WAIT;
	struct pv_rarc arcs[4] = {
		{ .caller = -1, .callee = 0, .calls = 1, .total = { 2100000000, 4 } },
		{ .caller = 0, .callee = 1, .calls = 1, .total = { 1590000000, 1 } },
		{ .caller = 0, .callee = 2, .calls = 1, .total = { 8000000, 1 } },
		{ .caller = 0, .callee = 3, .calls = 1, .total = { 500000000, 1 } },
	};
	struct pv_report r = {
		.program = "/bin/prog", .pid = 42, .nev = 2, .events = events,
		.multiplexed = { 1.0, 1.0 }, .run_total = { 2100000000, 4 },
		.raw_run_total = { 2100000000, 4 }, .compensated = 1, .threads = 1,
		.node_threshold = 0, .edge_threshold = 0, .n_funcs = 4, .n_arcs = 4,
		.funcs = funcs, .arcs = arcs,
		.sampling = { .rate_hz = 1000, .samples = 2000, .own_samples = 20,
			      .blocked_ns = 500000000 },
	};
	char *dot = render(pv_write_dot, &r);
	tap_ok(dot && strstr(dot, "\\ltime sampled at 1000 Hz: 2,000 samples; 1.0% dropped as "
				   "profviz's own; 23.8% of it blocked in libc's waits (measured, "
				   "not sampled)\\la share of 10% is good to \xc2\xb1" "0.62 points\\l"),
	       "sampled: the caption says the rate, the samples, the looks dropped, the time "
	       "blocked, and what a share is good to");
	tap_ok(dot && strstr(dot, "\\l? after a self share, and a dashed box: its self rests on "
				   "fewer than 10 samples (worse than \xc2\xb1" "32% of itself)\\l"),
	       "sampled: the caption says what the few-samples mark means");
	tap_ok(dot && !strstr(dot, "compensated:") && !strstr(dot, "short run"),
	       "sampled: no word of compensation, and a run of 2000 samples is not short");
	/* the boxes hottest first: main, work, the wait, rare */
	char *rare = node_line(dot, 3), *work = node_line(dot, 1), *wait = node_line(dot, 2);
	tap_ok(rare && strstr(rare, "\\n(0.38% ?)\\n") && strstr(rare, "style=\"filled,dashed\"") &&
		       strstr(rare, "self from 8 samples: good to \xc2\xb1" "35% of itself"),
	       "sampled: a function of 8 samples is marked, dashed, its error on hover");
	tap_ok(work && !strstr(work, "?)") && !strstr(work, "dashed") &&
		       strstr(work, "self from 1990 samples: good to \xc2\xb1" "2% of itself"),
	       "sampled: one of 1990 is not");
	tap_ok(wait && !strstr(wait, "?)") && !strstr(wait, "dashed") &&
		       strstr(wait, "its self is time blocked, measured, not sampled"),
	       "sampled: a wait, no samples, is not marked: its time was measured");
	free(rare);
	free(work);
	free(wait);
	free(dot);

	char *cg = render(pv_write_callgrind, &r);
	tap_ok(cg && strstr(cg, "\ndesc: Sampling: time sampled at 1000 Hz: 2,000 samples; ") &&
		       strstr(cg, "\nevent: time : time (ns, sampled)\nevent: page_faults : "
				  "page-faults (count)\n"),
	       "sampled: callgrind says how, in a desc: line and the event's description");
	free(cg);

	funcs[1].samples = 490; /* 500 samples in all */
	dot = render(pv_write_dot, &r);
	tap_ok(dot && strstr(dot, "\\la short run: 500 samples (under 1000): a function at 1% of "
				   "it is good only to \xc2\xb1" "39% of itself; profile a longer run"
				   "\\l"),
	       "sampled: a short run is said so in the caption");
	free(dot);
}

/* Calls the compiler inlined: kind, inlined into f (100 calls) and g (50),
 * never called for real; half, inlined in 2 of its 3 calls from main; and
 * tiny, inlined into f too, at 0.2% of the run. */
static void inlined_graph(const struct pv_event_desc *events)
{
	struct pv_rfunc funcs[6];
	memset(funcs, 0, sizeof(funcs));
	static char names[6][8] = { "main", "f", "g", "kind", "half", "tiny" };
	uint64_t self[6] = { 100, 500, 100, 0, 298, 0 }, total[6] = { 1000, 850, 150, 300, 298, 2 };
	uint64_t calls[6] = { 1, 1, 1, 150, 3, 1000 }, inlined[6] = { 0, 0, 0, 150, 2, 1000 };
	for (int i = 0; i < 6; i++) {
		funcs[i] = (struct pv_rfunc){ .id = i, .calls = calls[i],
					      .inlined_calls = inlined[i], .self = { self[i] },
					      .total = { total[i] } };
		funcs[i].sym.name = names[i];
		funcs[i].sym.module = "/bin/prog";
	}
	struct pv_rarc arcs[7] = {
		{ .caller = -1, .callee = 0, .calls = 1, .total = { 1000 } },
		{ .caller = 0, .callee = 1, .calls = 1, .total = { 850 } },
		{ .caller = 0, .callee = 4, .calls = 3, .inlined_calls = 2, .total = { 298 } },
		{ .caller = 1, .callee = 3, .calls = 100, .inlined_calls = 100, .total = { 200 } },
		{ .caller = 0, .callee = 2, .calls = 1, .total = { 150 } },
		{ .caller = 2, .callee = 3, .calls = 50, .inlined_calls = 50, .total = { 100 } },
		{ .caller = 1, .callee = 5, .calls = 1000, .inlined_calls = 1000, .total = { 2 } },
	};
	/* the graph numbers them hottest first: main f kind half g tiny */
	struct pv_report r = {
		.program = "/bin/prog", .pid = 42, .nev = 1, .events = events,
		.multiplexed = { 1.0 }, .run_total = { 1000 }, .threads = 1,
		.node_threshold = 0.5, .edge_threshold = 0.1, .n_funcs = 6, .n_arcs = 7,
		.funcs = funcs, .arcs = arcs,
	};
	char *dot = render(pv_write_dot, &r);
	double hue, width;
	int dashed = 0, half_dashed = 1;
	int found = edge_look(dot, "f1 -> f2 ", &hue, &width, &dashed) &&
		    edge_look(dot, "f0 -> f3 ", &hue, &width, &half_dashed);
	tap_ok(found && dashed && !half_dashed,
	       "inlined: an arc whose every call was inlined is dashed, one with some is not");
	tap_ok(dot && strstr(dot, "f1 -> f2 [label=\"  20.00%\\l  23.5% of caller\\l  100\xc3\x97, "
				   "inlined\\l\"") && strstr(dot, "its calls inlined into the caller"),
	       "inlined: its label says so, and its tooltip");
	tap_ok(dot && strstr(dot, "f0 -> f3 [label=\"  29.80%\\l  29.8% of caller\\l  "
				   "3\xc3\x97 (2 inlined)\\l\""),
	       "inlined: an arc with some says how many");
	char *kind = node_line(dot, 2), *half = node_line(dot, 3);
	tap_ok(kind && strstr(kind, "\\n150\xc3\x97\\ninlined into f and 1 other\"") &&
		       strstr(kind, "every call inlined into f and 1 other: their self counts "
				    "there"),
	       "inlined: a function inlined everywhere says into what, in its box and on hover");
	tap_ok(half && !strstr(half, "\\ninlined") &&
		       strstr(half, "\\n2 of its calls inlined into main: "),
	       "inlined: one called for real too says so on hover only");
	tap_ok(dot && strstr(dot, "\\ldashed arc, 'inlined': calls the compiler inlined, whose "
				   "self counts in the caller's, the code they ran in\\l"),
	       "inlined: the legend says what a dashed 'inlined' arc is");
	/* Its total judges it, as any function: an inlined leaf is often
	 * called a lot for little. */
	tap_ok(dot && !node_line(dot, 5) && !strstr(dot, "-> f5 ") &&
		       strstr(dot, "hidden: 1 function (0.00% self), 1 arc"),
	       "inlined: one under the thresholds is hidden, its arc too, as any function");
	free(kind);
	free(half);
	free(dot);

	for (int i = 0; i < 7; i++)
		arcs[i].inlined_calls = 0;
	for (int i = 0; i < 6; i++)
		funcs[i].inlined_calls = 0;
	dot = render(pv_write_dot, &r);
	tap_ok(dot && !strstr(dot, "inlined") && edge_look(dot, "f1 -> f2 ", &hue, &width, &dashed) &&
		       !dashed,
	       "inlined: none in the profile, none said, nothing dashed");
	free(dot);
}

int main(void)
{
	struct pv_event_desc events[2];
	pv_event_describe(&events[0], "cycles", PV_EVENT_CYCLES, "rdpmc");
	pv_event_describe(&events[1], "instructions", PV_EVENT_COUNT, "rdpmc");

	struct pv_rfunc funcs[2];
	memset(funcs, 0, sizeof(funcs));
	funcs[0] = (struct pv_rfunc){ .id = 0, .calls = 1, .self = { 200, 500 },
				      .total = { 1000, 2000 } };
	funcs[0].sym.name = "main";
	funcs[0].sym.module = "/bin/prog";
	funcs[1] = (struct pv_rfunc){ .id = 1, .calls = 7, .self = { 800, 1500 },
				      .total = { 800, 1500 } };
	funcs[1].sym.name = "ns::f<\"q\"&\\x>(int)";
	funcs[1].sym.module = "/lib/libx.so";
	struct pv_rarc arcs[2] = {
		{ .caller = -1, .callee = 0, .calls = 1, .total = { 1000, 2000 } },
		{ .caller = 0, .callee = 1, .calls = 7, .total = { 800, 1500 } },
	};
	struct pv_rpath paths[2] = {
		{ .parent = -1, .func = 0, .calls = 1, .self = { 200, 500 } },
		{ .parent = 0, .func = 1, .calls = 7, .self = { 800, 1500 } },
	};
	struct pv_report r = {
		.program = "/bin/prog", .pid = 42, .nev = 2, .events = events,
		.multiplexed = { 1.0, 0.5 }, .run_total = { 1000, 2000 }, .threads = 1,
		.node_threshold = 0.5, .edge_threshold = 0.1, .n_funcs = 2, .n_arcs = 2,
		.funcs = funcs, .arcs = arcs, .n_paths = 2, .paths = paths,
	};

	char *dot = render(pv_write_dot, &r);
	tap_ok(dot != NULL, "dot written");
	tap_ok(dot && strstr(dot, "\\nIPC 2.00\"") != NULL, "IPC shown with cycles and instructions");
	tap_ok(dot && strstr(dot, "\\nIPC 1.88\"") != NULL, "IPC per function (1500/800)");
	tap_ok(dot && strstr(dot, "instructions counted 50.0% of the time (scaled)") != NULL,
	       "a multiplexed event is flagged in the graph's label");
	tap_ok(dot && strstr(dot, "ns::f<\\\"q\\\"&\\\\x>(int)") != NULL,
	       "quotes and backslashes escaped in labels");
	tap_ok(dot && strstr(dot, "[libx.so]\\n") != NULL, "a library function shows its module");
	tap_ok(dot && strstr(dot, "instructions: 75.00% (75.00%)") != NULL,
	       "the second event's shares in the box");
	tap_ok(dot && strstr(dot, "f0 -> f1 [label=\"  80.00%\\l  80.0% of caller\\l  7") != NULL,
	       "arc labelled with its share of the run, then of its caller's total");
	free(dot);

	char *json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"running_ratio\":[1,0.5]") != NULL, "JSON: running ratios");
	tap_ok(json && strstr(json, "\"backends\":[\"rdpmc\",\"rdpmc\"]") != NULL,
	       "JSON: each event's backend");
	tap_ok(json && strstr(json, "\"name\":\"ns::f<\\\"q\\\"&\\\\x>(int)\"") != NULL,
	       "JSON: names escaped");
	tap_ok(json && strstr(json, "\"losses\":{\"unrecorded_calls\":0,\"merge_failures\":0,"
				    "\"lost_records\":0,\"counters_lost\":0,"
				    "\"rekeys_incomplete\":0,\"threads_cut_short\":0,"
				    "\"threads_shared\":0,\"contexts_unplaced\":0,"
				    "\"catches_in_bodies\":0}") != NULL,
	       "JSON: a complete profile says it lost nothing");
	free(json);

	messages_capture();
	messages_clear();
	pv_report_warn_losses(&r);
	tap_is(n_messages, 0, "losses: nothing said of a complete profile");
	r.losses.unrecorded_calls = 3;
	r.losses.counters_lost = 1;
	r.lost_records = 2;
	pv_report_warn_losses(&r);
	tap_is(n_messages, 1, "losses: one line on stderr");
	tap_ok(!strcmp(messages[0], "profviz: the profile is incomplete: 3 calls unrecorded (by "
		       "signal handlers that ran inside profviz's own work, or for lack of memory "
		       "or stack depth), 2 arcs or call paths left out without their functions, 1 "
		       "threads' events lost (closed by the program and not reopened)"),
	       "losses: the line says what is missing, and only that");
	char *lossy_dot = render(pv_write_dot, &r);
	tap_ok(lossy_dot && strstr(lossy_dot, "\\lthe profile is incomplete: 3 calls unrecorded (") &&
		       strstr(lossy_dot, "2 arcs or call paths left out"),
	       "losses: the graph's caption says them too");
	free(lossy_dot);
	json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"losses\":{\"unrecorded_calls\":3,\"merge_failures\":0,"
				    "\"lost_records\":2,\"counters_lost\":1,"
				    "\"rekeys_incomplete\":0,\"threads_cut_short\":0,"
				    "\"threads_shared\":0,\"contexts_unplaced\":0,"
				    "\"catches_in_bodies\":0}") != NULL,
	       "JSON: the losses, each counted");
	r.losses.rekeys_incomplete = 4;
	messages_clear();
	pv_report_warn_losses(&r);
	tap_ok(n_messages == 1 && strstr(messages[0], "reopened), 4 threads' calls into an "
					 "unloaded object not told apart from a later one's"),
	       "losses: re-keyings that gave up are said too");
	free(json);
	json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"rekeys_incomplete\":4,") != NULL,
	       "JSON: ... and counted");
	free(json);
	r.losses.threads_cut_short = 2;
	struct pv_rthread one = { .tid = 7, .calls = 1, .cut_short = 1 };
	r.thread_list = &one;
	r.n_thread_list = 1;
	messages_clear();
	pv_report_warn_losses(&r);
	tap_ok(n_messages == 1 && strstr(messages[0], "unloaded object not told apart from a "
					 "later one's, 2 threads still running whose events could "
					 "not be read at the end (their open calls' costs stop at "
					 "their last hook)"),
	       "losses: threads cut short are said too");
	json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"threads_cut_short\":2,") != NULL &&
		       strstr(json, "\"cut_short\":true}") != NULL,
	       "JSON: ... counted, and the thread marked");
	free(json);
	r.losses.threads_shared = 1;
	char said[2048];
	tap_ok(pv_report_losses_text(&r, said, sizeof(said)) &&
		       strstr(said, "their last hook), 1 threads that made a clone(2) share "
				    "their TLS (CLONE_VM without CLONE_SETTLS): nothing recorded "
				    "on them after it"),
	       "losses: threads whose TLS a clone shares are said too, whole");
	json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"threads_shared\":1,") != NULL, "JSON: ... and counted");
	free(json);
	r.thread_list = NULL;
	r.n_thread_list = 0;
	memset(&r.losses, 0, sizeof(r.losses));
	r.lost_records = 0;

	char *folded = render(pv_write_folded, &r);
	tap_ok(folded && !strcmp(folded, "main 200\nmain;ns::f<\"q\"&\\x>(int) 800\n"),
	       "folded: one line per path, first event's self");
	free(folded);

	amounts_in_units();
	arcs_by_share_of_run(events);
	sampled_graph();
	inlined_graph(events);
	return tap_done();
}
