/* SPDX-License-Identifier: MIT */
/*
 * The sampler's charging, scripted: the count-only hooks the runtime ships
 * (runtime/hooks.h, PV_MODE_COUNT) keep the stack, a scripted CPU clock
 * stands for the thread's, and each look (pv_sampler_look) must charge the
 * CPU used since the previous one to the node the thread is in: never to a
 * function while the thread is inside the hooks or the runtime, and to the
 * waiting function while it waits. Totals come from the thread's sampled
 * clock, over each outermost activation, as the TSC's.
 */
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "runtime/guard.h"
#include "runtime/handover.h"
#include "runtime/hooks.h"
#include "runtime/samplecost.h"
#include "runtime/sampler.h"
#include "runtime/waits.h"
#include "runtime/waittime.h"
#include "hookscript.h"
#include "tap.h"

static uint64_t cpu;                /* the scripted thread's CPU clock, ns */
static struct pv_sampling account;

/* The thread runs for ns of CPU, then the sampler looks. */
static void run_then_look(struct pv_thread *t, uint64_t ns)
{
	cpu += ns;
	pv_sampler_look(&account, t, cpu);
}

static struct pv_thread *new_thread(void)
{
	static struct pv_thread t;
	pv_thread_release(&t);
	memset(&t, 0, sizeof(t));
	memset(&account, 0, sizeof(account));
	depth = 0;
	cpu = 1000000; /* what it ran before it was profiled is not charged */
	if (pv_thread_init(&t, 0, NULL) < 0)
		abort();
	t.sampled_cpu_ns = cpu;
	return &t;
}

static struct pv_astat *arc(const void *caller, const void *callee)
{
	struct pv_arc_key key = { (void *)caller, (void *)callee };
	struct pv_astat *a;
	HASH_FIND(hh, prof.arcs, &key, sizeof(key), a);
	static struct pv_astat none;
	return a ? a : &none;
}

#define MAIN ((const void *)0x1000)
#define A ((const void *)0x2000)
#define B ((const void *)0x3000)

static void test_right_nodes(void)
{
	struct pv_thread *t = new_thread();
	tap_ok(t->mode == PV_MODE_COUNT, "no event read per call: the count-only hooks");
	enter(t, MAIN);
	run_then_look(t, 100);
	enter(t, A);
	run_then_look(t, 300);
	enter(t, B);
	run_then_look(t, 200);
	run_then_look(t, 0); /* it did not run: no sample */
	leave(t, B);
	run_then_look(t, 50);
	leave(t, A);
	enter(t, B); /* B again, from main: another call path */
	run_then_look(t, 400);
	leave(t, B);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 100, "main's self: the look while main ran");
	tap_is(func(A)->self[0], 350, "A's self: two looks while A ran");
	tap_is(func(B)->self[0], 600, "B's self over both paths");
	tap_is(func(MAIN)->total[0], 1050, "main's total: everything below it");
	tap_is(func(A)->total[0], 550, "A's total: A and the B it called");
	tap_is(arc(A, B)->total[0], 200, "the arc A -> B: the time of B called from A");
	tap_is(arc(MAIN, B)->total[0], 400, "the arc main -> B");
	tap_is(func(B)->samples, 2, "B's samples: the looks that charged it");
	tap_is(func(A)->samples, 2, "A's samples");
	tap_is(func(B)->calls, 2, "calls stay exact");
	tap_is(account.samples, 5, "five looks charged; the one with no CPU did not count");
	tap_is(account.own_samples, 0, "none inside the runtime");
}

/* Recursion folds into the ancestor node: its time is counted once in the
 * totals, as the hooks count only outermost activations. */
static void test_recursion(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, A);
	run_then_look(t, 10);
	enter(t, B);
	run_then_look(t, 20);
	enter(t, A); /* A -> B -> A: folds into the first A */
	run_then_look(t, 40);
	leave(t, A);
	leave(t, B);
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(func(A)->self[0], 50, "recursive A's self: both activations");
	tap_is(func(A)->total[0], 70, "A's total: once, not twice");
	tap_is(func(B)->total[0], 60, "B's total: its own and the nested A's, which folded above it");
	tap_is(arc(A, B)->total[0], 60, "the arc A -> B carries the nested A too");
	tap_is(func(MAIN)->total[0], 70, "main's total: the whole run");
}

/* Inside a hook or the runtime, the thread publishes no node: the CPU used
 * is the runtime's own, counted and dropped. */
static void test_runtime_dropped(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	run_then_look(t, 100);
	/* A hook's first store, then the look lands before its last. */
	pv_thread_publish(t, NULL);
	run_then_look(t, 70);
	pv_thread_publish(t, t->top->node);
	/* A slow path: the runtime's boundary. */
	struct pv_guard g;
	int entered = pv_guard_enter(&g, t);
	tap_ok(entered && t->at == NULL, "inside the boundary the thread publishes no node");
	run_then_look(t, 30);
	pv_guard_leave(&g);
	tap_ok(t->at == t->top->node, "leaving it publishes the top node again");
	run_then_look(t, 5);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 105, "main is charged only the looks in its own code");
	tap_is(account.own_samples, 2, "two looks found the runtime's code");
	tap_is(account.own_ns, 100, "and the CPU time they stood for is dropped");
}

/* A look between a function's entry and its enter hook's first store finds
 * the caller still published: the polling sampler cannot see the callee's
 * prologue (no PC), and charges it to the caller. */
static void test_before_the_hook(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	run_then_look(t, 10); /* main called A: A's prologue runs, its hook not yet */
	enter(t, A);
	run_then_look(t, 20);
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 10, "a look before A's hook goes to main");
	tap_is(func(A)->self[0], 20, "A is charged from its hook on");
}

/* Found in a wait, a look charges nothing: the CPU since the last look
 * ran before the wait (a burst that ended in it) or in it, which the wait
 * measures itself and charges to the function that waited. The next look
 * that finds the thread running takes the rest, where it runs: bursts of
 * B before each wait are B's, not the waiter's (the event loop). */
static void test_wait(void)
{
	struct pv_thread *t = new_thread();
	const void *wait = &pv_wait_markers[PV_WAIT_pthread_cond_wait];
	enter(t, MAIN);
	enter(t, A);
	run_then_look(t, 10);
	enter(t, B);
	cpu += 40; /* B's burst, no look during it */
	leave(t, B);
	enter(t, wait);
	pv_wait_entered(t, wait); /* as the wait's wrapper does */
	cpu += 2; /* the wait's own CPU */
	run_then_look(t, 0);
	tap_is(t->owed_ns, 0, "a look that finds the thread in a wait charges nothing");
	pv_wait_blocked(t, wait, 5000, 2); /* blocked 5000, 2 of CPU measured around it */
	leave(t, wait);
	enter(t, B);
	run_then_look(t, 8);
	leave(t, B);
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(func(A)->self[0], 12, "the waiting function: its look's 10, and the wait's CPU");
	tap_is(func(B)->self[0], 48, "B: its burst before the wait, found by the next look in B");
	tap_is(func(wait)->self[0], 5000, "the wait gets its blocked time");
	tap_is(func(A)->total[0], 5060, "all of it in the waiting function's total, once");
	tap_is(prof.sampling.blocked_ns, 5000, "the profile's blocked time");
}

/* A look is the thread's to charge: at its next hook, to the node whose
 * code ran, before the hook moves on. So a look's time is in the self and
 * the total of one activation, whatever the thread does right after. */
static void test_settled_by_the_thread(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, B);
	run_then_look(t, 100);
	tap_is(t->owed_ns, 100, "a look leaves the time owed, charged to no node yet");
	leave(t, B); /* its exit hook charges B, then pops it */
	enter(t, A);
	run_then_look(t, 7);
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(func(B)->self[0], 100, "B's look in B's self");
	tap_is(func(B)->total[0], 100, "... and in B's total");
	tap_is(func(A)->self[0] + func(A)->total[0], 14, "A's own look in both of A's");
	tap_is(func(MAIN)->total[0], 107, "main's total: both");
}

/* The pace of the sampler's rounds, with the costs injected: the rate
 * asked (PROFVIZ_RATE's period), stretched to stay within the budget when
 * a round is dear; ten a second when only rings are left to drain. */
static void test_pace(void)
{
	tap_is(pv_sampler_period(PV_PACE_LOOKS, 1000000, 10000), 1000000,
	       "looks: the period asked, a round of 10 us within the budget");
	tap_is(pv_sampler_period(PV_PACE_LOOKS, 1000000, 100000), 100000 * PV_SAMPLER_BUDGET,
	       "a round of 100 us: the period stretched to 1/%d of it", PV_SAMPLER_BUDGET);
	tap_is(pv_sampler_period(PV_PACE_LOOKS, 100000, 1000), 100000,
	       "a rate forced to 10 kHz: its period, while rounds are cheap");
	tap_is(pv_sampler_period(PV_PACE_DRAIN, 1000000, 10000), PV_SAMPLER_DRAIN_NS,
	       "only rings to drain: ten rounds a second");
	tap_is(pv_sampler_period(PV_PACE_DRAIN, 1000000, 10000000), 10000000 * PV_SAMPLER_BUDGET,
	       "... fewer when a round is dear");
}

/* The rate a sample's cost allows, costs injected: 3 % of the CPU, within
 * the bounds; unmeasured, the default. (PROFVIZ_RATE skips the measure:
 * t_sampled_safety.) */
static void test_rate_for_cost(void)
{
	tap_is(pv_rate_for_cost(0, 1000), 1000, "rate: no cost measured, the default");
	tap_is(pv_rate_for_cost(10000, 1000), 2000,
	       "rate: 10 us a sample (KVM), 2000 Hz: within 3 %%, in doublings of 250");
	tap_is(pv_rate_for_cost(15000, 1000), 2000, "rate: 15 us, 2000 Hz: 3 %% exactly");
	tap_is(pv_rate_for_cost(15001, 1000), 1000, "rate: a little more, 1000 Hz");
	tap_is(pv_rate_for_cost(30000, 1000), 1000, "rate: 30 us a sample, 1000 Hz");
	tap_is(pv_rate_for_cost(1000, 1000), PV_AUTO_RATE_MAX_HZ,
	       "rate: 1 us (bare metal), the most it takes");
	tap_is(pv_rate_for_cost(500000, 1000), PV_AUTO_RATE_MIN_HZ,
	       "rate: 500 us, no fewer than the least");
}

int main(void)
{
	test_rate_for_cost();
	test_pace();
	test_right_nodes();
	test_recursion();
	test_runtime_dropped();
	test_before_the_hook();
	test_wait();
	test_settled_by_the_thread();
	pv_profile_clear(&prof);
	return tap_done();
}
