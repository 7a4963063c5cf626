/* SPDX-License-Identifier: MIT */
/*
 * Two runs compared (model/diff.h) on reports made by hand: functions
 * matched by module file name and name wherever the program was, the
 * change in points of A's run, the thresholds and the cap, and the order
 * of the largest changes.
 */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "model/diff.h"

static struct pv_event_desc event;

#define MAX_FUNCS 8

struct run {
	struct pv_report r;
	struct pv_rfunc funcs[MAX_FUNCS];
	struct pv_rarc arcs[MAX_FUNCS];
};

/* Add a function of module called once from main (or main itself, called
 * from outside), with that total and self. */
static void add(struct run *run, char *module, char *name, uint64_t total,
		uint64_t self)
{
	unsigned i = run->r.n_funcs++;
	struct pv_rfunc *f = &run->funcs[i];
	f->id = (int)i;
	f->fn = (void *)(uintptr_t)(0x1000 + 16 * i);
	f->sym.module = module;
	f->sym.name = name;
	f->calls = 1;
	f->total[0] = f->raw_total[0] = total;
	f->self[0] = f->raw_self[0] = self;
	run->arcs[run->r.n_arcs++] = (struct pv_rarc){ .caller = i ? 0 : -1, .callee = (int)i,
						       .calls = 1, .total = { total } };
}

static void start(struct run *run, const char *program, uint64_t run_total)
{
	memset(run, 0, sizeof(*run));
	run->r.program = program;
	run->r.nev = 1;
	run->r.events = &event;
	run->r.run_total[0] = run->r.raw_run_total[0] = run_total;
	run->r.funcs = run->funcs;
	run->r.arcs = run->arcs;
}

/* A in /old, B in /new: grows() 20 -> 100, shrinks() 60 -> 30, only_a()
 * and only_b() (10 each), and in B a grows() of another module. */
static void two_runs(struct run *a, struct run *b, uint64_t total_a, uint64_t total_b)
{
	start(a, "/old/prog", total_a);
	add(a, "/old/prog", "main", 100, 10);
	add(a, "/old/prog", "shrinks", 60, 60);
	add(a, "/old/prog", "grows", 20, 20);
	add(a, "/old/prog", "only_a", 10, 10);
	start(b, "/new/prog", total_b);
	add(b, "/new/prog", "main", 150, 10);
	add(b, "/new/prog", "grows", 100, 100);
	add(b, "/new/prog", "shrinks", 30, 30);
	add(b, "/new/prog", "only_b", 10, 10);
	add(b, "/lib/libother.so", "grows", 1, 1);
}

static const struct pv_diff_func *func(const struct pv_diff *d, const char *module,
				       const char *name)
{
	for (unsigned i = 0; i < d->n_funcs; i++)
		if (!strcmp(d->funcs[i].f->sym.name, name) &&
		    !strcmp(d->funcs[i].f->sym.module, module))
			return &d->funcs[i];
	return NULL;
}

static int near(double got, double want)
{
	return fabs(got - want) < 1e-9;
}

static void matching(void)
{
	struct run a, b;
	two_runs(&a, &b, 100, 150);
	struct pv_diff d;
	struct pv_diff_limits all = { 0 };
	if (!tap_ok(pv_diff_build(&d, &a.r, &b.r, &all) == 0, "built"))
		return;
	tap_is(d.n_funcs, 6, "six functions: three in both, one only in A, two only in B");
	tap_is(d.n_arcs, 6, "six arcs, matched through their functions");
	const struct pv_diff_func *g = func(&d, "/new/prog", "grows");
	tap_ok(g && g->a.present && g->b.present && g->a.total == 20 && g->b.total == 100,
	       "grows() of /old/prog and of /new/prog are one function");
	const struct pv_diff_func *other = func(&d, "/lib/libother.so", "grows");
	tap_ok(other && !other->a.present && other->b.present,
	       "another module's grows() is another function, new in B");
	const struct pv_diff_func *gone = func(&d, "/old/prog", "only_a");
	tap_ok(gone && gone->a.present && !gone->b.present, "only_a() is only in A");
	struct pv_diff_change c = pv_diff_change_of(&d, g->a.total, g->b.total);
	tap_ok(near(c.share_a, 20) && near(c.share_b, 100) && near(c.points, 80) &&
		       near(c.own, 400),
	       "grows(): 20%% -> 100%% of A's run, +80 points, +400%% of its own");

	int order[MAX_FUNCS * 2];
	unsigned n = pv_diff_changed(&d, order);
	const char *want[] = { "grows", "main", "shrinks", "only_a", "only_b", "grows" };
	int in_order = n == 6;
	for (unsigned k = 0; in_order && k < n; k++)
		in_order = !strcmp(d.funcs[order[k]].f->sym.name, want[k]);
	tap_ok(in_order, "the changes largest first, ties by name (%u changed)", n);
	pv_diff_free(&d);

	all.normalize = 1;
	if (!tap_ok(pv_diff_build(&d, &a.r, &b.r, &all) == 0, "built, normalized"))
		return;
	g = func(&d, "/new/prog", "grows");
	c = pv_diff_change_of(&d, g->a.total, g->b.total);
	tap_ok(near(d.scale, 1.5) && near(c.share_a, 20) && near(c.share_b, 100 / 1.5),
	       "normalized: A scaled to B's total, shares of it (%.3f: %.2f%% -> %.2f%%)",
	       d.scale, c.share_a, c.share_b);
	pv_diff_free(&d);
}

static unsigned shown_arcs(const struct pv_diff *d)
{
	unsigned n = 0;
	for (unsigned i = 0; i < d->n_arcs; i++)
		n += d->arcs[i].shown;
	return n;
}

static void selection(void)
{
	struct run a, b;
	two_runs(&a, &b, 100, 150);
	struct pv_diff d;
	struct pv_diff_limits limits = { .node_min = 15, .edge_min = 15 };
	if (!tap_ok(pv_diff_build(&d, &a.r, &b.r, &limits) == 0, "built with thresholds"))
		return;
	tap_ok(func(&d, "/new/prog", "shrinks")->shown && !func(&d, "/old/prog", "only_a")->shown,
	       "a function shown by the larger of its shares (shrinks: 60%% in A)");
	tap_is(d.hidden_funcs, 3, "three functions under 15%% in both runs hidden");
	tap_is(shown_arcs(&d), 3, "arcs shown only between shown functions");
	tap_is(d.hidden_arcs, 3, "the others counted hidden");
	tap_ok(near(d.largest_shown, 80), "the largest shown change: grows(), 80 points (%.2f)",
	       d.largest_shown);
	pv_diff_free(&d);

	limits.max_nodes = 2;
	if (!tap_ok(pv_diff_build(&d, &a.r, &b.r, &limits) == 0, "built with a cap"))
		return;
	tap_ok(!func(&d, "/new/prog", "shrinks")->shown && func(&d, "/new/prog", "grows")->shown,
	       "capped at two: the two largest shown");
	tap_is(d.capped, 1, "one more above the threshold, counted");
	pv_diff_free(&d);

	two_runs(&a, &b, 0, 0);
	if (!tap_ok(pv_diff_build(&d, &a.r, &b.r, &(struct pv_diff_limits){ .node_min = 15 }) ==
			    0,
		    "built without run totals"))
		return;
	tap_is(d.hidden_funcs, 0, "no run total to judge by: every function shown");
	pv_diff_free(&d);
}

int main(void)
{
	pv_event_describe(&event, "tsc", PV_EVENT_TIME, "tsc");
	matching();
	selection();
	return tap_done();
}
