/* SPDX-License-Identifier: MIT */
/*
 * dot.c — `profviz dot`: the call graph of a saved profile again, with
 * other thresholds, a cap on its boxes, or only the part around one
 * function. The graph is the runtime's own writer's.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/file.h"
#include "cmd/part.h"
#include "model/view.h"

static const char usage[] =
	"usage: profviz dot [-n NODE%] [-e EDGE%] [--focus FUNC | --root FUNC] [--depth N]\n"
	"                   [--nodes N] [--self-colour] [--event NAME] [-o OUT.dot] PROFILE.json\n"
	"The call graph, to OUT.dot or standard output.\n"
	"  -n, --node-threshold P  hide functions under P% of the run (default 0.5)\n"
	"  -e, --edge-threshold P  hide arcs under P% of the run (default 0.1)\n"
	"  --focus FUNC   FUNC, its callees, and its callers with only what they spend\n"
	"                 through it; shares are of FUNC's total\n"
	"  --root FUNC    FUNC and what runs below it; shares are of FUNC's total\n"
	"  --depth N      N levels of callees below FUNC (or below the program's roots)\n"
	"  --nodes N      at most the N hottest functions (default 80; 0: no cap)\n"
	"  --self-colour  colour boxes by self share, to find where time is spent\n"
	"  --event NAME   the graph in another of the run's events (default: its first)\n"
	"  -o OUT.dot     write there (atomically) instead of standard output\n"
	"FUNC is a function's whole name, or its name without parameters.\n";

int pv_cmd_dot(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "node-threshold", required_argument, NULL, 'n' },
		{ "edge-threshold", required_argument, NULL, 'e' },
		{ "focus", required_argument, NULL, 'f' },
		{ "root", required_argument, NULL, 'r' },
		{ "depth", required_argument, NULL, 'd' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "self-colour", no_argument, NULL, 's' },
		{ "self-color", no_argument, NULL, 's' },
		{ "event", required_argument, NULL, 'E' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double node = PV_DEFAULT_NODE_THRESHOLD, edge = PV_DEFAULT_EDGE_THRESHOLD;
	unsigned long depth = 0, nodes = PV_DEFAULT_NODES;
	const char *focus = NULL, *root = NULL, *output = NULL, *event = NULL;
	int self_colour = 0, opt;
	while ((opt = getopt_long(argc, argv, "n:e:o:h", longs, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'n': bad = pv_arg_percent("-n", optarg, &node); break;
		case 'e': bad = pv_arg_percent("-e", optarg, &edge); break;
		case 'f': focus = optarg; break;
		case 'r': root = optarg; break;
		case 'd': bad = pv_arg_count("--depth", optarg, &depth); break;
		case 'N': bad = pv_arg_count("--nodes", optarg, &nodes); break;
		case 's': self_colour = 1; break;
		case 'E': event = optarg; break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: bad = 1; fputs(usage, stderr); break;
		}
		if (bad)
			return PV_EXIT_TROUBLE;
	}
	if (optind + 1 != argc || (focus && root)) {
		fputs(focus && root ? "profviz dot: --focus or --root, not both\n" : usage, stderr);
		return PV_EXIT_TROUBLE;
	}
	if (output && strcmp(pv_output_format_of(output) ? pv_output_format_of(output)->extension
							 : "", ".dot")) {
		fprintf(stderr, "profviz dot: -o %s: a graph goes to a .dot file (profviz convert "
			"writes the other formats)\n", output);
		return PV_EXIT_TROUBLE;
	}
	const char *path = argv[optind];
	struct pv_loaded l;
	if (pv_load(path, &l) < 0)
		return PV_EXIT_TROUBLE;

	if (event && pv_lead_with_event(&l, event) < 0) {
		pv_loaded_free(&l);
		return PV_EXIT_TROUBLE;
	}
	struct pv_report part, *shown = &l.r;
	int status = PV_EXIT_TROUBLE;
	struct pv_view_asked asked = { focus, root, depth, event };
	if (focus || root || depth) {
		if (pv_view_asked_build(&part, &l, &asked, "dot") < 0)
			goto out;
		shown = &part;
	}
	shown->view_options = pv_view_asked_options(&asked);
	shown->node_threshold = node;
	shown->edge_threshold = edge;
	shown->max_nodes = (unsigned)nodes;
	shown->colour_by_self = self_colour;
	int failed = output ? pv_output_write_file(output, pv_write_dot, shown)
			    : pv_write_dot(stdout, shown) | fflush(stdout);
	status = failed ? PV_EXIT_TROUBLE : 0;
	if (shown == &part)
		pv_report_free(&part);
out:
	pv_loaded_free(&l);
	return status;
}
