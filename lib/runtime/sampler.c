/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/sysraw.h"
#include "runtime/cpusamples.h"
#include "runtime/ownthread.h"
#include "runtime/samplecost.h"

/*
 * The sampler's thread is made with clone(2), not pthread_create: glibc
 * would allocate the new thread's TLS with the program's calloc (an
 * allocator that counts its calls, or is not ready before its constructor,
 * would see profviz), and would count it among the program's threads, so
 * that a program whose main thread calls pthread_exit would never end. It
 * is the kernel's thread only: it runs nothing of libc's but system calls,
 * and nothing built with a sanitizer (the Makefile builds this file
 * without), on a thread pointer of its own whose neighbourhood soaks up any
 * thread-local store (errno) that a system call's wrapper makes. glibc's
 * exit ends it with the process.
 */
#define SAMPLER_STACK (64 * 1024)
#define SAMPLER_TLS (64 * 1024) /* either side of its thread pointer */
#define SAMPLER_MEMORY (SAMPLER_STACK + 2 * SAMPLER_TLS)

static char *sampler_memory; /* this process's sampler thread's, or NULL */

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* t's CPU clock in ns; 0 when it cannot be read. */
static uint64_t thread_cpu_ns(const struct pv_thread *t)
{
	return t->has_cpu_clock ? pv_sys_clock_ns(t->cpu_clock) : 0;
}

void pv_sampler_thread_begins(struct pv_thread *t)
{
	t->sampled_cpu_ns = thread_cpu_ns(t);
}

uint64_t pv_sampler_period(enum pv_sampler_pace pace, uint64_t asked_ns, uint64_t round_ns)
{
	uint64_t period = asked_ns;
	if (pace == PV_PACE_DRAIN && period < PV_SAMPLER_DRAIN_NS)
		period = PV_SAMPLER_DRAIN_NS;
	/* Many threads make rounds dear, and then rarer. */
	if (round_ns * PV_SAMPLER_BUDGET > period)
		period = round_ns * PV_SAMPLER_BUDGET;
	return period;
}

void pv_sampler_look(struct pv_sampling *account, struct pv_thread *t, uint64_t cpu_ns)
{
	/* Timed at its hooks (timedstart.h): its CPU up to the hand-over is
	 * charged there. */
	if (__atomic_load_n(&t->timed.on, __ATOMIC_ACQUIRE)) { /* then handed, if not */
		t->sampled_cpu_ns = cpu_ns;
		t->waits_cpu_looked = __atomic_load_n(&t->waits_cpu_ns, __ATOMIC_RELAXED);
		return;
	}
	uint64_t handed = pv_timed_start_handed(&t->timed);
	if (handed > t->sampled_cpu_ns)
		t->sampled_cpu_ns = handed;
	if (!cpu_ns || cpu_ns <= t->sampled_cpu_ns)
		return; /* no clock, or it did not run since the last look */
	/* Found in one of libc's waits: what it used since the last look ran
	 * before the wait (a burst that ended in it) or in it, whose CPU the
	 * wait measures itself. Neither is the waiting function's to take by
	 * a look: the next look that finds the thread running takes it. */
	if (__atomic_load_n(&t->waiting_since_ns, __ATOMIC_RELAXED))
		return;
	uint64_t waits = __atomic_load_n(&t->waits_cpu_ns, __ATOMIC_RELAXED);
	uint64_t in_waits = waits - t->waits_cpu_looked;
	uint64_t used = cpu_ns - t->sampled_cpu_ns;
	t->sampled_cpu_ns = cpu_ns;
	t->waits_cpu_looked = waits;
	if (used <= in_waits)
		return;
	used -= in_waits; /* charged to the functions that waited already */
	struct pv_node *n = __atomic_load_n(&t->at, __ATOMIC_RELAXED);
	if (!n) {
		/* In a hook or the runtime: its own cost, never a function's. */
		account->own_samples++;
		account->own_ns += used;
		return;
	}
	/* The thread charges it to the node whose code runs, when its next
	 * hook or runtime section begins: a charge made from here could land
	 * in one node's self and, the thread having moved on meanwhile,
	 * another activation's total. */
	pv_cpusamples_looked(t, used, 1);
	account->samples++;
}

void pv_sampler_account(const struct pv_sampler *s, struct pv_sampling *out)
{
	*out = s->account;
	out->rate_hz = s->rate_hz;
	out->sample_cost_ns = s->sample_cost_ns;
	out->wall_seconds = s->started ? (double)(pv_monotonic_ns() - s->began_ns) * 1e-9 : 0;
}

/* r's switches are no longer written once their descriptor, kept here, is
 * closed (at the next turn of the rings); its thread stops timing first. */
static void end_switches(struct pv_sampler *s, struct pv_pcring *r)
{
	if (!r->has_switch_fd)
		return;
	__atomic_store_n(&r->switches_on, 0, __ATOMIC_RELEASE);
	s->ending[s->n_ending++] = r->switch_fd; /* room: as many as are kept */
	r->has_switch_fd = 0;
	r->switch_fd = -1;
}

void pv_sampler_ring_ends(struct pv_sampler *s, struct pv_pcring *r)
{
	end_switches(s, r);
	if (!r->has_event_fd)
		return;
	s->ending[s->n_ending++] = r->event_fd; /* room: as many as are kept */
	r->has_event_fd = 0;
	r->event_fd = -1;
}

/* The descriptors of ended threads' rings closed; the others' periods
 * drawn anew (under s->lock). */
static void turn_rings(struct pv_sampler *s, uint64_t *random)
{
	for (unsigned i = 0; i < s->n_ending; i++)
		pv_sys_close(s->ending[i]);
	s->fds_kept -= s->n_ending;
	s->n_ending = 0;
	for (struct pv_thread *t = *s->live; t; t = t->next)
		if (t->pcring.has_event_fd)
			pv_pcring_period(t->pcring.event_fd,
					 pv_sampler_jitter(pv_timed_start_on(&t->timed)
								   ? s->timed_period_ns
								   : s->pc_period_ns,
							   random));
}

static struct timespec timespec_of(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	return ts;
}

/* xorshift64: the jitter needs no more, and no libc state of the program's. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

uint64_t pv_sampler_jitter(uint64_t period_ns, uint64_t *random)
{
	return period_ns / 2 + next_random(random) % (period_ns + 1);
}

/* t's ring, open, has its time from now on (under s->lock). */
static void hand_time_to_ring(struct pv_sampler *s, struct pv_thread *t)
{
	pv_hotpcs_take(s->hot, &t->pcring); /* the PCs before are not the thread's to count */
	pv_cpusamples_attach(t, s->hot->own_lo, s->hot->own_hi);
}

/* t's PC ring, if it has none yet and none was refused: on the thread's
 * behalf, from this thread's own descriptor table (under s->lock), its
 * descriptor kept there while there is room. */
static void open_ring(struct pv_sampler *s, struct pv_thread *t)
{
	if (t->pcring.map || t->pcring.refused)
		return;
	int keep = s->fds_kept < PV_SAMPLER_FDS;
	/* While the thread is timed, its ring keeps the rate the sampler
	 * started at: the switches it needs must not be lost among samples in
	 * a call long enough to fill it (turn_rings). Sized for a second at
	 * the most it may come to (samplecost.h). */
	uint64_t shortest = s->pc_period_ns < s->timed_period_ns ? s->pc_period_ns
								  : s->timed_period_ns;
	if (!s->rate_forced && shortest > 1000000000u / PV_AUTO_RATE_MAX_HZ)
		shortest = 1000000000u / PV_AUTO_RATE_MAX_HZ;
	unsigned pages = pv_pcring_pages(shortest, PV_RING_HOLDS_NS);
	/* Its switches too, for its timed start (timedstart.h), while their
	 * descriptor has room beside the ring's. */
	int switches = s->fds_kept + 2 <= PV_SAMPLER_FDS;
	uint64_t period = switches ? s->timed_period_ns : s->pc_period_ns;
	int err = pv_pcring_open_thread(&t->pcring, t->tid, period, pages, keep, switches);
	/* Over the locked-memory limits (an unprivileged user's many threads):
	 * a smaller ring, which holds less than a second. */
	while (err == -EPERM && pages > 1)
		err = pv_pcring_open_thread(&t->pcring, t->tid, period, pages /= 2, keep,
					    switches);
	s->fds_kept += (unsigned)t->pcring.has_event_fd + (unsigned)t->pcring.has_switch_fd;
	if (err < 0) {
		t->pcring.refused = 1;
		pv_hotpcs_refused(s->hot, err);
		return;
	}
	pv_hotpcs_opened(s->hot, &t->pcring);
	hand_time_to_ring(s, t); /* at once: the sampler's next round may come late */
}


/* Give up the program's descriptor table for an empty one of this
 * thread's own (close_range copies nothing below 0), open the starting
 * thread's ring from it, and say so to the starter. Linux 5.9 and later;
 * before, the table stays shared, and each thread opens its own ring. */
static void own_table(struct pv_sampler *s)
{
	int own = syscall(SYS_close_range, 0u, ~0u, CLOSE_RANGE_UNSHARE) == 0;
	if (own && s->hot && s->pc_period_ns && s->first)
		open_ring(s, s->first);
	__atomic_store_n(&s->table, own ? 1 : 2, __ATOMIC_RELEASE);
	pv_futex_wake(&s->table, 1);
}

/* Sleep until at (CLOCK_MONOTONIC); meanwhile open the rings of the threads
 * that say they have started (pv_sampler_thread_added), as they do, and
 * wake at once for a round if one of them is left to the looks (its ring
 * refused): a first look that came at the end of a long sleep would charge
 * all the thread had run to where it found it. */
static void wait_until(struct pv_sampler *s, const struct timespec *at, int opens_rings)
{
	for (;;) {
		/* A wait with an absolute timeout on CLOCK_MONOTONIC, which a
		 * wake on the word ends early. */
		long rc = syscall(SYS_futex, &s->newcomers, FUTEX_WAIT_BITSET_PRIVATE, 0, at, NULL,
				  FUTEX_BITSET_MATCH_ANY);
		int to_look = 0;
		if (opens_rings && __atomic_exchange_n(&s->newcomers, 0, __ATOMIC_ACQUIRE)) {
			pv_lock_take_bare(s->lock);
			for (struct pv_thread *t = *s->live; t; t = t->next) {
				open_ring(s, t);
				to_look |= !pv_cpusamples_from_ring(t);
			}
			pv_lock_give_bare(s->lock);
		}
		if (to_look || (rc != 0 && errno == ETIMEDOUT))
			return;
		if (pv_sys_clock_ns(CLOCK_MONOTONIC) >= ns_of(at) ||
		    __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE))
			return;
	}
}

/* More than one CPU for this process: the cost's measurement spins on one
 * the program's threads need not share. */
static int spare_cpu(void)
{
	unsigned long mask[16];
	long n = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
	int cpus = 0;
	for (long i = 0; i < n / (long)sizeof(mask[0]); i++)
		cpus += __builtin_popcountl(mask[i]);
	return cpus > 1;
}

/* The rate a sample's cost allows, unless PROFVIZ_RATE forced one: measured
 * once a process (a fork's child keeps it), where a CPU is spare, between
 * rounds; a thread that starts meanwhile breaks it off (its ring is opened
 * first), and it is tried again at a later round, a few times. Not before
 * the process has run PV_COST_AFTER_NS: a shorter one is timed more than
 * sampled (timedstart.h), and a test suite's thousand short processes
 * would each spin for it. The rings' periods follow at their next turn
 * (turn_rings), and rings opened after are sized for the new rate. */
#define PV_COST_TRIES 8
#define PV_COST_AFTER_NS 100000000u

static void choose_rate(struct pv_sampler *s, unsigned *tries)
{
	if (s->rate_forced || s->sample_cost_ns || *tries >= PV_COST_TRIES ||
	    pv_sys_clock_ns(CLOCK_MONOTONIC) - s->began_ns < PV_COST_AFTER_NS)
		return;
	if (!spare_cpu()) {
		*tries = PV_COST_TRIES;
		return;
	}
	++*tries;
	uint64_t cost = pv_sample_cost_ns(&s->stopping, &s->newcomers);
	if (!cost)
		return;
	unsigned hz = pv_rate_for_cost(cost, s->rate_hz);
	pv_lock_take_bare(s->lock);
	s->account.sampler_ns = pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID); /* the measure's too */
	s->sample_cost_ns = cost;
	s->rate_hz = hz;
	s->pc_period_ns = 1000000000u / hz;
	pv_lock_give_bare(s->lock);
}

static int sample(void *arg)
{
	struct pv_sampler *s = arg;
	syscall(SYS_prctl, PR_SET_NAME, "profviz-sampler", 0, 0, 0); /* prctl() is a sanitizer's */
	own_table(s);
	int opens_rings = s->hot && s->pc_period_ns && s->table == 1;
	unsigned cost_tries = 0;
	uint64_t next = pv_sys_clock_ns(CLOCK_MONOTONIC);
	uint64_t random = next | 1;
	uint64_t own_before = pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t turned = 0; /* when the rings' periods were last drawn */
	enum pv_sampler_pace pace = PV_PACE_LOOKS;
	for (;;) {
		uint64_t own = pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		uint64_t period = pv_sampler_period(pace, s->period_ns,
						    own > own_before ? own - own_before : 0);
		own_before = own;
		uint64_t now = pv_sys_clock_ns(CLOCK_MONOTONIC);
		/* Spread uniformly over half to one and a half periods: a program
		 * whose loop repeats in step with a fixed period would show the
		 * same instant of it at every look. */
		next += pv_sampler_jitter(period, &random);
		if (next < now)
			next = now; /* late (descheduled): no burst of rounds to catch up */
		struct timespec at = timespec_of(next);
		/* Every signal is blocked here: nothing interrupts the sleep but a
		 * thread that has just started, whose ring is opened at once. */
		wait_until(s, &at, opens_rings);
		if (__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE))
			break; /* pv_sampler_stop waits for the thread to go */
		now = pv_sys_clock_ns(CLOCK_MONOTONIC);
		pv_lock_take_bare(s->lock);
		s->account.looks++;
		pace = PV_PACE_DRAIN;
		for (struct pv_thread *t = *s->live; t; t = t->next) {
			if (opens_rings)
				open_ring(s, t);
			if (!pv_timed_start_on(&t->timed) ||
			    now - t->timed.began_ns > PV_TIMED_START_WALL_NS)
				end_switches(s, &t->pcring); /* timed no more, or to end */
			if (!pv_cpusamples_from_ring(t)) { /* else its ring has its time */
				pv_sampler_look(&s->account, t, thread_cpu_ns(t));
				pace = PV_PACE_LOOKS;
			}
			if (s->hot)
				pv_hotpcs_take(s->hot, &t->pcring);
		}
		/* Not at every look: a new period starts the event's timer again,
		 * and one drawn anew before it ran out would never fire. */
		if (opens_rings && now - turned >= PV_SAMPLER_DRAIN_NS) {
			turn_rings(s, &random);
			turned = now;
		}
		s->account.sampler_ns = pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		pv_lock_give_bare(s->lock);
		if (opens_rings)
			choose_rate(s, &cost_tries);
	}
	return 0;
}

/* The new thread's thread pointer, in the middle of its TLS room. On x86-64
 * the thread control block starts there: it points to itself, and keeps the
 * stack protector's canary, copied from this thread's. */
static void *thread_pointer(char *memory)
{
	char *tp = memory + SAMPLER_STACK + SAMPLER_TLS;
#if defined(__x86_64__)
	uintptr_t canary;
	__asm__("mov %%fs:0x28, %0" : "=r"(canary));
	((void **)tp)[0] = tp;
	((void **)tp)[2] = tp;
	memcpy(tp + 0x28, &canary, sizeof(canary));
#endif
	return tp;
}

static void *sample_as_pthread(void *arg)
{
	struct pv_sampler *s = arg;
	/* Its tid, for pv_sampler_stop to wait until the task has gone. */
	__atomic_store_n(&s->running_tid, (int)pv_sys_gettid(), __ATOMIC_RELEASE);
	sample(s);
	/* As the kernel does for the clone(2) thread (CLONE_CHILD_CLEARTID). */
	__atomic_store_n(&s->running_tid, 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->running_tid, FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

/* Under ThreadSanitizer's runtime the thread must be one it knows: a pthread
 * (a raw clone crashes in ThreadSanitizer). The program's calloc then
 * serves its TLS, as the sanitizer's own allocator does anyway. */
extern void __tsan_init(void) __attribute__((weak));

/* A weak reference, bound at load: dlsym could call the program's malloc.
 * (AddressSanitizer needs no more than code built without it: this file.) */
static int sanitizer_present(void)
{
	return __tsan_init != NULL;
}

/* glibc's clone by its other name: profviz.so wraps clone for the
 * program's calls (wrap/interpose.c). */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

/* The clone(2) thread, every signal blocked on it (the mask is inherited),
 * so that the program's signals go to the program's threads. 0, or an
 * errno (for its memory, or the clone). */
static int spawn_clone(struct pv_sampler *s)
{
	char *memory = mmap(NULL, SAMPLER_MEMORY, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (memory == MAP_FAILED)
		return errno;
	mprotect(memory, 4096, PROT_NONE); /* a guard below its stack */
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	int tid = __clone(sample, memory + SAMPLER_STACK, flags, s, &s->running_tid,
			  thread_pointer(memory), &s->running_tid);
	int err = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (tid < 0) {
		munmap(memory, SAMPLER_MEMORY);
		return err;
	}
	if (sampler_memory) /* an earlier thread's, gone (pv_sampler_stop) */
		munmap(sampler_memory, SAMPLER_MEMORY);
	sampler_memory = memory;
	return 0;
}

static int start_thread(struct pv_sampler *s, char *why, size_t why_size)
{
	__atomic_store_n(&s->table, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stopping, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->running_tid, -1, __ATOMIC_RELAXED); /* the clone's tid, soon */
	int err = sanitizer_present() ? pv_own_thread_start(sample_as_pthread, s)
				      : spawn_clone(s);
	if (err) {
		snprintf(why, why_size, "no thread for the sampler: %s", strerror(err));
		return -1;
	}
	/* Whether it opens the rings, before any thread would open its own. */
	while (__atomic_load_n(&s->table, __ATOMIC_ACQUIRE) == 0)
		pv_futex_wait(&s->table, 0);
	s->started = 1;
	if (!s->began_ns) /* not again when it resumes */
		s->began_ns = pv_monotonic_ns();
	return 0;
}

int pv_sampler_stop(struct pv_sampler *s)
{
	if (!s->started)
		return 0;
	/* The switches end with the thread's table: their threads stop timing
	 * first (timedstart.h), lest a switch out lack its switch back in. */
	pv_lock_take_bare(s->lock);
	for (struct pv_thread *t = *s->live; t; t = t->next)
		__atomic_store_n(&t->pcring.switches_on, 0, __ATOMIC_RELEASE);
	pv_lock_give_bare(s->lock);
	__atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->newcomers, 1, __ATOMIC_RELEASE);
	pv_futex_wake(&s->newcomers, 1);
	/* The kernel clears the word, and wakes it (not privately), once the
	 * thread has left its memory: its stack may then be unmapped. */
	int gone = __atomic_load_n(&s->running_tid, __ATOMIC_ACQUIRE);
	for (int tid; (tid = __atomic_load_n(&s->running_tid, __ATOMIC_ACQUIRE)) != 0;) {
		struct timespec a_while = { 0, 10000000 };
		syscall(SYS_futex, &s->running_tid, FUTEX_WAIT, tid, &a_while, NULL, 0);
	}
	/* ... and the task leaves the thread group a moment later, which
	 * unshare looks at: until a signal cannot reach it (at most 1 s). */
	for (int i = 0; gone > 0 && i < 100000 &&
			syscall(SYS_tgkill, (int)getpid(), gone, 0) == 0; i++)
		sched_yield();
	s->started = 0;
	pv_lock_take_bare(s->lock);
	for (struct pv_thread *t = *s->live; t; t = t->next) {
		t->pcring.has_event_fd = 0; /* closed with its table */
		t->pcring.event_fd = -1;
		__atomic_store_n(&t->pcring.switches_on, 0, __ATOMIC_RELEASE);
		t->pcring.has_switch_fd = 0;
		t->pcring.switch_fd = -1;
	}
	s->fds_kept = s->n_ending = 0;
	pv_lock_give_bare(s->lock);
	return 1;
}

int pv_sampler_resume(struct pv_sampler *s, struct pv_thread *first, char *why,
		      size_t why_size)
{
	s->first = first;
	return start_thread(s, why, why_size);
}

int pv_sampler_start(struct pv_sampler *s, struct pv_lock *lock, struct pv_thread **live,
		     struct pv_hotpcs *hot, unsigned rate_hz, int rate_forced, uint64_t pc_period_ns,
		     struct pv_thread *first, char *why, size_t why_size)
{
	memset(s, 0, sizeof(*s));
	s->lock = lock;
	s->live = live;
	s->hot = hot;
	s->pc_period_ns = s->timed_period_ns = pc_period_ns;
	s->rate_forced = rate_forced;
	s->first = first;
	s->rate_hz = rate_hz ? rate_hz : 1;
	s->period_ns = 1000000000u / s->rate_hz;
	return start_thread(s, why, why_size);
}

void pv_sampler_thread_added(struct pv_sampler *s)
{
	if (pv_sampler_opens_rings(s) && !__atomic_exchange_n(&s->newcomers, 1, __ATOMIC_RELEASE))
		pv_futex_wake(&s->newcomers, 1);
}

int pv_sampler_restart_in_child(struct pv_sampler *s, struct pv_thread *first, char *why,
				size_t why_size)
{
	if (!s->started)
		return 0;
	s->first = first;
	memset(&s->account, 0, sizeof(s->account));
	s->started = 0;
	s->fds_kept = s->n_ending = 0; /* the parent's table's, not this one's */
	s->began_ns = 0;
	/* The parent's thread is not in this copy; its memory is. */
	if (sampler_memory)
		munmap(sampler_memory, SAMPLER_MEMORY);
	sampler_memory = NULL;
	return start_thread(s, why, why_size);
}
