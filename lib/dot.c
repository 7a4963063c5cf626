/*
 * dot.c — the call graph for graphviz.
 *
 * A node per function (name, total %, self %, calls), coloured from cold blue
 * to hot red by its share of the run; an edge per arc labelled with the share
 * of the caller's total spent through it, coloured green to red and
 * thickened by that share. Nodes and arcs under the thresholds are left out,
 * and the graph's label says how much was.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define PV_DOT_NAME_MAX 160    /* characters of a name shown in a box */
#define PV_DOT_TOOLTIP_MAX 2000 /* graphviz limits a string to 16 KB */

/* Write s as the inside of a dot string, cut at max bytes with "...". */
static void dot_text(FILE *out, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0;
	int cut = len > max;
	for (size_t i = 0; i < (cut ? max : len); i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fputc('\\', out), fputc(c, out);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', out);
		else if (c >= 0x80 && cut && i + 4 > max)
			break; /* never split a UTF-8 sequence at the cut */
		else
			fputc(c, out);
	}
	if (cut)
		fputs("...", out);
}

static void hsl_to_hex(double h, double s, double l, char hex[8])
{
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s;
	double p = 2 * l - q;
	double rgb[3];
	for (int i = 0; i < 3; i++) {
		double t = h + (1 - i) / 3.0;
		t -= floor(t);
		double v;
		if (t < 1 / 6.0)
			v = p + (q - p) * 6 * t;
		else if (t < 0.5)
			v = q;
		else if (t < 2 / 3.0)
			v = p + (q - p) * (2 / 3.0 - t) * 6;
		else
			v = p;
		rgb[i] = v;
	}
	snprintf(hex, 8, "#%02x%02x%02x", (int)lround(rgb[0] * 255), (int)lround(rgb[1] * 255),
		 (int)lround(rgb[2] * 255));
}

/* Black text on light fills, white on dark (WCAG relative luminance). */
static const char *text_colour(const char hex[8])
{
	unsigned r, g, b;
	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return "white";
	double lum = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0;
	return lum > 0.5 ? "black" : "white";
}

static double clamp01(double w)
{
	return w < 0 ? 0 : w > 1 ? 1 : w;
}

/* Cold (dark blue) to hot (red), as graphs of this kind are usually read. */
static void node_colour(double w, char hex[8])
{
	w = clamp01(w);
	hsl_to_hex(2 / 3.0 * (1 - w), 0.8 + 0.2 * w, 0.25 + 0.25 * w, hex);
}

/* Green to red for arcs, so they stand apart from the boxes. */
static void edge_colour(double w, char hex[8])
{
	w = clamp01(w);
	hsl_to_hex(1 / 3.0 * (1 - w), 0.85, 0.30 + 0.10 * w, hex);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void human(FILE *out, uint64_t v, const struct pv_event *e)
{
	double d = (double)v;
	if (e->is_tsc) {
		if (d >= 1e9)
			fprintf(out, "%.3f s", d / 1e9);
		else if (d >= 1e6)
			fprintf(out, "%.3f ms", d / 1e6);
		else if (d >= 1e3)
			fprintf(out, "%.3f us", d / 1e3);
		else
			fprintf(out, "%.0f ns", d);
	} else if (d >= 1e9) {
		fprintf(out, "%.3f G", d / 1e9);
	} else if (d >= 1e6) {
		fprintf(out, "%.3f M", d / 1e6);
	} else {
		fprintf(out, "%" PRIu64, v);
	}
}

static int find_event(const struct pv_report *r, const char *name)
{
	for (unsigned i = 0; i < r->nev; i++)
		if (!strcmp(r->events[i].name, name))
			return (int)i;
	return -1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Arcs nested in their callee have no total of their own; they are shown
 * (dashed) whenever both ends are, since their call counts matter. */
static int arc_is_nested(const struct pv_rarc *a)
{
	return a->total[0] == 0 && a->caller >= 0;
}

static int arc_shown(const struct pv_report *r, const struct pv_rarc *a, const char *shown,
		     double edge_min)
{
	const uint64_t run = r->run_total[0];
	if (!shown[a->callee] || (a->caller >= 0 && !shown[a->caller]))
		return 0;
	return arc_is_nested(a) || !run || share(a->total[0], run) >= edge_min;
}

int pv_write_dot(FILE *out, const struct pv_report *r)
{
	const uint64_t run = r->run_total[0];
	const double node_min = r->node_threshold / 100.0;
	const double edge_min = r->edge_threshold / 100.0;
	const int cycles = find_event(r, "cycles"), instructions = find_event(r, "instructions");
	char *shown = calloc(r->n_funcs ? r->n_funcs : 1, 1);
	if (!shown)
		return -1;

	unsigned hidden_funcs = 0, hidden_arcs = 0;
	uint64_t hidden_self = 0;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		shown[i] = run ? share(r->funcs[i].total[0], run) >= node_min : 1;
		if (!shown[i]) {
			hidden_funcs++;
			hidden_self += r->funcs[i].self[0];
		}
	}
	for (unsigned i = 0; i < r->n_arcs; i++)
		hidden_arcs += !arc_shown(r, &r->arcs[i], shown, edge_min);

	fputs("digraph profviz {\n", out);
	fputs("  graph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25, labelloc=t, "
	      "labeljust=l, fontsize=10, label=\"", out);
	dot_text(out, base_name(r->program), 256);
	fprintf(out, " (pid %d)\\l", r->pid);
	fputs("event: ", out);
	dot_text(out, r->events[0].name, 128);
	fprintf(out, " [%s] via %s", pv_event_unit(&r->events[0]),
		pv_backend_name(r->events[0].backend));
	for (unsigned i = 1; i < r->nev; i++) {
		fputs(", ", out);
		dot_text(out, r->events[i].name, 128);
		fprintf(out, " via %s", pv_backend_name(r->events[i].backend));
	}
	fputs("\\ltotal: ", out);
	human(out, run, &r->events[0]);
	fprintf(out, " over %" PRIu64 " thread%s", r->threads, r->threads == 1 ? "" : "s");
	for (unsigned i = 0; i < r->nev; i++)
		if (r->multiplexed[i] < 1.0)
			fprintf(out, "; %s counted %.1f%% of the time (scaled)", r->events[i].name,
				100 * r->multiplexed[i]);
	fputs("\\lbox: function / total % / (self %) / calls; "
	      "arc: share of the caller's total / calls\\l", out);
	fprintf(out, "thresholds: nodes %g%%, arcs %g%% of the run", r->node_threshold,
		r->edge_threshold);
	fprintf(out, "; hidden: %u functions (%.2f%% self), %u arcs\\l\"];\n", hidden_funcs,
		100 * share(hidden_self, run), hidden_arcs);
	fputs("  node [fontname=\"Arial\", shape=box, style=filled, fontcolor=white, "
	      "fontsize=10, width=0, height=0];\n", out);
	fputs("  edge [fontname=\"Arial\", fontsize=9];\n", out);

	char hex[8];
	node_colour(1.0, hex);
	fprintf(out, "  root [label=\"");
	dot_text(out, base_name(r->program), PV_DOT_NAME_MAX);
	fputs(" (program)\\n100.00%\\n", out);
	human(out, run, &r->events[0]);
	fprintf(out, "\", shape=oval, fillcolor=\"%s\", fontcolor=%s, tooltip=\"calls from "
		"outside instrumented code\"];\n", hex, text_colour(hex));

	for (unsigned i = 0; i < r->n_funcs; i++) {
		if (!shown[i])
			continue;
		const struct pv_rfunc *f = &r->funcs[i];
		double t = share(f->total[0], run), s = share(f->self[0], run);
		node_colour(t, hex);
		fprintf(out, "  f%d [label=\"", f->id);
		if (f->sym.module[0] && strcmp(f->sym.module, r->program)) {
			fputc('[', out);
			dot_text(out, base_name(f->sym.module), 64);
			fputs("]\\n", out);
		}
		dot_text(out, f->sym.name, PV_DOT_NAME_MAX);
		fprintf(out, "\\n%.2f%%\\n(%.2f%%)\\n%" PRIu64 "\xc3\x97", 100 * t, 100 * s, f->calls);
		for (unsigned e = 1; e < r->nev; e++) {
			fputs("\\n", out);
			dot_text(out, r->events[e].name, 40);
			fprintf(out, ": %.2f%% (%.2f%%)", 100 * share(f->total[e], r->run_total[e]),
				100 * share(f->self[e], r->run_total[e]));
		}
		if (cycles >= 0 && instructions >= 0 && f->total[cycles])
			fprintf(out, "\\nIPC %.2f", (double)f->total[instructions] /
							  (double)f->total[cycles]);
		fprintf(out, "\", fillcolor=\"%s\", fontcolor=%s, tooltip=\"", hex, text_colour(hex));
		dot_text(out, f->sym.name, PV_DOT_TOOLTIP_MAX);
		if (f->sym.file) {
			fputs("\\n", out);
			dot_text(out, f->sym.file, 512);
			fprintf(out, ":%d", f->sym.line);
		}
		fputs("\\n", out);
		dot_text(out, f->sym.module, 512);
		fputs("\\ntotal ", out);
		human(out, f->total[0], &r->events[0]);
		fputs(", self ", out);
		human(out, f->self[0], &r->events[0]);
		fputs("\"];\n", out);
	}

	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		if (!arc_shown(r, a, shown, edge_min))
			continue;
		int nested = arc_is_nested(a);
		uint64_t caller_total = a->caller < 0 ? run : r->funcs[a->caller].total[0];
		double w = share(a->total[0], caller_total);
		edge_colour(w, hex);
		if (a->caller < 0)
			fputs("  root -> ", out);
		else
			fprintf(out, "  f%d -> ", a->caller);
		if (nested)
			fprintf(out, "f%d [label=\"  %" PRIu64 "\xc3\x97\", style=dashed, color=\"%s\", "
				"fontcolor=\"%s\", tooltip=\"nested in an activation of the callee: "
				"no total of its own\"];\n", a->callee, a->calls, hex, hex);
		else
			/* Indented: graphviz sets edge labels flush against the line. */
			fprintf(out, "f%d [label=\"  %.2f%%\\l  %" PRIu64 "\xc3\x97\\l\", color=\"%s\", "
				"fontcolor=\"%s\", penwidth=%.2f, arrowsize=%.2f];\n", a->callee,
				100 * w, a->calls, hex, hex, 0.5 + 4 * w, 0.5 * sqrt(0.5 + 4 * w) + 0.3);
	}
	fputs("}\n", out);
	free(shown);
	return ferror(out) ? -1 : 0;
}
