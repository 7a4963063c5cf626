/* SPDX-License-Identifier: MIT */
/*
 * window.c — windows of the run: opened and written on a signal, on the
 * program's call, every PROFVIZ_INTERVAL seconds; the thread that serves
 * the signal; the open window at exit.
 */
#define _GNU_SOURCE
#include "runtime/window.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#include "profviz.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/window.h"
#include "output/config.h"
#include "runtime/dump.h"
#include "runtime/guard.h"
#include "runtime/lock.h"
#include "runtime/ownthread.h"
#include "runtime/process.h"
#include "runtime/runtime.h"

/* The windows' state, changed by one thread at a time (window_lock): the
 * serving thread, or a thread of the program through the API. */
static struct pv_lock window_lock = PV_LOCK_INITIALIZER;
static int open_now;          /* a window is open */
static int have_base;         /* base holds its start; else it started with the process */
static struct pv_snapshot base;
static uint64_t opened_ns;    /* when the open window opened */
static int written;           /* windows written so far: the next is written+1 */
static int in_use;            /* windows were configured or asked for */
static int closed;            /* the process is ending: no more windows */
static int forked_off;        /* a forked child: no windows */

/* What the signal's handler hands the serving thread: asks in a ring, each
 * stored + 1 so that a slot reserved but not yet written reads 0; an ask
 * that finds the ring full is dropped (and counted), never written over an
 * unread one. */
#define ASKS 16
static int asks[ASKS];
static unsigned asks_in, asks_out, asks_dropped;
static sem_t wake;
static int serving; /* the serving thread runs */

/* The PCs of now less those of then, each by its address; those left
 * with none dropped. then's are sorted here. */
static int by_pc(const void *x, const void *y)
{
	uintptr_t a = ((const struct pv_hotpc *)x)->pc, b = ((const struct pv_hotpc *)y)->pc;
	return (a > b) - (a < b);
}

static void pcs_since(struct pv_snapshot *now, struct pv_snapshot *then)
{
	qsort(then->pcs, then->n_pcs, sizeof(*then->pcs), by_pc);
	size_t kept = 0;
	for (size_t i = 0; i < now->n_pcs; i++) {
		struct pv_hotpc *p = &now->pcs[i];
		const struct pv_hotpc *b =
			then->n_pcs ? bsearch(p, then->pcs, then->n_pcs, sizeof(*p), by_pc) : NULL;
		if (b)
			p->samples = p->samples > b->samples ? p->samples - b->samples : 0;
		if (p->samples)
			now->pcs[kept++] = *p;
	}
	now->n_pcs = kept;
	struct pv_hotpcs_account *a = &now->pcs_read;
	const struct pv_hotpcs_account *t = &then->pcs_read;
	a->samples = a->samples > t->samples ? a->samples - t->samples : 0;
	a->own = a->own > t->own ? a->own - t->own : 0;
	a->unkept = a->unkept > t->unkept ? a->unkept - t->unkept : 0;
	a->lost = a->lost > t->lost ? a->lost - t->lost : 0;
}

/* A copy of s, to start the next window from while s is made a window. */
static int copy_snapshot(struct pv_snapshot *to, const struct pv_snapshot *s)
{
	*to = *s;
	pv_profile_init(&to->profile, s->profile.nev);
	pv_profile_add(&to->profile, &s->profile);
	to->profile.threads = s->profile.threads;
	to->pcs = malloc((s->n_pcs + 1) * sizeof(*to->pcs));
	if (!to->pcs) {
		pv_profile_clear(&to->profile);
		return -1;
	}
	memcpy(to->pcs, s->pcs, s->n_pcs * sizeof(*to->pcs));
	return 0;
}

/* A window's start from now: base, and when it opened. Under window_lock. */
static void start_from_now(void)
{
	struct pv_snapshot now;
	pv_snapshot_take(&now, 0);
	if (have_base)
		pv_snapshot_free(&base);
	base = now;
	have_base = 1;
	opened_ns = pv_monotonic_ns();
}

/* Write what ran since the last window's start (the process's, before the
 * first), and start the next from where it ends. 0, or -1 (a file not
 * written). Under window_lock. */
static int write_window(void)
{
	struct pv_snapshot now, following;
	pv_snapshot_take(&now, 0);
	uint64_t ended = pv_monotonic_ns(); /* the window's end, and the next's start */
	int follows = copy_snapshot(&following, &now) == 0;
	if (have_base) {
		pv_profile_since(&now.profile, &base.profile);
		pcs_since(&now, &base);
		pv_snapshot_free(&base);
	}
	double seconds = (double)(ended - opened_ns) * 1e-9;
	now.wall_seconds = seconds;
	/* The first number no file has: an image exec'd with this pid wrote
	 * windows of its own. */
	char name[512] = "";
	struct pv_output_tag tag = { .child_pid = pv_child_pid };
	do {
		tag.window_n = ++written;
		pv_output_path(&pv_config.outputs[0], pv_pid, tag, name, sizeof(name));
	} while (name[0] && access(name, F_OK) == 0 && written < 100000);
	int n = written;
	int status = pv_snapshot_write(&now, tag);
	pv_snapshot_free(&now);
	if (status == PV_NOTHING_WRITTEN)
		pv_log("window %d (%.1f s): nothing ran in it; nothing written", n, seconds);
	else if (status == 0)
		pv_log("window %d (%.1f s) written: %s%s", n, seconds, name,
		       pv_config.n_outputs > 1 ? " and the other outputs" : "");
	have_base = follows;
	if (follows)
		base = following;
	else
		pv_log("no memory to start the next window from: it holds the run since the start");
	opened_ns = ended;
	return status < 0 ? -1 : 0;
}

/* What was asked, under window_lock. 0, or -1. */
static int act(enum pv_window_ask ask)
{
	in_use = 1;
	if (ask == PV_WINDOW_TOGGLE)
		ask = open_now ? PV_WINDOW_CLOSE : PV_WINDOW_OPEN;
	if (ask == PV_WINDOW_TICK && !open_now)
		return 0;
	int writes = ask == PV_WINDOW_CLOSE || ask == PV_WINDOW_NEXT || ask == PV_WINDOW_TICK;
	/* Started paused, only an open window holds what is asked for: the
	 * rest is start-up, or the time between windows. */
	if (writes && pv_config.start_paused && !open_now) {
		pv_log("no window is open: nothing written");
		return -1;
	}
	switch (ask) {
	case PV_WINDOW_START:
		if (open_now)
			return 0;
		/* fall through */
	case PV_WINDOW_OPEN:
		start_from_now();
		open_now = 1;
		pv_log("window %d open", written + 1);
		return 0;
	case PV_WINDOW_CLOSE:
		open_now = 0;
		return write_window();
	default:
		return write_window();
	}
}

/* f(ask) on this thread: whatever the writers call of the program's runs
 * unrecorded, and no signal (a handler's longjmp) or cancellation leaves
 * window_lock held. */
static int with_window_lock(int (*f)(enum pv_window_ask), enum pv_window_ask ask)
{
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	struct pv_thread *was = pv_runtime_hooks_off();
	struct pv_guard g;
	pv_guard_enter(&g, pv_self);
	pv_lock_take(&window_lock);
	int status = closed ? -1 : f(ask);
	pv_lock_give(&window_lock);
	pv_guard_leave(&g);
	pv_runtime_hooks_back(was);
	pthread_setcancelstate(cancel, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return status;
}

static int do_ask(enum pv_window_ask ask)
{
	if (forked_off || !pv_runtime_should_dump())
		return -1;
	return with_window_lock(act, ask);
}

/* ---- the signal and the thread that serves it ---- */

void pv_window_on_signal(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)context;
	int saved = errno;
	int ask = PV_WINDOW_TOGGLE;
	if (info && info->si_code == SI_QUEUE && info->si_value.sival_int >= PV_WINDOW_TOGGLE &&
	    info->si_value.sival_int <= PV_WINDOW_START)
		ask = info->si_value.sival_int;
	unsigned in = __atomic_load_n(&asks_in, __ATOMIC_ACQUIRE);
	do {
		if (in - __atomic_load_n(&asks_out, __ATOMIC_ACQUIRE) >= ASKS) {
			__atomic_fetch_add(&asks_dropped, 1, __ATOMIC_RELAXED);
			errno = saved;
			return;
		}
	} while (!__atomic_compare_exchange_n(&asks_in, &in, in + 1, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	__atomic_store_n(&asks[in % ASKS], ask + 1, __ATOMIC_RELEASE);
	sem_post(&wake);
	errno = saved;
}

/* The next ask in the ring, or -1 when there is none (yet). */
static int next_ask(void)
{
	unsigned out = __atomic_load_n(&asks_out, __ATOMIC_RELAXED);
	int ask = __atomic_exchange_n(&asks[out % ASKS], 0, __ATOMIC_ACQ_REL);
	if (!ask)
		return -1;
	__atomic_store_n(&asks_out, out + 1, __ATOMIC_RELEASE);
	return ask - 1;
}

/* The serving thread: what the signal asks, and the interval's windows.
 * sem_clockwait, as sem_wait and sem_timedwait are the program's, whose
 * waits are recorded (wrap/blocking.c). */
static void *serve(void *unused)
{
	(void)unused;
	pv_runtime_hooks_off(); /* for good: a thread of the runtime's */
	unsigned every = pv_config.window_seconds;
	struct timespec tick;
	clock_gettime(CLOCK_MONOTONIC, &tick);
	tick.tv_sec += every;
	for (;;) {
		struct timespec until = tick;
		if (!every) {
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += 86400;
		}
		int rc;
		do
			rc = sem_clockwait(&wake, CLOCK_MONOTONIC, &until);
		while (rc != 0 && errno == EINTR);
		if (rc == 0) {
			int ask;
			while ((ask = next_ask()) >= 0)
				do_ask((enum pv_window_ask)ask);
			unsigned dropped = __atomic_exchange_n(&asks_dropped, 0, __ATOMIC_RELAXED);
			if (dropped)
				pv_log("PROFVIZ_SIGNAL: %u signal%s came faster than windows are written: "
				       "dropped", dropped, dropped == 1 ? "" : "s");
		} else if (every) { /* the interval's end: the open window, the next from here */
			do_ask(PV_WINDOW_TICK);
			/* A process stopped for a while has one window, not a burst. */
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			tick.tv_sec += every;
			if (tick.tv_sec <= now.tv_sec)
				tick.tv_sec = now.tv_sec + every;
		}
	}
	return NULL;
}

void pv_window_init(void)
{
	if (pv_config.disabled)
		return;
	in_use = pv_config.start_paused || pv_config.window_seconds || pv_config.window_signal;
	/* Windows every N seconds from the start, unless it is paused; a
	 * signal's first opens one. */
	open_now = pv_config.window_seconds && !pv_config.start_paused;
	opened_ns = pv_monotonic_ns();
	if (!pv_config.window_signal && !pv_config.window_seconds)
		return;
	sem_init(&wake, 0, 0);
}

void pv_window_start_thread(void)
{
	if ((!pv_config.window_signal && !pv_config.window_seconds) || pv_config.disabled ||
	    __atomic_exchange_n(&serving, 1, __ATOMIC_RELAXED))
		return;
	if (pv_own_thread_start(serve, NULL) != 0)
		pv_log("PROFVIZ_SIGNAL, PROFVIZ_INTERVAL: no thread to serve them: no windows");
}

int pv_window_takes(int sig)
{
	return sig == pv_config.window_signal && sig && !pv_config.disabled && !forked_off;
}

/* The last window, at the process's end; no more after it. */
static int last_window(enum pv_window_ask unused)
{
	(void)unused;
	/* A window open since the process began is the exit's own profile. */
	if (open_now && have_base)
		write_window();
	else if (pv_config.start_paused && !written)
		pv_log("started paused, and no window was opened: nothing written");
	open_now = 0;
	closed = 1;
	return 0;
}

int pv_window_at_exit(void)
{
	if (forked_off || !in_use)
		return 1;
	with_window_lock(last_window, PV_WINDOW_CLOSE);
	return !pv_config.start_paused;
}

void pv_window_forked(void)
{
	/* Forgotten, not freed: the forking thread may have been freeing it
	 * in the parent (the fork does not wait for window_lock). */
	forked_off = 1;
	memset(&base, 0, sizeof(base));
	have_base = 0;
}

PV_EXPORT int profviz_start(void)
{
	return do_ask(PV_WINDOW_START);
}

PV_EXPORT int profviz_stop(void)
{
	return do_ask(PV_WINDOW_CLOSE);
}

PV_EXPORT int profviz_reset(void)
{
	return do_ask(PV_WINDOW_OPEN);
}

PV_EXPORT int profviz_window(void)
{
	return do_ask(PV_WINDOW_NEXT);
}
