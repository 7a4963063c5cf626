/* SPDX-License-Identifier: MIT */
#include "runtime/timedstart.h"

#include "base/clock.h"
#include "base/sysraw.h"
#include "runtime/leftcpu.h"
#include "runtime/thread.h"

static uint64_t monotonic_ns(void)
{
	return pv_monotonic_ns();
}

/* A system call (no vDSO answers for a CPU clock): read only after the
 * thread left its CPU, or a long span. 0 when it cannot be read. */
static uint64_t own_cpu_ns(void)
{
	return pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void pv_timed_start_init(struct pv_timed_start *ts)
{
	*ts = (struct pv_timed_start){ .wall = monotonic_ns,
				       .cpu = own_cpu_ns,
				       .left = pv_leftcpu_since };
}

int pv_timed_start_begin_by_rseq(struct pv_thread *t)
{
	struct pv_timed_start *ts = &t->timed;
	if (ts->left == pv_leftcpu_since && !pv_leftcpu_ready())
		return 0;
	ts->by = PV_TIMED_BY_RSEQ;
	ts->ns = ts->sections = 0;
	ts->left(); /* asks from now on */
	ts->cpu_resumed_ns = ts->cpu();
	if (!ts->cpu_resumed_ns)
		return 0; /* no CPU clock to read */
	ts->began_ns = ts->wall();
	__atomic_store_n(&ts->resumed_ns, ts->began_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&ts->handed_cpu_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ts->on, 1, __ATOMIC_RELEASE);
	return 1;
}

void pv_timed_start_begin(struct pv_thread *t)
{
	struct pv_timed_start *ts = &t->timed;
	ts->ns = ts->sections = 0; /* a fork's child's: none of its parent's */
	ts->off = (struct pv_pcring_offcpu){ 0 };
	ts->by = PV_TIMED_BY_SWITCHES;
	__atomic_store_n(&ts->handed_cpu_ns, 0, __ATOMIC_RELAXED); /* a fork's parent's */
	if (!__atomic_load_n(&t->pcring.switches_on, __ATOMIC_ACQUIRE))
		return;
	ts->began_ns = ts->wall();
	__atomic_store_n(&ts->resumed_ns, ts->began_ns, __ATOMIC_RELAXED);
	/* Before the ring's word is published (pv_cpusamples_attach). */
	__atomic_store_n(&ts->on, 1, __ATOMIC_RELEASE);
}

/* The thread's CPU clock at `at` (the event's count, as its samples carry
 * it): the last sample's, plus the time on the CPU since; with no sample
 * yet, the clock the ring started from plus all that was timed. */
static uint64_t cpu_clock_at(const struct pv_thread *t, uint64_t at)
{
	const struct pv_pcring_offcpu *o = &t->timed.off;
	if (!o->sample_ns)
		return t->pcring.counted_cpu_ns + t->timed.ns;
	uint64_t wall = at > o->sample_ns ? at - o->sample_ns : 0;
	return o->sample_cpu_ns + (wall > o->off_since_sample_ns ? wall - o->off_since_sample_ns : 0);
}

/* Samples take over: each is weighed from the thread's CPU clock at cpu. */
static void hand_over(struct pv_thread *t, uint64_t cpu)
{
	t->pcring.counted_cpu_ns = cpu;
	__atomic_store_n(&t->timed.on, 0, __ATOMIC_RELAXED);
}

/* Timed by rseq: the looks take over from the CPU clock now, read (the
 * carried one gains what the scheduler's clock leaves out: interrupts), or
 * from their own last look if it cannot be. */
static void hand_over_to_looks(struct pv_timed_start *ts)
{
	__atomic_store_n(&ts->handed_cpu_ns, ts->cpu(), __ATOMIC_RELEASE);
	__atomic_store_n(&ts->on, 0, __ATOMIC_RELEASE);
	if (ts->left == pv_leftcpu_since)
		pv_leftcpu_done();
}

/* Is the thread's CPU clock to be read for a span of wall ns? When it
 * left its CPU, or the span is long: the kernel clears the rseq word for a
 * preemption from the program's code, but Linux 6.19 and later no longer
 * for a block inside a system call, so a span that blocked may have said
 * nothing; a short one then counts at most PV_TIMED_READ_AFTER_NS too much. */
static int read_clock_for(struct pv_timed_start *ts, uint64_t wall)
{
	return ts->left() | (wall >= PV_TIMED_READ_AFTER_NS);
}

/* Carry the thread's CPU clock (cpu_resumed_ns) over wall ns since it was
 * last right: read when read_clock_for says so, else moved by the wall.
 * What it moved, never more than the wall (a clock read's own system call
 * straddles the span's end), in *cpu; *read: whether it was read. 0, or -1
 * when it could not be read: the looks have taken over. */
static int carry_cpu_clock(struct pv_timed_start *ts, uint64_t wall, uint64_t *cpu, int *read)
{
	*cpu = wall;
	*read = read_clock_for(ts, wall);
	if (!*read) {
		__atomic_store_n(&ts->cpu_resumed_ns, ts->cpu_resumed_ns + wall, __ATOMIC_RELAXED);
		return 0;
	}
	uint64_t clock = ts->cpu();
	if (!clock) {
		hand_over_to_looks(ts);
		return -1;
	}
	uint64_t moved = clock > ts->cpu_resumed_ns ? clock - ts->cpu_resumed_ns : 0;
	if (moved < wall)
		*cpu = moved;
	__atomic_store_n(&ts->cpu_resumed_ns, clock, __ATOMIC_RELAXED);
	return 0;
}

/* The span since the code resumed, by rseq: its wall time if the thread
 * never left its CPU in it, else what its CPU clock moved. */
static uint64_t count_by_rseq(struct pv_timed_start *ts)
{
	uint64_t now = ts->wall();
	uint64_t resumed = __atomic_load_n(&ts->resumed_ns, __ATOMIC_RELAXED);
	uint64_t cpu;
	int read;
	if (carry_cpu_clock(ts, now > resumed ? now - resumed : 0, &cpu, &read) < 0)
		return 0;
	/* A section without an end, on both clocks (a wait's settling has no
	 * resume: the next span starts here). */
	__atomic_store_n(&ts->resumed_ns, now, __ATOMIC_RELAXED);
	ts->sections++;
	__atomic_store_n(&ts->ns, ts->ns + cpu, __ATOMIC_RELAXED); /* a dump reads it */
	if (ts->ns >= PV_TIMED_START_NS || ts->sections >= PV_TIMED_START_SECTIONS)
		hand_over_to_looks(ts);
	return cpu;
}

uint64_t pv_timed_start_count(struct pv_thread *t, struct pv_pcring_news *n)
{
	struct pv_timed_start *ts = &t->timed;
	if (ts->by == PV_TIMED_BY_RSEQ)
		return count_by_rseq(ts);
	uint64_t now = ts->wall();
	uint64_t resumed = __atomic_load_n(&ts->resumed_ns, __ATOMIC_RELAXED);
	int switches_on = __atomic_load_n(&t->pcring.switches_on, __ATOMIC_ACQUIRE);
	uint64_t cpu_resumed = cpu_clock_at(t, resumed);
	ts->off.from_ns = resumed;
	ts->off.to_ns = now;
	ts->off.off_ns = 0;
	pv_pcring_count(&t->pcring, n, &ts->off);
	__atomic_store_n(&ts->resumed_ns, now, __ATOMIC_RELAXED); /* a section without an end */
	ts->sections++;
	/* Switch records may be missing from the span: some were lost, or
	 * will be (the ring is full: the kernel says so only once there is
	 * room), or are no longer written, or a switch out has no switch back
	 * in. Its wall time could then be time off the CPU: the samples say
	 * what it used up to the last one, and the next sample carries the
	 * rest, as after a loss. */
	if (n->lost || pv_pcring_full(&t->pcring) || !switches_on || ts->off.switched_out_ns) {
		uint64_t sampled = ts->off.sample_ns > resumed ? ts->off.sample_cpu_ns : 0;
		uint64_t cpu = sampled > cpu_resumed ? sampled - cpu_resumed : 0;
		__atomic_store_n(&ts->ns, ts->ns + cpu, __ATOMIC_RELAXED);
		hand_over(t, cpu_resumed + cpu);
		return cpu;
	}
	uint64_t wall = now > resumed ? now - resumed : 0;
	uint64_t cpu = wall > ts->off.off_ns ? wall - ts->off.off_ns : 0;
	/* A span long enough to hold a sample: the CPU clock it carries is
	 * the scheduler's, which leaves out what the wall counts while the
	 * thread is on its CPU but not running it (the hypervisor's stolen
	 * time, interrupts): from there on, wall less switches again. */
	if (ts->off.sample_ns > resumed) {
		uint64_t at_now = cpu_clock_at(t, now);
		uint64_t sampled = at_now > cpu_resumed ? at_now - cpu_resumed : 0;
		if (sampled < cpu)
			cpu = sampled;
	}
	__atomic_store_n(&ts->ns, ts->ns + cpu, __ATOMIC_RELAXED); /* a dump reads it */
	if (ts->ns >= PV_TIMED_START_NS || ts->sections >= PV_TIMED_START_SECTIONS)
		hand_over(t, cpu_clock_at(t, now));
	return cpu;
}

void pv_timed_start_resume(struct pv_thread *t)
{
	/* A handler's section inside a count (pv_thread_collect): the count
	 * says where the next span starts. */
	if (t->collecting)
		return;
	struct pv_timed_start *ts = &t->timed;
	uint64_t now = ts->wall();
	if (ts->by == PV_TIMED_BY_RSEQ) {
		/* The section's own time was on the CPU, unless the thread left
		 * it: then its clock says where the code resumes from. */
		uint64_t began = __atomic_load_n(&ts->resumed_ns, __ATOMIC_RELAXED);
		uint64_t section;
		int read;
		if (carry_cpu_clock(ts, now > began ? now - began : 0, &section, &read) < 0)
			return;
		if (read)
			now = ts->wall(); /* after the clock's system call */
	}
	__atomic_store_n(&ts->resumed_ns, now, __ATOMIC_RELAXED);
}

void pv_timed_start_stop(struct pv_thread *t)
{
	__atomic_store_n(&t->timed.on, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->timed.handed_cpu_ns, 0, __ATOMIC_RELAXED);
}

uint64_t pv_timed_start_pending(const struct pv_thread *t)
{
	const struct pv_timed_start *ts = &t->timed;
	if (!__atomic_load_n(&ts->on, __ATOMIC_ACQUIRE) || ts->by != PV_TIMED_BY_RSEQ ||
	    !t->has_cpu_clock || __atomic_load_n(&t->at, __ATOMIC_RELAXED) == NULL)
		return 0;
	uint64_t clock = pv_sys_clock_ns(t->cpu_clock);
	uint64_t from = __atomic_load_n(&ts->cpu_resumed_ns, __ATOMIC_RELAXED);
	return clock > from ? clock - from : 0;
}
