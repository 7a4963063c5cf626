/* SPDX-License-Identifier: MIT */
/*
 * dot.c — `profviz dot`: the call graph of a saved profile again, with
 * other thresholds, a cap on its boxes, only the part around one
 * function, or the waits inside its shares. The graph is the runtime's own
 * writer's.
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
	"                   [--nodes N] [--self-colour] [--event NAME] [--waits HOW]\n"
	"                   [--thread NAME] [-o OUT.dot] PROFILE.json\n"
	"The call graph, to OUT.dot or standard output.\n"
	"  -n, --node-threshold P  hide functions under P% of the run (default 0.5)\n"
	"  -e, --edge-threshold P  hide arcs under P% of the run (default 0.1)\n"
	"  --focus FUNC   FUNC, its callees, and its callers with only what they spend\n"
	"                 through it; shares are of FUNC's total\n"
	"  --root FUNC    FUNC and what runs below it; shares are of FUNC's total\n"
	"  --depth N      N levels of callees below FUNC (or below the program's roots)\n"
	"  --nodes N      at most the N hottest functions (default "
	PV_TEXT(PV_DEFAULT_MAX_NODES) "; 0: no cap)\n"
	"  --self-colour  colour boxes by self share, to find where time is spent\n"
	"  --event NAME   the graph in another of the run's events (default: its first)\n"
	PV_WAITS_USAGE
	"  --thread NAME  the threads whose name holds NAME alone (main: the main\n"
	"                 thread); the caption lists the names\n"
	"  -o OUT.dot     write there (atomically) instead of standard output\n"
	"FUNC: a function's whole name, its name without parameters, its name as a box\n"
	"shows it (Map<...>::find), a part of one function's name only, or a /regex/\n"
	"(POSIX extended) matching one function;\n"
	"when it finds none or several, the nearest are listed.\n";

void pv_help_dot(FILE *out)
{
	fputs(usage, out);
}

/* What profviz dot was asked. */
struct dot_options {
	double node, edge;
	unsigned long depth, nodes;
	const char *focus, *root, *output, *event, *path, *thread;
	int self_colour, waits_inside;
};

static enum pv_parsed parse_options(int argc, char **argv, struct dot_options *o)
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
		{ "waits", required_argument, NULL, 'w' },
		{ "thread", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	*o = (struct dot_options){ .node = PV_DEFAULT_NODE_THRESHOLD,
				   .edge = PV_DEFAULT_EDGE_THRESHOLD,
				   .nodes = PV_DEFAULT_MAX_NODES };
	int opt;
	while ((opt = getopt_long(argc, argv, "n:e:o:h", longs, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'n': bad = pv_arg_percent("-n", optarg, &o->node); break;
		case 'e': bad = pv_arg_percent("-e", optarg, &o->edge); break;
		case 'f': o->focus = optarg; break;
		case 'r': o->root = optarg; break;
		case 'd': bad = pv_arg_count("--depth", optarg, &o->depth); break;
		case 'N': bad = pv_arg_count("--nodes", optarg, &o->nodes); break;
		case 's': o->self_colour = 1; break;
		case 'E': o->event = optarg; break;
		case 'w': bad = pv_arg_waits(optarg, &o->waits_inside); break;
		case 'T': o->thread = optarg; break;
		case 'o': o->output = optarg; break;
		case 'h': pv_help_dot(stdout); return PV_HELPED;
		default: bad = 1; fputs(usage, stderr); break;
		}
		if (bad)
			return PV_BAD_USAGE;
	}
	if (optind + 1 != argc || (o->focus && o->root)) {
		fputs(o->focus && o->root ? "profviz dot: --focus or --root, not both\n" : usage,
		      stderr);
		return PV_BAD_USAGE;
	}
	const struct pv_format *format = o->output ? pv_output_format_of(o->output) : NULL;
	if (o->output && (!format || strcmp(format->extension, ".dot"))) {
		fprintf(stderr, "profviz dot: -o %s: a graph goes to a .dot file (profviz convert "
			"writes the other formats)\n", o->output);
		return PV_BAD_USAGE;
	}
	o->path = argv[optind];
	return PV_PARSED;
}

/* The graph of shown as asked, to -o's file or standard output. */
static int write_graph(struct pv_report *shown, const struct dot_options *o)
{
	shown->node_threshold = o->node;
	shown->edge_threshold = o->edge;
	shown->max_nodes = (unsigned)o->nodes;
	shown->colour_by_self = o->self_colour;
	int failed = o->output ? pv_output_write_file(o->output, pv_write_dot, shown)
			       : pv_write_dot(stdout, shown) | fflush(stdout);
	return failed ? PV_EXIT_TROUBLE : 0;
}

int pv_cmd_dot(int argc, char **argv)
{
	struct dot_options o;
	enum pv_parsed parsed = parse_options(argc, argv, &o);
	if (parsed != PV_PARSED)
		return parsed == PV_HELPED ? 0 : PV_EXIT_TROUBLE;
	struct pv_loaded l;
	if (pv_load(o.path, &l) < 0)
		return PV_EXIT_TROUBLE;
	int status = PV_EXIT_TROUBLE;
	struct pv_report part, *shown;
	struct pv_view_asked asked = { o.focus, o.root, o.depth, o.event, o.waits_inside,
				       o.thread };
	if (pv_view_asked_show(&part, &l, &asked, "dot", &shown) == 0) {
		status = write_graph(shown, &o);
		pv_view_asked_free(&part, shown);
	}
	pv_loaded_free(&l);
	return status;
}
