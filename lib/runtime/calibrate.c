/* SPDX-License-Identifier: MIT */
#include "runtime/calibrate.h"

#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"

#define TRIALS 21

/* Stand-in function addresses: never code, never in a profile. */
static const char stand_ins[64];

/* A stand-in function body. Real functions do something between their two
 * hooks, and the hooks cost less then than back to back (their counter
 * reads overlap with the body), so both loops measured call this. */
static PV_NOINLINE unsigned body(unsigned x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2654435761u + 7;
}

/* Interference (another process, an interrupt) only ever adds to a
 * trial's figures: the lower quartile is the hooks' own cost. Sorted by
 * hand: qsort may call malloc, which may be the program's own. */
static double lower_quartile(double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		double x = v[i];
		unsigned j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v[n / 4];
}

/* One trial's figures per event, raw counts per call. */
struct trial {
	double baseline[PV_MAX_EVENTS]; /* a pair of no-op hooks */
	double caller[PV_MAX_EVENTS];   /* on the caller, cache hit */
	double callee[PV_MAX_EVENTS];
	double caller_miss[PV_MAX_EVENTS]; /* on the caller, cache miss */
	double inlined[PV_MAX_EVENTS];     /* on the host, per inlined body */
};

static void baseline(struct pv_thread *t, const struct pv_hooks *h, unsigned calls,
		     struct trial *out)
{
	uint64_t before[PV_MAX_EVENTS], after[PV_MAX_EVENTS];
	void *p = (void *)&stand_ins[0];
	unsigned x = 1;
	t->read(t, before);
	for (unsigned k = 0; k < calls; k++) {
		h->noop_enter(p, NULL);
		x = body(x);
		h->noop_exit(p, NULL);
	}
	t->read(t, after);
	memcpy(t->last, after, sizeof(after)); /* the reader's floor */
	for (unsigned i = 0; i < t->nev; i++)
		out->baseline[i] = (double)(after[i] - before[i]) / calls;
}

/* Each stand-in's hooks are given the call site its real counterpart's
 * would be: where the function that calls them returns to (hooks.h tells
 * a body from a call by it). */
#define SITE __builtin_return_address(0)

/* A call of fn from its caller's code: its hooks from a frame of their
 * own, below the caller's, as a real call's are (hooks called from the
 * caller's own frame would be an inlined body's: hooks.h). */
static PV_NOINLINE unsigned call_once(const struct pv_hooks *h, const void *fn, unsigned x)
{
	h->enter((void *)fn, SITE);
	x = body(x);
	h->exit((void *)fn, SITE);
	return x;
}

/* The same, first time: the node its call made. */
static PV_NOINLINE struct pv_node *first_call(struct pv_thread *t, const struct pv_hooks *h,
					     const void *fn)
{
	h->enter((void *)fn, SITE);
	struct pv_node *n = t->top->node;
	h->exit((void *)fn, SITE);
	return n;
}

/* Callees for the miss trial: many, called in a random order, as an
 * interpreter's dispatch calls its handlers. */
#define SPREAD 48

/* calls calls from p to the n callees fns[], in turn (n = 1) or in a
 * random order: what landed on p's self and on the callees' per call, and
 * the share of calls that missed p's callee cache. */
static void callees(struct pv_thread *t, const struct pv_hooks *h, unsigned calls,
		    const void *const *fns, unsigned n, double *on_caller, double *on_callee,
		    double *missed)
{
	void *p = (void *)&stand_ins[0];
	struct pv_node *nodes[SPREAD];
	uint64_t p0[PV_MAX_EVENTS], c0[PV_MAX_EVENTS] = { 0 }, m0 = 0;
	h->enter(p, SITE);
	struct pv_node *pn = t->top->node;
	/* Once each first: the new paths take the slow path. */
	for (unsigned j = 0; j < n; j++) {
		nodes[j] = first_call(t, h, fns[j]);
		m0 += nodes[j]->misses;
		for (unsigned i = 0; i < t->nev; i++)
			c0[i] += pv_node_self(nodes[j])[i];
	}
	memcpy(p0, pv_node_self(pn), t->nev * sizeof(uint64_t));
	unsigned x = 1, pick = 12345;
	for (unsigned k = 0; k < calls; k++) {
		pick = pick * 1103515245u + 12345u;
		x = call_once(h, fns[n > 1 ? (pick >> 16) % n : 0], x);
	}
	uint64_t c1[PV_MAX_EVENTS] = { 0 }, m1 = 0;
	for (unsigned j = 0; j < n; j++) {
		m1 += nodes[j]->misses;
		for (unsigned i = 0; i < t->nev; i++)
			c1[i] += pv_node_self(nodes[j])[i];
	}
	for (unsigned i = 0; i < t->nev; i++) {
		on_caller[i] = (double)(pv_node_self(pn)[i] - p0[i]) / calls;
		on_callee[i] = (double)(c1[i] - c0[i]) / calls;
	}
	*missed = (double)(m1 - m0) / calls;
	h->exit(p, SITE);
}

/* A call of p running calls bodies inlined into it: their hooks called
 * from the very frame whose code entered p, as the code the compiler
 * inlined into p calls them. p's node. */
static PV_NOINLINE struct pv_node *host_of_bodies(struct pv_thread *t, const struct pv_hooks *h,
						  unsigned calls)
{
	void *p = (void *)&stand_ins[0], *b = (void *)&stand_ins[SPREAD + 2];
	unsigned x = 1;
	h->enter(p, SITE);
	struct pv_node *pn = t->top->node;
	for (unsigned k = 0; k < calls; k++) {
		h->enter(b, SITE);
		x = body(x);
		h->exit(b, SITE);
	}
	h->exit(p, SITE);
	__asm__ volatile("" : : "r"(x));
	return pn;
}

/* What landed on the host's self per inlined body (the stand-in body's
 * work included). The hooks read the counters at the host's entry and
 * exit only: the difference between a host running calls bodies and one
 * running twice as many. */
static void inlined_bodies(struct pv_thread *t, const struct pv_hooks *h, unsigned calls,
			   double *on_host)
{
	uint64_t s0[PV_MAX_EVENTS], s1[PV_MAX_EVENTS];
	struct pv_node *pn = host_of_bodies(t, h, 1); /* the new paths first */
	memcpy(s0, pv_node_self(pn), t->nev * sizeof(uint64_t));
	host_of_bodies(t, h, calls);
	memcpy(s1, pv_node_self(pn), t->nev * sizeof(uint64_t));
	host_of_bodies(t, h, 2 * calls);
	for (unsigned i = 0; i < t->nev; i++)
		on_host[i] = ((double)(pv_node_self(pn)[i] - s1[i]) - (double)(s1[i] - s0[i])) /
			     calls;
}

int pv_calibrate(struct pv_thread *t, const struct pv_hooks *h, unsigned calls,
		 struct pv_overhead *out)
{
	_Static_assert(SPREAD + 3 <= sizeof(stand_ins), "a stand-in per callee");
	const void *one[1] = { &stand_ins[1] }, *spread[SPREAD];
	for (unsigned j = 0; j < SPREAD; j++)
		spread[j] = &stand_ins[2 + j];
	memset(out, 0, sizeof(*out));
	if (!calls || t->nev > PV_MAX_EVENTS)
		return -1;
	struct trial trials[TRIALS];
	struct pv_thread *saved = *h->self;
	*h->self = t;
	/* Trial -1 warms the caches and the index up, and is not kept. */
	for (int r = -1; r < TRIALS; r++) {
		struct trial warm_up, *tr = r < 0 ? &warm_up : &trials[r];
		double unused[PV_MAX_EVENTS], missed;
		baseline(t, h, calls, tr);
		callees(t, h, calls, one, 1, tr->caller, tr->callee, &missed);
		callees(t, h, calls, spread, SPREAD, tr->caller_miss, unused, &missed);
		inlined_bodies(t, h, calls, tr->inlined);
		/* Per miss, beyond a hit's cost. */
		for (unsigned i = 0; i < t->nev; i++)
			tr->caller_miss[i] =
				missed > 0 ? (tr->caller_miss[i] - tr->caller[i]) / missed : 0;
	}
	*h->self = saved;
	if (t->top != t->stack)
		return -1; /* the hooks did not pair up: nothing measured is sound */
	for (unsigned i = 0; i < t->nev; i++) {
		double v[TRIALS];
		for (unsigned r = 0; r < TRIALS; r++)
			v[r] = trials[r].caller[i];
		double caller = lower_quartile(v, TRIALS);
		for (unsigned r = 0; r < TRIALS; r++)
			v[r] = trials[r].callee[i] - trials[r].baseline[i];
		double callee = lower_quartile(v, TRIALS);
		for (unsigned r = 0; r < TRIALS; r++)
			v[r] = trials[r].callee[i];
		double span = lower_quartile(v, TRIALS);
		for (unsigned r = 0; r < TRIALS; r++)
			v[r] = trials[r].caller_miss[i];
		double miss = lower_quartile(v, TRIALS);
		for (unsigned r = 0; r < TRIALS; r++)
			v[r] = trials[r].inlined[i] - trials[r].baseline[i];
		double inlined = lower_quartile(v, TRIALS);
		out->caller[i] = caller > 0 ? caller : 0;
		out->callee[i] = callee > 0 ? callee : 0;
		out->caller_miss[i] = miss > 0 ? miss : 0;
		out->callee_span[i] = span > out->callee[i] ? span : out->callee[i];
		out->inlined[i] = inlined > 0 ? inlined : 0;
	}
	out->calibrated = 1;
	return 0;
}
