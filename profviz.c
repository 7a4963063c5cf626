/*
 * profviz.c — the preloaded runtime: the hooks, start-up and exit, thread life.
 *
 * The hooks do the common case inline (shadow.h) and leave the rest to slow
 * paths that mark the thread busy, so that anything they call which is itself
 * instrumented is ignored rather than recursed into.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profviz.h"
#include "compiler.h"
#include "config.h"
#include "counters.h"
#include "events.h"
#include "fds.h"
#include "log.h"
#include "output.h"
#include "profile.h"
#include "report.h"
#include "runtime.h"
#include "shadow.h"
#include "symbols.h"
#include "thread.h"

/* ---- process-wide state (guarded by pv_lock once hooks run) ---- */

static struct pv_config pv_config;
static struct pv_event_set pv_events;
static struct pv_profile pv_profile; /* threads that have ended */
static struct pv_thread *pv_live;    /* threads still running */
static pthread_mutex_t pv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t pv_thread_key;
static pthread_once_t pv_once = PTHREAD_ONCE_INIT;
static int pv_ready;       /* start-up finished */
static int pv_pid;         /* this process: differs from getpid() in a vfork child */
static int pv_child_pid;   /* non-zero in a forked child: its files get .PID */
static int pv_dumped;      /* the exit dump ran */
static struct pv_unloaded *pv_unloaded; /* dlclose'd objects, for their names */
static uint64_t pv_clock_start, pv_mono_start; /* TSC calibration */
static char pv_program[4096];

/* Threads start here: the first hook of each thread sets it up. */
static struct pv_thread pv_unborn = { .mode = PV_MODE_UNBORN };
/* And end here: no hook records anything after the thread's data is handed over. */
static struct pv_thread pv_gone = { .mode = PV_MODE_OFF };

PV_HIDDEN __thread struct pv_thread *pv_self __attribute__((tls_model("initial-exec"))) =
	&pv_unborn;

/* ---- the hooks ---- */

static PV_NOINLINE __attribute__((cold)) void pv_enter_slow(struct pv_thread *t, void *fn,
							     uintptr_t sp);
static PV_NOINLINE __attribute__((cold)) void pv_exit_slow(struct pv_thread *t, void *fn);

/* The clock path when the caller's last callee was another function: every
 * branch off the hooks' straight line is a tail call, so the line itself
 * needs no saved registers. */
static PV_NOINLINE void pv_enter_other_callee(struct pv_thread *t, void *fn, uintptr_t sp)
{
	struct pv_node *c = pv_cct_find(&t->cct, t->top->node, fn);
	if (likely(c))
		pv_push(t, t->top, c, sp, 1, pv_read_clock);
	else
		pv_enter_slow(t, fn, sp);
}

PV_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	struct pv_thread *t = pv_self;
	uintptr_t sp = pv_arch_stack_pointer();
	if (likely(t->mode == PV_MODE_CLOCK)) {
		struct pv_frame *f = t->top;
		if (likely(pv_can_push_above(t, f, sp))) {
			struct pv_node *c = f->node->cache[pv_child_slot(fn)];
			if (likely(c->fn == fn)) {
				pv_push(t, f, c, sp, 1, pv_read_clock);
				return;
			}
			pv_enter_other_callee(t, fn, sp);
			return;
		}
	}
	pv_enter_slow(t, fn, sp);
}

PV_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	struct pv_thread *t = pv_self;
	if (likely(t->mode == PV_MODE_CLOCK) && likely(pv_try_exit(t, fn, 1, pv_read_clock)))
		return;
	pv_exit_slow(t, fn);
}

/* ---- threads ---- */

static void pv_init(void);
static void thread_end(void *arg);

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The inlined TSC path serves the single-event TSC case; all else reads
 * through the counter backends. */
static pv_read_fn *thread_reader(void)
{
	return pv_events.n == 1 && pv_events.ev[0].is_tsc ? NULL : pv_counters_read;
}

static int open_counters(struct pv_thread *t)
{
	int err = pv_counters_open(&t->counters, &pv_events);
	if (err < 0) {
		static int reported;
		if (!__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
			pv_log("cannot open the events of thread %d (%s): it is not profiled "
			       "(reported once)", (int)gettid_raw(), strerror(-err));
	}
	return err;
}

static struct pv_thread *thread_start(void)
{
	pthread_once(&pv_once, pv_init);
	if (pv_config.disabled) {
		pv_self = &pv_gone;
		return NULL;
	}
	/* Not malloc: the program's allocator may be instrumented, or not re-entrant here. */
	struct pv_thread *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		pv_self = &pv_gone;
		return NULL;
	}
	t->mode = PV_MODE_BUSY;
	pv_self = t;
	if (open_counters(t) < 0 || pv_thread_init(t, pv_events.n, thread_reader()) < 0) {
		pv_counters_close(&t->counters);
		munmap(t, sizeof(*t));
		pv_self = &pv_gone;
		return NULL;
	}
	t->tid = gettid_raw();
	pthread_mutex_lock(&pv_lock);
	t->next = pv_live;
	if (pv_live)
		pv_live->prev = t;
	pv_live = t;
	pthread_mutex_unlock(&pv_lock);
	pthread_setspecific(pv_thread_key, t);
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

static void merge_thread(struct pv_profile *p, struct pv_thread *t)
{
	pv_profile_merge(p, &t->cct);
	p->stray_exits += t->stray_exits;
	p->resyncs += t->resyncs;
	for (unsigned i = 0; i < t->nev; i++) {
		p->enabled[i] += t->counters.enabled[i];
		p->running[i] += t->counters.running[i];
	}
}

/* pthread key destructor: the thread is ending, hand its data over. */
static void thread_end(void *arg)
{
	struct pv_thread *t = arg;
	int saved_errno = errno;
	t->mode = PV_MODE_BUSY;
	pv_thread_close_all(t);
	pthread_mutex_lock(&pv_lock);
	merge_thread(&pv_profile, t);
	unlink_live(t);
	pthread_mutex_unlock(&pv_lock);
	pv_counters_close(&t->counters);
	pv_thread_release(t);
	munmap(t, sizeof(*t));
	pv_self = &pv_gone;
	errno = saved_errno;
}

/* Everything the inlined clock path does not do, including all of the
 * multi-event path (whose counter reads cost far more than a call). */
static void pv_enter_slow(struct pv_thread *t, void *fn, uintptr_t sp)
{
	switch (t->mode) {
	case PV_MODE_GENERIC:
		if (likely(pv_try_enter(t, fn, sp, t->nev, pv_counters_read)))
			return;
		break;
	case PV_MODE_CLOCK:
	case PV_MODE_JUMPED:
		break;
	case PV_MODE_UNBORN: {
		int saved_errno = errno;
		t = thread_start();
		errno = saved_errno;
		if (!t)
			return;
		break;
	}
	default:
		return; /* busy inside the runtime, or not profiling */
	}
	t->mode = PV_MODE_BUSY;
	pv_thread_enter_slow(t, fn, sp);
	t->mode = t->run_mode;
}

static void pv_exit_slow(struct pv_thread *t, void *fn)
{
	switch (t->mode) {
	case PV_MODE_GENERIC:
		if (likely(pv_try_exit(t, fn, t->nev, pv_counters_read)))
			return;
		break;
	case PV_MODE_CLOCK:
	case PV_MODE_JUMPED:
		break;
	default:
		return;
	}
	t->mode = PV_MODE_BUSY;
	pv_thread_exit_slow(t, fn);
	t->mode = t->run_mode;
}

/* ---- fork ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&pv_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&pv_lock);
}

/* Only the forking thread exists in the child: it starts a profile of its own. */
static void fork_child(void)
{
	struct pv_thread *self = pv_self;
	pthread_mutex_init(&pv_lock, NULL);
	pv_pid = pv_child_pid = getpid();
	pv_dumped = 0;
	pv_profile_clear(&pv_profile);
	struct pv_thread *t = pv_live;
	while (t) {
		struct pv_thread *next = t->next;
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
	pv_clock_start = pv_arch_clock();
	pv_mono_start = mono_ns();
	if (!has_state)
		return; /* its first hook sets it up */
	self->next = self->prev = NULL;
	pv_live = self;
	self->tid = gettid_raw();
	pv_thread_restart(self);
}

/* ---- output ---- */

/* ns per TSC tick over the run so far; short runs wait a little for precision. */
static double clock_scale(double *wall_seconds)
{
	uint64_t mono = mono_ns();
	while (mono - pv_mono_start < 5000000)
		mono = mono_ns();
	uint64_t ticks = pv_arch_clock() - pv_clock_start;
	*wall_seconds = (double)(mono - pv_mono_start) / 1e9;
	return ticks ? (double)(mono - pv_mono_start) / (double)ticks : 1.0;
}

/* Add the threads still running to snap. Other threads are read while they
 * run: the hooks take no lock, so nothing can stop them, and their last
 * instants come out approximate (tests/tsan.supp names this function). At
 * exit, their frames are closed first where their counters can be read from
 * here (the TSC). Caller holds pv_lock. */
static void snapshot_live_threads(struct pv_profile *snap, int at_exit)
{
	for (struct pv_thread *t = pv_live; t; t = t->next) {
		if (at_exit && t->mode != PV_MODE_OFF) {
			int clock_only = t->run_mode == PV_MODE_CLOCK;
			t->mode = PV_MODE_OFF;
			if (t == pv_self || clock_only)
				pv_thread_close_all(t);
		}
		merge_thread(snap, t);
	}
}

/* Write the outputs from the ended threads plus a snapshot of the live ones.
 * at_exit: the process is ending, so open frames are closed. exec_n: the
 * image is about to be replaced (files get .execN). */
static int dump(int at_exit, int exec_n)
{
	struct pv_profile snap;
	pv_profile_init(&snap, pv_events.n);
	pthread_mutex_lock(&pv_lock);
	snapshot_live_threads(&snap, at_exit);
	pv_profile_add(&snap, &pv_profile);
	pthread_mutex_unlock(&pv_lock);
	if (!snap.funcs) {
		/* Nothing instrumented ran here (a shell, make, timeout): writing
		 * would only replace the files of a process that has a profile. */
		pv_profile_clear(&snap);
		return 0;
	}

	struct pv_report r = {
		.program = pv_program,
		.pid = pv_pid,
		.events = pv_events.ev,
		.node_threshold = pv_config.node_threshold,
		.edge_threshold = pv_config.edge_threshold,
	};
	double scale[PV_MAX_EVENTS];
	double clock_ns = clock_scale(&r.wall_seconds);
	for (unsigned i = 0; i < pv_events.n; i++)
		scale[i] = pv_events.ev[i].is_tsc ? clock_ns : 1.0;
	struct pv_symbolizer *syms = pv_symbols_open(pv_unloaded);
	int status = -1;
	struct pv_output_tag tag = { .child_pid = pv_child_pid, .exec_n = exec_n };
	if (pv_report_build(&r, &snap, syms, scale) == 0) {
		status = pv_output_write_all(&pv_config, &r, r.pid, tag);
		pv_report_free(&r);
	}
	pv_symbols_close(syms);
	pv_profile_clear(&snap);
	return status;
}

int pv_runtime_dump(int at_exit)
{
	return dump(at_exit, 0);
}

int pv_runtime_should_dump(void)
{
	return pv_ready && !pv_config.disabled && !pv_dumped && getpid() == pv_pid;
}

/* dump() on behalf of the program: this thread's hooks ignored meanwhile
 * (the dump may call instrumented code), errno kept. */
static int dump_outside_hooks(int at_exit, int exec_n)
{
	int saved_errno = errno;
	struct pv_thread *t = pv_self;
	int mode = t->mode;
	if (mode < PV_MODE_BUSY)
		t->mode = PV_MODE_BUSY;
	int status = dump(at_exit, exec_n);
	if (mode < PV_MODE_BUSY && t->mode == PV_MODE_BUSY)
		t->mode = t->run_mode;
	errno = saved_errno;
	return status;
}

PV_EXPORT int profviz_dump(void)
{
	if (!pv_runtime_should_dump())
		return -1;
	return dump_outside_hooks(0, 0);
}

/* The process ends here: write once, with every open frame closed. */
void pv_runtime_exit_now(void)
{
	if (!pv_runtime_should_dump())
		return;
	pv_dumped = 1;
	dump_outside_hooks(1, 0);
}

__attribute__((destructor)) static void pv_fini(void)
{
	pv_runtime_exit_now();
}

static void at_quick_exit_handler(void)
{
	pv_runtime_exit_now();
}

void pv_runtime_before_exec(void)
{
	if (!pv_runtime_should_dump())
		return;
	/* The first free .execN, so that a chain of execs keeps every image's files. */
	struct pv_output_tag tag = { .child_pid = pv_child_pid };
	char path[PATH_MAX];
	for (tag.exec_n = 1; tag.exec_n < 1000; tag.exec_n++)
		if (pv_output_path(&pv_config.outputs[0], pv_pid, tag, path, sizeof(path)) < 0 ||
		    access(path, F_OK) != 0)
			break;
	dump_outside_hooks(0, tag.exec_n);
}

void pv_runtime_module_closing(void *handle)
{
	struct link_map *lm = NULL;
	if (!pv_ready || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name ||
	    !lm->l_name[0])
		return;
	struct pv_unloaded *u = malloc(sizeof(*u));
	if (!u || !(u->path = realpath(lm->l_name, NULL))) {
		free(u);
		return;
	}
	u->bias = (uintptr_t)lm->l_addr;
	pthread_mutex_lock(&pv_lock);
	u->next = pv_unloaded;
	pv_unloaded = u;
	pthread_mutex_unlock(&pv_lock);
}

void pv_runtime_fds_taken(unsigned first, unsigned last)
{
	if (last >= PV_FDS_MAX)
		last = PV_FDS_MAX - 1;
	for (unsigned fd = first; fd <= last; fd++) {
		if (!pv_fd_is_ours((int)fd))
			continue;
		pthread_mutex_lock(&pv_lock);
		for (struct pv_thread *t = pv_live; t; t = t->next)
			pv_counters_forget_fd(&t->counters, (int)fd);
		pthread_mutex_unlock(&pv_lock);
		pv_fd_release((int)fd); /* even if no thread had it any more */
	}
}

/* ---- start-up ---- */

static const char *env(const char *name)
{
	return getenv(name);
}

static void pv_init(void)
{
	int saved_errno = errno;
	pv_interpose_init();
	pv_config_load(&pv_config, env, getauxval(AT_SECURE) != 0);
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)))
		pv_config_anchor_outputs(&pv_config, cwd);
	ssize_t n = readlink("/proc/self/exe", pv_program, sizeof(pv_program) - 1);
	pv_program[n > 0 ? n : 0] = '\0';
	int defaulted = !pv_config.events[0] ||
			!pv_events_parse(pv_config.events, PV_SYSFS_ROOT, &pv_events);
	if (defaulted)
		pv_events_parse("cycles", PV_SYSFS_ROOT, &pv_events);
	char summary[512];
	pv_counters_select(&pv_events, defaulted, summary, sizeof(summary));
	pv_profile_init(&pv_profile, pv_events.n);
	pv_pid = getpid();
	pthread_key_create(&pv_thread_key, thread_end);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (!pv_config.disabled) {
		at_quick_exit(at_quick_exit_handler);
		pv_signals_init();
	}
	pv_clock_start = pv_arch_clock();
	pv_mono_start = mono_ns();
	if (pv_config.disabled) {
		if (!pv_config.quiet)
			pv_log("disabled by PROFVIZ_DISABLE=1");
	} else if (!pv_config.quiet) {
		char files[256] = "";
		for (unsigned i = 0; i < pv_config.n_outputs; i++) /* as the user named them */
			snprintf(files + strlen(files), sizeof(files) - strlen(files), "%s%s",
				 i ? ", " : "", pv_config.outputs[i].given);
		pv_log("%s; writing %s", summary, files);
	}
	pv_ready = 1;
	errno = saved_errno;
}

__attribute__((constructor)) static void pv_ctor(void)
{
	pthread_once(&pv_once, pv_init);
}
