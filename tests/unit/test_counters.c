/* SPDX-License-Identifier: MIT */
/*
 * The counter pipeline end to end, without a PMU: the production reader
 * (pv_counters_read_simulated) on a simulated perf mmap page, through the
 * hooks the runtime ships, into the profile and the report's conversion.
 * Also: how events are grouped, and each event's unit.
 */
#include <stdlib.h>
#include <string.h>

#include "model/report.h"
#include "runtime/hooks.h"
#include "runtime/handover.h"
#include "runtime/naming.h"
#include "tap.h"

/* ---- groups ---- */

static struct pv_event event(const char *name, int is_tsc, uint32_t type, uint64_t config)
{
	struct pv_event e;
	memset(&e, 0, sizeof(e));
	strcpy(e.name, name);
	e.type = type;
	e.config = config;
	e.backend = is_tsc ? PV_BACKEND_TSC : PV_BACKEND_READ;
	return e;
}

static void test_groups(void)
{
	struct pv_event_set set = { .n = 6 };
	set.ev[0] = event("tsc", 1, 0, 0);
	set.ev[1] = event("cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	set.ev[2] = event("page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	set.ev[3] = event("instructions", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	set.ev[4] = event("task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	set.ev[5] = event("L1-dcache-load-misses", 0, PERF_TYPE_HW_CACHE, 0x10000);
	int leader[PV_MAX_EVENTS];
	unsigned slot[PV_MAX_EVENTS];
	pv_counters_plan(&set, leader, slot);
	tap_is(leader[0], -1, "groups: the TSC is in no group");
	tap_is(leader[1], 1, "groups: the first hardware event leads the hardware group");
	tap_is(leader[3], 1, "groups: later hardware events join it");
	tap_is(leader[5], 1, "groups: hardware cache events join it too");
	tap_ok(slot[1] == 0 && slot[3] == 1 && slot[5] == 2,
	       "groups: hardware members read in order from one buffer (%u %u %u)", slot[1],
	       slot[3], slot[5]);
	tap_is(leader[2], 2, "groups: a software event leads its own group");
	tap_is(leader[4], 4, "groups: ... each software event (task-clock too)");
	tap_ok(slot[2] == 0 && slot[4] == 0, "groups: a software event is its group's slot 0");
}

/* ---- units ---- */

static void test_units(void)
{
	struct pv_event tsc = event("tsc", 1, 0, 0);
	struct pv_event task = event("task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct pv_event cpu = event("cpu-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct pv_event faults =
		event("page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	struct pv_event cycles = event("cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct pv_event_desc d_tsc, d_task, d_cpu, d_faults, d_cycles;
	pv_counters_describe(&tsc, &d_tsc);
	pv_counters_describe(&task, &d_task);
	pv_counters_describe(&cpu, &d_cpu);
	pv_counters_describe(&faults, &d_faults);
	pv_counters_describe(&cycles, &d_cycles);
	tap_ok(d_tsc.kind == PV_EVENT_TIME && !strcmp(pv_event_unit(&d_tsc), "ns") &&
		       !strcmp(d_tsc.backend, "tsc") && !strcmp(d_tsc.name, "tsc"),
	       "described: the TSC is a time, in ns, read as the TSC");
	tap_ok(d_task.kind == PV_EVENT_TIME && !strcmp(d_task.backend, "read"),
	       "described: task-clock is a time, read with read(2)");
	tap_ok(d_cpu.kind == PV_EVENT_TIME, "described: cpu-clock is a time");
	tap_ok(d_faults.kind == PV_EVENT_COUNT && !strcmp(pv_event_unit(&d_faults), "count"),
	       "described: page-faults are a count");
	tap_ok(d_cycles.kind == PV_EVENT_CYCLES && !strcmp(pv_event_unit(&d_cycles), "count") &&
		       pv_event_hides_hooks(&d_cycles),
	       "described: cycles are a count that hides hooks as time does");
}

/* ---- the reader on a simulated page, through the shipped hooks ---- */

static struct perf_event_mmap_page page;
static uint64_t fake_counter; /* what rdpmc returns */

static uint64_t sim_rdpmc(void *ctx, uint32_t ecx)
{
	(void)ctx;
	(void)ecx;
	return fake_counter;
}

static uint64_t sim_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

/* A TSC far beyond any count. */
static uint64_t late_clock(void *ctx)
{
	(void)ctx;
	return (uint64_t)1 << 60;
}

/* The kernel's view of the event: count (offset + counter) and its times. */
static void kernel_writes(uint64_t count, uint64_t enabled, uint64_t running)
{
	page.lock += 2;
	page.offset = (int64_t)count;
	fake_counter = 0;
	page.time_enabled = enabled;
	page.time_running = running;
}

static void sim_read(struct pv_thread *t, uint64_t *now)
{
	pv_counters_read_simulated(&t->counters, t->last, now, sim_rdpmc, sim_clock, NULL);
}

static void enter_indexed(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, 1, sim_read, pv_thread_enter_slow);
}

static int depth;

static void enter(struct pv_thread *t, uintptr_t fn)
{
	uintptr_t sp = ((uintptr_t)1 << 40) - 64 * (uintptr_t)++depth;
	pv_hook_enter(t, (void *)fn, sp + 1, sp, PV_MODE_GENERIC, 1, sim_read, enter_indexed,
		      pv_thread_enter_slow);
}

static void leave(struct pv_thread *t, uintptr_t fn)
{
	uintptr_t sp = ((uintptr_t)1 << 40) - 64 * (uintptr_t)depth--;
	pv_hook_exit(t, (void *)fn, sp + 1, sp, PV_MODE_GENERIC, 1, sim_read, pv_thread_exit_slow);
}

static struct pv_event_set cycles_only;

/* A thread counting cycles with rdpmc on the simulated page. */
static struct pv_thread *new_thread(void)
{
	static struct pv_thread t;
	pv_thread_release(&t);
	memset(&t, 0, sizeof(t));
	memset(&page, 0, sizeof(page));
	page.capabilities = PV_CAP_BIT0_IS_DEPRECATED | PV_CAP_USER_RDPMC;
	page.index = 1;
	page.pmc_width = 48;
	cycles_only.n = 1;
	cycles_only.ev[0] = event("cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	cycles_only.ev[0].backend = PV_BACKEND_RDPMC;
	t.counters.events = &cycles_only;
	t.counters.n = 1;
	t.counters.backend[0] = PV_BACKEND_RDPMC;
	t.counters.fd[0] = -1;
	t.counters.leader[0] = 0;
	t.counters.page[0] = &page;
	depth = 0;
	return &t;
}

static struct pv_fstat *func(struct pv_profile *p, uintptr_t fn)
{
	void *key = (void *)fn;
	struct pv_fstat *f;
	HASH_FIND_PTR(p->funcs, &key, f);
	static struct pv_fstat none;
	return f ? f : &none;
}

enum { MAIN = 0x1000, QUIET = 0x2000, BACKWARDS = 0x3000 };

static void test_multiplexed_deltas(void)
{
	struct pv_thread *t = new_thread();
	/* A hot stretch, half of it multiplexed out ... */
	kernel_writes(1000000, 2000, 1000);
	if (pv_thread_init(t, 1, sim_read) < 0)
		abort();
	enter(t, MAIN);
	enter(t, QUIET);
	/* ... then a quiet one that ran all the time: scaled at read time, the
	 * count would fall from 2,000,000 to 1,909,281. */
	kernel_writes(1000100, 2100, 1100);
	leave(t, QUIET);
	/* A counter that reads lower than before (a stale page) moves nothing. */
	enter(t, BACKWARDS);
	kernel_writes(1000050, 2150, 1150);
	leave(t, BACKWARDS);
	kernel_writes(1000300, 2400, 1400);
	leave(t, MAIN);

	struct pv_profile prof;
	pv_profile_init(&prof, 1);
	pv_thread_hand_over(&prof, t);
	tap_is(func(&prof, QUIET)->self[0], 100, "multiplexed: the hook's delta is the raw 100");
	tap_is(func(&prof, QUIET)->total[0], 100, "multiplexed: ... in the total as well");
	tap_is(func(&prof, BACKWARDS)->self[0], 0, "a reading below the last one adds nothing");
	tap_is(func(&prof, MAIN)->total[0], 300, "multiplexed: main's total is the raw 300");
	uint64_t selves = func(&prof, MAIN)->self[0] + func(&prof, QUIET)->self[0] +
			  func(&prof, BACKWARDS)->self[0];
	tap_is(selves, 300, "multiplexed: selves add up to the raw run");
	tap_ok(prof.enabled[0] == 2400 && prof.running[0] == 1400,
	       "multiplexed: the thread's latest times reach the profile (%" PRIu64 "/%" PRIu64 ")",
	       prof.enabled[0], prof.running[0]);

	/* The report scales once, by the run's enabled/running. */
	struct pv_conversion conv;
	pv_counters_mark_start();
	pv_counters_conversion(&cycles_only, prof.enabled, prof.running, &conv);
	tap_ok(conv.factor[0] > 1.714 && conv.factor[0] < 1.715,
	       "conversion: factor is enabled/running = 2400/1400 (%g)", conv.factor[0]);
	tap_ok(conv.running_ratio[0] > 0.583 && conv.running_ratio[0] < 0.584,
	       "conversion: running ratio 1400/2400 (%g)", conv.running_ratio[0]);
	struct pv_event_desc described;
	pv_counters_describe(&cycles_only.ev[0], &described);
	struct pv_report r = { .events = &described };
	struct pv_overhead none = { 0 };
	struct pv_namer no_symbols = pv_runtime_namer(NULL);
	if (pv_report_build(&r, &prof, &no_symbols, &conv, &none) < 0)
		abort();
	uint64_t quiet = 0, main_total = 0;
	for (unsigned i = 0; i < r.n_funcs; i++) {
		if (r.funcs[i].fn == (void *)QUIET)
			quiet = r.funcs[i].self[0];
		if (r.funcs[i].fn == (void *)MAIN)
			main_total = r.funcs[i].total[0];
	}
	tap_is(quiet, 171, "report: 100 raw counts scaled to 171");
	tap_is(main_total, 514, "report: main's 300 scaled to 514");
	tap_is(r.run_total[0], 514, "report: the run total scaled the same way");
	tap_ok(r.multiplexed[0] < 1.0, "report: says the event was multiplexed");
	pv_report_free(&r);
	pv_profile_clear(&prof);
}

/* The TSC is converted to ns against CLOCK_MONOTONIC over the run. */
static void test_tsc_conversion(void)
{
	struct pv_event_set set = { .n = 2 };
	set.ev[0] = event("tsc", 1, 0, 0);
	set.ev[1] = event("page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	uint64_t enabled[2] = { 0, 500 }, running[2] = { 0, 500 };
	struct pv_conversion conv;
	pv_counters_mark_start();
	pv_counters_conversion(&set, enabled, running, &conv);
	tap_ok(conv.wall_seconds >= 0.005, "tsc: a short run waits for a precise rate (%g s)",
	       conv.wall_seconds);
	/* Any real TSC runs between 100 MHz and 10 GHz. */
	tap_ok(conv.factor[0] > 0.1 && conv.factor[0] < 10,
	       "tsc: ns per tick is plausible (%g)", conv.factor[0]);
	tap_ok(conv.factor[1] == 1.0 && conv.running_ratio[1] == 1.0,
	       "a never-multiplexed count is left as it is");
}

/* The program closed our descriptors and they cannot be opened again: the
 * counts stop, and the times gathered so far still scale what was read. */
static void test_lost_for_good(void)
{
	static struct pv_event_set unopenable = { .n = 1 };
	unopenable.ev[0] = event("nonesuch", 0, 0xdead, 0); /* perf_event_open refuses it */
	static struct pv_thread t;
	memset(&t, 0, sizeof(t));
	if (pv_cct_init(&t.cct, 1) < 0)
		abort();
	t.nev = 1;
	t.last[0] = 5000;
	t.counters.events = &unopenable;
	t.counters.n = 1;
	t.counters.fd[0] = -1;
	t.counters.enabled[0] = 2000;
	t.counters.running[0] = 1000;
	t.counters.state = PV_COUNTERS_LOST; /* as pv_counters_forget_fd leaves it */
	uint64_t now[PV_MAX_EVENTS];
	tap_is(pv_counters_read(&t.counters, t.last, now), PV_COUNTERS_LOST,
	       "lost: the reader says so, and reads nothing");
	tap_is(now[0], 5000, "lost: the reading stays at its floor");
	pv_counters_reopen(&t.counters, t.last);
	tap_is(pv_counters_state(&t.counters), PV_COUNTERS_GONE, "lost for good: the reopen failed");
	pv_counters_read(&t.counters, t.last, now);
	tap_is(now[0], 5000, "lost for good: readings stay at the last one");
	struct pv_profile prof;
	pv_profile_init(&prof, 1);
	pv_thread_hand_over(&prof, &t);
	tap_ok(prof.enabled[0] == 2000 && prof.running[0] == 1000,
	       "lost for good: the thread's times still reach the profile (%" PRIu64 "/%" PRIu64 ")",
	       prof.enabled[0], prof.running[0]);
	tap_is(prof.losses.counters_lost, 1, "lost for good: the profile says so");
	pv_counters_close(&t.counters);
	pv_cct_release(&t.cct);
	pv_profile_clear(&prof);
}

/* An event with no backend (a zeroed slot, as a counter set half filled
 * would have) reads its floor, never the clock. */
static void test_no_backend(void)
{
	struct pv_counters c;
	memset(&c, 0, sizeof(c));
	c.n = 2;
	c.fd[0] = c.fd[1] = -1;
	c.leader[0] = c.leader[1] = -1;
	uint64_t floor[2] = { 7, 9 }, now[2];
	pv_counters_read_simulated(&c, floor, now, sim_rdpmc, late_clock, NULL);
	tap_ok(now[0] == 7 && now[1] == 9,
	       "no backend: the reading is its floor, not the clock (%" PRIu64 ", %" PRIu64 ")",
	       now[0], now[1]);
}

/* The program takes a descriptor while the thread reads it: nothing read
 * then is trusted (the number may be another file's by then). */
static struct pv_counters *taken_midway;

static uint64_t rdpmc_then_taken(void *ctx, uint32_t ecx)
{
	(void)ctx;
	(void)ecx;
	__atomic_store_n(&taken_midway->state, PV_COUNTERS_LOST, __ATOMIC_SEQ_CST);
	return fake_counter;
}

static void test_taken_while_read(void)
{
	struct pv_thread *t = new_thread();
	kernel_writes(1000, 100, 100);
	uint64_t floor[1] = { 400 }, now[1];
	tap_is(pv_counters_read_simulated(&t->counters, floor, now, sim_rdpmc, sim_clock, NULL),
	       PV_COUNTERS_OPEN, "read: open events are read");
	tap_is(now[0], 1000, "read: the count as the page has it");
	taken_midway = &t->counters;
	tap_is(pv_counters_read_simulated(&t->counters, floor, now, rdpmc_then_taken, sim_clock,
					  NULL),
	       PV_COUNTERS_LOST, "taken while read: the reader says the events are lost");
	tap_is(now[0], 400, "taken while read: the reading stays at its floor");
}

/* The same with read(2): the TSC, read first, sees the program take the
 * descriptors; the task-clock group read after it must keep neither its
 * reading nor its times. */
static struct pv_counters *taken_by_clock;

static uint64_t clock_then_taken(void *ctx)
{
	(void)ctx;
	__atomic_store_n(&taken_by_clock->state, PV_COUNTERS_LOST, __ATOMIC_SEQ_CST);
	return 5000;
}

static void test_taken_while_read_by_read(void)
{
	struct pv_event_set set = { .n = 2 };
	set.ev[0] = event("tsc", 1, 0, 0);
	set.ev[1] = event("task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct pv_counters c;
	if (pv_counters_open(&c, &set) < 0 || c.backend[1] != PV_BACKEND_READ) {
		tap_ok(1, "taken while read(2): # SKIP task-clock cannot be opened here");
		return;
	}
	uint64_t floor[2] = { 0, 0 }, now[2];
	pv_counters_read_simulated(&c, floor, now, sim_rdpmc, sim_clock, NULL);
	uint64_t enabled = c.enabled[1], running = c.running[1];
	for (volatile int i = 0; i < 2000000; i++)
		; /* task-clock moves on */
	taken_by_clock = &c;
	tap_is(pv_counters_read_simulated(&c, now, now, sim_rdpmc, clock_then_taken, NULL),
	       PV_COUNTERS_LOST, "taken while read(2): the reader says the events are lost");
	tap_ok(c.enabled[1] == enabled && c.running[1] == running,
	       "taken while read(2): the group's times are not kept (%" PRIu64 " ns enabled, "
	       "before %" PRIu64 ")", c.enabled[1], enabled);
	__atomic_store_n(&c.state, PV_COUNTERS_OPEN, __ATOMIC_SEQ_CST);
	pv_counters_read_simulated(&c, now, now, sim_rdpmc, sim_clock, NULL);
	tap_ok(c.enabled[1] > enabled, "read(2) trusted: its times are kept (%" PRIu64 " > %" PRIu64
	       ")", c.enabled[1], enabled);
	pv_counters_close(&c);
}

int main(void)
{
	test_groups();
	test_units();
	test_multiplexed_deltas();
	test_tsc_conversion();
	test_lost_for_good();
	test_no_backend();
	test_taken_while_read_by_read();
	test_taken_while_read();
	return tap_done();
}
