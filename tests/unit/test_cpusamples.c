/* SPDX-License-Identifier: MIT */
/*
 * A thread's CPU samples from its own ring (runtime/cpusamples.h), scripted:
 * the count-only hooks the runtime ships keep the stack, a ring written by
 * hand stands for the kernel's, and the samples a hook finds must be
 * charged to the node that was on top since the previous hook, a period of
 * CPU each: a burst before a wait to the burst, the wait's own CPU to the
 * function that waited and its box only the time blocked, samples in the
 * runtime's code to nobody, samples the kernel dropped where the others
 * were, and samples not yet collected to the top of a thread still running
 * at a dump.
 */
#include <stdlib.h>
#include <string.h>

#include "fakering.h"
#include "model/profile.h"
#include "runtime/cpusamples.h"
#include "runtime/guard.h"
#include "runtime/handover.h"
#include "runtime/hooks.h"
#include "runtime/sampler.h"
#include "runtime/waits.h"
#include "runtime/waittime.h"
#include "hookscript.h"
#include "tap.h"

#define PERIOD FAKE_PERIOD_NS /* ns of CPU between samples */
#define IN_PROGRAM 0x401000u
#define OWN_LO 0x7000u /* the runtime's code: [OWN_LO, OWN_HI) */
#define OWN_HI 0x8000u

static struct fake ring;

/* The kernel samples the thread n times at pc. */
static void sampled(unsigned n, uintptr_t pc)
{
	for (unsigned i = 0; i < n; i++)
		put_sample(&ring, pc);
	fake_publish(&ring);
}

static void dropped(uint64_t n)
{
	put_lost(&ring, n);
	fake_publish(&ring);
}

/* A new thread, its time from the sampler's looks. */
static struct pv_thread *looked_at_thread(void)
{
	static struct pv_thread t;
	pv_thread_release(&t);
	memset(&t, 0, sizeof(t));
	depth = 0;
	if (pv_thread_init(&t, 0, NULL) < 0)
		abort();
	return &t;
}

/* The test's wall clock: the time the fake ring writes into its records. */
static uint64_t scripted_wall(void)
{
	return fake_now_ns;
}

/* t's ring, written by hand, takes its time over; with switches, the ring
 * writes the thread's switches too, and its first CPU time is timed
 * (timedstart.h), on the scripted clock from 1 s. */
static void give_ring_switching(struct pv_thread *t, int switches)
{
	if (ring.page)
		free(ring.page);
	fake_open(&ring, 1, 0);
	if (pv_pcring_attach(&t->pcring, ring.page, ring.bytes) < 0)
		abort();
	t->pcring.period_ns = PERIOD;
	t->pcring.switches_on = switches;
	t->timed.wall = scripted_wall;
	fake_now_ns = 1000000000;
	pv_cpusamples_attach(t, OWN_LO, OWN_HI);
}

static void give_ring(struct pv_thread *t)
{
	give_ring_switching(t, 0);
}

/* A thread whose time comes from a ring written by hand. */
static struct pv_thread *new_thread(void)
{
	struct pv_thread *t = looked_at_thread();
	give_ring(t);
	return t;
}

#define MAIN ((const void *)0x1000)
#define WORK ((const void *)0x2000)
#define WAIT_IO ((const void *)0x3000)
#define OTHER ((const void *)0x4000)

/* The event loop: a burst of work, then a wait. The burst's samples
 * were taken before the wait began, and are found by the wait's first hook:
 * the burst's. The wait's own CPU (its system call) is the waiting
 * function's self; the wait's box holds the time blocked, counted once. */
static void burst_then_wait(void)
{
	struct pv_thread *t = new_thread();
	tap_ok(pv_cpusamples_from_ring(t), "the thread's time comes from its ring");
	const void *wait = &pv_wait_markers[PV_WAIT_poll];
	enter(t, MAIN);
	enter(t, WORK);
	sampled(5, IN_PROGRAM);
	leave(t, WORK);
	enter(t, WAIT_IO);
	enter(t, wait);
	pv_wait_entered(t, wait); /* as the wait's wrapper does */
	sampled(1, IN_PROGRAM);
	pv_wait_blocked(t, wait, 7 * PERIOD, 0);
	sampled(1, IN_PROGRAM); /* as the wait is left: found by its exit hook */
	leave(t, wait);
	leave(t, WAIT_IO);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 5 * PERIOD, "the burst's samples: the burst's self");
	tap_is(func(WORK)->samples, 5, "... 5 samples");
	tap_is(func(WORK)->total[0], 5 * PERIOD, "... and its total");
	tap_is(func(WAIT_IO)->self[0], 2 * PERIOD,
	       "the wait's CPU, in it and as it is left: the waiting function's self");
	tap_is(func(wait)->self[0], 7 * PERIOD, "the wait's box: the time blocked");
	tap_is(func(wait)->samples, 0, "... and no sample");
	tap_is(func(wait)->total[0], 7 * PERIOD, "... its total too: the CPU is not in it again");
	tap_is(func(WAIT_IO)->total[0], 9 * PERIOD, "the waiting function's total: both");
	tap_is(func(MAIN)->total[0], 14 * PERIOD, "main's: everything");
	tap_is(prof.sampling.samples, 7, "the profile counts the ring's samples");
}

/* Each hook charges what the ring holds to the node on top until then. */
static void charged_where_found(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	sampled(2, IN_PROGRAM);
	enter(t, WORK); /* main's two */
	sampled(3, IN_PROGRAM);
	enter(t, OTHER); /* work's three */
	leave(t, OTHER);
	leave(t, WORK);
	sampled(1, IN_PROGRAM);
	leave(t, MAIN); /* main's one */
	merge(t);
	tap_is(func(MAIN)->self[0], 3 * PERIOD, "main: the samples before and after its call");
	tap_is(func(WORK)->self[0], 3 * PERIOD, "work: those taken in it");
	tap_is(func(OTHER)->self[0], 0, "other: none was taken in it");
	tap_is(func(MAIN)->total[0], 6 * PERIOD, "main's total: all");
}

/* PCs in the runtime's code are the hooks' own cost: nobody's time. */
static void runtime_dropped(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, WORK);
	sampled(2, IN_PROGRAM);
	sampled(3, OWN_LO + 0x10);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 2 * PERIOD, "the runtime's samples are not work's");
	tap_is(func(MAIN)->total[0], 2 * PERIOD, "... nor anyone's");
	tap_ok(prof.sampling.samples == 2 && prof.sampling.own_samples == 3 &&
		       prof.sampling.own_ns == 3 * PERIOD,
	       "the account: 2 charged, 3 dropped as profviz's own");
}

/* Samples the kernel dropped (the ring was full: a long stretch without a
 * hook) were taken where the thread was; the next sample's CPU clock
 * covers their time, since the event counts on. */
static void lost_where_taken(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, WORK);
	sampled(2, IN_PROGRAM);
	dropped(40);
	fake_cpu_ns += 40 * PERIOD;
	sampled(1, IN_PROGRAM);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 43 * PERIOD, "dropped samples' time charged where they were taken");
	tap_is(func(WORK)->samples, 3, "... the samples read counted as samples");
	tap_is(t->ring_total.lost, 40, "... the dropped ones as lost");
}

/* Each sample stands for the CPU time since the one before, whatever the
 * period was (the sampler draws it anew now and then). */
static void weighed_by_the_clock(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, WORK);
	put_sample_at(&ring, IN_PROGRAM, 700000);
	put_sample_at(&ring, IN_PROGRAM, 2000000);
	fake_publish(&ring);
	leave(t, WORK);
	enter(t, OTHER);
	put_sample_at(&ring, IN_PROGRAM, 2500000);
	fake_publish(&ring);
	leave(t, OTHER);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 2000000, "work: from the ring's start to its second sample");
	tap_is(func(OTHER)->self[0], 500000, "other: from there to its own sample");
}

/* A sample stands for three mean periods at the most: the first one of a
 * ring opened long before (profviz's start-up) does not carry all that. */
static void weighed_within_reason(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, WORK);
	put_sample_at(&ring, IN_PROGRAM, 50 * PERIOD);
	put_sample_at(&ring, IN_PROGRAM, 51 * PERIOD);
	fake_publish(&ring);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 4 * PERIOD, "a first sample 50 periods in: 3 of them, then 1");
}

/* A dump while the thread runs: what its ring holds is its top's. */
static void pending_at_a_dump(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, WORK);
	sampled(4, IN_PROGRAM);
	merge_live(t);
	tap_is(func(WORK)->self[0], 4 * PERIOD, "not yet collected: the top's at a dump");
	tap_is(func(MAIN)->total[0], 4 * PERIOD, "... and in the open totals");
	tap_ok(ring.page->data_tail == 0 && t->pcring.counted == 0, "the dump moved nothing in the ring");
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 4 * PERIOD, "the thread still collects them itself");
}

/* A dump while the thread is blocked: the wait so far is the wait's, as
 * its end would make it (a worker blocked at exit read 12 us), and the
 * CPU it owes the waiting function's. */
static void wait_open_at_a_dump(void)
{
	struct pv_thread *t = new_thread();
	const void *wait = &pv_wait_markers[PV_WAIT_pthread_cond_wait];
	enter(t, MAIN);
	enter(t, WAIT_IO);
	enter(t, wait);
	pv_wait_entered(t, wait);
	t->waiting_since_ns -= 2000 * PERIOD; /* as if it began 2 s ago */
	sampled(1, IN_PROGRAM);
	merge_live(t);
	uint64_t blocked = func(wait)->self[0];
	tap_ok(blocked >= 2000 * PERIOD && blocked < 2100 * PERIOD,
	       "the open wait: its 2 s so far (%.3f s)", (double)blocked * 1e-9);
	tap_ok(func(wait)->total[0] == blocked, "... its total the same, no CPU in it");
	tap_is(func(WAIT_IO)->self[0], PERIOD, "the CPU it owes: the waiting function's");
	tap_ok(func(MAIN)->total[0] == blocked + PERIOD, "main's open total: both");
	tap_ok(prof.sampling.blocked_ns == blocked, "the profile's blocked time has it");
	pv_wait_blocked(t, wait, 0, 0);
	tap_is(t->waiting_since_ns, 0, "a wait that ends is no longer open");
	leave(t, wait);
	leave(t, WAIT_IO);
	leave(t, MAIN);
}

/* A signal handler's hooks, arriving while the thread counts its ring,
 * leave the ring to that count, and look again later. */
static void handler_mid_count(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	sampled(2, IN_PROGRAM);
	t->collecting = 1; /* as if interrupted there */
	enter(t, OTHER);
	leave(t, OTHER);
	tap_is(t->ring_total.samples, 0, "the handler's hooks counted nothing");
	tap_ok(pv_thread_owes(t), "... and the news stays news");
	t->collecting = 0;
	enter(t, WORK);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 2 * PERIOD, "counted at the next hook, where they were taken");
	tap_is(func(OTHER)->self[0], 0, "none in the handler's functions");
}

/* Looks left owed as the ring takes over are charged at the next hook, to
 * where they were found, though the fresh ring's head (0) and what the
 * thread last saw of the looks were the same number once. */
static void looks_owed_as_the_ring_comes(void)
{
	struct pv_thread *t = looked_at_thread();
	enter(t, MAIN);
	enter(t, WORK); /* the thread sees the looks' word as it is */
	struct pv_sampling account = { 0 };
	t->sampled_cpu_ns = 100;
	pv_sampler_look(&account, t, 100 + 90 * PERIOD); /* found in work */
	give_ring(t); /* no sample yet: its head 0 */
	tap_ok(pv_thread_owes(t), "the ring's head differs from any look's word");
	leave(t, WORK);
	enter(t, OTHER);
	leave(t, OTHER);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 90 * PERIOD, "the looks' time charged where found");
	tap_is(func(OTHER)->self[0], 0, "... not at a later hook");
}

/* Without its ring (closed at the thread's end, or not in a fork's child)
 * the sampler's looks speak for the thread, and the hooks see them. */
static void detached(void)
{
	struct pv_thread *t = new_thread();
	pv_cpusamples_detach(t);
	tap_ok(!pv_cpusamples_from_ring(t), "detached: the looks again");
	enter(t, MAIN);
	sampled(3, IN_PROGRAM);
	tap_ok(!pv_thread_owes(t), "a ring no longer its own is no news");
	struct pv_sampling account = { 0 };
	t->sampled_cpu_ns = 100;
	pv_sampler_look(&account, t, 100 + 5 * PERIOD);
	tap_ok(pv_thread_owes(t), "a look that leaves time owed is");
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 5 * PERIOD, "the look's time charged");
}

/* ---- a thread's first CPU time, timed at its hooks (timedstart.h) ---- */

/* A thread timed from the ring's hand-over on. */
static struct pv_thread *timed_thread(void)
{
	struct pv_thread *t = looked_at_thread();
	give_ring_switching(t, 1);
	return t;
}

/* The thread leaves its CPU for off ns. */
static void off_cpu(uint64_t off)
{
	put_switch(&ring, 1);
	fake_now_ns += off;
	put_switch(&ring, 0);
	fake_publish(&ring);
}

/* Each hook charges the node on top with the wall time since the last
 * hook, less what the switches say it spent off its CPU. */
static void timed_where_ran(void)
{
	struct pv_thread *t = timed_thread();
	tap_ok(pv_timed_start_on(&t->timed), "a ring that writes switches: timed");
	enter(t, MAIN);
	tap_ok(pv_thread_owes(t), "timed: every hook takes its slow path, news or not");
	fake_now_ns += 300;
	enter(t, WORK);
	fake_now_ns += 200;
	off_cpu(7000000); /* preempted, or blocked outside libc's waits */
	fake_now_ns += 300;
	sampled(2, IN_PROGRAM); /* the kernel's samples are not the time */
	leave(t, WORK);
	fake_now_ns += 40;
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 500, "work: its 500 ns on the CPU, not the 7 ms off it");
	tap_is(func(WORK)->timed_ns, 500, "... all of it timed");
	tap_is(func(WORK)->samples, 0, "... no sample charged");
	tap_is(func(MAIN)->self[0], 340, "main: before and after its call");
	tap_is(func(MAIN)->total[0], 840, "main's total: both");
	tap_is(prof.sampling.timed_ns, 840, "the profile's timed time");
	tap_is(prof.sampling.samples, 0, "... and no sample counted as time");
}

/* A wait's CPU (its system call's) is the waiting function's, the time
 * blocked (off the CPU) its box's, counted once. */
static void timed_wait(void)
{
	struct pv_thread *t = timed_thread();
	const void *wait = &pv_wait_markers[PV_WAIT_poll];
	enter(t, MAIN);
	enter(t, WAIT_IO);
	fake_now_ns += 100;
	enter(t, wait);
	pv_wait_entered(t, wait); /* as the wait's wrapper does */
	fake_now_ns += 30; /* into the kernel */
	off_cpu(2000000);
	fake_now_ns += 20; /* out of it */
	pv_wait_blocked(t, wait, 2000050, 0);
	leave(t, wait);
	leave(t, WAIT_IO);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WAIT_IO)->self[0], 150, "the wait's CPU: the waiting function's self");
	tap_is(func(wait)->self[0], 2000050, "the wait's box: the time blocked, as measured");
	tap_is(func(MAIN)->total[0], 2000200, "main's total: each once");
}

/* Past PV_TIMED_START_NS of CPU the ring's samples take over, each weighed
 * from the thread's CPU clock at the hand-over: the last sample's, plus
 * the time on the CPU since it. */
static void timed_then_sampled(void)
{
	struct pv_thread *t = timed_thread();
	enter(t, MAIN);
	fake_now_ns += 10000000;
	put_sample_at(&ring, IN_PROGRAM, 10000000); /* at 10 ms of CPU */
	fake_publish(&ring);
	off_cpu(5000000);
	fake_now_ns += PV_TIMED_START_NS; /* 50 ms more on the CPU */
	enter(t, WORK); /* main's 60 ms, timed; then samples */
	tap_ok(!pv_timed_start_on(&t->timed), "past PV_TIMED_START_NS: timed no more");
	tap_ok(!pv_thread_owes(t), "... and the hooks look at the ring's head again");
	put_sample_at(&ring, IN_PROGRAM, 10000000 + PV_TIMED_START_NS + 3 * PERIOD / 2);
	fake_publish(&ring);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 10000000 + PV_TIMED_START_NS, "main: its 60 ms, timed");
	tap_is(func(WORK)->self[0], 3 * PERIOD / 2,
	       "work: its sample, weighed from the hand-over, not from the last sample");
	tap_ok(func(WORK)->samples == 1 && func(WORK)->timed_ns == 0, "... sampled, not timed");
}

/* A long span holds samples, whose CPU clock is the scheduler's: the wall
 * time the hypervisor stole from a thread that seemed to run is not its
 * CPU. From the last sample on, wall less switches again. */
static void timed_by_the_samples_clock(void)
{
	struct pv_thread *t = timed_thread();
	enter(t, MAIN);
	enter(t, WORK);
	fake_now_ns += 10000000; /* 10 ms on the wall, no switch, */
	put_sample_at(&ring, IN_PROGRAM, 9000000); /* 9 ms of it the thread's */
	fake_publish(&ring);
	fake_now_ns += 1000000;
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 10000000, "work: 9 ms to its sample, 1 ms since: not 11 ms");
}

/* Without the switches a time off the CPU cannot be told from work: a
 * record lost, a full ring, a switch out with no switch back in, or the
 * switches no longer written end the timing, and the span they spoil is
 * what its samples say, to the last one; the next sample carries the rest. */
static void timed_ends_early(void)
{
	struct pv_thread *t = timed_thread();
	enter(t, MAIN);
	fake_now_ns += 100;
	put_sample_at(&ring, IN_PROGRAM, 80); /* 80 ns of CPU since the ring began */
	fake_publish(&ring);
	dropped(3);
	fake_now_ns += 5000000; /* blocked, maybe: its switches were lost */
	enter(t, WORK);
	tap_ok(!pv_timed_start_on(&t->timed), "a lost record ends the timing");
	put_sample_at(&ring, IN_PROGRAM, 80 + 1000);
	fake_publish(&ring);
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 80, "... the spoilt span: its CPU to its last sample");
	tap_is(func(WORK)->self[0], 1000, "... the rest the next sample's, weighed from there");

	t = timed_thread();
	enter(t, MAIN);
	fake_now_ns += 100;
	put_switch(&ring, 1); /* out, and the switches closed before it came back */
	fake_publish(&ring);
	fake_now_ns += 5000000;
	enter(t, WORK);
	tap_ok(!pv_timed_start_on(&t->timed), "a switch out with no switch in ends it");
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 0, "... and its span, no sample in it, charges nothing");

	t = timed_thread();
	enter(t, MAIN);
	t->pcring.switches_on = 0; /* as the sampler does before it closes them */
	fake_now_ns += 100;
	enter(t, WORK);
	tap_ok(!pv_timed_start_on(&t->timed), "switches no longer written end it too");
	leave(t, WORK);
	leave(t, MAIN);

	/* Short calls: the timing's cost is bounded by its sections. */
	t = timed_thread();
	enter(t, MAIN);
	unsigned hooks = 1;
	while (pv_timed_start_on(&t->timed) && hooks < 2 * PV_TIMED_START_SECTIONS) {
		fake_now_ns += 10;
		enter(t, WORK);
		leave(t, WORK);
		hooks += 2;
	}
	tap_ok(!pv_timed_start_on(&t->timed) && hooks == PV_TIMED_START_SECTIONS + 1,
	       "PV_TIMED_START_SECTIONS sections end it, however little CPU they timed (%u hooks)",
	       hooks);
	leave(t, MAIN);

	t = looked_at_thread();
	give_ring(t);
	tap_ok(!pv_timed_start_on(&t->timed), "a ring without switches is never timed");
}

/* ---- the same without a ring: switches told by the rseq area ---- */

static uint64_t cpu_clock_ns; /* the thread's CPU clock, scripted */
static unsigned cpu_clock_reads;
static int left_cpu;          /* it left its CPU since it last asked */

static uint64_t scripted_cpu(void)
{
	cpu_clock_reads++;
	return cpu_clock_ns;
}

static int scripted_left(void)
{
	int left = left_cpu;
	left_cpu = 0;
	return left;
}

/* On its CPU for ns: both clocks move. */
static void run_for(uint64_t ns)
{
	fake_now_ns += ns;
	cpu_clock_ns += ns;
}

/* Off it for ns (blocked, or preempted): the wall clock alone moves, and the
 * kernel clears the rseq word. */
static void off_for(uint64_t ns)
{
	fake_now_ns += ns;
	left_cpu = 1;
}

/* A thread with no ring, timed by rseq from 1 s on the wall and 3 ms of CPU. */
static struct pv_thread *rseq_timed_thread(void)
{
	struct pv_thread *t = looked_at_thread();
	t->timed.wall = scripted_wall;
	t->timed.cpu = scripted_cpu;
	t->timed.left = scripted_left;
	fake_now_ns = 1000000000;
	cpu_clock_ns = 3000000;
	left_cpu = 0;
	t->sampled_cpu_ns = cpu_clock_ns; /* pv_sampler_thread_begins */
	if (!pv_cpusamples_time_without_ring(t))
		abort();
	cpu_clock_reads = 0;
	return t;
}

/* A span in which the thread never left its CPU is its wall time; one in
 * which it did, what its CPU clock moved, read then and only then. */
static void rseq_timed_where_ran(void)
{
	struct pv_thread *t = rseq_timed_thread();
	tap_ok(pv_timed_start_on(&t->timed) && t->timed.by == PV_TIMED_BY_RSEQ,
	       "no ring: timed by the rseq area");
	tap_ok(!pv_cpusamples_from_ring(t), "... its time not from a ring");
	enter(t, MAIN);
	tap_ok(pv_thread_owes(t), "every hook takes its slow path");
	run_for(300);
	enter(t, WORK);
	run_for(200);
	off_for(7000000); /* preempted, or blocked outside libc's waits */
	run_for(300);
	leave(t, WORK);
	run_for(40);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 500, "work: its 500 ns on the CPU, not the 7 ms off it");
	tap_is(func(WORK)->timed_ns, 500, "... all of it timed");
	tap_is(func(MAIN)->self[0], 340, "main: before and after its call");
	tap_is(prof.sampling.timed_ns, 840, "the profile's timed time");
	tap_is(cpu_clock_reads, 1, "the CPU clock read once: after the thread left its CPU");
}

/* A wait's CPU is the waiting function's and its box the time blocked, each
 * once: what the wrapper measured around the wait is the hooks' span's
 * already, and the wrapper's settling (which no section's end follows)
 * leaves the next span's start right. */
static void rseq_timed_waits(void)
{
	struct pv_thread *t = rseq_timed_thread();
	const void *wait = &pv_wait_markers[PV_WAIT_poll];
	enter(t, MAIN);
	for (int i = 0; i < 2; i++) {
		enter(t, WAIT_IO);
		run_for(100);
		enter(t, wait);
		pv_wait_entered(t, wait); /* as the wait's wrapper does */
		run_for(30); /* into the kernel */
		off_for(2000000);
		run_for(20); /* out of it */
		pv_wait_blocked(t, wait, 2000050, 50); /* its own clock: 50 ns */
		leave(t, wait);
		run_for(10);
		leave(t, WAIT_IO);
		enter(t, WORK);
		run_for(1000);
		leave(t, WORK);
	}
	leave(t, MAIN);
	merge(t);
	tap_is(func(WAIT_IO)->self[0], 2 * 160, "the waits' CPU: the waiting function's self");
	tap_is(func(wait)->self[0], 2 * 2000050, "the wait's box: the time blocked");
	tap_is(func(WORK)->self[0], 2000, "work: its own, the waits' not carried into it");
	tap_is(func(MAIN)->total[0], 2 * (160 + 2000050 + 1000), "main's total: each once");
	tap_is(t->waits_cpu_ns, 0, "the wrapper's measure left to the hooks' span");
}

/* Past PV_TIMED_START_NS the sampler's looks take over, from the CPU clock
 * at the hand-over: a look meanwhile charges nothing, and the first after
 * it only the CPU since. */
static void rseq_timed_then_looked(void)
{
	struct pv_thread *t = rseq_timed_thread();
	struct pv_sampling account = { 0 };
	enter(t, MAIN);
	run_for(20000000);
	pv_sampler_look(&account, t, cpu_clock_ns); /* while timed */
	tap_is(account.samples, 0, "a look at a timed thread charges nothing");
	run_for(PV_TIMED_START_NS);
	enter(t, WORK); /* main's 70 ms, timed; then the looks */
	tap_ok(!pv_timed_start_on(&t->timed), "past PV_TIMED_START_NS: timed no more");
	tap_is(t->timed.handed_cpu_ns, 3000000 + 20000000 + PV_TIMED_START_NS,
	       "... handed over at its CPU clock then");
	run_for(2000000);
	pv_sampler_look(&account, t, cpu_clock_ns); /* found in work */
	tap_is(account.samples, 1, "the next look charges");
	leave(t, WORK);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 20000000 + PV_TIMED_START_NS, "main: its 70 ms, timed once");
	tap_is(func(WORK)->self[0], 2000000, "work: the 2 ms after the hand-over, not from the "
	       "look before it");
	tap_ok(func(WORK)->samples == 1 && func(WORK)->timed_ns == 0, "... looked at, not timed");
}

/* Linux 6.19 on: a block inside a system call leaves the rseq word alone.
 * A span as long as PV_TIMED_READ_AFTER_NS has the CPU clock read anyway;
 * a shorter one is taken for work, its error under that. */
static void rseq_block_unsaid(void)
{
	struct pv_thread *t = rseq_timed_thread();
	enter(t, MAIN);
	enter(t, WORK);
	run_for(100);
	fake_now_ns += 5000000; /* blocked 5 ms, the word not cleared */
	run_for(100);
	leave(t, WORK);
	enter(t, OTHER);
	run_for(100);
	fake_now_ns += PV_TIMED_READ_AFTER_NS / 2; /* a short block, unsaid */
	leave(t, OTHER);
	leave(t, MAIN);
	merge(t);
	tap_is(func(WORK)->self[0], 200, "a long span read from the CPU clock: the block left out");
	tap_is(func(OTHER)->self[0], 100 + PV_TIMED_READ_AFTER_NS / 2,
	       "a short one taken for work: at most PV_TIMED_READ_AFTER_NS too much");
}

/* A thread whose rseq area is not registered (or a libc without one) is
 * left to the looks. */
static void rseq_missing(void)
{
	struct pv_thread *t = looked_at_thread();
	tap_ok(!pv_cpusamples_time_without_ring(t) && !pv_timed_start_on(&t->timed),
	       "no rseq area found: not timed");
	tap_ok(!pv_thread_owes(t), "... and its hooks take their straight line");
}


/* ---- a signal handler's sections inside a count ---- */

#define HANDLER ((const void *)0x5000)
static int handler_armed;
static struct pv_thread *handler_thread;

/* What the signal trampoline does on a profiling thread (signals.c): a
 * guarded section (its settle counts), the handler's calls, another one. */
static void run_handler(struct pv_thread *t)
{
	struct pv_guard g;
	int entered = pv_guard_enter_abandonable(&g, t);
	pv_guard_leave_abandonable(&g, entered);
	enter(t, HANDLER);
	run_for(5000000); /* the handler's 5 ms on the CPU */
	leave(t, HANDLER);
	entered = pv_guard_enter_abandonable(&g, t);
	pv_guard_leave_abandonable(&g, entered);
}

/* The CPU clock's system call returns with a signal pending: the handler
 * runs as it returns, after the clock was read (the kernel cleared the
 * rseq word for the delivery). */
static uint64_t cpu_with_signal(void)
{
	uint64_t clock = scripted_cpu();
	if (handler_armed) {
		handler_armed = 0;
		left_cpu = 1;
		run_handler(handler_thread);
	}
	return clock;
}

/* A count outside a guard (a wait's settling) interrupted by a handler:
 * the handler's hooks leave the span to the count they interrupted, whose
 * next span holds the handler's time, as a ring's count does. Counted once. */
static void handler_inside_a_count(void)
{
	struct pv_thread *t = rseq_timed_thread();
	t->timed.cpu = cpu_with_signal;
	handler_thread = t;
	const void *wait = &pv_wait_markers[PV_WAIT_poll];
	enter(t, MAIN);
	enter(t, WAIT_IO);
	run_for(100);
	enter(t, wait);
	pv_wait_entered(t, wait);
	run_for(30);
	off_for(2000000);
	run_for(20);
	handler_armed = 1; /* lands in pv_wait_blocked's count */
	pv_wait_blocked(t, wait, 2000050, 50);
	leave(t, wait);
	run_for(10);
	leave(t, WAIT_IO);
	leave(t, MAIN);
	merge(t);
	tap_is(prof.sampling.timed_ns, 5000160, "a handler inside a count: what ran, timed once");
	tap_is(func(WAIT_IO)->self[0], 5000160,
	       "... the handler's time the interrupted function's, as with a ring");
	tap_is(func(wait)->self[0], 2000050, "... the wait's box its blocked time only");
}

/* A handler that runs unrecorded (no room for its frame): the guard's leave
 * resumes with no count before it (signals.c's second guard). */
static void resume_without_count(void)
{
	struct pv_thread *t = rseq_timed_thread();
	enter(t, MAIN);
	run_for(3000000); /* main's 3 ms */
	struct pv_guard g;
	int entered = pv_guard_enter_abandonable(&g, t); /* the first section */
	g.mode = PV_MODE_BUSY; /* no room: the handler runs unrecorded */
	pv_guard_leave_abandonable(&g, entered);
	run_for(7000); /* the handler, BUSY */
	entered = pv_guard_enter_abandonable(&g, t);
	g.mode = PV_MODE_COUNT;
	pv_guard_leave_abandonable(&g, entered);
	t->in_slow_path = 0;
	run_for(1000);
	leave(t, MAIN);
	merge(t);
	tap_is(func(MAIN)->self[0], 3001000, "an unrecorded handler: main's 3 ms before it counted");
}

/* A fork's child (fork_child_profile): the parent's timing detached, a new
 * CPU clock from about 0, and not timed again: the looks charge from its
 * start, not from the parent's hand-over. */
static void child_not_timed_again(void)
{
	struct pv_thread *t = rseq_timed_thread();
	struct pv_sampling account = { 0 };
	enter(t, MAIN);
	run_for(PV_TIMED_START_NS + 1000);
	enter(t, WORK); /* handed over */
	leave(t, WORK);
	pv_cpusamples_detach(t); /* the child's copy */
	cpu_clock_ns = 100000;   /* the child's own thread clock */
	t->sampled_cpu_ns = cpu_clock_ns; /* pv_sampler_thread_begins */
	run_for(20000000);
	pv_sampler_look(&account, t, cpu_clock_ns);
	tap_is(account.samples, 1, "a fork's child not timed again: its first look charges");
	leave(t, MAIN);
}

int main(void)
{
	burst_then_wait();
	charged_where_found();
	runtime_dropped();
	lost_where_taken();
	weighed_by_the_clock();
	weighed_within_reason();
	pending_at_a_dump();
	wait_open_at_a_dump();
	handler_mid_count();
	looks_owed_as_the_ring_comes();
	detached();
	timed_where_ran();
	timed_wait();
	timed_then_sampled();
	timed_ends_early();
	timed_by_the_samples_clock();
	rseq_timed_where_ran();
	rseq_timed_waits();
	rseq_timed_then_looked();
	rseq_block_unsaid();
	rseq_missing();
	handler_inside_a_count();
	resume_without_count();
	child_not_timed_again();
	pv_profile_clear(&prof);
	free(ring.page);
	return tap_done();
}
