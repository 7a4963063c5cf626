/* SPDX-License-Identifier: MIT */
/*
 * dump.c — writing the profile: from the ended threads and a snapshot of the
 * live ones, through the report, to every output; at exit, at _exit and
 * quick_exit, before an exec (taken back if the exec fails), and when the
 * program asks (profviz_dump).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "profviz.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/report.h"
#include "output/file.h"
#include "runtime/fds.h"
#include "runtime/guard.h"
#include "runtime/handover.h"
#include "runtime/hotlines.h"
#include "runtime/naming.h"
#include "runtime/process.h"
#include "runtime/runtime.h"
#include "runtime/sigdefer.h"
#include "runtime/stack.h"
#include "runtime/symbols.h"

/* Add the threads still running to snap. Other threads are read while they
 * run: the hooks take no lock, so nothing can stop them, and their last
 * instants come out approximate (tests/tsan.supp names this function). At
 * exit, their frames are closed first where their counters can be read from
 * here (the TSC, or none). Caller holds pv_lock. */
static void snapshot_live_threads(struct pv_profile *snap, int at_exit)
{
	for (struct pv_thread *t = pv_live; t; t = t->next) {
		if (at_exit && t->mode != PV_MODE_OFF) {
			/* Its readings can be taken from here: the TSC, or nothing
			 * but the sampled clock in memory. */
			int readable_here = t->run_mode == PV_MODE_CLOCK ||
					    t->run_mode == PV_MODE_COUNT;
			t->mode = PV_MODE_OFF;
			/* Another running thread's suspended coroutines stay as they
			 * are: closing them means installing their stacks in it. */
			if (t == pv_self)
				pv_thread_close_all(t);
			else if (readable_here) {
				pv_thread_settle_owed(t, t->top->node);
				pv_stack_close(t);
			}
		}
		pv_thread_hand_over(snap, t);
	}
}

/* dump() found nothing to write: no file was touched. */
#define PV_NOTHING_WRITTEN 1

/* Write the outputs from the ended threads plus a snapshot of the live ones.
 * at_exit: the process is ending, so open frames are closed. exec_n: the
 * image is about to be replaced (files get .execN). 0, -1 if a file could
 * not be written, or PV_NOTHING_WRITTEN. */
static int dump(int at_exit, int exec_n)
{
	struct pv_profile snap;
	pv_profile_init(&snap, pv_profile_events());
	/* Signals stay blocked to the end: a handler calling exit() amid the
	 * report's mallocs would dump again from inside them. */
	sigset_t saved;
	pv_process_lock(&saved);
	snapshot_live_threads(&snap, at_exit);
	/* The PCs since the sampler's last look too; mapped after the lock. */
	for (struct pv_thread *t = pv_live; t; t = t->next)
		pv_hotpcs_take(&pv_hotpcs, &t->pcring);
	size_t n_pcs = 0;
	struct pv_hotpcs_account pcs_read;
	struct pv_hotpc *pcs = pv_hotpcs_copy(&pv_hotpcs, &n_pcs, &pcs_read);
	pv_profile_add(&snap, &pv_profile);
	snap.losses.unrecorded_calls += pv_sigdefer_lost(); /* handlers' */
	if (pv_time_sampled) {
		struct pv_sampling now;
		pv_sampler_account(&pv_sampler, &now);
		pv_sampling_add(&snap.sampling, &now);
	}
	pv_lock_give(&pv_lock);
	pv_hotpcs_say_refusal(&pv_hotpcs); /* the sampler's thread cannot say it */
	if (!snap.funcs) {
		/* Nothing instrumented ran here (a shell, make, timeout): writing
		 * would only replace the files of a process that has a profile. */
		pv_profile_clear(&snap);
		free(pcs);
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		return PV_NOTHING_WRITTEN;
	}

	/* The sampled time first, when there is one, then the events read per
	 * call: the order of the profile's costs (handover.h). */
	unsigned first = (unsigned)pv_time_sampled;
	struct pv_event_desc events[PV_MAX_EVENTS];
	if (pv_time_sampled)
		pv_event_describe(&events[0], "time", PV_EVENT_SAMPLED, "sampler");
	for (unsigned i = 0; i < pv_events.n; i++)
		pv_counters_describe(&pv_events.ev[i], &events[first + i]);
	struct pv_report r = {
		.program = pv_program,
		.pid = pv_pid,
		.events = events,
		.node_threshold = pv_config.node_threshold,
		.edge_threshold = pv_config.edge_threshold,
	};
	struct pv_conversion read, conv = { .factor = { 1 }, .running_ratio = { 1 } };
	pv_counters_conversion(&pv_events, snap.enabled + first, snap.running + first, &read);
	conv.wall_seconds = read.wall_seconds;
	for (unsigned i = 0; i < pv_events.n; i++) {
		conv.factor[first + i] = read.factor[i];
		conv.running_ratio[first + i] = read.running_ratio[i];
	}
	struct pv_symbolizer *syms = pv_symbols_open(pv_unloaded);
	int status = -1;
	struct pv_output_tag tag = { .child_pid = pv_child_pid, .exec_n = exec_n };
	struct pv_namer names = pv_runtime_namer(syms);
	if (pv_report_build(&r, &snap, &names, &conv, &pv_overhead) == 0) {
		struct pv_hotlines_account lines;
		pv_hotlines_annotate(&r, pcs, n_pcs, &pcs_read, syms, PV_LINES_KEPT, &lines);
		pv_report_warn_losses(&r);
		uint64_t began = pv_monotonic_ns();
		status = pv_output_write_all(pv_config.outputs, pv_config.n_outputs, &r, r.pid, tag);
		pv_debug(1, "wrote %u functions and %u arcs of %" PRIu64 " threads in %.1f ms",
			 r.n_funcs, r.n_arcs, r.threads, (double)(pv_monotonic_ns() - began) * 1e-6);
		pv_report_free(&r);
	}
	free(pcs);
	pv_symbols_close(syms);
	pv_profile_clear(&snap);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return status;
}

int pv_runtime_dump_in_copy(void)
{
	/* Whoever held it at the fork is not in this copy to let go of it. */
	pv_lock_reset(&pv_lock);
	pv_fds_alone();
	return dump(1, 0) < 0 ? -1 : 0;
}

int pv_runtime_trylock(void)
{
	return pv_lock_try(&pv_lock);
}

void pv_runtime_unlock(void)
{
	pv_lock_give(&pv_lock);
}

int pv_runtime_should_dump(void)
{
	return pv_ready && !pv_config.disabled && !pv_dumped && getpid() == pv_pid;
}

/* dump() on behalf of the program: this thread's hooks ignored meanwhile
 * (the dump may call instrumented code), errno kept. */
static int dump_outside_hooks(int at_exit, int exec_n)
{
	struct pv_guard g;
	pv_guard_enter(&g, pv_self);
	int status = dump(at_exit, exec_n);
	pv_guard_leave(&g);
	return status;
}

PV_EXPORT int profviz_dump(void)
{
	if (!pv_runtime_should_dump())
		return -1;
	return dump_outside_hooks(0, 0) < 0 ? -1 : 0;
}

/* The process ends here: write once, with every open frame closed. */
void pv_runtime_exit_now(void)
{
	/* Once, even if two threads end the process at once (_exit and exit). */
	if (!pv_runtime_should_dump() || __atomic_exchange_n(&pv_dumped, 1, __ATOMIC_SEQ_CST))
		return;
	dump_outside_hooks(1, 0);
}

static void at_exit_last(void *arg)
{
	(void)arg;
	pv_runtime_exit_now();
}

/* glibc runs the destructors of the instrumented libraries after ours, and
 * an exit handler registered meanwhile after all of them: the profile is
 * written there, with every destructor's calls. Registered for no object,
 * so that our own object's finalisation (right after this) leaves it. */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle);

__attribute__((destructor)) static void pv_fini(void)
{
	if (!pv_runtime_should_dump() || __cxa_atexit(at_exit_last, NULL, NULL) != 0)
		pv_runtime_exit_now();
}

void pv_runtime_at_quick_exit(void)
{
	pv_runtime_exit_now();
}

/* Is no output's file with tag there yet? (A path that does not fit is
 * not written, so it takes nothing.) */
static int exec_n_free(struct pv_output_tag tag)
{
	char path[PATH_MAX];
	for (unsigned i = 0; i < pv_config.n_outputs; i++)
		if (pv_output_path(&pv_config.outputs[i], pv_pid, tag, path, sizeof(path)) == 0 &&
		    access(path, F_OK) == 0)
			return 0;
	return 1;
}

int pv_runtime_before_exec(void)
{
	if (!pv_runtime_should_dump())
		return 0;
	/* The first .execN free for every output, so that a chain of execs
	 * keeps every image's files, and taking back a failed attempt's files
	 * removes none it did not write; the next attempt finds its N free. */
	struct pv_output_tag tag = { .child_pid = pv_child_pid };
	for (tag.exec_n = 1; tag.exec_n < 1000; tag.exec_n++)
		if (exec_n_free(tag))
			break;
	return dump_outside_hooks(0, tag.exec_n) == PV_NOTHING_WRITTEN ? 0 : tag.exec_n;
}

void pv_runtime_exec_failed(int exec_n)
{
	if (!exec_n)
		return;
	int saved_errno = errno; /* the program reads exec's */
	struct pv_output_tag tag = { .child_pid = pv_child_pid, .exec_n = exec_n };
	pv_output_remove_all(pv_config.outputs, pv_config.n_outputs, pv_pid, tag);
	errno = saved_errno;
}
