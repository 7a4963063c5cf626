/* SPDX-License-Identifier: MIT */
#include "runtime/timedstart.h"

#include "base/clock.h"
#include "runtime/thread.h"

static uint64_t monotonic_ns(void)
{
	return pv_monotonic_ns();
}

void pv_timed_start_begin(struct pv_thread *t)
{
	struct pv_timed_start *ts = &t->timed;
	if (!__atomic_load_n(&t->pcring.switches_on, __ATOMIC_ACQUIRE))
		return;
	if (!ts->wall)
		ts->wall = monotonic_ns;
	ts->ns = ts->sections = 0;
	ts->off = (struct pv_pcring_offcpu){ 0 };
	__atomic_store_n(&ts->resumed_ns, ts->wall(), __ATOMIC_RELAXED);
	/* Before the ring's word is published (pv_cpusamples_attach). */
	__atomic_store_n(&ts->on, 1, __ATOMIC_RELEASE);
}

/* Samples take over from now: each is weighed from the thread's CPU clock
 * now, which is the last sample's plus the time on the CPU since; with no
 * sample yet, the clock the ring started from plus all that was timed. */
static void hand_over(struct pv_thread *t, uint64_t now)
{
	struct pv_timed_start *ts = &t->timed;
	struct pv_pcring *r = &t->pcring;
	const struct pv_pcring_offcpu *o = &ts->off;
	if (o->sample_ns && now > o->sample_ns) {
		uint64_t wall = now - o->sample_ns;
		uint64_t on_cpu = wall > o->off_since_sample_ns ? wall - o->off_since_sample_ns : 0;
		r->counted_cpu_ns = o->sample_cpu_ns + on_cpu;
	} else if (!o->sample_ns) {
		r->counted_cpu_ns += ts->ns;
	}
	__atomic_store_n(&ts->on, 0, __ATOMIC_RELAXED);
}

uint64_t pv_timed_start_count(struct pv_thread *t, struct pv_pcring_news *n)
{
	struct pv_timed_start *ts = &t->timed;
	uint64_t now = ts->wall();
	uint64_t resumed = __atomic_load_n(&ts->resumed_ns, __ATOMIC_RELAXED);
	int switches_on = __atomic_load_n(&t->pcring.switches_on, __ATOMIC_ACQUIRE);
	ts->off.from_ns = resumed;
	ts->off.to_ns = now;
	ts->off.off_ns = 0;
	pv_pcring_count(&t->pcring, n, &ts->off);
	uint64_t wall = now > resumed ? now - resumed : 0;
	uint64_t cpu = wall > ts->off.off_ns ? wall - ts->off.off_ns : 0;
	__atomic_store_n(&ts->ns, ts->ns + cpu, __ATOMIC_RELAXED); /* a dump reads it */
	ts->sections++;
	__atomic_store_n(&ts->resumed_ns, now, __ATOMIC_RELAXED); /* a section without an end */
	if (ts->ns >= PV_TIMED_START_NS || ts->sections >= PV_TIMED_START_SECTIONS || n->lost ||
	    !switches_on)
		hand_over(t, now);
	return cpu;
}

void pv_timed_start_resume(struct pv_thread *t)
{
	__atomic_store_n(&t->timed.resumed_ns, t->timed.wall(), __ATOMIC_RELAXED);
}

void pv_timed_start_stop(struct pv_thread *t)
{
	__atomic_store_n(&t->timed.on, 0, __ATOMIC_RELAXED);
}
