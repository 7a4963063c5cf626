/* The writers on a report made by hand: what only a PMU would produce here
 * (IPC from cycles and instructions, a multiplexed event), and names that
 * need escaping. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tap.h"

static char *render(pv_writer_fn *writer, const struct pv_report *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	int rc = writer(out, r);
	fclose(out);
	if (rc != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int main(void)
{
	struct pv_event events[2];
	memset(events, 0, sizeof(events));
	strcpy(events[0].name, "cycles");
	events[0].type = PERF_TYPE_HARDWARE;
	events[0].backend = PV_BACKEND_RDPMC;
	strcpy(events[1].name, "instructions");
	events[1].type = PERF_TYPE_HARDWARE;
	events[1].config = PERF_COUNT_HW_INSTRUCTIONS;
	events[1].backend = PV_BACKEND_RDPMC;

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
	tap_ok(dot && strstr(dot, "f0 -> f1 [label=\"  80.00%\\l  7") != NULL,
	       "arc labelled with the share of its caller's total");
	free(dot);

	char *json = render(pv_write_json, &r);
	tap_ok(json && strstr(json, "\"running_ratio\":[1,0.5]") != NULL, "JSON: running ratios");
	tap_ok(json && strstr(json, "\"backends\":[\"rdpmc\",\"rdpmc\"]") != NULL,
	       "JSON: each event's backend");
	tap_ok(json && strstr(json, "\"name\":\"ns::f<\\\"q\\\"&\\\\x>(int)\"") != NULL,
	       "JSON: names escaped");
	free(json);

	char *folded = render(pv_write_folded, &r);
	tap_ok(folded && !strcmp(folded, "main 200\nmain;ns::f<\"q\"&\\x>(int) 800\n"),
	       "folded: one line per path, first event's self");
	free(folded);
	return tap_done();
}
