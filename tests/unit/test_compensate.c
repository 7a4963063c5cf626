/* SPDX-License-Identifier: MIT */
/*
 * Overhead compensation, exactly: hooks with scripted costs (a fixed amount
 * before and after each counter read), calibrated by the runtime's own
 * calibration, then a scripted program whose true costs are known. After
 * compensation every self and total must be the program's true cost, with
 * recursion and a signal handler in the mix, and every invariant must hold.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/calibrate.h"
#include "model/report.h"
#include "runtime/hooks.h"
#include "runtime/handover.h"
#include "runtime/naming.h"
#include "tap.h"

/* pv_compensate_costs with the callee part taken whole from every callee. */
static double compensate_whole(struct pv_comp_path *paths, unsigned n, double caller,
			    double caller_miss, double callee)
{
	struct pv_hook_costs c = { caller, caller_miss, callee, 0, 0 };
	return pv_compensate_costs(paths, n, &c, NULL);
}

/* What each hook adds to the scripted counter, before and after its read. */
enum { ENTER_PRE = 3, ENTER_POST = 5, EXIT_PRE = 7, EXIT_POST = 11 };
/* glibc's no-op hooks, as the program pays for them without profviz. */
enum { NOOP_ENTER = 1, NOOP_EXIT = 1 };

static uint64_t clock_now;
static struct pv_thread *self;

static void scripted_read(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	now[0] = clock_now;
}

static void enter_indexed(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, 1, scripted_read, pv_thread_enter_slow);
}

/* Each call runs 64 bytes deeper than its caller, as real calls do (hooks
 * at the caller's own depth would be an inlined body's). A signal handler
 * runs deeper still. */
#define SP ((uintptr_t)1 << 40)
static uintptr_t hook_sp = SP;
/* For the calibration, which drives the hooks from frames of its own:
 * the hooks' own frame address, as the runtime's hooks take it. */
static int hooks_at_cfa;
/* The scripted program's body inlined into its caller: hooks at its depth. */
static int inlined_body;

/* Where a scripted call returns to: its caller's depth says. A body
 * inlined into its caller is given its host's. */
static uintptr_t site_of(void *call_site, uintptr_t sp)
{
	return hooks_at_cfa ? (uintptr_t)call_site : sp + 1;
}

static void hook_enter(void *fn, void *call_site)
{
	clock_now += ENTER_PRE;
	if (!inlined_body)
		hook_sp -= 64;
	uintptr_t sp = hooks_at_cfa ? (uintptr_t)__builtin_dwarf_cfa() : hook_sp;
	pv_hook_enter(self, fn, site_of(call_site, sp), sp, PV_MODE_GENERIC, 1, scripted_read,
		      enter_indexed, pv_thread_enter_slow);
	clock_now += ENTER_POST;
}

static void hook_exit(void *fn, void *call_site)
{
	clock_now += EXIT_PRE;
	uintptr_t sp = hooks_at_cfa ? (uintptr_t)__builtin_dwarf_cfa() : hook_sp;
	pv_hook_exit(self, fn, site_of(call_site, sp), sp, PV_MODE_GENERIC, 1, scripted_read,
		     pv_thread_exit_slow);
	if (!inlined_body)
		hook_sp += 64;
	clock_now += EXIT_POST;
}

static void noop_enter(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	clock_now += NOOP_ENTER;
}

static void noop_exit(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	clock_now += NOOP_EXIT;
}

static struct pv_thread *new_thread(void)
{
	static struct pv_thread t;
	pv_thread_release(&t);
	memset(&t, 0, sizeof(t));
	if (pv_thread_init(&t, 1, scripted_read) < 0)
		abort();
	return &t;
}

static const struct pv_hooks hooks = {
	.enter = hook_enter, .exit = hook_exit,
	.noop_enter = noop_enter, .noop_exit = noop_exit, .self = &self,
};

static struct pv_overhead overhead;

static void test_calibration(void)
{
	struct pv_thread *t = new_thread();
	self = NULL;
	hooks_at_cfa = 1;
	tap_is(pv_calibrate(t, &hooks, 100, &overhead), 0, "calibration: measured");
	hooks_at_cfa = 0;
	tap_ok(overhead.calibrated, "calibration: marked as done");
	tap_ok(overhead.caller[0] == EXIT_POST + ENTER_PRE,
	       "calibration: the caller's share is the exit's tail and the enter's head (%g)",
	       overhead.caller[0]);
	tap_ok(overhead.callee[0] == ENTER_POST + EXIT_PRE - NOOP_ENTER - NOOP_EXIT,
	       "calibration: the callee's share, beyond the no-op hooks (%g)", overhead.callee[0]);
	tap_ok(overhead.callee_span[0] == ENTER_POST + EXIT_PRE,
	       "calibration: the stand-in callee's span is the hooks' callee part (%g)",
	       overhead.callee_span[0]);
	tap_ok(overhead.inlined[0] ==
		       ENTER_PRE + ENTER_POST + EXIT_PRE + EXIT_POST - NOOP_ENTER - NOOP_EXIT,
	       "calibration: an inlined body's hooks cost its host all they do, beyond the "
	       "no-op hooks (%g)", overhead.inlined[0]);
	tap_ok(overhead.caller_miss[0] == 0,
	       "calibration: a cache miss costs nothing more here (%g)", overhead.caller_miss[0]);
	tap_ok(self == NULL, "calibration: the thread pointer is given back");
	tap_ok(t->top == t->stack, "calibration: its hooks paired up");
}

/* ---- a scripted program ---- */

enum { MAIN = 0x1000, A = 0x2000, B = 0x3000, F = 0x4000, H = 0x5000, SIG = 10 };

/* The true cost of each function: its own work, plus the no-op hooks a
 * program built with -finstrument-functions pays in it without profviz. */
enum { X = 0x8000, Y = 0x9000, SIGNAL_SLOT = 15 };
static uint64_t true_self[16];
static int slot(uintptr_t fn)
{
	return fn == (uintptr_t)&pv_signal_markers[SIG] ? SIGNAL_SLOT : (int)(fn >> 12);
}

/* A unit of work: every function below works at least twice the stand-in
 * callee's span per entry, so compensation takes each call's whole cost
 * (short callees are tested on their own, test_short_callees). */
enum { WORK_UNIT = 10 };

static void work(uintptr_t fn, uint64_t amount)
{
	clock_now += amount * WORK_UNIT;
	true_self[slot(fn)] += amount * WORK_UNIT;
}

static void call(uintptr_t fn)
{
	hook_enter((void *)fn, NULL);
	true_self[slot(fn)] += NOOP_ENTER + NOOP_EXIT;
}

static void ret(uintptr_t fn)
{
	hook_exit((void *)fn, NULL);
}

static void f(int depth)
{
	call(F);
	work(F, 4);
	if (depth > 0)
		f(depth - 1);
	work(F, 2);
	ret(F);
}

static void b(void)
{
	call(B);
	work(B, 5);
	ret(B);
}

static void a(void)
{
	call(A);
	work(A, 10);
	b();
	work(A, 1);
	b();
	ret(A);
}

static void handler(struct pv_thread *t)
{
	uint64_t saved[PV_MAX_EVENTS];
	uintptr_t interrupted = hook_sp;
	struct pv_frame *restore = pv_thread_signal_enter(t, SIG, interrupted - 32, saved);
	if (!restore)
		abort();
	hook_sp = interrupted - 1024;
	call(H);
	work(H, 6);
	ret(H);
	hook_sp = interrupted;
	pv_thread_signal_leave(t, restore, saved);
}

static const struct pv_rfunc *rfunc(const struct pv_report *r, uintptr_t fn)
{
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (r->funcs[i].fn == (void *)fn)
			return &r->funcs[i];
	static const struct pv_rfunc none;
	return &none;
}

static const struct pv_rarc *rarc(const struct pv_report *r, uintptr_t caller, uintptr_t callee)
{
	int from = caller ? rfunc(r, caller)->id : -1, to = rfunc(r, callee)->id;
	for (unsigned i = 0; i < r->n_arcs; i++)
		if (r->arcs[i].caller == from && r->arcs[i].callee == to)
			return &r->arcs[i];
	static const struct pv_rarc none;
	return &none;
}

/* The thread's profile, and its report compensated with the calibrated
 * overhead, counted as instructions: a count, so every callee loses its
 * whole part. */
static struct pv_event_desc counted[1];
static struct pv_namer no_symbols;
static const struct pv_conversion unscaled = { .factor = { 1.0 }, .running_ratio = { 1.0 } };

static void report_of(struct pv_thread *t, struct pv_profile *prof, struct pv_report *r)
{
	pv_profile_init(prof, 1);
	pv_thread_hand_over(prof, t);
	pv_event_describe(&counted[0], "instructions", PV_EVENT_COUNT, "rdpmc");
	no_symbols = pv_runtime_namer(NULL);
	memset(r, 0, sizeof(*r));
	r->events = counted;
	if (pv_report_build(r, prof, &no_symbols, &unscaled, &overhead) < 0)
		abort();
}

/* A fresh thread running main, its true costs zero so far. */
static struct pv_thread *start_program(void)
{
	struct pv_thread *t = new_thread();
	self = t;
	memset(true_self, 0, sizeof(true_self));
	clock_now = 1000;
	t->last[0] = clock_now;
	call(MAIN);
	return t;
}

static void test_program(void)
{
	struct pv_thread *t = start_program();
	work(MAIN, 100);
	for (int i = 0; i < 3; i++)
		a();
	f(3); /* recursion: f -> f -> f -> f */
	work(MAIN, 20);
	call(A);
	work(A, 2);
	handler(t); /* a signal in a: its handler calls h */
	work(A, 3);
	ret(A);
	ret(MAIN);

	struct pv_profile prof;
	struct pv_report r;
	report_of(t, &prof, &r);

	tap_ok(r.compensated, "report: compensated");
	tap_is(rfunc(&r, MAIN)->self[0], true_self[slot(MAIN)], "main's self is its true cost");
	tap_is(rfunc(&r, A)->self[0], true_self[slot(A)], "a's self is its true cost");
	tap_is(rfunc(&r, B)->self[0], true_self[slot(B)], "b's self is its true cost");
	tap_is(rfunc(&r, F)->self[0], true_self[slot(F)],
	       "recursive f's self is its true cost (4 levels)");
	tap_is(rfunc(&r, H)->self[0], true_self[slot(H)], "the handler's self is its true cost");
	tap_is(rfunc(&r, (uintptr_t)&pv_signal_markers[SIG])->self[0], 0,
	       "the signal's own node costs nothing");
	uint64_t run = 0;
	for (int i = 0; i < 16; i++)
		run += true_self[i];
	tap_is(r.run_total[0], run, "the run total is the program's true cost");
	tap_is(rfunc(&r, MAIN)->total[0], run, "main's total is the whole run");
	tap_is(rfunc(&r, B)->total[0], true_self[slot(B)], "a leaf's total is its self");
	tap_is(rfunc(&r, A)->total[0], true_self[slot(A)] + true_self[slot(B)] +
					       true_self[slot(H)] + true_self[SIGNAL_SLOT],
	       "a's total holds b's, and the handler that ran inside it");
	tap_is(rfunc(&r, F)->total[0], true_self[slot(F)], "recursive f's total, counted once");
	tap_is(rarc(&r, A, B)->total[0], true_self[slot(B)], "arc a -> b: b's true cost");
	tap_is(rarc(&r, MAIN, F)->total[0], true_self[slot(F)], "arc main -> f: f's true cost");
	tap_is(rarc(&r, F, F)->total[0], 0, "the recursive arc adds no total");
	tap_is(rarc(&r, F, F)->calls, 3, "... and keeps its count");
	uint64_t selves = 0;
	for (unsigned i = 0; i < r.n_funcs; i++)
		selves += r.funcs[i].self[0];
	tap_is(selves, r.run_total[0], "selves add up to the run total");
	tap_is(r.clamped[0], 0, "nothing clamped");
	tap_ok(rfunc(&r, MAIN)->raw_total[0] > rfunc(&r, MAIN)->total[0] &&
		       r.raw_run_total[0] == rfunc(&r, MAIN)->raw_total[0],
	       "the raw costs are kept alongside (%" PRIu64 " raw, %" PRIu64 " true)",
	       r.raw_run_total[0], run);
	pv_report_free(&r);

	/* Without calibration the same profile stays raw. */
	struct pv_overhead none = { 0 };
	struct pv_report raw = { .events = counted };
	if (pv_report_build(&raw, &prof, &no_symbols, &unscaled, &none) < 0)
		abort();
	tap_ok(!raw.compensated && raw.run_total[0] == raw.raw_run_total[0] &&
		       raw.run_total[0] > run,
	       "uncompensated: costs are the raw ones");
	uint64_t raw_run = raw.raw_run_total[0];
	pv_report_free(&raw);

	/* A multiplexed event, counted half the time: the raw counts hold half
	 * the hooks' cost per call, and the report extrapolates by 2. */
	struct pv_conversion half = { .factor = { 2.0 }, .running_ratio = { 0.5 } };
	struct pv_report mux = { .events = counted };
	if (pv_report_build(&mux, &prof, &no_symbols, &half, &overhead) < 0)
		abort();
	tap_is(mux.run_total[0], 2 * (raw_run - (raw_run - run) / 2),
	       "multiplexed: half the overhead per call taken from the raw counts, then doubled");
	tap_ok(mux.caller_cost[0] == overhead.caller[0],
	       "multiplexed: the overhead per call is reported as calibrated (%g)",
	       mux.caller_cost[0]);
	pv_report_free(&mux);
	pv_profile_clear(&prof);
}

/* A body the compiler inlined into the function on top: its hooks run at
 * that function's depth, and what they cost is the host's. */
static void body(uintptr_t fn, uintptr_t host)
{
	inlined_body = 1;
	hook_enter((void *)fn, NULL);
	inlined_body = 0;
	true_self[slot(host)] += NOOP_ENTER + NOOP_EXIT;
}

static void body_ends(uintptr_t fn)
{
	inlined_body = 1;
	hook_exit((void *)fn, NULL);
	inlined_body = 0;
}

/* Inlined bodies, one nested in another and one calling b: every self is
 * still its true cost, the bodies' in their host's; a body's total is what
 * the calls it made cost. */
static void test_inlined_bodies(void)
{
	struct pv_thread *t = start_program();
	call(A);
	work(A, 3);
	for (int i = 0; i < 4; i++) {
		body(X, A);
		work(A, 2); /* the body's own code: a's */
		body(Y, A); /* nested in x */
		work(A, 1);
		body_ends(Y);
		body_ends(X);
	}
	body(X, A);
	b(); /* a real call, from inside the body */
	body_ends(X);
	ret(A);
	ret(MAIN);
	tap_ok(t->top == t->stack && t->stray_exits == 0 && t->resyncs == 0,
	       "inlined: the hooks paired up, with no frame of their own");

	struct pv_profile prof;
	struct pv_report r;
	report_of(t, &prof, &r);
	tap_is(rfunc(&r, A)->self[0], true_self[slot(A)],
	       "inlined: the host's self is its true cost, its bodies' code and hooks in it");
	tap_is(rfunc(&r, X)->self[0] + rfunc(&r, Y)->self[0], 0, "inlined: no self of their own");
	tap_is(rfunc(&r, B)->self[0], true_self[slot(B)], "inlined: the call from a body too");
	tap_is(rfunc(&r, X)->total[0], true_self[slot(B)],
	       "inlined: a body's total is the calls it made");
	tap_is(rarc(&r, X, B)->calls, 1, "inlined: that call hangs from the body");
	tap_is(rarc(&r, A, X)->total[0], true_self[slot(B)], "inlined: and so does its arc's total");
	tap_is(rarc(&r, X, Y)->inlined_calls, 4, "inlined: the nested body under its own");
	tap_is(rfunc(&r, X)->inlined_calls, 5, "inlined: every body counted");
	uint64_t run = 0;
	for (int i = 0; i < 16; i++)
		run += true_self[i];
	tap_is(r.run_total[0], run, "inlined: the run total is the program's true cost");
	tap_is(r.clamped[0], 0, "inlined: nothing clamped");
	pv_report_free(&r);
	pv_profile_clear(&prof);
}

/* Overhead larger than a path's self: clamped at zero, and said. */
static void test_clamping(void)
{
	struct pv_comp_path paths[2] = {
		{ .parent = -1, .calls = 1, .callees = 10, .self = 50, .total = 200 },
		{ .parent = 0, .calls = 10, .callees = 0, .self = 150, .total = 150 },
	};
	double clamped = compensate_whole(paths, 2, 8, 0, 20);
	/* The parent would lose 20 + 10 x 8 = 100 from 50; the child 10 x 20 = 200 from 150. */
	tap_ok(paths[0].self == 0 && paths[1].self == 0, "clamp: no self below zero");
	tap_ok(clamped == 50 + 50, "clamp: the amount clamped is reported (%g)", clamped);
	tap_ok(paths[0].total == 0 && paths[1].total == 0,
	       "clamp: totals lose what their subtree lost, never below zero");
}

static int near(double x, double want)
{
	return x > want - 1e-9 && x < want + 1e-9;
}

/* The callee part taken: half from callees no longer than the span, all
 * from twice the span on, in proportion between. */
/* x -> y -> x -> y ...: the inner activations fold back onto the outer
 * ones' paths, so most of the work beneath y's outermost activation is
 * counted on x's path, outside y's subtree, hooks and all. */
static void xy(int depth)
{
	uintptr_t fn = depth % 2 ? Y : X;
	call(fn);
	work(fn, depth == 40 ? 20 : 3); /* the outermost x works more, outside y */
	if (depth > 0)
		xy(depth - 1);
	ret(fn);
}

static void test_mutual_recursion(void)
{
	struct pv_thread *t = start_program();
	work(MAIN, 3);
	xy(40); /* x, y, x, y, ... 41 activations, one call each but the last */
	ret(MAIN);
	uint64_t y_true_total = 0;
	for (int d = 0; d <= 39; d++) /* beneath the outermost y (depth 39 of xy) */
		y_true_total += 3 * WORK_UNIT + NOOP_ENTER + NOOP_EXIT;

	struct pv_profile prof;
	struct pv_report r;
	report_of(t, &prof, &r);
	tap_is(rfunc(&r, X)->self[0], true_self[slot(X)], "x <-> y: x's self is its true cost");
	tap_is(rfunc(&r, Y)->self[0], true_self[slot(Y)], "x <-> y: y's self is its true cost");
	tap_is(rfunc(&r, X)->total[0], r.run_total[0] - true_self[slot(MAIN)],
	       "x <-> y: x's total is all but main");
	/* The folded part loses the hooks' share of the whole run, which is
	 * about their share beneath y (main and the outermost x work more): y's
	 * total comes within a few percent. Taking only what y's own subtree
	 * lost leaves it at 16 % over, capped by x's total. */
	double y_total = (double)rfunc(&r, Y)->total[0];
	uint64_t y_raw = rfunc(&r, Y)->raw_total[0];
	tap_ok(y_total > 0.97 * (double)y_true_total && y_total < 1.03 * (double)y_true_total,
	       "x <-> y: y's total, mostly folded onto x's path, is its true cost (%g of %" PRIu64
	       "; raw %" PRIu64 ")", y_total, y_true_total, y_raw);
	tap_is(rarc(&r, X, Y)->total[0], rfunc(&r, Y)->total[0], "x <-> y: so is the arc x -> y");
	tap_is(rarc(&r, Y, X)->nested_calls, 20, "x <-> y: every call y -> x is nested");
	pv_report_free(&r);
	pv_profile_clear(&prof);
}

static void test_short_callees(void)
{
	tap_ok(pv_callee_share(5, 10) == 0.5 && pv_callee_share(10, 10) == 0.5 &&
		       pv_callee_share(15, 10) == 0.75 && pv_callee_share(20, 10) == 1 &&
		       pv_callee_share(90, 10) == 1 && pv_callee_share(-3, 10) == 0.5,
	       "share: half up to the span, then own / (2 x span), at most all");
	tap_ok(pv_callee_share(1, 0) == 1, "share: all when the span is unknown");
	struct pv_event_desc time = { .kind = PV_EVENT_TIME }, cycles = { .kind = PV_EVENT_CYCLES },
			     count = { .kind = PV_EVENT_COUNT };
	tap_ok(pv_event_hides_hooks(&time) && pv_event_hides_hooks(&cycles),
	       "hiding: time (the TSC, a clock) and cycles hide part of the hooks");
	tap_ok(!pv_event_hides_hooks(&count), "hiding: counts of things done do not");

	/* caller 5 and callee 6 per call, span 10. The root calls each child;
	 * the long child calls the leaf once from each of its two entries. */
	const struct pv_hook_costs c = { .caller = 5, .caller_miss = 3, .callee = 6,
					 .callee_span = 10 };
	struct pv_comp_path paths[5] = {
		{ .parent = -1, .calls = 1, .callees = 7, .misses = 2, .self = 100, .total = 289 },
		/* 10 per entry: short, half the callee part (4 x 3). */
		{ .parent = 0, .calls = 4, .self = 40, .total = 40 },
		/* (110 - 2 x 5) / 2 = 50 per entry once its calls' part is out: all. */
		{ .parent = 0, .calls = 2, .callees = 2, .self = 110, .total = 134 },
		/* 15 per entry: three quarters (6 x 0.75). */
		{ .parent = 0, .calls = 1, .self = 15, .total = 15 },
		{ .parent = 2, .calls = 2, .self = 24, .total = 24 },
	};
	double modelled;
	double clamped = pv_compensate_costs(paths, 5, &c, &modelled);
	tap_ok(clamped == 0, "short callees: nothing clamped (%g)", clamped);
	tap_ok(paths[0].self == 100 - 7 * 5 - 2 * 3 - 6,
	       "short callees: the root loses its calls' part, and all its own (%g)", paths[0].self);
	tap_ok(paths[1].self == 40 - 4 * 6 * 0.5, "short callees: a short callee loses half (%g)",
	       paths[1].self);
	tap_ok(paths[2].self == 110 - 2 * 5 - 2 * 6, "short callees: a long one loses all (%g)",
	       paths[2].self);
	tap_ok(paths[3].self == 15 - 6 * 0.75, "short callees: in between, in proportion (%g)",
	       paths[3].self);
	/* The leaf: 12 per entry, 0.6 of the callee part. */
	tap_ok(paths[4].self == 24 - 2 * 6 * 0.6, "short callees: a leaf below (%g)", paths[4].self);
	double lost = 7 * 5 + 2 * 3 + 6 + 12 + 22 + 4.5 + 7.2;
	tap_ok(near(paths[0].total, 289 - lost), "short callees: the root's total loses it all (%g)",
	       paths[0].total);
	tap_ok(near(paths[2].total, 134 - 22 - 7.2), "short callees: a subtree's total (%g)",
	       paths[2].total);
	double whole = 7 * 5 + 2 * 3 + (4 + 2 + 1 + 2) * 6 + 2 * 5 + 1 * 6;
	tap_ok(near(modelled, lost / whole), "short callees: the share of the whole cost taken (%g)",
	       modelled);

	/* Without a span the callee part is taken whole, as compensate_whole does. */
	struct pv_comp_path again[2] = {
		{ .parent = -1, .calls = 1, .callees = 4, .self = 100, .total = 140 },
		{ .parent = 0, .calls = 4, .self = 40, .total = 40 },
	};
	compensate_whole(again, 2, 5, 0, 6);
	tap_ok(again[1].self == 40 - 4 * 6 && again[0].total == 140 - 4 * 5 - 6 - 4 * 6,
	       "no span: every callee loses all");
}

int main(void)
{
	test_calibration();
	test_program();
	test_inlined_bodies();
	test_clamping();
	test_short_callees();
	test_mutual_recursion();
	return tap_done();
}
