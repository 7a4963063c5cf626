/* SPDX-License-Identifier: MIT */
/*
 * runtime.c — the preloaded runtime's entry: the hooks, start-up, thread life,
 * fork. (Writing the profile is dump.c's, dlclose unload.c's.)
 *
 * The hooks do the common case inline (hooks.h) and leave the rest to slow
 * paths that mark the thread busy, so that anything they call which is itself
 * instrumented is ignored rather than recursed into.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profviz.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/sysraw.h"
#include "base/version.h"
#include "model/profile.h"
#include "output/config.h"
#include "runtime/calibrate.h"
#include "runtime/counters.h"
#include "runtime/cpusamples.h"
#include "runtime/events.h"
#include "runtime/fds.h"
#include "runtime/guard.h"
#include "runtime/handover.h"
#include "runtime/hooks.h"
#include "runtime/leftcpu.h"
#include "runtime/lock.h"
#include "runtime/process.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"
#include "runtime/sandbox.h"
#include "runtime/sigdefer.h"
#include "runtime/stderr.h"
#include "runtime/thread.h"
#include "runtime/window.h"
#include "runtime/wrap/wrap.h"

/* ---- process-wide state (process.h) ---- */

struct pv_config pv_config;
struct pv_event_set pv_events;
struct pv_profile pv_profile;
struct pv_thread *pv_live;
struct pv_lock pv_lock = PV_LOCK_INITIALIZER;
static pthread_key_t pv_thread_key;
static pthread_once_t pv_once = PTHREAD_ONCE_INIT;
static pthread_once_t pv_calibration_once = PTHREAD_ONCE_INIT;
static pthread_once_t pv_sampler_once = PTHREAD_ONCE_INIT;
static pthread_once_t pv_announce_once = PTHREAD_ONCE_INIT;
int pv_ready;
int pv_pid;
int pv_child_pid;
int pv_dumped;
struct pv_unloaded *pv_unloaded;
struct pv_overhead pv_overhead;
char pv_program[4096];
int pv_time_sampled;
struct pv_sampler pv_sampler;
struct pv_hotpcs pv_hotpcs;

/* A thread's CPU time and its PCs for hot lines are sampled every period
 * of its CPU (cpusamples.h): PROFVIZ_RATE a second. Each sample costs an
 * interrupt in the thread it samples: at 1 ms that is up to 3 % of its CPU
 * on a VM, a tenth of that on bare metal (make bench-hotlines). */
static uint64_t ring_period_ns(void)
{
	return 1000000000u / (pv_config.rate_hz ? pv_config.rate_hz : 1000);
}

/* t's ring, on t itself; a refusal said once. */
static void open_pcring(struct pv_thread *t)
{
	int err = pv_pcring_open(&t->pcring, ring_period_ns(),
				 pv_pcring_pages(ring_period_ns(), PV_RING_HOLDS_NS));
	if (err < 0) {
		pv_hotpcs_refused(&pv_hotpcs, err);
		pv_hotpcs_say_refusal(&pv_hotpcs);
		return;
	}
	pv_hotpcs_opened(&pv_hotpcs, &t->pcring);
	pv_cpusamples_attach(t, pv_hotpcs.own_lo, pv_hotpcs.own_hi);
}

/* A thread no ring will come for (every one so far was refused: perf_event_open
 * is not allowed here) has its first CPU timed at its hooks instead
 * (timedstart.h), and the sampler tries none for it. */
static void time_without_ring(struct pv_thread *t)
{
	if (!pv_time_sampled || !pv_sampler_was_started(&pv_sampler) || t->pcring.map)
		return;
	if (!t->pcring.refused && !pv_hotpcs_all_refused(&pv_hotpcs))
		return; /* its ring is the sampler's to open */
	t->pcring.refused = 1;
	pv_cpusamples_time_without_ring(t);
}

/* Threads start here: the first hook of each thread sets it up. */
static struct pv_thread pv_unborn = { .mode = PV_MODE_UNBORN };
/* While it is being set up (shared by all threads: never written). */
static struct pv_thread pv_starting = { .mode = PV_MODE_BUSY };
/* And end here: no hook records anything after the thread's data is handed over. */
static struct pv_thread pv_gone = { .mode = PV_MODE_OFF };
/* Threads a raw clone shared before their first hook (the dump counts them
 * with the shared threads). */
static uint64_t pv_shared_unborn;

void pv_runtime_tls_shared(struct pv_tls_share *share)
{
	share->self = pv_self;
	share->mode = -1;
	if (pv_self == &pv_unborn) {
		pv_self = &pv_gone;
		__atomic_add_fetch(&pv_shared_unborn, 1, __ATOMIC_RELAXED);
		return;
	}
	share->mode = pv_thread_shares_tls(pv_self);
}

void pv_runtime_tls_unshared(const struct pv_tls_share *share)
{
	if (share->self == &pv_unborn) {
		pv_self = &pv_unborn;
		__atomic_sub_fetch(&pv_shared_unborn, 1, __ATOMIC_RELAXED);
		return;
	}
	pv_thread_unshares_tls(share->self, share->mode);
}

uint64_t pv_runtime_shared_unborn(void)
{
	return __atomic_load_n(&pv_shared_unborn, __ATOMIC_RELAXED);
}

struct pv_thread *pv_runtime_hooks_off(void)
{
	struct pv_thread *was = pv_self;
	if (!pv_thread_has_state(was))
		pv_self = &pv_gone;
	return was;
}

void pv_runtime_hooks_back(struct pv_thread *was)
{
	pv_self = was;
}

PV_HIDDEN __thread struct pv_thread *pv_self __attribute__((tls_model("initial-exec"))) =
	&pv_unborn;

void pv_process_lock(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	pv_lock_take(&pv_lock);
}

void pv_process_unlock(const sigset_t *saved)
{
	pv_lock_give(&pv_lock);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* ---- the hooks ---- */

static void pv_enter_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);

/* No event read per call (time is sampled): the exported hooks' own
 * straight line (hooks.h), every branch off it a tail call. */
static PV_NOINLINE void pv_enter_count_indexed(void *fn, uintptr_t site, uintptr_t sp,
					       struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, 0, pv_read_none, pv_enter_slow);
}

/* The TSC as the only event (PROFVIZ_TIME=hooks): the same, one rdtsc each. */
static PV_NOINLINE void pv_enter_clock_indexed(void *fn, uintptr_t site, uintptr_t sp,
					       struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, 1, pv_read_clock, pv_enter_slow);
}

/* Any other events, read through the counter backends (whose reads cost far
 * more than a call): the same hooks with the thread's event count. */
static void pv_enter_generic_indexed(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, t->nev, pv_read_counters, pv_enter_slow);
}

/* Any other mode: events read through the counter backends, or a thread
 * not profiled (PROFVIZ_DISABLE=1, or after its data was handed over),
 * which returns first thing: a disabled run should cost little more than
 * glibc's no-op hooks. */
static PV_NOINLINE void pv_enter_generic_mode(void *fn, uintptr_t site, uintptr_t sp,
					      struct pv_thread *t)
{
	if (t->mode == PV_MODE_OFF)
		return;
	pv_hook_enter(t, fn, site, sp, PV_MODE_GENERIC, t->nev, pv_read_counters,
		      pv_enter_generic_indexed, pv_enter_slow);
}

static PV_NOINLINE void pv_exit_generic_mode(void *fn, uintptr_t site, uintptr_t sp,
					     struct pv_thread *t)
{
	if (t->mode == PV_MODE_OFF)
		return;
	pv_hook_exit(t, fn, site, sp, PV_MODE_GENERIC, t->nev, pv_read_counters,
		     pv_thread_exit_slow);
}

/* Off the count-only straight line: the TSC's (PROFVIZ_TIME=hooks), a
 * straight line of its own, whose branches are tail calls again. */
static PV_NOINLINE void pv_enter_clock_mode(void *fn, uintptr_t site, uintptr_t sp,
					    struct pv_thread *t)
{
	pv_hook_enter(t, fn, site, sp, PV_MODE_CLOCK, 1, pv_read_clock, pv_enter_clock_indexed,
		      pv_enter_generic_mode);
}

static PV_NOINLINE void pv_exit_clock_mode(void *fn, uintptr_t site, uintptr_t sp,
					   struct pv_thread *t)
{
	pv_hook_exit(t, fn, site, sp, PV_MODE_CLOCK, 1, pv_read_clock, pv_exit_generic_mode);
}

PV_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	pv_hook_enter(pv_self, fn, (uintptr_t)call_site, pv_arch_stack_pointer(), PV_MODE_COUNT,
		      0, pv_read_none, pv_enter_count_indexed, pv_enter_clock_mode);
}

PV_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	pv_hook_exit(pv_self, fn, (uintptr_t)call_site, pv_arch_stack_pointer(), PV_MODE_COUNT,
		     0, pv_read_none, pv_exit_clock_mode);
}

/* ---- threads ---- */

static void pv_init(void);
static void thread_end(void *arg);

/* No event: the count-only hooks; the inlined TSC path serves the
 * single-event TSC case; all else reads through the counter backends. */
/* The clock line (NULL: the TSC alone) is time read by the hooks, with no
 * sampler: its hooks need not look for a charge owed (hooks.h). The TSC
 * named beside sampled time goes through the counters. */
static pv_read_fn *thread_reader(void)
{
	if (pv_events.n == 0 ||
	    (!pv_time_sampled && pv_events.n == 1 && pv_event_is_tsc(&pv_events.ev[0])))
		return NULL;
	return pv_read_counters;
}

static int open_counters(struct pv_thread *t)
{
	int err = pv_counters_open(&t->counters, &pv_events);
	if (err < 0) {
		static int reported;
		char where[160] = "";
		if (err == -EMFILE) {
			strcpy(where, "; profviz's descriptors take ");
			pv_fds_describe(where + strlen(where), sizeof(where) - strlen(where));
		}
		if (err == -ECANCELED)
			strcpy(where, PV_SANDBOX_REFUSAL);
		if (!__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
			pv_log("cannot open the events of thread %d (%s%s): it is not profiled "
			       "(reported once)", (int)pv_sys_gettid(),
			       err == -ECANCELED ? "" : strerror(-err), where);
	}
	return err;
}

static void calibrate(void);
static unsigned live_thread_count(void);

/* On the first instrumented call of the process: what start-up had to say
 * (the notice, a bad setting), and progress lines from now on. A process
 * that runs no instrumented code (a shell, timeout, time) says nothing. */
static void announce(void)
{
	pv_stderr_speak();
	if (!pv_config.disabled && pv_progress_start(pv_config.progress, live_thread_count) < 0)
		pv_log("PROFVIZ_PROGRESS: no thread for it: no progress lines");
	pv_window_start_thread();
}

/* The thread whose first call starts the sampler, whose ring it opens. */
static struct pv_thread *sampler_first;

/* On the first instrumented call of the process, like the calibration. */
static void start_sampler(void)
{
	char why[160];
	uintptr_t lo = 0, hi = 0;
	pv_hotpcs_own_text(&lo, &hi);
	pv_hotpcs_init(&pv_hotpcs, lo, hi);
	if (pv_sampler_start(&pv_sampler, &pv_lock, &pv_live, &pv_hotpcs, pv_config.rate_hz,
			     pv_config.rate_forced, ring_period_ns(), sampler_first, why,
			     sizeof(why)) < 0)
		pv_log("%s: times are not sampled", why);
}

/* What the per-thread summary reads later: this thread's CPU clock, and now. */
static void note_thread_clocks(struct pv_thread *t)
{
	t->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &t->cpu_clock) == 0;
	t->began_ns = pv_monotonic_ns();
	t->began_cpu_ns = t->has_cpu_clock ? pv_sys_clock_ns(t->cpu_clock) : 0;
}

/* The thread's state; &pv_gone when it is not to be profiled, &pv_unborn
 * when it cannot be set up now. keyed: its end hands it over (the key's
 * destructor); else whoever made it does (a handler's, after the thread's
 * end). */
static struct pv_thread *thread_setup(int keyed)
{
	pthread_once(&pv_once, pv_init);
	pthread_once(&pv_announce_once, announce);
	if (pv_config.disabled)
		return &pv_gone;
	/* From the opening of its events to its place on the live list, where
	 * the close wrappers look for them, the program closes nothing (fds.h). */
	sigset_t fds_mask;
	if (!pv_fds_runtime_begins(1, &fds_mask))
		return &pv_unborn; /* a handler inside the program's close: its next hook */
	/* On the first instrumented call of the process, not at start-up: a
	 * shell or make that inherits LD_PRELOAD and runs no instrumented code
	 * pays nothing for it. */
	if (pv_config.compensate && pv_events.n)
		pthread_once(&pv_calibration_once, calibrate);
	/* Not malloc: the program's allocator may be instrumented, or not re-entrant here. */
	struct pv_thread *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		pv_fds_runtime_ends(&fds_mask);
		return &pv_gone;
	}
	if (open_counters(t) < 0 || pv_thread_init(t, pv_events.n, thread_reader()) < 0) {
		pv_counters_close(&t->counters);
		pv_fds_runtime_ends(&fds_mask);
		munmap(t, sizeof(*t));
		return &pv_gone;
	}
	t->tid = pv_sys_gettid();
	t->pid = pv_pid;
	t->inlined_as_frames = pv_config.inlined_as_frames;
	note_thread_clocks(t);
	if (pv_time_sampled) {
		sampler_first = t; /* its ring opened as the sampler starts */
		pthread_once(&pv_sampler_once, start_sampler);
	}
	pv_sampler_thread_begins(t);
	if (pv_time_sampled && !pv_sampler_opens_rings(&pv_sampler))
		open_pcring(t); /* else the sampler opens it, aside */
	time_without_ring(t); /* before the sampler can try a ring */
	sigset_t saved;
	pv_process_lock(&saved);
	t->next = pv_live;
	if (pv_live)
		pv_live->prev = t;
	pv_live = t;
	pv_process_unlock(&saved);
	pv_fds_runtime_ends(&fds_mask);
	if (pv_time_sampled)
		pv_sampler_thread_added(&pv_sampler);
	if (keyed)
		pthread_setspecific(pv_thread_key, t);
	return t;
}

/* A thread's first hook. Until its state is ready, the thread's hooks find
 * it busy: start-up may run the program's own instrumented code (its malloc,
 * under fopen), which must not start the thread a second time. */
static struct pv_thread *thread_start(int keyed)
{
	struct pv_guard g;
	pv_guard_enter(&g, &pv_starting); /* errno only: there is no state yet */
	pv_sigdefer_hold(); /* a handler landing meanwhile runs once t is ready */
	pv_self = &pv_starting;
	struct pv_thread *t = thread_setup(keyed);
	pv_self = t;
	pv_guard_leave(&g);
	pv_sigdefer_release();
	return t;
}

static void unlink_live(struct pv_thread *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		pv_live = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->next = t->prev = NULL;
}

/* The key destructor rounds this thread has seen. */
static __thread unsigned pv_key_rounds __attribute__((tls_model("initial-exec")));

/* Hand t's data over and take it down: the thread profiles no more. */
static void thread_retire(struct pv_thread *t)
{
	struct pv_guard g;
	pv_guard_enter(&g, t);
	pv_sigdefer_hold(); /* a handler landing before the lock: after the end */
	/* Signals stay blocked until t is gone; its frames are closed under
	 * the lock, so never at once with the exit snapshot's closing them. */
	sigset_t saved;
	pv_process_lock(&saved);
	pv_thread_close_all(t);
	pv_thread_hand_over(&pv_profile, t);
	pv_cpusamples_detach(t);
	pv_sampler_ring_ends(&pv_sampler, &t->pcring);
	pv_hotpcs_close_ring(&pv_hotpcs, &t->pcring);
	unlink_live(t);
	pv_lock_give(&pv_lock);
	sigset_t fds_mask;
	int excluded = pv_fds_runtime_begins(1, &fds_mask);
	pv_counters_close(&t->counters);
	if (excluded)
		pv_fds_runtime_ends(&fds_mask);
	pv_thread_release(t);
	pv_self = &pv_gone;
	munmap(t, sizeof(*t));
	g.t = &pv_gone; /* t is unmapped: nothing to restore but errno */
	pv_guard_leave(&g);
	pv_sigdefer_release(); /* sent now, delivered as the mask comes back */
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* pthread key destructor: the thread is ending, hand its data over. Our key
 * is the process's first, so its destructor runs first in every round; the
 * program's own destructors may run instrumented code after it. Set again,
 * it is called again in the next round: the data goes over in the one
 * before glibc's last, which is left to runtimes that use the same device
 * to end threads last (a sanitizer's, whose key comes before ours). */
static void thread_end(void *arg)
{
	if (++pv_key_rounds < PTHREAD_DESTRUCTOR_ITERATIONS - 1 &&
	    pthread_setspecific(pv_thread_key, arg) == 0)
		return;
	thread_retire(arg);
}

struct pv_thread *pv_runtime_handler_state(int *temporary)
{
	*temporary = 0;
	if (pv_self != &pv_gone || !pv_runtime_should_dump())
		return pv_self;
	/* Past its end: glibc has run its key destructors, or is running the
	 * last of them, so the handler's caller hands this one over. */
	struct pv_thread *t = thread_start(0);
	*temporary = pv_thread_has_state(t);
	return t;
}

void pv_runtime_handler_state_done(struct pv_thread *t)
{
	if (pv_self == t && pv_thread_has_state(t))
		thread_retire(t);
}

/* Everything the inlined paths do not do: a thread's first hook, then
 * thread.c's slow halves (new call paths, frames left by a longjmp, a full
 * stack, unmatched exits). */
static void pv_enter_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	if (t->mode == PV_MODE_UNBORN)
		t = thread_start(1);
	else if (t->mode == PV_MODE_BUSY)
		pv_sigdefer_note_call(t); /* a handler's, unrecorded? */
	pv_thread_enter_slow(fn, site, sp, t);
}

int pv_runtime_sampled(void)
{
	return pv_time_sampled;
}

/* One call that changes the threads' credentials at a time: a second one
 * would otherwise find the sampler's thread the first started again. Held
 * with every signal blocked, only around the stop, the call and the start. */
static struct pv_lock pv_sampler_gate = PV_LOCK_INITIALIZER;
static unsigned pv_sampler_held_off; /* listings of the tasks open (under the gate) */

/* The sampler's thread is this process's (not a vfork child's, which
 * borrows its parent's memory, the sampler's state included)? */
static int sampler_here(void)
{
	return pv_time_sampled && getpid() == pv_pid;
}

void pv_runtime_sampler_pause(sigset_t *saved, int held_off)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	pv_lock_take(&pv_sampler_gate);
	if (sampler_here())
		pv_sampler_stop(&pv_sampler);
	pv_sampler_held_off += held_off;
}

void pv_runtime_sampler_resume(const sigset_t *saved, int held_off)
{
	pv_sampler_held_off -= held_off;
	char why[160];
	struct pv_thread *self = pv_thread_has_state(pv_self) ? pv_self : NULL;
	if (sampler_here() && !pv_sampler_held_off && pv_sampler_was_started(&pv_sampler) &&
	    !pv_sampler.started && pv_sampler_resume(&pv_sampler, self, why, sizeof(why)) < 0)
		pv_log("%s: times are not sampled from here on", why);
	pv_lock_give(&pv_sampler_gate);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

void pv_runtime_sampler_let_go(const sigset_t *saved)
{
	pv_lock_give(&pv_sampler_gate);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* ---- fork ---- */

/* The forking thread's signal mask, while pv_lock is held across fork. */
static sigset_t fork_saved_mask;

static void fork_prepare(void)
{
	sigset_t saved;
	pv_process_lock(&saved);
	fork_saved_mask = saved;
}

static void fork_parent(void)
{
	sigset_t saved = fork_saved_mask;
	pv_process_unlock(&saved);
}

/* Only the forking thread exists in the child: it starts a profile of its own. */
static void fork_child_profile(void);

static void fork_child(void)
{
	pv_lock_give(&pv_lock); /* this thread took it before the fork */
	pv_stderr_forked();
	fork_child_profile();
	pthread_sigmask(SIG_SETMASK, &fork_saved_mask, NULL);
}

static void fork_child_profile(void)
{
	struct pv_thread *self = pv_self;
	pv_pid = pv_child_pid = getpid();
	pv_dumped = 0;
	pv_window_forked();
	if (pv_config.window_signal)
		pv_wrap_give_back_signal(pv_config.window_signal);
	pv_profile_clear(&pv_profile);
	pv_hotpcs_clear(&pv_hotpcs);
	pv_sigdefer_forget_lost();
	struct pv_thread *t = pv_live;
	while (t) {
		struct pv_thread *next = t->next;
		pv_cpusamples_detach(t);
		pv_pcring_forget(&t->pcring); /* the parent's: not mapped here */
		if (t != self) {
			pv_counters_close(&t->counters);
			pv_thread_release(t);
			munmap(t, sizeof(*t));
		}
		t = next;
	}
	pv_live = NULL;
	int has_state = self->mode <= PV_MODE_BUSY; /* not a sentinel */
	if (has_state)
		pv_counters_close(&self->counters); /* the parent's: they count the parent */
	if (!pv_config.children || (has_state && open_counters(self) < 0)) {
		if (has_state) {
			pv_thread_release(self);
			munmap(self, sizeof(*self));
		}
		pv_self = &pv_gone;
		pv_config.disabled = 1;
		return;
	}
	pv_counters_mark_start();
	if (!has_state)
		return; /* its first hook sets it up */
	self->next = self->prev = NULL;
	pv_live = self;
	self->tid = pv_sys_gettid();
	self->pid = pv_pid;
	self->name[0] = '\0'; /* the child's, read at its hand-over */
	note_thread_clocks(self); /* the parent's thread clock is not this one's */
	pv_sampler_thread_begins(self);
	self->blocked_ns = 0;
	pv_thread_restart(self);
	/* The parent's sampler thread is not in this copy: the child's own. */
	char why[160];
	if (pv_sampler_restart_in_child(&pv_sampler, self, why, sizeof(why)) < 0)
		pv_log("%s: the child's times are not sampled", why);
	if (pv_time_sampled && !pv_sampler_opens_rings(&pv_sampler))
		open_pcring(self);
	sigset_t saved; /* the child's sampler looks at it already */
	pv_process_lock(&saved);
	time_without_ring(self);
	pv_process_unlock(&saved);
}

void pv_runtime_fds_taken(unsigned first, unsigned last)
{
	if (last >= PV_FDS_MAX)
		last = PV_FDS_MAX - 1;
	for (unsigned fd = first; fd <= last; fd++) {
		if (!pv_fd_is_ours((int)fd))
			continue;
		sigset_t saved;
		pv_process_lock(&saved);
		for (struct pv_thread *t = pv_live; t; t = t->next)
			pv_counters_forget_fd(&t->counters, (int)fd);
		pv_process_unlock(&saved);
		pv_fd_release((int)fd); /* even if no thread had it any more */
	}
}

/* ---- start-up ---- */

/* Stands in for glibc's no-op hooks if they cannot be found. */
static PV_NOINLINE void noop_hook(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	__asm__ volatile("");
}

/* What the hooks cost per call, with the run's events, measured by driving
 * the shipped hooks on a thread state of the calibration's own. */
static void calibrate(void)
{
	static struct pv_thread cal;
	memset(&cal, 0, sizeof(cal));
	/* Its events are on no live thread: the program closes nothing until
	 * they are closed (fds.h). */
	sigset_t fds_mask;
	if (!pv_fds_runtime_begins(1, &fds_mask))
		return;
	if (pv_counters_open(&cal.counters, &pv_events) < 0) {
		pv_fds_runtime_ends(&fds_mask);
		return;
	}
	if (pv_thread_init(&cal, pv_events.n, thread_reader()) == 0) {
		pv_hook_fn *noop_enter = (pv_hook_fn *)dlsym(RTLD_NEXT, "__cyg_profile_func_enter");
		pv_hook_fn *noop_exit = (pv_hook_fn *)dlsym(RTLD_NEXT, "__cyg_profile_func_exit");
		struct pv_hooks hooks = {
			.enter = __cyg_profile_func_enter,
			.exit = __cyg_profile_func_exit,
			.noop_enter = noop_enter ? noop_enter : noop_hook,
			.noop_exit = noop_exit ? noop_exit : noop_hook,
			.self = &pv_self,
		};
		/* Fewer calls when each hook makes a system call. */
		unsigned calls = thread_reader() ? 200 : 2000;
		if (pv_calibrate(&cal, &hooks, calls, &pv_overhead) < 0)
			pv_log("cannot measure the hooks' own cost: it is not compensated");
		pv_thread_release(&cal);
	}
	pv_counters_close(&cal.counters);
	pv_fds_runtime_ends(&fds_mask);
}

/* For the progress line (on the timer's own thread): under the lock, since
 * an ending thread's state is unmapped once it is off the list. */
static unsigned live_thread_count(void)
{
	unsigned n = 0;
	sigset_t saved;
	pv_process_lock(&saved);
	for (struct pv_thread *t = pv_live; t; t = t->next)
		n++;
	pv_process_unlock(&saved);
	return n;
}

/* An output directory that cannot be written is said now, not after the
 * whole run; the exit still tries (it may have been made writable since). */
static void check_output_dirs(void)
{
	for (unsigned i = 0; i < pv_config.n_outputs; i++) {
		char path[PATH_MAX];
		struct pv_output_tag tag = { 0 };
		if (pv_output_path(&pv_config.outputs[i], pv_pid, tag, path, sizeof(path)) < 0)
			continue;
		char *slash = strrchr(path, '/');
		if (!slash)
			continue;
		*slash = '\0';
		const char *dir = path[0] ? path : "/";
		if (access(dir, W_OK | X_OK) != 0)
			pv_log("cannot write %s into %s: %s (checked at start-up; tried again at exit)",
			       pv_config.outputs[i].given, dir, strerror(errno));
	}
}

/* Are events read per call through perf descriptors (one per event and
 * thread)? The TSC needs none. */
static int events_take_descriptors(void)
{
	for (unsigned i = 0; i < pv_events.n; i++)
		if (!pv_event_is_tsc(&pv_events.ev[i]))
			return 1;
	return 0;
}

static const char *env(const char *name)
{
	return getenv(name);
}

static void pv_init(void)
{
	int saved_errno = errno;
	pv_wrap_init();
	pv_sandbox_note_start();
	pv_stderr_init();
	pv_fds_init();
	pv_config_load(&pv_config, env, getauxval(AT_SECURE) != 0);
	pv_config_check_names(environ);
	pv_debug_level = (int)pv_config.debug;
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)))
		pv_config_anchor_outputs(&pv_config, cwd);
	ssize_t n = readlink("/proc/self/exe", pv_program, sizeof(pv_program) - 1);
	pv_program[n > 0 ? n : 0] = '\0';
	/* Time is sampled unless PROFVIZ_TIME=hooks; the hooks then read only
	 * the events named (none by default: they count calls). */
	pv_time_sampled = !pv_config.time_from_hooks;
	if (pv_time_sampled)
		pv_leftcpu_init(); /* a thread with no ring times its first CPU by it */
	int defaulted = !pv_config.events[0] ||
			!pv_events_parse(pv_config.events, PV_SYSFS_ROOT, &pv_events);
	if (defaulted && !pv_time_sampled)
		pv_events_parse("cycles", PV_SYSFS_ROOT, &pv_events);
	char summary[512] = "";
	if (pv_time_sampled && pv_config.rate_forced)
		snprintf(summary, sizeof(summary), "time sampled at %u Hz", pv_config.rate_hz);
	else if (pv_time_sampled) /* at the rate a sample's cost allows (samplecost.h) */
		snprintf(summary, sizeof(summary), "time sampled");
	if (!pv_time_sampled || !defaulted) {
		sigset_t fds_mask; /* it opens each event once, and closes it */
		int excluded = pv_fds_runtime_begins(1, &fds_mask);
		size_t used = strlen(summary);
		if (used)
			used += (size_t)snprintf(summary + used, sizeof(summary) - used, "; per call: ");
		pv_counters_select(&pv_events, defaulted, pv_time_sampled, summary + used,
				   (unsigned)(sizeof(summary) - used));
		if (excluded)
			pv_fds_runtime_ends(&fds_mask);
	}
	pv_profile_init(&pv_profile, pv_profile_events());
	pv_pid = getpid();
	pthread_key_create(&pv_thread_key, thread_end);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (!pv_config.disabled) {
		at_quick_exit(pv_runtime_at_quick_exit);
		pv_wrap_catch_fatal_signals();
		pv_window_init();
		/* Its signal's handler replaces the fatal one. */
		if (pv_config.window_signal &&
		    pv_wrap_take_signal(pv_config.window_signal, pv_window_on_signal) != 0)
			pv_log("PROFVIZ_SIGNAL: cannot handle signal %d: %s", pv_config.window_signal,
			       strerror(errno));
	}
	pv_counters_mark_start();
	if (pv_config.disabled) {
		if (!pv_config.quiet)
			pv_log("disabled by PROFVIZ_DISABLE=1");
	} else if (!pv_config.quiet) {
		char files[1024] = "";
		for (unsigned i = 0; i < pv_config.n_outputs; i++) {
			/* As the user named them, %p and %h expanded as they will be. */
			char name[512];
			if (pv_expand_path(pv_config.outputs[i].given, pv_pid, name, sizeof(name)) < 0)
				snprintf(name, sizeof(name), "%s", pv_config.outputs[i].given);
			snprintf(files + strlen(files), sizeof(files) - strlen(files), "%s%s",
				 i ? ", " : "", name);
		}
		/* A low limit shared with the program: say what profviz takes of it
		 * (its events read per call; sampled time takes none). */
		char fds[160] = "";
		if (pv_config.start_paused) { /* its windows alone: prof.w1.json, ... */
			size_t used = strlen(files);
			snprintf(files + used, sizeof(files) - used, "%s",
				 "'s windows alone (started paused)");
		}
		if (events_take_descriptors() && pv_fds_describe(fds, sizeof(fds)) &&
		    getdtablesize() <= 4096)
			pv_log("%s; writing %s; its descriptors (one per event and thread) take %s; "
			       "version %s", summary, files, fds, pv_version);
		else
			pv_log("%s; writing %s; version %s", summary, files, pv_version);
	}
	if (!pv_config.disabled)
		check_output_dirs();
	pv_debug(1, "pid %d, %s: %u events, debug level %d", pv_pid, pv_program, pv_events.n,
		 pv_debug_level);
	pv_ready = 1;
	errno = saved_errno;
}

__attribute__((constructor)) static void pv_ctor(void)
{
	/* As in thread_start: hooks that start-up triggers are ignored. */
	int unborn = pv_self == &pv_unborn;
	if (unborn)
		pv_self = &pv_starting;
	pthread_once(&pv_once, pv_init);
	if (unborn && pv_self == &pv_starting)
		pv_self = &pv_unborn;
}
