/*
 * diff.c — `profviz diff`: what changed between two runs (A before, B
 * after), as one call graph for graphviz coloured by the change — red where
 * B spends more, blue where it spends less, grey where it spends the same —
 * and as a table of the largest changes. Functions are matched by their
 * module's file name and their own name, so that a rebuilt program, loaded
 * elsewhere, still matches. The boxes look as lib/dot.c's do.
 *
 * Every percentage is of one reference total, A's run (A's scaled to B's
 * total with --normalize), so that A's share plus the change is B's share.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/pairs.h"
#include "output/dotstyle.h"
#include "model/copies.h"
#include "output/file.h"
#include "base/paths.h"
#include "base/htab.h"

static const char usage[] =
	"usage: profviz diff [--normalize] [-n NODE%] [-e EDGE%] [--nodes N] [-o OUT.dot]\n"
	"                    [--report] [--top N] BEFORE.json AFTER.json\n"
	"One call graph of what changed from BEFORE (A) to AFTER (B): red boxes and\n"
	"arcs cost more in B, blue ones less, grey ones the same (within 0.1 points);\n"
	"a bold box marked \"new\" is only in B, a dashed one marked \"removed\" only\n"
	"in A. A box shows B's total % (self %), the change in points and of its own\n"
	"total, and the calls in A -> B. Percentages are of A's run total. Functions\n"
	"are matched by their module's file name and their name, not by address.\n"
	"The graph goes to standard output, or to OUT.dot with -o; the table of the\n"
	"largest changes goes to standard output with --report, or whenever -o is\n"
	"given (--report alone: the table only).\n"
	"  --normalize             scale A's costs so that its total is B's, to see\n"
	"                          shares move rather than the whole run's change\n"
	"  -n, --node-threshold P  hide functions under P% in both runs (default 0.5)\n"
	"  -e, --edge-threshold P  hide arcs under P% in both runs (default 0.1)\n"
	"  --nodes N               at most the N largest functions (default 80; 0: all)\n"
	"  -o OUT.dot              write the graph there (atomically)\n"
	"  --report                the table of the largest changes\n"
	"  --top N                 rows of the table (default 25; 0: all)\n"
	"Both profiles must have the same events; the first one is compared.\n";

#define PV_DIFF_UNCHANGED 0.1 /* points: a change under this is grey, noise */
#define PV_DIFF_NAME_MAX 160

/* One side of a function or an arc: its figures in one run (first event). */
struct side {
	int present;
	uint64_t calls, nested, self, total;
};

struct node {
	const struct pv_rfunc *f; /* B's when it has it: names, file and tooltip */
	struct side a, b;
	double weight;            /* max(share in A, share in B), percent */
	int shown;
};

struct edge {
	int caller, callee; /* node indexes; caller -1: from uninstrumented code */
	struct side a, b;
};

struct name_entry {
	char *key; /* the module's file name, then the function's name */
	size_t len;
	int index;
	UT_hash_handle hh;
};

struct diff {
	const struct pv_loaded *a, *b;
	const struct pv_report *va, *vb; /* copies merged */
	double scale;     /* A's costs times this: 1, or B's run over A's with --normalize */
	double reference; /* the total percentages are of: A's run, scaled */
	struct node *nodes;
	unsigned n_nodes;
	struct edge *edges;
	unsigned n_edges;
	struct name_entry *names;
	struct pv_pair *pairs;
	double colour_scale; /* points at which a colour is at its deepest */
	unsigned hidden_nodes, hidden_edges, capped;
};

/* The change of one function or arc, in percent of the reference total. */
struct change {
	double share_a, share_b, points;
	double own; /* percent of A's own figure; meaningless when A has none */
};

static struct change change_of(const struct diff *d, uint64_t a, uint64_t b)
{
	struct change c;
	double scaled_a = d->scale * (double)a;
	c.share_a = 100 * scaled_a / d->reference;
	c.share_b = 100 * (double)b / d->reference;
	c.points = c.share_b - c.share_a;
	c.own = a ? 100 * ((double)b - scaled_a) / scaled_a : 0;
	return c;
}

/* ---- matching ---- */

static int node_of(struct diff *d, const struct pv_rfunc *f)
{
	const char *module = pv_path_base(f->sym.module);
	size_t m = strlen(module) + 1, n = strlen(f->sym.name) + 1;
	char *key = malloc(m + n);
	if (!key)
		return -1;
	memcpy(key, module, m);
	memcpy(key + m, f->sym.name, n);
	struct name_entry *e;
	HASH_FIND(hh, d->names, key, m + n, e);
	if (e) {
		free(key);
		return e->index;
	}
	if (!(e = malloc(sizeof(*e)))) {
		free(key);
		return -1;
	}
	e->key = key;
	e->len = m + n;
	e->index = (int)d->n_nodes++;
	memset(&d->nodes[e->index], 0, sizeof(d->nodes[0]));
	d->nodes[e->index].f = f;
	HASH_ADD_KEYPTR(hh, d->names, e->key, e->len, e);
	if (!pv_htab_added(e, hh)) {
		free(key);
		free(e);
		return -1;
	}
	return e->index;
}

static int edge_of(struct diff *d, int caller, int callee)
{
	int created, slot = pv_pair_slot(&d->pairs, &d->n_edges, caller, callee, &created);
	if (slot >= 0 && created) {
		memset(&d->edges[slot], 0, sizeof(d->edges[0]));
		d->edges[slot].caller = caller;
		d->edges[slot].callee = callee;
	}
	return slot;
}

/* One run's functions and arcs into the nodes and edges; in_b: it is B. */
static int add_run(struct diff *d, const struct pv_report *r, int in_b)
{
	int *node = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*node));
	if (!node)
		return -1;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		if ((node[i] = node_of(d, f)) < 0) {
			free(node);
			return -1;
		}
		struct node *n = &d->nodes[node[i]];
		struct side *s = in_b ? &n->b : &n->a;
		if (in_b)
			n->f = f;
		s->present = 1;
		s->calls += f->calls;
		s->self += f->self[0];
		s->total += f->total[0];
	}
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		int e = edge_of(d, a->caller < 0 ? -1 : node[a->caller], node[a->callee]);
		if (e < 0) {
			free(node);
			return -1;
		}
		struct side *s = in_b ? &d->edges[e].b : &d->edges[e].a;
		s->present = 1;
		s->calls += a->calls;
		s->nested += a->nested_calls;
		s->total += a->total[0];
	}
	free(node);
	return 0;
}

static double larger_share(const struct diff *d, const struct side *a, const struct side *b)
{
	struct change c = change_of(d, a->total, b->total);
	return fmax(c.share_a, c.share_b);
}

static int by_weight(const void *x, const void *y, void *nodes)
{
	const struct node *a = (const struct node *)nodes + *(const int *)x;
	const struct node *b = (const struct node *)nodes + *(const int *)y;
	if (a->weight != b->weight)
		return a->weight < b->weight ? 1 : -1;
	return strcmp(a->f->sym.name, b->f->sym.name);
}

/* An arc all of whose calls entered an open activation of its callee. */
static int edge_nested(const struct edge *e)
{
	const struct side *s = e->b.present ? &e->b : &e->a;
	return e->caller >= 0 && s->calls > 0 && s->nested == s->calls;
}

static int edge_shown(const struct diff *d, const struct edge *e, double edge_min)
{
	if (!d->nodes[e->callee].shown || (e->caller >= 0 && !d->nodes[e->caller].shown))
		return 0;
	return edge_nested(e) || (!d->va->run_total[0] && !d->vb->run_total[0]) ||
	       larger_share(d, &e->a, &e->b) >= edge_min;
}

/* The thresholds, on the larger of a function's two shares, and the cap. */
static int select_shown(struct diff *d, double node_min, double edge_min, unsigned max_nodes)
{
	int *order = malloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (unsigned i = 0; i < d->n_nodes; i++) {
		d->nodes[i].weight = larger_share(d, &d->nodes[i].a, &d->nodes[i].b);
		order[i] = (int)i;
	}
	qsort_r(order, d->n_nodes, sizeof(*order), by_weight, d->nodes);
	unsigned shown = 0;
	int empty = !d->va->run_total[0] && !d->vb->run_total[0]; /* no share to judge by */
	d->colour_scale = 1; /* a point: smaller changes never look deep */
	for (unsigned k = 0; k < d->n_nodes; k++) {
		struct node *n = &d->nodes[order[k]];
		n->shown = empty || n->weight >= node_min;
		if (n->shown && max_nodes && shown >= max_nodes) {
			n->shown = 0;
			d->capped++;
		}
		shown += n->shown;
		d->hidden_nodes += !n->shown;
		if (n->shown)
			d->colour_scale = fmax(d->colour_scale,
					       fabs(change_of(d, n->a.total, n->b.total).points));
	}
	for (unsigned i = 0; i < d->n_edges; i++)
		d->hidden_edges += !edge_shown(d, &d->edges[i], edge_min);
	free(order);
	return 0;
}

/* ---- the graph ---- */

/* Grey for no change; red for more, blue for less (told apart without
 * red-green sight), deeper the larger the change against the largest. A
 * line (an arc) is darker than a box's fill, to be seen on white. */
static void change_colour(const struct diff *d, double points, int line, char hex[8])
{
	if (fabs(points) < PV_DIFF_UNCHANGED) {
		pv_hsl_to_hex(0, 0, line ? 0.6 : 0.85, hex);
		return;
	}
	double w = fmin(fabs(points) / d->colour_scale, 1);
	if (line)
		pv_hsl_to_hex(points > 0 ? 0 : 0.6, 0.4 + 0.5 * w, 0.62 - 0.2 * w, hex);
	else
		pv_hsl_to_hex(points > 0 ? 0 : 0.6, 0.25 + 0.65 * w, 0.82 - 0.37 * w, hex);
}

/* "+3.20 pts, +40%": the change in points of the reference, and of the
 * function's own figure in A (none for a new one). */
static void write_change(FILE *out, const struct change *c, int has_a, const char *between)
{
	fprintf(out, "%+.2f pts", fabs(c->points) < 0.005 ? 0.0 : c->points);
	if (has_a)
		fprintf(out, fabs(c->own) < 9.95 ? "%s%+.1f%%" : "%s%+.0f%%", between,
			fabs(c->own) < 0.05 ? 0.0 : c->own);
}

static void write_node(FILE *out, const struct diff *d, int id, const struct node *n)
{
	const struct pv_rfunc *f = n->f;
	struct change total = change_of(d, n->a.total, n->b.total);
	struct change self = change_of(d, n->a.self, n->b.self);
	int is_new = !n->a.present, removed = !n->b.present;
	char hex[8];
	change_colour(d, total.points, 0, hex);
	fprintf(out, "  f%d [label=\"", id);
	if (f->sym.module[0] && strcmp(pv_path_base(f->sym.module), pv_path_base(d->vb->program))) {
		fputc('[', out);
		pv_dot_text(out, pv_path_base(f->sym.module), 64);
		fputs("]\\n", out);
	}
	pv_dot_short_name(out, f->sym.name, PV_DIFF_NAME_MAX);
	if (removed)
		fprintf(out, "\\nremoved\\nwas %.2f%%\\n(%.2f%%)\\n", total.share_a, self.share_a);
	else
		fprintf(out, "%s\\n%.2f%%\\n(%.2f%%)\\n", is_new ? "\\nnew" : "", total.share_b,
			self.share_b);
	write_change(out, &total, !is_new && !removed && n->a.total, ", ");
	fprintf(out, "\\n%" PRIu64 " \xe2\x86\x92 %" PRIu64 "\xc3\x97\", fillcolor=\"%s\", "
		"fontcolor=%s", n->a.calls, n->b.calls, hex, pv_text_colour(hex));
	if (is_new)
		fputs(", style=\"filled,bold\", penwidth=3", out);
	else if (removed)
		fputs(", style=\"filled,dashed\", penwidth=2", out);
	fputs(", tooltip=\"", out);
	pv_dot_definition(out, &f->sym, 2000);
	fputs("\\ntotal ", out);
	pv_dot_amount(out, d->scale * (double)n->a.total, &d->vb->events[0]);
	fputs(" -> ", out);
	pv_dot_amount(out, (double)n->b.total, &d->vb->events[0]);
	fputs(", self ", out);
	pv_dot_amount(out, d->scale * (double)n->a.self, &d->vb->events[0]);
	fputs(" -> ", out);
	pv_dot_amount(out, (double)n->b.self, &d->vb->events[0]);
	fputs("\\nself: ", out);
	write_change(out, &self, n->a.self > 0, ", ");
	fputs("\"];\n", out);
}

static void write_edge(FILE *out, const struct diff *d, const struct edge *e)
{
	struct change c = change_of(d, e->a.total, e->b.total);
	char hex[8];
	change_colour(d, c.points, 1, hex);
	if (e->caller < 0)
		fputs("  root -> ", out);
	else
		fprintf(out, "  f%d -> ", e->caller);
	fprintf(out, "f%d [label=\"  ", e->callee);
	if (edge_nested(e))
		fputs("nested\\l  ", out);
	else if (!e->b.present)
		fprintf(out, "was %.2f%%\\l  ", c.share_a);
	else
		fprintf(out, "%.2f%%\\l  ", c.share_b);
	write_change(out, &c, e->a.present && e->b.present && e->a.total, "\\l  ");
	fprintf(out, "\\l  %" PRIu64 " \xe2\x86\x92 %" PRIu64 "\xc3\x97\\l\", color=\"%s\", "
		"fontcolor=\"%s\"", e->a.calls, e->b.calls, hex, hex);
	double width = fmax(4 * fmax(c.share_a, c.share_b) / 100, 0.5);
	fprintf(out, ", penwidth=%.2f, arrowsize=%.2f", width, 0.5 * sqrt(width) + 0.3);
	if (edge_nested(e))
		fputs(", style=dotted", out);
	else if (!e->b.present)
		fputs(", style=dashed", out);
	else if (!e->a.present)
		fputs(", style=bold", out);
	fprintf(out, ", tooltip=\"%s%.2f%% -> %.2f%% of the reference total\"];\n",
		!e->a.present ? "new: " : !e->b.present ? "removed: " : "", c.share_a, c.share_b);
}

static void write_run(FILE *out, const char *which, const struct pv_loaded *l)
{
	fprintf(out, "%s = ", which);
	pv_dot_text(out, l->path, 200);
	fputs(" (", out);
	pv_dot_text(out, pv_path_base(l->r.program), 100);
	fprintf(out, ", pid %d): total ", l->r.pid);
	pv_dot_amount(out, (double)l->r.run_total[0], &l->r.events[0]);
	fputs("\\l", out);
}

static void write_caption(FILE *out, const struct diff *d, double node, double edge,
			  unsigned max_nodes)
{
	const struct pv_report *ra = &d->a->r, *rb = &d->b->r;
	fputs("diff: ", out);
	write_run(out, "A (before)", d->a);
	write_run(out, "B (after)", d->b);
	fputs("event: ", out);
	pv_dot_text(out, rb->events[0].name, 128);
	fprintf(out, " [%s]\\l", pv_event_unit(&rb->events[0]));
	if (d->scale != 1)
		fprintf(out, "normalized: A's costs scaled by %.4f so that both totals are equal; "
			"percentages are of that total\\l", d->scale);
	else
		fputs("percentages are of A's total (--normalize scales A to B's total)\\l", out);
	if (ra->compensated != rb->compensated)
		fprintf(out, "warning: only %s had the hooks' own cost taken out\\l",
			ra->compensated ? "A" : "B");
	fputs("box: function / B's total % (self %) / change in points, and of its own "
	      "total / calls A \xe2\x86\x92 B\\l", out);
	fprintf(out, "red: costs more in B; blue: less; grey: within %.1f points; "
		"bold \\\"new\\\": only in B; dashed \\\"removed\\\": only in A\\l",
		PV_DIFF_UNCHANGED);
	fputs("functions matched by module file name and function name\\l", out);
	fprintf(out, "thresholds: nodes %g%%, arcs %g%% in A or B; hidden: %u functions, "
		"%u arcs\\l", node, edge, d->hidden_nodes, d->hidden_edges);
	if (d->capped)
		fprintf(out, "only the %u largest functions shown: %u more are above the "
			"threshold\\l", max_nodes, d->capped);
}

static void write_root(FILE *out, const struct diff *d)
{
	struct change c = change_of(d, d->va->run_total[0], d->vb->run_total[0]);
	char hex[8];
	change_colour(d, c.points, 0, hex);
	fputs("  root [label=\"", out);
	pv_dot_text(out, pv_path_base(d->vb->program), PV_DIFF_NAME_MAX);
	fprintf(out, " (program)\\n%.2f%%\\n", c.share_b);
	write_change(out, &c, 1, ", ");
	fputs("\\n", out);
	pv_dot_amount(out, d->scale * (double)d->va->run_total[0], &d->vb->events[0]);
	fputs(" \xe2\x86\x92 ", out);
	pv_dot_amount(out, (double)d->vb->run_total[0], &d->vb->events[0]);
	fprintf(out, "\", shape=oval, fillcolor=\"%s\", fontcolor=%s, tooltip=\"calls from "
		"outside instrumented code\"];\n", hex, pv_text_colour(hex));
}

static int write_graph(FILE *out, const struct diff *d, double node, double edge,
		       unsigned max_nodes)
{
	fputs("digraph profviz_diff {\n", out);
	fputs("  graph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25, labelloc=t, "
	      "labeljust=l, fontsize=10, label=\"", out);
	write_caption(out, d, node, edge, max_nodes);
	fputs("\"];\n", out);
	fputs("  node [fontname=\"Arial\", shape=box, style=filled, fontcolor=white, "
	      "fontsize=10, width=0, height=0];\n", out);
	fputs("  edge [fontname=\"Arial\", fontsize=9];\n", out);
	write_root(out, d);
	for (unsigned i = 0; i < d->n_nodes; i++)
		if (d->nodes[i].shown)
			write_node(out, d, (int)i, &d->nodes[i]);
	for (unsigned i = 0; i < d->n_edges; i++)
		if (edge_shown(d, &d->edges[i], edge))
			write_edge(out, d, &d->edges[i]);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}

/* The graph as pv_output_write_file writes it: a writer takes a report, so
 * the diff rides behind one. */
struct graph_job {
	struct pv_report r; /* first: the writer is handed &job->r */
	const struct diff *d;
	double node, edge;
	unsigned max_nodes;
};

static int write_graph_job(FILE *out, const struct pv_report *r)
{
	const struct graph_job *job = (const struct graph_job *)r;
	return write_graph(out, job->d, job->node, job->edge, job->max_nodes);
}

/* ---- the table ---- */

static int by_change(const void *x, const void *y, void *d)
{
	const struct node *nodes = ((const struct diff *)d)->nodes;
	const struct node *a = nodes + *(const int *)x, *b = nodes + *(const int *)y;
	double ca = fabs(change_of(d, a->a.total, a->b.total).points);
	double cb = fabs(change_of(d, b->a.total, b->b.total).points);
	if (ca != cb)
		return ca < cb ? 1 : -1;
	return strcmp(a->f->sym.name, b->f->sym.name);
}

static int write_report(const struct diff *d, unsigned top)
{
	const struct pv_report *ra = &d->a->r, *rb = &d->b->r;
	const struct pv_event_desc *e = &rb->events[0];
	struct change run = change_of(d, ra->run_total[0], rb->run_total[0]);
	printf("A (before): %s, %s pid %d, total ", d->a->path, ra->program, ra->pid);
	pv_dot_amount(stdout, (double)ra->run_total[0], e);
	printf("\nB (after):  %s, %s pid %d, total ", d->b->path, rb->program, rb->pid);
	pv_dot_amount(stdout, (double)rb->run_total[0], e);
	if (ra->run_total[0])
		printf(" (%+.1f%%)", 100 * ((double)rb->run_total[0] / (double)ra->run_total[0] - 1));
	printf("\nevent %s [%s]; ", e->name, pv_event_unit(e));
	if (d->scale != 1)
		printf("normalized: A scaled by %.4f to B's total; percentages of that total\n",
		       d->scale);
	else
		printf("percentages of A's total (run: %+.2f pts)\n", run.points);
	int *order = malloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*order));
	if (!order)
		return -1;
	unsigned n = 0;
	for (unsigned i = 0; i < d->n_nodes; i++)
		if (fabs(change_of(d, d->nodes[i].a.total, d->nodes[i].b.total).points) >=
		    PV_DIFF_UNCHANGED)
			order[n++] = (int)i;
	qsort_r(order, n, sizeof(*order), by_change, (void *)d);
	if (!n)
		printf("\nno function's total changed by %.1f points or more\n", PV_DIFF_UNCHANGED);
	else
		printf("\n%11s %8s %8s %8s %15s  function\n", "change", "A", "B", "own",
		       "calls A -> B");
	unsigned rows = top && top < n ? top : n;
	for (unsigned k = 0; k < rows; k++) {
		const struct node *nd = &d->nodes[order[k]];
		struct change c = change_of(d, nd->a.total, nd->b.total);
		char own[16], calls[48];
		if (!nd->a.present)
			snprintf(own, sizeof(own), "new");
		else if (!nd->b.present)
			snprintf(own, sizeof(own), "removed");
		else if (!nd->a.total) /* no own figure to change from */
			snprintf(own, sizeof(own), "-");
		else
			snprintf(own, sizeof(own), "%+.0f%%", c.own);
		snprintf(calls, sizeof(calls), "%" PRIu64 " -> %" PRIu64, nd->a.calls, nd->b.calls);
		printf("%+7.2f pts %7.2f%% %7.2f%% %8s %15s  %s\n", c.points, c.share_a, c.share_b,
		       own, calls, nd->f->sym.name);
	}
	if (rows < n)
		printf("... %u more changed (--top 0 for all)\n", n - rows);
	free(order);
	return 0;
}

/* ---- the command ---- */

static void diff_free(struct diff *d)
{
	struct name_entry *n, *ntmp;
	HASH_ITER(hh, d->names, n, ntmp) {
		HASH_DEL(d->names, n);
		free(n->key);
		free(n);
	}
	pv_pairs_free(&d->pairs);
	free(d->nodes);
	free(d->edges);
}

int pv_cmd_diff(int argc, char **argv)
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
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double node = PV_DEFAULT_NODE_THRESHOLD, edge = PV_DEFAULT_EDGE_THRESHOLD;
	unsigned long max_nodes = PV_DEFAULT_NODES, top = 25;
	const char *output = NULL;
	int normalize = 0, report = 0, opt;
	while ((opt = getopt_long(argc, argv, "n:e:o:h", longs, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'N': normalize = 1; break;
		case 'n': bad = pv_arg_percent("-n", optarg, &node); break;
		case 'e': bad = pv_arg_percent("-e", optarg, &edge); break;
		case 'c': bad = pv_arg_count("--nodes", optarg, &max_nodes); break;
		case 't': bad = pv_arg_count("--top", optarg, &top); break;
		case 'o': output = optarg; break;
		case 'r': report = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: bad = 1; fputs(usage, stderr); break;
		}
		if (bad)
			return PV_EXIT_TROUBLE;
	}
	if (optind + 2 != argc) {
		fputs(usage, stderr);
		return PV_EXIT_TROUBLE;
	}
	const struct pv_format *format = output ? pv_output_format_of(output) : NULL;
	if (output && (!format || strcmp(format->extension, ".dot"))) {
		fprintf(stderr, "profviz diff: -o %s: the graph goes to a .dot file\n", output);
		return PV_EXIT_TROUBLE;
	}
	struct pv_loaded a, b;
	if (pv_load(argv[optind], &a) < 0)
		return PV_EXIT_TROUBLE;
	if (pv_load(argv[optind + 1], &b) < 0) {
		pv_loaded_free(&a);
		return PV_EXIT_TROUBLE;
	}
	int status = PV_EXIT_TROUBLE;
	struct pv_report va, vb;
	struct diff d = { .a = &a, .b = &b, .va = &va, .vb = &vb, .scale = 1 };
	if (!pv_same_events(&a, &b, "diff"))
		goto out_loaded;
	if (pv_copies_merge(&a.r, &va) < 0)
		goto out_of_memory_loaded;
	if (pv_copies_merge(&b.r, &vb) < 0) {
		pv_copies_free(&va);
		goto out_of_memory_loaded;
	}
	if (normalize && va.run_total[0] && vb.run_total[0])
		d.scale = (double)vb.run_total[0] / (double)va.run_total[0];
	d.reference = d.scale * (double)va.run_total[0];
	if (!(d.reference > 0))
		d.reference = vb.run_total[0] ? (double)vb.run_total[0] : 1;
	d.nodes = calloc(va.n_funcs + vb.n_funcs + 1, sizeof(*d.nodes));
	d.edges = calloc(va.n_arcs + vb.n_arcs + 1, sizeof(*d.edges));
	if (!d.nodes || !d.edges || add_run(&d, &va, 0) < 0 || add_run(&d, &vb, 1) < 0 ||
	    select_shown(&d, node, edge, (unsigned)max_nodes) < 0)
		goto out_of_memory;
	if (va.compensated != vb.compensated)
		fprintf(stderr, "profviz diff: warning: only %s had the hooks' own cost taken "
			"out: the two do not compare exactly\n", va.compensated ? argv[optind]
									 : argv[optind + 1]);
	status = 0;
	if (output) {
		struct graph_job job = { vb, &d, node, edge, (unsigned)max_nodes };
		if (pv_output_write_file(output, write_graph_job, &job.r) < 0)
			status = PV_EXIT_TROUBLE;
	} else if (!report && write_graph(stdout, &d, node, edge, (unsigned)max_nodes) < 0) {
		status = PV_EXIT_TROUBLE;
	}
	if ((output || report) && write_report(&d, (unsigned)top) < 0)
		goto out_of_memory;
	if (fflush(stdout))
		status = PV_EXIT_TROUBLE;
	goto out;
out_of_memory:
	fprintf(stderr, "profviz diff: out of memory\n");
	status = PV_EXIT_TROUBLE;
out:
	diff_free(&d);
	pv_copies_free(&va);
	pv_copies_free(&vb);
	goto out_loaded;
out_of_memory_loaded:
	fprintf(stderr, "profviz diff: out of memory\n");
out_loaded:
	pv_loaded_free(&a);
	pv_loaded_free(&b);
	return status;
}
