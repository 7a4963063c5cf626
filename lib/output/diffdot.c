/* SPDX-License-Identifier: MIT */
/*
 * diffdot.c — what changed between two runs (A before, B after), as one
 * call graph for graphviz coloured by the change: red where B spends more,
 * blue where it spends less, grey where it spends the same. The boxes look
 * as dot.c's do.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/words.h"
#include "output/diffdot.h"
#include "output/dotstyle.h"
#include "base/paths.h"

#define PV_DIFF_NAME_MAX 160

/* Grey for no change; red for more, blue for less (told apart without
 * red-green sight), deeper the larger the change against the largest shown
 * (a point at least: smaller changes never look deep). A line (an arc) is
 * darker than a box's fill, to be seen on white. */
static void change_colour(const struct pv_diff *d, double points, int line, char hex[8])
{
	if (fabs(points) < PV_DIFF_UNCHANGED) {
		pv_hsl_to_hex(0, 0, line ? 0.6 : 0.85, hex);
		return;
	}
	double w = fmin(fabs(points) / fmax(1, d->largest_shown), 1);
	if (line)
		pv_hsl_to_hex(points > 0 ? 0 : 0.6, 0.4 + 0.5 * w, 0.62 - 0.2 * w, hex);
	else
		pv_hsl_to_hex(points > 0 ? 0 : 0.6, 0.25 + 0.65 * w, 0.82 - 0.37 * w, hex);
}

/* "+3.20 pts, +40%": the change in points of the reference, and of the
 * function's own figure in A (none for a new one). */
static void write_change(FILE *out, const struct pv_diff_change *c, int has_a,
			 const char *between)
{
	fprintf(out, "%+.2f pts", fabs(c->points) < 0.005 ? 0.0 : c->points);
	if (has_a)
		fprintf(out, fabs(c->own) < 9.95 ? "%s%+.1f%%" : "%s%+.0f%%", between,
			fabs(c->own) < 0.05 ? 0.0 : c->own);
}

/* A's amount, scaled, then B's: "1.2 ms -> 3.4 ms". */
static void write_amounts(FILE *out, const struct pv_diff *d, uint64_t a, uint64_t b,
			  const char *arrow)
{
	pv_dot_amount(out, d->scale * (double)a, &d->b.events[0]);
	fputs(arrow, out);
	pv_dot_amount(out, (double)b, &d->b.events[0]);
}

static void write_func(FILE *out, const struct pv_diff *d, int id, const struct pv_diff_func *n)
{
	const struct pv_rfunc *f = n->f;
	struct pv_diff_change total = pv_diff_change_of(d, n->a.total, n->b.total);
	struct pv_diff_change self = pv_diff_change_of(d, n->a.self, n->b.self);
	int is_new = !n->a.present, removed = !n->b.present;
	char hex[8];
	change_colour(d, total.points, 0, hex);
	fprintf(out, "  f%d [label=\"", id);
	if (f->sym.module[0] && strcmp(pv_path_base(f->sym.module), pv_path_base(d->b.program))) {
		fputc('[', out);
		pv_dot_text(out, pv_path_base(f->sym.module), 64);
		fputs("]\\n", out);
	}
	pv_dot_short_name(out, f->sym.name, PV_DIFF_NAME_MAX);
	if (pv_diff_all_inlined(&n->a, &n->b))
		fputs("\\ninlined", out);
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
	write_amounts(out, d, n->a.total, n->b.total, " -> ");
	fputs(", self ", out);
	write_amounts(out, d, n->a.self, n->b.self, " -> ");
	fputs("\\nself: ", out);
	write_change(out, &self, n->a.self > 0, ", ");
	fputs("\"];\n", out);
}

static void write_arc(FILE *out, const struct pv_diff *d, const struct pv_diff_arc *e)
{
	struct pv_diff_change c = pv_diff_change_of(d, e->a.total, e->b.total);
	char hex[8];
	change_colour(d, c.points, 1, hex);
	if (e->caller < 0)
		fputs("  root -> ", out);
	else
		fprintf(out, "  f%d -> ", e->caller);
	fprintf(out, "f%d [label=\"  ", e->callee);
	int inlined = pv_diff_all_inlined(&e->a, &e->b);
	if (pv_diff_arc_nested(e))
		fputs("nested\\l  ", out);
	else
		fprintf(out, "%s%s%.2f%%\\l  ", inlined ? "inlined\\l  " : "",
			e->b.present ? "" : "was ", e->b.present ? c.share_b : c.share_a);
	write_change(out, &c, e->a.present && e->b.present && e->a.total, "\\l  ");
	fprintf(out, "\\l  %" PRIu64 " \xe2\x86\x92 %" PRIu64 "\xc3\x97\\l\", color=\"%s\", "
		"fontcolor=\"%s\"", e->a.calls, e->b.calls, hex, hex);
	double width = fmax(4 * fmax(c.share_a, c.share_b) / 100, 0.5);
	fprintf(out, ", penwidth=%.2f, arrowsize=%.2f", width, 0.5 * sqrt(width) + 0.3);
	if (pv_diff_arc_nested(e))
		fputs(", style=dotted", out);
	else if (!e->b.present || inlined)
		fputs(", style=dashed", out);
	else if (!e->a.present)
		fputs(", style=bold", out);
	fprintf(out, ", tooltip=\"%s%.2f%% -> %.2f%% of the reference total\"];\n",
		!e->a.present ? "new: " : !e->b.present ? "removed: " : "", c.share_a, c.share_b);
}

static void write_run(FILE *out, const char *which, const char *from, const struct pv_report *r)
{
	fprintf(out, "%s = ", which);
	pv_dot_text(out, from, 200);
	fputs(" (", out);
	pv_dot_text(out, pv_path_base(r->program), 100);
	fprintf(out, ", pid %d): total ", r->pid);
	pv_dot_amount(out, (double)r->run_total[0], &r->events[0]);
	fputs("\\l", out);
}

static void write_caption(FILE *out, const struct pv_diff *d, const char *from_a,
			  const char *from_b)
{
	const struct pv_report *ra = &d->a, *rb = &d->b;
	fputs("diff: ", out);
	write_run(out, "A (before)", from_a, ra);
	write_run(out, "B (after)", from_b, rb);
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
	fputs("dashed arc, \\\"inlined\\\": calls the compiler inlined into the caller "
	      "(their time is the caller's)\\l", out);
	fputs("functions matched by module file name and function name (the program's own "
	      "by name)\\l", out);
	fprintf(out, "thresholds: nodes %g%%, arcs %g%% in A or B; hidden: %u function%s, "
		"%u arc%s\\l", d->limits.node_min, d->limits.edge_min, d->hidden_funcs,
		pv_s(d->hidden_funcs), d->hidden_arcs, pv_s(d->hidden_arcs));
	if (d->capped)
		fprintf(out, "only the %u largest functions shown: %u more are above the "
			"threshold\\l", d->limits.max_nodes, d->capped);
}

static void write_root(FILE *out, const struct pv_diff *d)
{
	struct pv_diff_change c = pv_diff_change_of(d, d->a.run_total[0], d->b.run_total[0]);
	char hex[8];
	change_colour(d, c.points, 0, hex);
	fputs("  root [label=\"", out);
	pv_dot_text(out, pv_path_base(d->b.program), PV_DIFF_NAME_MAX);
	fprintf(out, " (program)\\n%.2f%%\\n", c.share_b);
	write_change(out, &c, 1, ", ");
	fputs("\\n", out);
	write_amounts(out, d, d->a.run_total[0], d->b.run_total[0], " \xe2\x86\x92 ");
	fprintf(out, "\", shape=oval, fillcolor=\"%s\", fontcolor=%s, tooltip=\"calls from "
		"outside instrumented code\"];\n", hex, pv_text_colour(hex));
}

int pv_write_diff_dot(FILE *out, const struct pv_diff *d, const char *from_a,
		      const char *from_b)
{
	fputs("digraph profviz_diff {\n", out);
	fputs("  graph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25, labelloc=t, "
	      "labeljust=l, fontsize=10, label=\"", out);
	write_caption(out, d, from_a, from_b);
	fputs("\"];\n", out);
	fputs("  node [fontname=\"Arial\", shape=box, style=filled, fontcolor=white, "
	      "fontsize=10, width=0, height=0];\n", out);
	fputs("  edge [fontname=\"Arial\", fontsize=9];\n", out);
	write_root(out, d);
	for (unsigned i = 0; i < d->n_funcs; i++)
		if (d->funcs[i].shown)
			write_func(out, d, (int)i, &d->funcs[i]);
	for (unsigned i = 0; i < d->n_arcs; i++)
		if (d->arcs[i].shown)
			write_arc(out, d, &d->arcs[i]);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
