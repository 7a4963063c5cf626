/* SPDX-License-Identifier: MIT */
/*
 * view.c — part of a profile as a profile of its own, rebuilt from its call
 * paths: the callers and callees of one function (a focus), what runs below
 * one function (a root), or the top levels of the tree (a depth); and the
 * work apart from the waits. The functions and arcs are summed again from
 * the paths kept, so every writer shows the part as it would a whole run.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/pairs.h"
#include "model/view.h"

struct building {
	const struct pv_report *in;
	struct pv_report *out;
	int *func_of;           /* new function id of an old one, or -1 */
	struct pv_pair *arcs;   /* (caller, callee) -> slot in out->arcs */
};

static int new_function(struct building *b, int old)
{
	if (b->func_of[old] >= 0)
		return b->func_of[old];
	struct pv_rfunc *f = &b->out->funcs[b->out->n_funcs];
	f->id = (int)b->out->n_funcs;
	f->fn = b->in->funcs[old].fn;
	f->copies = b->in->funcs[old].copies;
	f->kind = b->in->funcs[old].kind;
	if (pv_symbol_copy(&f->sym, &b->in->funcs[old].sym) < 0 ||
	    pv_lines_add_all(&f->lines, &b->in->funcs[old].lines) < 0)
		return -1;
	return b->func_of[old] = (int)b->out->n_funcs++;
}

/* Whether func is open further up path i's chain (its parents). */
static int open_above(const struct pv_report *r, int i, int func)
{
	for (int at = r->paths[i].parent; at >= 0; at = r->paths[at].parent)
		if (r->paths[at].func == func)
			return 1;
	return 0;
}

static struct pv_rarc *arc_of(struct building *b, int caller, int callee)
{
	struct pv_report *r = b->out;
	int created, slot = pv_pair_slot(&b->arcs, &r->n_arcs, caller, callee, &created);
	if (slot < 0)
		return NULL;
	struct pv_rarc *a = &r->arcs[slot];
	if (created) {
		a->caller = caller;
		a->callee = callee;
	}
	return a;
}

/* The arc into path p from its parent's function: p's calls but those folded
 * into it from below (they are the folds' own arcs, add_fold_arcs). */
static int add_arc(struct building *b, int caller, const struct pv_rpath *p, int nested,
		   uint64_t folded_in, const uint64_t *raw_total, const uint64_t *waited)
{
	struct pv_report *r = b->out;
	struct pv_rarc *a = arc_of(b, caller, p->func);
	if (!a)
		return -1;
	uint64_t entered = p->calls > folded_in ? p->calls - folded_in : 0;
	a->calls += entered;
	a->inlined_calls += p->inlined_calls < entered ? p->inlined_calls : entered;
	if (nested) {
		a->nested_calls += entered;
		return 0;
	}
	for (unsigned ev = 0; ev < r->nev; ev++) {
		a->total[ev] += p->total[ev];
		a->raw_total[ev] += raw_total[ev];
		a->waited[ev] += waited[ev];
	}
	return 0;
}

/* The recursive calls folded into the paths: the arcs they are, nested
 * (the function called is open above), from out's folds. */
static int add_fold_arcs(struct building *b)
{
	struct pv_report *r = b->out;
	for (unsigned i = 0; i < r->n_folds; i++) {
		const struct pv_rfold *o = &r->folds[i];
		struct pv_rarc *a = arc_of(b, r->paths[o->from].func, r->paths[o->into].func);
		if (!a)
			return -1;
		a->calls += o->calls;
		a->nested_calls += o->calls;
	}
	return 0;
}

/* Functions and arcs from out's paths, whose func fields are still the
 * input's ids; raw_total: each path's raw total (from the input's whole
 * subtree, or what flows through the focus); waited: what the waits apart
 * took from its total; folded_in: the calls the input's folds put into each. */
static int sum_paths(struct building *b, const uint64_t (*raw_total)[PV_MAX_EVENTS],
		     const uint64_t (*waited)[PV_MAX_EVENTS], const uint64_t *folded_in)
{
	struct pv_report *r = b->out;
	unsigned nev = r->nev;
	int status = 0;
	for (unsigned i = 0; i < r->n_paths && status == 0; i++) {
		struct pv_rpath *p = &r->paths[i];
		int id = new_function(b, p->func);
		if (id < 0) {
			status = -1;
			break;
		}
		p->func = id; /* parents come first, so open_above sees new ids */
		int nested = open_above(r, (int)i, id);
		struct pv_rfunc *f = &r->funcs[id];
		f->calls += p->calls;
		f->inlined_calls += p->inlined_calls;
		f->samples += p->samples;
		f->timed_ns += p->timed_ns;
		for (unsigned ev = 0; ev < nev; ev++) {
			f->self[ev] += p->self[ev];
			f->raw_self[ev] += p->raw_self[ev];
			if (!nested) {
				f->total[ev] += p->total[ev];
				f->raw_total[ev] += raw_total[i][ev];
				f->waited[ev] += waited[i][ev];
			}
		}
		int caller = p->parent >= 0 ? r->paths[p->parent].func : -1;
		status = add_arc(b, caller, p, nested, folded_in[i], raw_total[i], waited[i]);
	}
	return status < 0 ? status : add_fold_arcs(b);
}

/* A whole run's arcs keep its input's calls. Its paths hold a recursion's
 * calls on the path that entered it (the runtime folds fib -> fib into
 * run -> fib's path, handover.c), so arcs summed from the paths alone
 * would drop fib -> fib and give its calls to run -> fib. The arcs' totals
 * stay the paths' (those of outermost activations, the waits apart). */
static int keep_arc_calls(struct building *b)
{
	const struct pv_report *in = b->in;
	for (unsigned i = 0; i < in->n_arcs; i++) {
		const struct pv_rarc *x = &in->arcs[i];
		int caller = x->caller >= 0 ? b->func_of[x->caller] : -1;
		int callee = b->func_of[x->callee];
		if (callee < 0 || (x->caller >= 0 && caller < 0))
			continue; /* a function no path kept */
		/* New where every call was nested: no total of its own. */
		struct pv_rarc *a = arc_of(b, caller, callee);
		if (!a)
			return -1;
		a->calls = x->calls;
		a->nested_calls = x->nested_calls;
		a->inlined_calls = x->inlined_calls;
	}
	return 0;
}

/* What a view knows of each path of its input, by index. */
struct marks {
	char *under;    /* in the part: the whole run, or below a chosen function */
	char *reach;    /* a caller's path through which something flows into the focus */
	unsigned *dist; /* levels below the part's top (for --depth) */
	int *index_of;  /* its index in the view, or -1 */
	/* What flows into the focus through each of its callers' paths, and
	 * each path's raw total in the input and what of it flows so. */
	uint64_t (*flow)[PV_MAX_EVENTS];
	uint64_t (*raw_in)[PV_MAX_EVENTS];
	uint64_t (*raw_flow)[PV_MAX_EVENTS];
	uint64_t (*raw_out)[PV_MAX_EVENTS]; /* by index in the view */
	/* With the waits apart: the waits' self in each path's subtree (its
	 * own included), raw too, and each path's total and raw total as the
	 * view shows them (a wait's its own; anything else's without them). */
	uint64_t (*blocked)[PV_MAX_EVENTS];
	uint64_t (*raw_blocked)[PV_MAX_EVENTS];
	uint64_t (*shown)[PV_MAX_EVENTS];
	uint64_t (*raw_shown)[PV_MAX_EVENTS];
	uint64_t (*blocked_flow)[PV_MAX_EVENTS]; /* ... of it, through the focus's callers */
	uint64_t (*blocked_out)[PV_MAX_EVENTS];  /* by index in the view */
	uint64_t *folded_in; /* by index in the view: the calls folds put into it */
	char *threads_kept; /* in the threads the view keeps (all, unless chosen) */
	int waits_out; /* take the waits out of what is above them (not done yet) */
};

static int marks_alloc(struct marks *m, unsigned n)
{
	m->under = calloc(n + 1, 1);
	m->reach = calloc(n + 1, 1);
	m->dist = calloc(n + 1, sizeof(*m->dist));
	m->index_of = malloc((n + 1) * sizeof(*m->index_of));
	m->flow = calloc(n + 1, sizeof(*m->flow));
	m->raw_in = calloc(n + 1, sizeof(*m->raw_in));
	m->raw_flow = calloc(n + 1, sizeof(*m->raw_flow));
	m->raw_out = calloc(n + 1, sizeof(*m->raw_out));
	m->blocked = calloc(n + 1, sizeof(*m->blocked));
	m->raw_blocked = calloc(n + 1, sizeof(*m->raw_blocked));
	m->shown = calloc(n + 1, sizeof(*m->shown));
	m->raw_shown = calloc(n + 1, sizeof(*m->raw_shown));
	m->blocked_flow = calloc(n + 1, sizeof(*m->blocked_flow));
	m->blocked_out = calloc(n + 1, sizeof(*m->blocked_out));
	m->folded_in = calloc(n + 1, sizeof(*m->folded_in));
	m->threads_kept = calloc(n + 1, 1);
	return m->under && m->reach && m->dist && m->index_of && m->flow && m->raw_in &&
			       m->raw_flow && m->raw_out && m->blocked && m->raw_blocked &&
			       m->shown && m->raw_shown && m->blocked_flow && m->blocked_out &&
			       m->folded_in && m->threads_kept
		       ? 0
		       : -1;
}

static void marks_free(struct marks *m)
{
	free(m->under);
	free(m->reach);
	free(m->dist);
	free(m->index_of);
	free(m->flow);
	free(m->raw_in);
	free(m->raw_flow);
	free(m->raw_out);
	free(m->blocked);
	free(m->raw_blocked);
	free(m->shown);
	free(m->raw_shown);
	free(m->blocked_flow);
	free(m->blocked_out);
	free(m->folded_in);
	free(m->threads_kept);
}

/* Which paths are in the part, and how deep; parents come before children. */
static void mark_part(const struct pv_report *in, const struct pv_view *v, struct marks *m)
{
	for (unsigned i = 0; i < in->n_paths; i++) {
		const struct pv_rpath *p = &in->paths[i];
		int parent_under = p->parent >= 0 && m->under[p->parent];
		int kept = m->threads_kept[i] =
			!v->groups ? 1
			: p->parent >= 0 ? m->threads_kept[p->parent]
					 : p->group && p->group <= in->n_groups && v->groups[p->group];
		if (v->kind == PV_VIEW_WHOLE) {
			m->under[i] = kept;
			m->dist[i] = p->parent >= 0 ? m->dist[p->parent] + 1 : 0;
		} else {
			m->under[i] = kept && (v->funcs[p->func] || parent_under);
			m->dist[i] = parent_under ? m->dist[p->parent] + 1 : 0;
		}
	}
}

static uint64_t less(uint64_t v, uint64_t taken)
{
	return v > taken ? v - taken : 0;
}

/* Path i's raw total, and with the waits apart what is blocked below it
 * and its totals as shown; its children's are summed already. */
static void mark_totals(const struct pv_report *in, struct marks *m, unsigned i)
{
	const struct pv_rpath *p = &in->paths[i];
	int wait = in->funcs[p->func].kind == PV_FUNC_WAIT;
	for (unsigned ev = 0; ev < in->nev; ev++) {
		m->raw_in[i][ev] += p->raw_self[ev];
		if (wait) {
			m->blocked[i][ev] += p->self[ev];
			m->raw_blocked[i][ev] += p->raw_self[ev];
		}
		/* A wait keeps its own time, apart; what is above it leaves that out
		 * (with recursion folded back above a wait, an activation's total may
		 * hold a wait that is not in its subtree: left in). */
		int out = m->waits_out && !wait;
		m->shown[i][ev] = out ? less(p->total[ev], m->blocked[i][ev]) : p->total[ev];
		m->raw_shown[i][ev] = out ? less(m->raw_in[i][ev], m->raw_blocked[i][ev])
					  : m->raw_in[i][ev];
		if (p->parent >= 0) {
			m->raw_in[p->parent][ev] += m->raw_in[i][ev];
			m->blocked[p->parent][ev] += m->blocked[i][ev];
			m->raw_blocked[p->parent][ev] += m->raw_blocked[i][ev];
		}
	}
}

/* Children before parents: each path's raw total, what flows into the
 * focus through the callers, the part's total (in run_total) and, with the
 * waits apart, what they hold below its top (in waited). */
static void mark_flow(const struct pv_report *in, const struct pv_view *v, struct marks *m,
		      uint64_t *run_total, uint64_t *waited)
{
	for (unsigned i = in->n_paths; i-- > 0;) {
		const struct pv_rpath *p = &in->paths[i];
		mark_totals(in, m, i);
		int top = v->kind == PV_VIEW_WHOLE ? p->parent < 0 && m->under[i]
			  : m->under[i] && v->funcs[p->func] &&
				    !(p->parent >= 0 && m->under[p->parent]);
		int wait = in->funcs[p->func].kind == PV_FUNC_WAIT;
		/* A wait at the root (called from code without hooks) is blocked
		 * time too, its own: not the work's. */
		if (top && (!wait || v->kind == PV_VIEW_WHOLE))
			for (unsigned ev = 0; ev < in->nev; ev++)
				waited[ev] += m->blocked[i][ev];
		int outermost = v->kind != PV_VIEW_WHOLE && top;
		if (v->kind == PV_VIEW_WHOLE && v->groups && top && (!wait || !m->waits_out))
			for (unsigned ev = 0; ev < in->nev; ev++) /* the kept threads' run */
				run_total[ev] += m->shown[i][ev];
		if (outermost) {
			m->reach[i] = 1;
			memcpy(m->flow[i], m->shown[i], sizeof(m->flow[i]));
			memcpy(m->raw_flow[i], m->raw_shown[i], sizeof(m->raw_flow[i]));
			if (!wait)
				memcpy(m->blocked_flow[i], m->blocked[i], sizeof(m->blocked_flow[i]));
			for (unsigned ev = 0; ev < in->nev; ev++)
				run_total[ev] += m->shown[i][ev];
		}
		if (p->parent >= 0 && m->reach[i] && (outermost || !m->under[i])) {
			m->reach[p->parent] = 1;
			for (unsigned ev = 0; ev < in->nev; ev++) {
				m->flow[p->parent][ev] += m->flow[i][ev];
				m->raw_flow[p->parent][ev] += m->raw_flow[i][ev];
				m->blocked_flow[p->parent][ev] += m->blocked_flow[i][ev];
			}
		}
	}
}

/* The paths the view keeps, into out: the part (to its depth) and, for a
 * focus, its callers with only what flows through them. */
static void keep_paths(const struct pv_report *in, const struct pv_view *v, struct marks *m,
		       struct pv_report *out)
{
	for (unsigned i = 0; i < in->n_paths; i++) {
		const struct pv_rpath *p = &in->paths[i];
		int deep_enough = !v->depth || m->dist[i] <= v->depth;
		int keep = m->under[i] ? deep_enough : v->kind == PV_VIEW_FOCUS && m->reach[i];
		m->index_of[i] = -1;
		if (!keep)
			continue;
		struct pv_rpath *q = &out->paths[out->n_paths];
		*q = *p;
		q->parent = p->parent >= 0 ? m->index_of[p->parent] : -1;
		memcpy(q->total, m->shown[i], sizeof(q->total));
		memcpy(m->raw_out[out->n_paths], m->under[i] ? m->raw_shown[i] : m->raw_flow[i],
		       sizeof(m->raw_out[0]));
		/* What the waits apart took from its total: a wait's own is its total. */
		if (out->waits_apart && in->funcs[p->func].kind != PV_FUNC_WAIT)
			memcpy(m->blocked_out[out->n_paths],
			       m->under[i] ? m->blocked[i] : m->blocked_flow[i],
			       sizeof(m->blocked_out[0]));
		if (!m->under[i]) { /* a caller of the focus: only what flows through it */
			memset(q->self, 0, sizeof(q->self));
			memset(q->raw_self, 0, sizeof(q->raw_self));
			q->samples = 0;
			q->timed_ns = 0;
			memcpy(q->total, m->flow[i], sizeof(q->total));
		}
		m->index_of[i] = (int)out->n_paths++;
	}
}

/* The folds between paths the view keeps, by their indices there; every
 * fold into a kept path counts against the arc that enters it, the calls
 * of a fold from a path cut off (below a depth) included. */
static int keep_folds(const struct pv_report *in, const struct marks *m, struct pv_report *out)
{
	out->folds = calloc(in->n_folds + 1, sizeof(*out->folds));
	if (!out->folds)
		return -1;
	for (unsigned i = 0; i < in->n_folds; i++) {
		const struct pv_rfold *o = &in->folds[i];
		int from = m->index_of[o->from], into = m->index_of[o->into];
		if (into >= 0)
			m->folded_in[into] += o->calls;
		if (from >= 0 && into >= 0)
			out->folds[out->n_folds++] = (struct pv_rfold){ from, into, o->calls };
	}
	return 0;
}

/* Raw costs of a part: its own raw costs over the whole's. */
static void sum_raw_run(struct pv_report *out)
{
	memset(out->raw_run_total, 0, sizeof(out->raw_run_total));
	for (unsigned i = 0; i < out->n_arcs; i++)
		if (out->arcs[i].caller < 0)
			for (unsigned ev = 0; ev < out->nev; ev++)
				out->raw_run_total[ev] += out->arcs[i].raw_total[ev];
}

/* Whether thread t is of a group v keeps: its name and kind's. */
static int thread_kept(const struct pv_report *in, const struct pv_view *v,
		       const struct pv_rthread *t)
{
	if (!v->groups)
		return 1;
	for (unsigned g = 0; g < in->n_groups; g++)
		if (v->groups[g + 1] && in->groups[g].main_thread == t->main_thread &&
		    !strncmp(in->groups[g].name, t->name, sizeof(t->name)))
			return 1;
	return 0;
}

/* The threads' totals are of the whole run (of the threads kept): a part
 * has none. */
static int keep_threads(struct pv_report *out, const struct pv_report *in,
			const struct pv_view *v)
{
	if (in->n_groups) {
		out->groups = malloc(in->n_groups * sizeof(*out->groups));
		if (!out->groups)
			return -1;
		memcpy(out->groups, in->groups, in->n_groups * sizeof(*out->groups));
	}
	if (v->kind != PV_VIEW_WHOLE || v->depth || !in->n_thread_list)
		return 0;
	out->thread_list = malloc(in->n_thread_list * sizeof(*out->thread_list));
	if (!out->thread_list)
		return -1;
	for (unsigned i = 0; i < in->n_thread_list; i++)
		if (thread_kept(in, v, &in->thread_list[i]))
			out->thread_list[out->n_thread_list++] = in->thread_list[i];
	out->threads = out->n_thread_list;
	return 0;
}

int pv_view_build(struct pv_report *out, const struct pv_report *in, const struct pv_view *v)
{
	unsigned n = in->n_paths;
	*out = *in;
	out->funcs = NULL;
	out->arcs = NULL;
	out->paths = NULL;
	out->thread_list = NULL;
	out->groups = NULL;
	out->folds = NULL;
	out->n_thread_list = 0;
	out->n_funcs = out->n_arcs = out->n_paths = out->n_folds = 0;
	memset(out->run_total, 0, sizeof(out->run_total)); /* summed below */
	memset(out->waited, 0, sizeof(out->waited));

	struct marks m;
	struct building b = { in, out, malloc((in->n_funcs + 1) * sizeof(int)), NULL };
	out->funcs = calloc(in->n_funcs + 1, sizeof(*out->funcs));
	/* An arc per path, per fold, and keep_arc_calls' per input arc at most. */
	out->arcs = calloc(n + in->n_folds + in->n_arcs + 1, sizeof(*out->arcs));
	out->paths = calloc(n + 1, sizeof(*out->paths));
	int status = -1;
	if (marks_alloc(&m, n) < 0 || keep_threads(out, in, v) < 0 || !b.func_of || !out->funcs ||
	    !out->arcs || !out->paths)
		goto done;
	memset(b.func_of, -1, (in->n_funcs + 1) * sizeof(int));
	/* A view of a view whose waits are apart already takes nothing out. */
	m.waits_out = v->waits_apart && !in->waits_apart;
	out->waits_apart = v->waits_apart || in->waits_apart;

	mark_part(in, v, &m);
	mark_flow(in, v, &m, out->run_total, out->waited);
	if (!out->waits_apart)
		memset(out->waited, 0, sizeof(out->waited));
	if (v->kind == PV_VIEW_WHOLE && !v->groups)
		for (unsigned ev = 0; ev < in->nev; ev++)
			out->run_total[ev] = less(in->run_total[ev], m.waits_out ? out->waited[ev] : 0);
	keep_paths(in, v, &m, out);
	if (keep_folds(in, &m, out) < 0 ||
	    sum_paths(&b, (const uint64_t (*)[PV_MAX_EVENTS])m.raw_out,
		      (const uint64_t (*)[PV_MAX_EVENTS])m.blocked_out, m.folded_in) < 0)
		goto done;
	/* The input's arcs count every thread's calls: not a few threads'. */
	if (v->kind == PV_VIEW_WHOLE && !v->groups && keep_arc_calls(&b) < 0)
		goto done;
	sum_raw_run(out);
	pv_report_hold_run_total(out);
	/* The whole run's, its waits apart or not: built from a run that was
	 * raised already, and raised by as much. */
	for (unsigned ev = 0; ev < in->nev && v->kind == PV_VIEW_WHOLE && !v->groups; ev++)
		if (!out->run_total_raised[ev])
			out->run_total_raised[ev] = in->run_total_raised[ev];
	status = pv_report_sort(out);
done:
	pv_pairs_free(&b.arcs);
	free(b.func_of);
	marks_free(&m);
	if (status < 0) {
		pv_report_free(out);
		memset(out, 0, sizeof(*out));
	}
	return status;
}

int pv_view_has_waits(const struct pv_report *r)
{
	if (r->waits_apart)
		return 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (r->funcs[i].kind == PV_FUNC_WAIT)
			for (unsigned ev = 0; ev < r->nev; ev++)
				if (r->funcs[i].self[ev])
					return 1;
	return 0;
}

int pv_view_waits_apart(struct pv_report *out, const struct pv_report *in)
{
	if (!pv_view_has_waits(in) || !in->n_paths)
		return 0;
	struct pv_view whole = { .kind = PV_VIEW_WHOLE, .waits_apart = 1 };
	return pv_view_build(out, in, &whole) < 0 ? -1 : 1;
}
