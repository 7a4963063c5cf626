/* SPDX-License-Identifier: MIT */
/*
 * diff.c — `profviz diff`: what changed between two runs (A before, B
 * after), as one call graph for graphviz coloured by the change (the
 * matching and the figures: model/diff.c; the graph: output/diffdot.c) and
 * as a table of the largest changes, printed here.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "cmd/cmd.h"
#include "cmd/part.h"
#include "model/diff.h"
#include "output/diffdot.h"
#include "output/dotstyle.h"
#include "output/file.h"

static const char usage[] =
	"usage: profviz diff [--normalize] [-n NODE%] [-e EDGE%] [--nodes N] [-o OUT.dot]\n"
	"                    [--report] [--top N] [--waits HOW] BEFORE.json AFTER.json\n"
	"One call graph of what changed from BEFORE (A) to AFTER (B): red boxes and\n"
	"arcs cost more in B, blue ones less, grey ones the same (within 0.1 points);\n"
	"a bold box marked \"new\" is only in B, a dashed one marked \"removed\" only\n"
	"in A. A box shows B's total % (self %), the change in points and of its own\n"
	"total, and the calls in A -> B. Percentages are of A's run total. Functions\n"
	"are matched by their module's file name and their name, not by address; the\n"
	"program's own by their name alone, whatever each build's file is named.\n"
	"The graph goes to standard output, or to OUT.dot with -o; the table of the\n"
	"largest changes goes to standard output with --report, or whenever -o is\n"
	"given (--report alone: the table only).\n"
	"  --normalize             scale A's costs so that its total is B's, to see\n"
	"                          shares move rather than the whole run's change\n"
	"  -n, --node-threshold P  hide functions under P% in both runs (default 0.5)\n"
	"  -e, --edge-threshold P  hide arcs under P% in both runs (default 0.1)\n"
	"  --nodes N               at most the N largest functions (default "
	PV_TEXT(PV_DEFAULT_MAX_NODES) "; 0: all)\n"
	"  -o OUT.dot              write the graph there (atomically)\n"
	"  --report                the table of the largest changes\n"
	"  --top N                 rows of the table (default 25; 0: all)\n"
	"  --waits HOW             apart (default): the work compared, libc's waits left\n"
	"                          out, as report and dot take them apart; in: the\n"
	"                          waits compared with the work\n"
	"Both profiles must have the same events; the first one is compared.\n";

void pv_help_diff(FILE *out)
{
	fputs(usage, out);
}

struct diff_options {
	struct pv_diff_limits limits;
	const char *output; /* the graph's file, or NULL */
	int report;         /* the table of the largest changes */
	unsigned top;       /* its rows; 0: all */
	int waits_inside;   /* --waits in */
	const char *before, *after;
};

static enum pv_parsed parse_options(int argc, char **argv, struct diff_options *o)
{
	static const struct option longs[] = {
		{ "normalize", no_argument, NULL, 'N' },
		{ "normalise", no_argument, NULL, 'N' },
		{ "node-threshold", required_argument, NULL, 'n' },
		{ "edge-threshold", required_argument, NULL, 'e' },
		{ "nodes", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "report", no_argument, NULL, 'r' },
		{ "top", required_argument, NULL, 't' },
		{ "waits", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long max_nodes = PV_DEFAULT_MAX_NODES, top = 25;
	*o = (struct diff_options){ .limits = { .node_min = PV_DEFAULT_NODE_THRESHOLD,
						.edge_min = PV_DEFAULT_EDGE_THRESHOLD } };
	int opt;
	while ((opt = getopt_long(argc, argv, "n:e:o:h", longs, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'N': o->limits.normalize = 1; break;
		case 'n': bad = pv_arg_percent("-n", optarg, &o->limits.node_min); break;
		case 'e': bad = pv_arg_percent("-e", optarg, &o->limits.edge_min); break;
		case 'c': bad = pv_arg_count("--nodes", optarg, &max_nodes); break;
		case 't': bad = pv_arg_count("--top", optarg, &top); break;
		case 'o': o->output = optarg; break;
		case 'r': o->report = 1; break;
		case 'w': bad = pv_arg_waits(optarg, &o->waits_inside); break;
		case 'h': pv_help_diff(stdout); return PV_HELPED;
		default: bad = 1; fputs(usage, stderr); break;
		}
		if (bad)
			return PV_BAD_USAGE;
	}
	if (optind + 2 != argc) {
		fputs(usage, stderr);
		return PV_BAD_USAGE;
	}
	const struct pv_format *format = o->output ? pv_output_format_of(o->output) : NULL;
	if (o->output && (!format || strcmp(format->extension, ".dot"))) {
		fprintf(stderr, "profviz diff: -o %s: the graph goes to a .dot file\n", o->output);
		return PV_BAD_USAGE;
	}
	o->limits.max_nodes = (unsigned)max_nodes;
	o->top = (unsigned)top;
	o->before = argv[optind];
	o->after = argv[optind + 1];
	return PV_PARSED;
}

/* Both profiles, counting the same events. 0, or -1 after a message. */
static int load_both(const struct diff_options *o, struct pv_loaded *a, struct pv_loaded *b)
{
	if (pv_load(o->before, a) < 0)
		return -1;
	if (pv_load(o->after, b) < 0) {
		pv_loaded_free(a);
		return -1;
	}
	if (!pv_same_events(a, b, "diff")) {
		pv_loaded_free(a);
		pv_loaded_free(b);
		return -1;
	}
	return 0;
}

static void warn_if_compensation_differs(const struct diff_options *o, const struct pv_diff *d)
{
	if (d->a.compensated != d->b.compensated)
		fprintf(stderr, "profviz diff: warning: only %s had the hooks' own cost taken "
			"out: the two do not compare exactly\n",
			d->a.compensated ? o->before : o->after);
}

/* ---- the table ---- */

static void print_runs(const struct pv_diff *d, const char *from_a, const char *from_b)
{
	const struct pv_report *ra = &d->a, *rb = &d->b;
	const struct pv_event_desc *e = &rb->events[0];
	struct pv_diff_change run = pv_diff_change_of(d, ra->run_total[0], rb->run_total[0]);
	printf("A (before): %s, %s pid %d, total ", from_a, ra->program, ra->pid);
	pv_dot_amount(stdout, (double)ra->run_total[0], e);
	printf("\nB (after):  %s, %s pid %d, total ", from_b, rb->program, rb->pid);
	pv_dot_amount(stdout, (double)rb->run_total[0], e);
	if (ra->run_total[0])
		printf(" (%+.1f%%)", 100 * ((double)rb->run_total[0] / (double)ra->run_total[0] - 1));
	printf("\nevent %s [%s]; ", e->name, pv_event_unit(e));
	if (d->scale != 1)
		printf("normalized: A scaled by %.4f to B's total; percentages of that total\n",
		       d->scale);
	else
		printf("percentages of A's total (run: %+.2f pts)\n", run.points);
}

static void print_row(const struct pv_diff *d, const struct pv_diff_func *f)
{
	struct pv_diff_change c = pv_diff_change_of(d, f->a.total, f->b.total);
	char own[16], calls[48];
	if (!f->a.present)
		snprintf(own, sizeof(own), "new");
	else if (!f->b.present)
		snprintf(own, sizeof(own), "removed");
	else if (!f->a.total) /* no own figure to change from */
		snprintf(own, sizeof(own), "-");
	else
		snprintf(own, sizeof(own), "%+.0f%%", c.own);
	snprintf(calls, sizeof(calls), "%" PRIu64 " -> %" PRIu64, f->a.calls, f->b.calls);
	printf("%+7.2f pts %7.2f%% %7.2f%% %8s %15s  %s\n", c.points, c.share_a, c.share_b, own,
	       calls, f->f->sym.name);
}

/* The runs, then the top functions whose total changed, the largest change
 * first. 0, or -1 when memory ran out. */
static int print_report(const struct pv_diff *d, const char *from_a, const char *from_b,
			unsigned top)
{
	print_runs(d, from_a, from_b);
	int *order = malloc((d->n_funcs ? d->n_funcs : 1) * sizeof(*order));
	if (!order)
		return -1;
	unsigned n = pv_diff_changed(d, order);
	if (!n)
		printf("\nno function's total changed by %.1f points or more\n", PV_DIFF_UNCHANGED);
	else
		printf("\n%11s %8s %8s %8s %15s  function\n", "change", "A", "B", "own",
		       "calls A -> B");
	unsigned rows = top && top < n ? top : n;
	for (unsigned k = 0; k < rows; k++)
		print_row(d, &d->funcs[order[k]]);
	if (rows < n)
		printf("... %u more changed (--top 0 for all)\n", n - rows);
	free(order);
	return 0;
}

/* ---- the graph ---- */

/* The graph as pv_output_write_file writes it: a writer takes a report, so
 * the diff rides behind one. */
struct graph_job {
	struct pv_report r; /* first: the writer is handed &job->r */
	const struct pv_diff *d;
	const char *from_a, *from_b;
};

static int write_graph_job(FILE *out, const struct pv_report *r)
{
	const struct graph_job *job = (const struct graph_job *)r;
	return pv_write_diff_dot(out, job->d, job->from_a, job->from_b);
}

/* The graph to -o's file, else to standard output unless only the table
 * was asked for; the table with --report or -o. The exit status. */
static int write_results(const struct diff_options *o, const struct pv_diff *d,
			 const char *from_a, const char *from_b)
{
	int status = 0;
	if (o->output) {
		struct graph_job job = { d->b, d, from_a, from_b };
		if (pv_output_write_file(o->output, write_graph_job, &job.r) < 0)
			status = PV_EXIT_TROUBLE;
	} else if (!o->report && pv_write_diff_dot(stdout, d, from_a, from_b) < 0) {
		status = PV_EXIT_TROUBLE;
	}
	if ((o->output || o->report) && print_report(d, from_a, from_b, o->top) < 0) {
		fprintf(stderr, "profviz diff: out of memory\n");
		return PV_EXIT_TROUBLE;
	}
	if (fflush(stdout))
		status = PV_EXIT_TROUBLE;
	return status;
}

/* Two builds of one program are matched by function name (model/diff.h):
 * say so when their files are named differently. */
static void note_if_programs_differ(const struct pv_loaded *a, const struct pv_loaded *b)
{
	const char *pa = a->r.program ? pv_path_base(a->r.program) : "";
	const char *pb = b->r.program ? pv_path_base(b->r.program) : "";
	if (strcmp(pa, pb))
		fprintf(stderr, "profviz diff: A ran %s and B %s: their own functions are "
			"matched by name\n", pa, pb);
}

int pv_cmd_diff(int argc, char **argv)
{
	struct diff_options o;
	enum pv_parsed parsed = parse_options(argc, argv, &o);
	if (parsed != PV_PARSED)
		return parsed == PV_HELPED ? 0 : PV_EXIT_TROUBLE;
	struct pv_loaded a, b;
	if (load_both(&o, &a, &b) < 0)
		return PV_EXIT_TROUBLE;
	note_if_programs_differ(&a, &b);
	int status = PV_EXIT_TROUBLE;
	/* Each run as report and dot show it: its waits apart unless --waits in. */
	struct pv_view_asked asked_a = { .waits_inside = o.waits_inside }, asked_b = asked_a;
	struct pv_report part_a, part_b, *shown_a = NULL, *shown_b = NULL;
	struct pv_diff d;
	if (pv_view_asked_show(&part_a, &a, &asked_a, "diff", &shown_a) < 0)
		goto out;
	if (pv_view_asked_show(&part_b, &b, &asked_b, "diff", &shown_b) < 0)
		goto out;
	if (pv_diff_build(&d, shown_a, shown_b, &o.limits) < 0) {
		fprintf(stderr, "profviz diff: out of memory\n");
	} else {
		warn_if_compensation_differs(&o, &d);
		status = write_results(&o, &d, a.path, b.path);
		pv_diff_free(&d);
	}
out:
	if (shown_b)
		pv_view_asked_free(&part_b, shown_b);
	if (shown_a)
		pv_view_asked_free(&part_a, shown_a);
	pv_loaded_free(&a);
	pv_loaded_free(&b);
	return status;
}
