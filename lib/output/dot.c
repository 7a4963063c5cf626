/* SPDX-License-Identifier: MIT */
/*
 * dot.c — the call graph for graphviz.
 *
 * A node per function (name, total %, self %, calls), coloured from cold blue
 * to hot red by its share of the run; an edge per arc, coloured on the same
 * scale and thickened by its share of the run, so the hot path is the
 * reddest and thickest chain, and labelled with that share, the share of
 * the caller's total spent through it, and its calls. Nodes and arcs under
 * the thresholds are left out, and the graph's label says how much was.
 * Sampled time says how it was sampled instead of what compensation took,
 * and marks the boxes whose self rests on few samples. Calls the compiler
 * inlined are dashed arcs that say so, and a function inlined everywhere
 * says into what (inlined.h). Unless the report asks for them inside, the
 * waits' time is apart (view.h): shares are of the work, and the waits'
 * boxes and arcs are grey, each with its share of the wall.
 */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/words.h"
#include "model/copies.h"
#include "model/inlined.h"
#include "model/view.h"
#include "output/dotstyle.h"
#include "output/format.h"
#include "base/paths.h"
#include "model/trust.h"

#define PV_DOT_NAME_MAX 160    /* characters of a name shown in a box */
#define PV_DOT_TOOLTIP_MAX 2000 /* graphviz limits a string to 16 KB */
#define PV_DOT_CAPTION_MAX 1024 /* a sentence of the caption */

static double clamp01(double w)
{
	return w < 0 ? 0 : w > 1 ? 1 : w;
}

/* Cold (dark blue) to hot (red), as graphs of this kind are usually read. */
static void node_colour(double w, char hex[8])
{
	w = clamp01(w);
	pv_hsl_to_hex(2 / 3.0 * (1 - w), 0.8 + 0.2 * w, 0.25 + 0.25 * w, hex);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

/* A wait whose time is apart from the work: shown grey, its shares of the
 * wall. */
#define PV_DOT_WAIT_FILL "#b0b0b0"
#define PV_DOT_WAIT_LINE "#808080"

/* A sampled run with no time in it at all (a run of a few milliseconds
 * whose threads had no ring, and no look found them running): its boxes
 * and arcs are weighed by their calls, against the most any function made,
 * and the caption says so. */
static int weighed_by_calls(const struct pv_report *r)
{
	return pv_sampled(r, 0) && r->run_total[0] == 0;
}

static uint64_t most_calls(const struct pv_report *r)
{
	uint64_t most = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		most = r->funcs[i].calls > most ? r->funcs[i].calls : most;
	return most;
}

static int wait_apart(const struct pv_report *r, int func)
{
	return func >= 0 && r->waits_apart && r->funcs[func].kind == PV_FUNC_WAIT;
}

/* What a function's shares in the first event are of. */
static uint64_t base_of(const struct pv_report *r, int func)
{
	return pv_report_share_base(r, &r->funcs[func], 0);
}

/* The share the thresholds judge a box or an arc by (into callee): of the
 * run; with the waits apart, the larger of that and its total with the
 * waits below it, of the wall, so that those who wait stay above their
 * waits. */
static double kept_share(const struct pv_report *r, int callee, uint64_t total, uint64_t waited)
{
	double of = share(total, base_of(r, callee));
	if (r->waits_apart && waited)
		of = fmax(of, share(total + waited, pv_report_wall(r, 0)));
	return of;
}

/* What the thresholds leave in the graph, and how much they hide. */
struct selection {
	char *shown; /* by function id */
	char *ambiguous; /* by function id: another function has its name */
	struct pv_host *hosts; /* by function id: where its inlined calls ran */
	double edge_min; /* an arc's least share of the run */
	unsigned hidden_funcs, hidden_arcs;
	uint64_t hidden_self;
	unsigned capped; /* functions above the threshold left out by the cap */
	int largest_hidden; /* the hidden function of the largest self, or -1 */
	int inlined_shown; /* an arc shown has calls the compiler inlined */
};

/* Arcs whose every call entered an open activation of the callee (its
 * recursion) have no total of their own; they are shown (dashed) whenever
 * both ends are, since their call counts matter. An arc that merely cost
 * nothing of the first event is an ordinary arc. */
static int arc_is_nested(const struct pv_rarc *a)
{
	return a->caller >= 0 && a->calls > 0 && a->nested_calls == a->calls;
}

/* An arc with calls into an open activation of its callee closes a cycle
 * (a recursion, an interpreter's calling back into itself): its own total
 * counts only the calls that did not, and may be nothing though the cycle
 * is the hot path. It is drawn whenever both ends are. */
static int arc_closes_cycle(const struct pv_rarc *a)
{
	return a->caller >= 0 && a->nested_calls > 0;
}

/* Drawn dashed, as a nested arc: every call nested, or too little of its
 * own to be drawn but for the cycle it closes. */
static int arc_drawn_nested(const struct pv_report *r, const struct pv_rarc *a, double edge_min)
{
	return arc_is_nested(a) ||
	       (arc_closes_cycle(a) && base_of(r, a->callee) &&
		kept_share(r, a->callee, a->total[0], a->waited[0]) < edge_min);
}

static int arc_shown(const struct pv_report *r, const struct pv_rarc *a,
		     const struct selection *sel)
{
	if (!sel->shown[a->callee] || (a->caller >= 0 && !sel->shown[a->caller]))
		return 0;
	return arc_closes_cycle(a) || !base_of(r, a->callee) ||
	       kept_share(r, a->callee, a->total[0], a->waited[0]) >= sel->edge_min;
}

/* The order the cap fills the graph in: the largest selves first (where
 * the time is spent), a wait apart by its share of the wall. */
static int by_self(const void *x, const void *y, void *report)
{
	const struct pv_report *r = report;
	int a = *(const int *)x, b = *(const int *)y;
	double sa = share(r->funcs[a].self[0], base_of(r, a));
	double sb = share(r->funcs[b].self[0], base_of(r, b));
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return a - b; /* hottest total first */
}

/* The callers each function over the threshold has over it, hottest arc
 * first, for the paths the cap draws. */
struct callers {
	unsigned *first; /* by function: its callers are at[first[f] .. first[f + 1]) */
	int *at;
	char *from_program; /* by function: called from uninstrumented code */
	/* A walk's marks, by function: its number, and where it came from. */
	unsigned *walk;
	int *came_from;
	int *queue;
};

static void callers_free(struct callers *c)
{
	free(c->first);
	free(c->at);
	free(c->from_program);
	free(c->walk);
	free(c->came_from);
	free(c->queue);
}

static int callers_of(const struct pv_report *r, const char *over, struct callers *c)
{
	unsigned n = r->n_funcs;
	c->first = calloc(n + 2, sizeof(*c->first));
	c->at = malloc((r->n_arcs + 1) * sizeof(*c->at));
	c->from_program = calloc(n + 1, 1);
	c->walk = calloc(n + 1, sizeof(*c->walk));
	c->came_from = malloc((n + 1) * sizeof(*c->came_from));
	c->queue = malloc((n + 1) * sizeof(*c->queue));
	if (!c->first || !c->at || !c->from_program || !c->walk || !c->came_from || !c->queue)
		return -1;
	/* Arcs come hottest first: each function's callers keep that order. */
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		if (a->caller < 0)
			c->from_program[a->callee] = 1;
		else if (a->caller != a->callee && over[a->caller])
			c->first[a->callee + 2]++;
	}
	for (unsigned f = 0; f < n; f++)
		c->first[f + 2] += c->first[f + 1];
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		if (a->caller >= 0 && a->caller != a->callee && over[a->caller])
			c->at[c->first[a->callee + 1]++] = a->caller;
	}
	return 0;
}

/* The fewest functions not drawn yet that join f to the graph: f and its
 * callers up to one that is drawn, or that the program calls (a walk up
 * its callers, the hottest arc first among paths as short), into chain, f
 * first; their number, or 0 when none joins it. */
static unsigned path_to_graph(const struct callers *c, const struct selection *sel, int f,
			      unsigned walk, int *chain)
{
	unsigned head = 0, tail = 0;
	c->queue[tail++] = f;
	c->walk[f] = walk;
	c->came_from[f] = -1;
	int end = -1;
	while (head < tail && end < 0) {
		int x = c->queue[head++];
		if (sel->shown[x] || c->from_program[x]) {
			end = x;
			break;
		}
		for (unsigned k = c->first[x]; k < c->first[x + 1]; k++) {
			int y = c->at[k];
			if (c->walk[y] == walk)
				continue;
			c->walk[y] = walk;
			c->came_from[y] = x;
			c->queue[tail++] = y;
		}
	}
	if (end < 0)
		return 0;
	unsigned len = 0;
	for (int x = sel->shown[end] ? c->came_from[end] : end; x >= 0; x = c->came_from[x])
		chain[len++] = x;
	return len;
}

/* More functions are over the threshold (over, by id) than the cap draws:
 * the largest selves, each with the shortest path that joins it to the
 * graph, while the path fits under the cap, then the largest totals in the
 * room left. 0, or -1 out of memory. */
static int fill_cap(const struct pv_report *r, const char *over, struct selection *sel)
{
	unsigned n = r->n_funcs;
	int *order = malloc((n + 1) * sizeof(*order));
	int *chain = malloc((n + 1) * sizeof(*chain));
	struct callers c = { 0 };
	int status = order && chain && callers_of(r, over, &c) == 0 ? 0 : -1;
	unsigned candidates = 0, shown = 0;
	for (unsigned i = 0; status == 0 && i < n; i++)
		if (over[i])
			order[candidates++] = (int)i;
	if (status == 0)
		qsort_r(order, candidates, sizeof(*order), by_self, (void *)r);
	for (unsigned k = 0; status == 0 && k < candidates && shown < r->max_nodes; k++) {
		if (!r->funcs[order[k]].self[0])
			break; /* the rest spend nothing themselves: by total, below */
		if (sel->shown[order[k]])
			continue;
		unsigned len = path_to_graph(&c, sel, order[k], k + 1, chain);
		if (!len || shown + len > r->max_nodes)
			continue;
		for (unsigned i = 0; i < len; i++)
			sel->shown[chain[i]] = 1;
		shown += len;
	}
	/* Room left: the hottest totals (ids are hottest first). */
	for (unsigned i = 0; status == 0 && i < n && shown < r->max_nodes; i++)
		if (over[i] && !sel->shown[i]) {
			sel->shown[i] = 1;
			shown++;
		}
	callers_free(&c);
	free(order);
	free(chain);
	return status;
}

/* Apply the thresholds. 0, or -1 out of memory; free sel->shown after. */
static int select_shown(const struct pv_report *r, struct selection *sel)
{
	const uint64_t run = r->run_total[0];
	const double node_min = r->node_threshold / 100.0;
	memset(sel, 0, sizeof(*sel));
	sel->edge_min = r->edge_threshold / 100.0;
	sel->largest_hidden = -1;
	sel->shown = calloc(r->n_funcs ? r->n_funcs : 1, 1);
	char *over = calloc(r->n_funcs ? r->n_funcs : 1, 1);
	if (!sel->shown || !over) {
		free(over);
		return -1;
	}
	unsigned n_over = 0;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		/* An empty run hides nothing: there is no share to judge by. */
		const struct pv_rfunc *f = &r->funcs[i];
		over[i] = run ? kept_share(r, (int)i, f->total[0], f->waited[0]) >= node_min : 1;
		n_over += over[i];
	}
	if (!r->max_nodes || n_over <= r->max_nodes)
		memcpy(sel->shown, over, r->n_funcs);
	else if (fill_cap(r, over, sel) < 0) {
		free(over);
		return -1;
	}
	for (unsigned i = 0; i < r->n_funcs; i++) {
		if (sel->shown[i])
			continue;
		sel->capped += over[i];
		sel->hidden_funcs++;
		if (wait_apart(r, (int)i)) /* not a share of the run */
			continue;
		sel->hidden_self += r->funcs[i].self[0];
		if (sel->largest_hidden < 0 ||
		    r->funcs[i].self[0] > r->funcs[sel->largest_hidden].self[0])
			sel->largest_hidden = (int)i;
	}
	free(over);
	for (unsigned i = 0; i < r->n_arcs; i++) {
		int drawn = arc_shown(r, &r->arcs[i], sel);
		sel->hidden_arcs += !drawn;
		sel->inlined_shown |= drawn && r->arcs[i].inlined_calls;
	}
	return 0;
}

/* How the first event was sampled, what the few-samples mark means, and
 * whether the run was too short to say much. */
static void write_sampling(FILE *out, const struct pv_report *r, char *sampling,
			   const struct selection *sel)
{
	char *precision = strchr(sampling, '\n'); /* a line of its own */
	if (precision)
		*precision++ = '\0';
	fputs("\\l", out);
	pv_dot_text(out, sampling, PV_DOT_CAPTION_MAX);
	if (precision) {
		fputs("\\l", out);
		pv_dot_text(out, precision, PV_DOT_CAPTION_MAX);
	}
	int marked = 0; /* the legend only for a graph with the mark */
	for (unsigned i = 0; i < r->n_funcs && !marked; i++)
		marked = sel->shown[i] && pv_few_samples(r, &r->funcs[i], 0);
	if (marked)
		fprintf(out, "\\l? after a self share, and a dashed box: its self rests on fewer "
			"than %d samples (worse than \xc2\xb1%.0f%% of itself)", PV_FEW_SAMPLES,
			100 * pv_sampling_error(PV_FEW_SAMPLES));
	char doubt[PV_DOT_CAPTION_MAX];
	if (pv_doubt_text(r, 0, doubt, sizeof(doubt))) {
		fputs("\\l", out);
		pv_dot_text(out, doubt, sizeof(doubt));
	}
}

/* Whether the hooks' own cost was taken out, and how much per call; for
 * sampled time, how it was sampled (no hooks' cost is in it). */
static void write_compensation(FILE *out, const struct pv_report *r,
			       const struct selection *sel)
{
	char sampling[PV_DOT_CAPTION_MAX];
	if (pv_sampling_text(r, 0, sampling, sizeof(sampling))) {
		write_sampling(out, r, sampling, sel);
		return;
	}
	if (!r->compensated) {
		fputs("\\lcosts include the hooks' own (not compensated)", out);
		return;
	}
	int time = pv_event_is_time(&r->events[0]);
	fprintf(out, "\\lcompensated: %.1f%s per call of the hooks' own cost taken out (raw total ",
		r->caller_cost[0] + r->callee_cost[0], time ? " ns" : "");
	pv_dot_amount(out, r->raw_run_total[0], &r->events[0]);
	fputc(')', out);
	if (r->clamped[0]) {
		fputs("; ", out);
		pv_dot_amount(out, r->clamped[0], &r->events[0]);
		fputs(" left in, where a self was smaller", out);
	}
	char doubt[PV_DOT_CAPTION_MAX]; /* a part's names the function */
	if (pv_doubt_text(r, 0, doubt, sizeof(doubt))) {
		fputs("\\l", out);
		pv_dot_text(out, doubt, sizeof(doubt));
	}
}

/* The graph's caption: program, events, run total, legend, and what the
 * thresholds hid. */
#define PV_DOT_THREADS_SHOWN 8

static int thread_hotter(const void *x, const void *y)
{
	const struct pv_rthread *a = *(const struct pv_rthread *const *)x;
	const struct pv_rthread *b = *(const struct pv_rthread *const *)y;
	return a->total[0] != b->total[0] ? (a->total[0] < b->total[0] ? 1 : -1) : 0;
}

/* Several threads are summed into one graph: say so, with each one's run
 * (in the first event) and its wall and CPU time, so that a thread that
 * mostly waited stands out. */
static void write_threads(FILE *out, const struct pv_report *r)
{
	if (r->n_thread_list < 2)
		return;
	const struct pv_rthread **order = malloc(r->n_thread_list * sizeof(*order));
	if (!order)
		return;
	for (unsigned i = 0; i < r->n_thread_list; i++)
		order[i] = &r->thread_list[i];
	qsort(order, r->n_thread_list, sizeof(*order), thread_hotter);
	fputs("\\lthreads, summed in this graph:", out);
	for (unsigned i = 0; i < r->n_thread_list && i < PV_DOT_THREADS_SHOWN; i++) {
		const struct pv_rthread *t = order[i];
		char label[64];
		pv_report_thread_label(t, label, sizeof(label));
		fputs("\\l  thread ", out);
		pv_dot_text(out, label, sizeof(label));
		fputs(": ", out);
		if (!r->waits_apart) { /* a thread's run holds its waits */
			pv_dot_amount(out, t->total[0], &r->events[0]);
			fputs(", ", out);
		}
		fprintf(out, "%.3f s wall", t->wall_seconds);
		if (t->cpu_seconds >= 0)
			fprintf(out, ", %.3f s CPU", t->cpu_seconds);
		if (t->cut_short)
			fputs(" (cut short: not read at the end)", out);
	}
	if (r->n_thread_list > PV_DOT_THREADS_SHOWN)
		fprintf(out, "\\l  and %u more (the JSON lists all)",
			r->n_thread_list - PV_DOT_THREADS_SHOWN);
	free(order);
}

static void write_graph_label(FILE *out, const struct pv_report *r, const struct selection *sel)
{
	pv_dot_text(out, pv_path_base(r->program), 256);
	fprintf(out, " (pid %d)\\l", r->pid);
	fputs("event: ", out);
	pv_dot_text(out, r->events[0].name, 128);
	fprintf(out, " [%s] via %s", pv_event_unit(&r->events[0]),
		r->events[0].backend);
	for (unsigned i = 1; i < r->nev; i++) {
		fputs(", ", out);
		pv_dot_text(out, r->events[i].name, 128);
		fprintf(out, " via %s", r->events[i].backend);
	}
	fputs(r->waits_apart ? "\\lwork: " : "\\ltotal: ", out);
	pv_dot_amount(out, r->run_total[0], &r->events[0]);
	fprintf(out, " over %" PRIu64 " thread%s", r->threads, r->threads == 1 ? "" : "s");
	if (weighed_by_calls(r))
		fputs("\\lno time was sampled or timed: boxes and arcs weighed by their calls", out);
	if (r->waits_apart) {
		fputs("; blocked in libc's waits, apart (grey): ", out);
		pv_dot_amount(out, r->waited[0], &r->events[0]);
		fprintf(out, ", %.2f%% of the wall (work and waits)",
			100 * share(r->waited[0], pv_report_wall(r, 0)));
	}
	for (unsigned i = 0; i < r->nev; i++) {
		if (r->multiplexed[i] < 1.0) {
			fputs("; ", out);
			pv_dot_text(out, r->events[i].name, 128);
			fprintf(out, " counted %.1f%% of the time (scaled)", 100 * r->multiplexed[i]);
		}
	}
	write_compensation(out, r, sel);
	char totals[PV_DOT_CAPTION_MAX];
	if (pv_totals_text(r, 0, totals, sizeof(totals))) {
		fputs("\\l", out);
		pv_dot_text(out, totals, sizeof(totals));
	}
	write_threads(out, r);
	char lost[PV_DOT_CAPTION_MAX];
	if (pv_report_losses_text(r, lost, sizeof(lost))) {
		fputs("\\l", out);
		pv_dot_text(out, lost, sizeof(lost));
	}
	fputs("\\lbox: function / total % / (self %) / calls; "
	      "arc: share of the run / of the caller's total / calls\\l", out);
	if (r->waits_apart)
		fputs("grey box and arc: a wait, its share of the wall / calls; shares of the run "
		      "are of the work alone\\l", out);
	if (sel->inlined_shown)
		fputs("dashed arc, 'inlined': calls the compiler inlined, whose self counts in "
		      "the caller's, the code they ran in\\l", out);
	char melted[PV_DOT_CAPTION_MAX];
	if (pv_inlined_text(r, sel->shown, melted, sizeof(melted))) {
		pv_dot_text(out, melted, sizeof(melted));
		fputs("\\l", out);
	}
	fprintf(out, "thresholds: nodes %g%%, arcs %g%% of the run", r->node_threshold,
		r->edge_threshold);
	fprintf(out, "; hidden: %u function%s (%.2f%% self), %u arc%s", sel->hidden_funcs,
		pv_s(sel->hidden_funcs), 100 * share(sel->hidden_self, r->run_total[0]),
		sel->hidden_arcs, pv_s(sel->hidden_arcs));
	if (sel->largest_hidden >= 0 && r->funcs[sel->largest_hidden].self[0]) {
		fputs("; the largest self hidden: ", out);
		pv_dot_text(out, r->funcs[sel->largest_hidden].sym.name, PV_DOT_NAME_MAX);
		fprintf(out, " (%.2f%%)", 100 * share(r->funcs[sel->largest_hidden].self[0],
						      r->run_total[0]));
	}
	fputs("\\l", out);
	if (sel->capped)
		fprintf(out, "only %u function%s shown, the largest selves and the hottest paths "
			"to them: %u more %s above the threshold; PROFVIZ_NODES=N or --nodes N "
			"shows more\\l", r->max_nodes, pv_s(r->max_nodes), sel->capped,
			sel->capped == 1 ? "is" : "are");
	if (r->colour_by_self)
		fputs("boxes coloured by self share\\l", out);
	if (r->view) {
		pv_dot_text(out, r->view, 512);
		fputs("\\l", out);
	}
}

/* The oval that calls from uninstrumented code come from. */
static void write_program_node(FILE *out, const struct pv_report *r)
{
	char hex[8];
	node_colour(1.0, hex);
	fprintf(out, "  root [label=\"");
	pv_dot_text(out, pv_path_base(r->program), PV_DOT_NAME_MAX);
	fputs(" (program)\\n100.00%\\n", out);
	pv_dot_amount(out, r->run_total[0], &r->events[0]);
	fprintf(out, "\", shape=oval, fillcolor=\"%s\", fontcolor=%s, tooltip=\"calls from "
		"outside instrumented code\"];\n", hex, pv_text_colour(hex));
}

/* "f", or "f and 2 others": the functions a function's calls were
 * inlined into. */
static void write_hosts(FILE *out, const struct pv_report *r, const struct pv_host *h)
{
	if (h->func < 0)
		return;
	fputs(" into ", out);
	pv_dot_short_name(out, r->funcs[h->func].sym.name, PV_DOT_NAME_MAX / 2);
	if (h->others)
		fprintf(out, " and %u other%s", h->others, h->others == 1 ? "" : "s");
}

/* The box's text: [library], name, total %, (self %), calls, the other
 * events' shares, the IPC when both cycles and instructions were counted,
 * and where a function inlined everywhere ran. */
static void write_function_label(FILE *out, const struct pv_report *r, const struct pv_rfunc *f,
				 int ambiguous, const struct pv_host *host)
{
	const uint64_t run = r->run_total[0];
	const int cycles = pv_report_event(r, "cycles"), instructions = pv_report_event(r, "instructions");
	if (f->sym.module[0] && strcmp(f->sym.module, r->program)) {
		fputc('[', out);
		pv_dot_text(out, pv_path_base(f->sym.module), 64);
		fputs("]\\n", out);
	}
	pv_dot_short_name(out, f->sym.name, PV_DOT_NAME_MAX);
	if (ambiguous && f->sym.file) { /* two boxes never look alike */
		fputs("\\n", out);
		pv_dot_text(out, pv_path_base(f->sym.file), 64);
		fprintf(out, ":%d", f->sym.line);
	} else if (ambiguous) {
		fprintf(out, "\\n@%p", f->fn);
	}
	if (wait_apart(r, f->id)) /* its time is the wait's, apart from the work */
		fprintf(out, "\\n%.2f%% of wall\\n%" PRIu64 "\xc3\x97",
			100 * share(f->total[0], pv_report_wall(r, 0)), f->calls);
	else
		fprintf(out, "\\n%.2f%%\\n(%.2f%%%s)\\n%" PRIu64 "\xc3\x97",
			100 * share(f->total[0], run), 100 * share(f->self[0], run),
			pv_few_samples(r, f, 0) ? " ?" : "", f->calls);
	if (r->waits_apart && f->waited[0])
		fprintf(out, "\\nwaits: %.2f%% of wall", 100 * share(f->waited[0], pv_report_wall(r, 0)));
	for (unsigned e = 1; e < r->nev; e++) {
		uint64_t whole = pv_report_share_base(r, f, e);
		fputs("\\n", out);
		pv_dot_text(out, r->events[e].name, 40);
		fprintf(out, ": %.2f%% (%.2f%%)", 100 * share(f->total[e], whole),
			100 * share(f->self[e], whole));
	}
	if (cycles >= 0 && instructions >= 0 && f->total[cycles])
		fprintf(out, "\\nIPC %.2f", (double)f->total[instructions] / (double)f->total[cycles]);
	if (pv_all_inlined(f)) { /* its self, 0, is in its host's */
		fputs("\\ninlined", out);
		write_hosts(out, r, host);
	}
}

/* On hover: the full name, where it is defined, and the absolute amounts. */
static void write_function_tooltip(FILE *out, const struct pv_report *r,
				   const struct pv_rfunc *f, const struct pv_host *host)
{
	pv_dot_definition(out, &f->sym, PV_DOT_TOOLTIP_MAX);
	if (f->copies > 1)
		fprintf(out, "\\n%u copies of it (defined in a header, compiled into several "
			"files), shown as one", f->copies);
	fputs("\\ntotal ", out);
	pv_dot_amount(out, f->total[0], &r->events[0]);
	fputs(", self ", out);
	pv_dot_amount(out, f->self[0], &r->events[0]);
	if (wait_apart(r, f->id))
		fprintf(out, "\\nblocked in libc, apart from the work: %.2f%% of the wall (work and "
			"waits)", 100 * share(f->total[0], pv_report_wall(r, 0)));
	else if (r->waits_apart && f->waited[0]) {
		fputs("\\nits waits below, apart from its total: ", out);
		pv_dot_amount(out, f->waited[0], &r->events[0]);
		fprintf(out, ", %.2f%% of the wall", 100 * share(f->waited[0], pv_report_wall(r, 0)));
	}
	if (pv_sampled(r, 0) && f->kind == PV_FUNC_WAIT)
		fputs("\\nits self is time blocked, measured, not sampled", out);
	else if (pv_sampled(r, 0) && f->self[0] && f->timed_ns >= f->self[0])
		fputs("\\nself timed at its hooks, not sampled", out);
	else if (pv_sampled(r, 0) && f->self[0])
		fprintf(out, "\\nself from %" PRIu64 " sample%s%s: good to \xc2\xb1%.0f%% of itself",
			f->samples, f->samples == 1 ? "" : "s",
			f->timed_ns ? " and the time timed at its hooks" : "",
			100 * pv_self_error(f, 0));
	if (r->compensated && !pv_sampled(r, 0)) {
		fputs("\\nwith the hooks' own cost: total ", out);
		pv_dot_amount(out, f->raw_total[0], &r->events[0]);
		fputs(", self ", out);
		pv_dot_amount(out, f->raw_self[0], &r->events[0]);
	}
	if (f->inlined_calls) {
		if (pv_all_inlined(f))
			fputs("\\nevery call inlined", out);
		else
			fprintf(out, "\\n%" PRIu64 " of its calls inlined", f->inlined_calls);
		write_hosts(out, r, host);
		fputs(": their self counts there, in the code they ran in", out);
	}
}

static void write_function_node(FILE *out, const struct pv_report *r, const struct pv_rfunc *f,
				int ambiguous, const struct pv_host *host)
{
	char hex[8];
	if (weighed_by_calls(r))
		node_colour(share(f->calls, most_calls(r)), hex);
	else
		node_colour(share(r->colour_by_self ? f->self[0] : f->total[0], r->run_total[0]),
			    hex);
	if (wait_apart(r, f->id))
		strcpy(hex, PV_DOT_WAIT_FILL);
	fprintf(out, "  f%d [label=\"", f->id);
	write_function_label(out, r, f, ambiguous, host);
	fprintf(out, "\", fillcolor=\"%s\", fontcolor=%s, %stooltip=\"", hex, pv_text_colour(hex),
		pv_few_samples(r, f, 0) ? "style=\"filled,dashed\", " : "");
	write_function_tooltip(out, r, f, host);
	fputs("\"];\n", out);
}

/* An arc's calls, and how many of them the compiler inlined. */
static void write_arc_calls(FILE *out, const struct pv_rarc *a)
{
	fprintf(out, "  %" PRIu64 "\xc3\x97", a->calls);
	if (pv_arc_all_inlined(a))
		fputs(", inlined", out);
	else if (a->inlined_calls)
		fprintf(out, " (%" PRIu64 " inlined)", a->inlined_calls);
}

/* A call into a wait whose time is apart: grey, its share of the wall. */
static void write_wait_arc(FILE *out, const struct pv_report *r, const struct pv_rarc *a)
{
	double of_wall = share(a->total[0], pv_report_wall(r, 0));
	double width = fmax(4 * of_wall, 0.5);
	if (a->caller < 0)
		fputs("  root -> ", out);
	else
		fprintf(out, "  f%d -> ", a->caller);
	fprintf(out, "f%d [label=\"  %.2f%% of wall\\l", a->callee, 100 * of_wall);
	write_arc_calls(out, a);
	fprintf(out, "\\l\", color=\"%s\", fontcolor=\"%s\", penwidth=%.2f, arrowsize=%.2f, "
		"tooltip=\"blocked in libc, apart from the work: %.2f%% of the wall (work and "
		"waits)\"];\n", PV_DOT_WAIT_LINE, PV_DOT_WAIT_LINE, width, 0.5 * sqrt(width) + 0.3,
		100 * of_wall);
}

/* Coloured and thickened by its share of the run, as the boxes are (the
 * share of the caller alone would make a cold corner's only arc look hot);
 * a nested arc is dashed, with its count only; so is an inlined one, no
 * call but the caller's own code, which says so. */
static void write_arc(FILE *out, const struct pv_report *r, const struct pv_rarc *a)
{
	char hex[8];
	if (wait_apart(r, a->callee)) {
		write_wait_arc(out, r, a);
		return;
	}
	double of_run = share(a->total[0], r->run_total[0]);
	double weight = weighed_by_calls(r) ? share(a->calls, most_calls(r)) : of_run;
	node_colour(weight, hex);
	if (a->caller < 0)
		fputs("  root -> ", out);
	else
		fprintf(out, "  f%d -> ", a->caller);
	if (arc_drawn_nested(r, a, r->edge_threshold / 100.0)) {
		fprintf(out, "f%d [label=\"", a->callee);
		write_arc_calls(out, a);
		if (arc_is_nested(a))
			fprintf(out, "\", style=dashed, color=\"%s\", fontcolor=\"%s\", tooltip=\"nested "
				"in an activation of the callee: no total of its own\"];\n", hex, hex);
		else
			fprintf(out, "\", style=dashed, color=\"%s\", fontcolor=\"%s\", tooltip=\"%" PRIu64
				" of the calls nested in an open activation of the callee: a cycle; "
				"%.2f%% of the run of its own\"];\n", hex, hex, a->nested_calls,
				100 * of_run);
		return;
	}
	double width = fmax(4 * weight, 0.5);
	int has_caller = a->caller >= 0; /* not the program's own calls */
	double of_caller = has_caller ? share(a->total[0], r->funcs[a->caller].total[0]) : 0;
	/* Indented: graphviz sets edge labels flush against the line. */
	fprintf(out, "f%d [label=\"  %.2f%%\\l", a->callee, 100 * of_run);
	if (has_caller)
		fprintf(out, "  %.1f%% of caller\\l", 100 * of_caller);
	write_arc_calls(out, a);
	fprintf(out, "\\l\", %scolor=\"%s\", fontcolor=\"%s\", penwidth=%.2f, arrowsize=%.2f, "
		"tooltip=\"%.2f%% of the run", pv_arc_all_inlined(a) ? "style=dashed, " : "", hex, hex,
		width, 0.5 * sqrt(width) + 0.3, 100 * of_run);
	if (has_caller)
		fprintf(out, ", %.2f%% of the caller's total", 100 * of_caller);
	if (a->nested_calls)
		fprintf(out, "; %" PRIu64 " of the calls nested in an open activation of the "
			"callee", a->nested_calls);
	if (a->inlined_calls)
		fprintf(out, "; %s inlined into the caller: their self counts in the caller's",
			pv_arc_all_inlined(a) ? "its calls" : "some of its calls");
	fputs("\"];\n", out);
}

static int by_name(const void *x, const void *y)
{
	const struct pv_rfunc *a = *(const struct pv_rfunc *const *)x;
	const struct pv_rfunc *b = *(const struct pv_rfunc *const *)y;
	return strcmp(a->sym.name, b->sym.name);
}

/* Mark the functions whose name another function has too. 0, or -1. */
static int mark_ambiguous(const struct pv_report *r, struct selection *sel)
{
	unsigned n = r->n_funcs;
	const struct pv_rfunc **order = malloc((n ? n : 1) * sizeof(*order));
	sel->ambiguous = calloc(n ? n : 1, 1);
	if (!order || !sel->ambiguous) {
		free(order);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		order[i] = &r->funcs[i];
	qsort(order, n, sizeof(*order), by_name);
	for (unsigned i = 1; i < n; i++)
		if (!strcmp(order[i - 1]->sym.name, order[i]->sym.name))
			sel->ambiguous[order[i - 1]->id] = sel->ambiguous[order[i]->id] = 1;
	free(order);
	return 0;
}

static int write_graph(FILE *out, const struct pv_report *r);

int pv_write_dot(FILE *out, const struct pv_report *r)
{
	struct pv_report work, view;
	int apart = r->waits_inside ? 0 : pv_view_waits_apart(&work, r);
	if (apart < 0)
		return -1;
	int rc = pv_copies_merge(apart ? &work : r, &view);
	if (rc == 0) {
		rc = write_graph(out, &view);
		pv_copies_free(&view);
	}
	if (apart)
		pv_report_free(&work);
	return rc;
}

/* The graph of r, whose functions are one per source definition. */
static int write_graph(FILE *out, const struct pv_report *r)
{
	struct selection sel;
	if (select_shown(r, &sel) < 0)
		return -1;
	sel.hosts = pv_inlined_hosts(r);
	if (!sel.hosts || mark_ambiguous(r, &sel) < 0) {
		free(sel.shown);
		free(sel.ambiguous);
		free(sel.hosts);
		return -1;
	}
	fputs("digraph profviz {\n", out);
	fputs("  graph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25, labelloc=t, "
	      "labeljust=l, fontsize=10, label=\"", out);
	write_graph_label(out, r, &sel);
	fputs("\"];\n", out);
	fputs("  node [fontname=\"Arial\", shape=box, style=filled, fontcolor=white, "
	      "fontsize=10, width=0, height=0];\n", out);
	fputs("  edge [fontname=\"Arial\", fontsize=9];\n", out);
	write_program_node(out, r);
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (sel.shown[i])
			write_function_node(out, r, &r->funcs[i], sel.ambiguous[i], &sel.hosts[i]);
	for (unsigned i = 0; i < r->n_arcs; i++)
		if (arc_shown(r, &r->arcs[i], &sel))
			write_arc(out, r, &r->arcs[i]);
	fputs("}\n", out);
	free(sel.shown);
	free(sel.ambiguous);
	free(sel.hosts);
	return ferror(out) ? -1 : 0;
}
