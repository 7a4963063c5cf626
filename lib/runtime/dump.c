/* SPDX-License-Identifier: MIT */
/*
 * dump.c — writing the profile: from the ended threads and a snapshot of the
 * live ones, through the report, to every output; at exit, at _exit and
 * quick_exit, before an exec (taken back if the exec fails), and when the
 * program asks (profviz_dump).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profviz.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/sysraw.h"
#include "model/report.h"
#include "output/file.h"
#include "runtime/arch.h"
#include "runtime/counters.h"
#include "runtime/cpusamples.h"
#include "runtime/dump.h"
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
#include "runtime/window.h"

/* t's readings now, taken on this thread: its own events as its hooks read
 * them; another thread's through what can be read from here (the TSC, and
 * read(2) of its perf events, whichever processor it runs on). */
static void read_live(struct pv_thread *t, struct pv_thread_now *now)
{
	enum pv_counters_state state = t == pv_self
		? pv_counters_read(&t->counters, t->last, now->now)
		: pv_counters_read_elsewhere(&t->counters, t->last, now->now);
	/* GONE counts stop where they were lost, which the losses say already. */
	now->at_last_hook = state == PV_COUNTERS_LOST;
}

/* ThreadSanitizer's, bound at load when its runtime is there: accesses
 * between the two are neither checked nor recorded. */
extern void __tsan_ignore_thread_begin(void) __attribute__((weak));
extern void __tsan_ignore_thread_end(void) __attribute__((weak));

/* Add the threads still running to snap, their open activations counted
 * as if they returned now. Other threads are read while they run: the hooks
 * take no lock, so nothing can stop them, and their last instants come out
 * approximate. ThreadSanitizer is told to ignore these reads: a suppression
 * by this function's name cannot match a read whose stack it no longer
 * keeps when the thread's write comes later. Nothing of theirs is
 * written but their mode at exit. At exit, this thread's frames (its
 * suspended coroutines' too) are closed; another running thread's suspended
 * coroutines stay as they are: closing them means installing their stacks
 * in it. Caller holds pv_lock. */
static void snapshot_live_threads(struct pv_profile *snap, int at_exit)
{
	if (__tsan_ignore_thread_begin)
		__tsan_ignore_thread_begin();
	for (struct pv_thread *t = pv_live; t; t = t->next) {
		if (at_exit && t->mode != PV_MODE_OFF) {
			t->mode = PV_MODE_OFF; /* nothing more is recorded */
			if (t == pv_self) {
				pv_thread_close_all(t);
				pv_thread_hand_over(snap, t);
				continue;
			}
		}
		struct pv_thread_now now;
		read_live(t, &now);
		pv_thread_hand_over_live(snap, t, &now);
	}
	if (__tsan_ignore_thread_end)
		__tsan_ignore_thread_end();
}

void pv_snapshot_take(struct pv_snapshot *s, int at_exit)
{
	memset(s, 0, sizeof(*s));
	pv_profile_init(&s->profile, pv_profile_events());
	sigset_t saved;
	pv_process_lock(&saved);
	snapshot_live_threads(&s->profile, at_exit);
	/* The PCs since the sampler's last look too; mapped after the lock. */
	for (struct pv_thread *t = pv_live; t; t = t->next)
		pv_hotpcs_take(&pv_hotpcs, &t->pcring);
	s->pcs = pv_hotpcs_copy(&pv_hotpcs, &s->n_pcs, &s->pcs_read);
	pv_profile_add(&s->profile, &pv_profile);
	s->profile.losses.unrecorded_calls += pv_sigdefer_lost(); /* handlers' */
	s->profile.losses.threads_shared += pv_runtime_shared_unborn();
	if (pv_time_sampled) {
		struct pv_sampling now;
		pv_sampler_account(&pv_sampler, &now);
		pv_sampling_add(&s->profile.sampling, &now);
	}
	pv_process_unlock(&saved);
	pv_hotpcs_say_refusal(&pv_hotpcs); /* the sampler's thread cannot say it */
}

void pv_snapshot_free(struct pv_snapshot *s)
{
	pv_profile_clear(&s->profile);
	free(s->pcs);
	s->pcs = NULL;
	s->n_pcs = 0;
}

int pv_snapshot_write(struct pv_snapshot *s, struct pv_output_tag tag)
{
	if (!s->profile.funcs)
		return PV_NOTHING_WRITTEN;
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
		.max_nodes = pv_config.max_nodes,
		.waits_inside = pv_config.waits_inside,
	};
	struct pv_profile *snap = &s->profile;
	struct pv_conversion read, conv = { .factor = { 1 }, .running_ratio = { 1 } };
	pv_counters_conversion(&pv_events, snap->enabled + first, snap->running + first, &read);
	conv.wall_seconds = s->wall_seconds > 0 ? s->wall_seconds : read.wall_seconds;
	for (unsigned i = 0; i < pv_events.n; i++) {
		conv.factor[first + i] = read.factor[i];
		conv.running_ratio[first + i] = read.running_ratio[i];
	}
	struct pv_symbolizer *syms = pv_symbols_open(pv_unloaded);
	int status = -1;
	struct pv_namer names = pv_runtime_namer(syms);
	if (pv_report_build(&r, snap, &names, &conv, &pv_overhead) == 0) {
		struct pv_hotlines_account lines;
		pv_hotlines_annotate(&r, s->pcs, s->n_pcs, &s->pcs_read, syms, PV_LINES_KEPT,
				     &lines);
		pv_report_warn_losses(&r);
		uint64_t began = pv_monotonic_ns();
		status = pv_output_write_all(pv_config.outputs, pv_config.n_outputs, &r, r.pid, tag);
		pv_debug(1, "wrote %u functions and %u arcs of %" PRIu64 " threads in %.1f ms",
			 r.n_funcs, r.n_arcs, r.threads, (double)(pv_monotonic_ns() - began) * 1e-6);
		pv_report_free(&r);
	}
	pv_symbols_close(syms);
	return status;
}

/* Write the outputs from the ended threads plus a snapshot of the live ones.
 * at_exit: the process is ending, so open frames are closed. exec_n: the
 * image is about to be replaced (files get .execN). 0, -1 if a file could
 * not be written, or PV_NOTHING_WRITTEN. Signals stay blocked to the end:
 * a handler calling exit() amid the report's mallocs would dump again from
 * inside them. */
static int dump(int at_exit, int exec_n)
{
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	struct pv_snapshot s;
	pv_snapshot_take(&s, at_exit);
	int status = pv_snapshot_write(&s, (struct pv_output_tag){ .child_pid = pv_child_pid,
								     .exec_n = exec_n });
	pv_snapshot_free(&s);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return status;
}

/* ---- the profile written from a copy of the process ---- */

/* In the copy of the process, where no other thread exists: the runtime's
 * lock afresh (whoever held it at the fork is not here to let go of it),
 * then the at-exit dump. */
static void dump_in_copy(void)
{
	pv_lock_reset(&pv_lock);
	pv_fds_alone();
	/* The kernel copies no PC ring into a fork (pcring.h): what they held
	 * at the last look is in the table already. */
	for (struct pv_thread *t = pv_live; t; t = t->next) {
		pv_cpusamples_detach(t);
		pv_pcring_forget(&t->pcring);
	}
	dump(1, 0);
}

/* glibc's: re-initialises the lock of its list of streams. */
extern void _IO_list_resetlock(void) __attribute__((weak));

/* The copy writes on a stack of its own: the signal may have come on a small
 * alternate stack, which the writer (symbols, formats) would overflow. */
#define WRITER_STACK_BYTES ((size_t)8 << 20)

/* In the copy, where no other thread exists: whatever lock another thread
 * held at the fork stays held for good. */
static void copy_writes_profile(void)
{
	if (_IO_list_resetlock)
		_IO_list_resetlock(); /* taken by fopen, which the writer calls */
	size_t guard = (size_t)getpagesize(); /* an overflow ends the copy, nothing else */
	char *stack = mmap(NULL, guard + WRITER_STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED || mprotect(stack, guard, PROT_NONE) != 0)
		dump_in_copy(); /* on the stack the signal found */
	else
		pv_arch_call_on_stack(dump_in_copy, stack + guard + WRITER_STACK_BYTES);
}

/* "/proc/PID/syscall" into buf. */
static void syscall_file(pid_t pid, char *buf)
{
	char digits[16];
	int n = 0;
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	char *p = stpcpy(buf, "/proc/");
	while (n > 0)
		*p++ = digits[--n];
	strcpy(p, "/syscall");
}

#define SYSCALL_LINE 256

/* Is the copy waiting in a futex, at the same place as when last seen (in
 * last)? With no other thread in it, nothing will ever wake it. */
static int copy_still_in_futex(const char *path, char last[SYSCALL_LINE])
{
	char now[SYSCALL_LINE] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, now, sizeof(now) - 1);
	pv_sys_close(fd);
	if (n <= 0)
		return 0;
	now[n] = '\0';
	int same = strcmp(now, last) == 0;
	memcpy(last, now, sizeof(now));
	char *end;
	return strtol(now, &end, 10) == SYS_futex && end != now && same;
}

/* The runtime's own waits, as system calls: libc's functions would run
 * blocking.c's wrappers, whose hooks have no business in a dying thread. */
static pid_t wait_raw(pid_t pid, int flags, int *status)
{
	return (pid_t)syscall(SYS_wait4, pid, status, flags, NULL);
}

/* Until the copy has written the profile; not for long if it waits on a
 * lock that was held at the fork (malloc's, the loader's). */
static void wait_for_copy(pid_t child, const char *held_by)
{
	char path[64], seen[SYSCALL_LINE] = "";
	syscall_file(child, path);
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int stuck = 0;
	for (int waited = 0; waited < 2000; waited++) { /* 20 s */
		int status = 0;
		pid_t done = wait_raw(child, WNOHANG | __WALL, &status);
		if (done == child && WIFSIGNALED(status)) /* what it met, held mid-change */
			pv_log("no profile: its writer died of signal %d", WTERMSIG(status));
		if (done == child || (done < 0 && errno == ECHILD)) /* or reaped by the program */
			return;
		stuck = copy_still_in_futex(path, seen) ? stuck + 1 : 0;
		if (stuck == 20)
			break;
		pv_sys_sleep(CLOCK_MONOTONIC, 0, &nap);
	}
	kill(child, SIGKILL);
	wait_raw(child, __WALL, NULL);
	if (stuck == 20)
		pv_log("no profile: its writer waited for a lock that %s", held_by);
	else
		pv_log("no profile: its writer took more than 20 s");
}

void pv_runtime_write_from_copy(int lock_tries, const char *held_by)
{
	/* With the runtime's lock held across the fork, no other thread is
	 * changing the profile the copy reads. */
	int locked = 0;
	struct timespec nap = { 0, 1000 * 1000 };
	while (!(locked = pv_lock_try(&pv_lock)) && --lock_tries > 0)
		pv_sys_sleep(CLOCK_MONOTONIC, 0, &nap);
	/* fork without atfork handlers (they take locks), nor a SIGCHLD at its
	 * end: the program neither sees the copy nor can reap it first. */
	pid_t child = (pid_t)syscall(SYS_clone, 0UL, NULL, NULL, NULL, NULL);
	if (child == 0) {
		sigset_t all;
		sigfillset(&all);
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, _NSIG / 8);
		copy_writes_profile();
		syscall(SYS_exit_group, 0);
	}
	if (child > 0)
		wait_for_copy(child, held_by);
	if (locked)
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

/* Is this thread running a handler of the program's? It may have
 * interrupted anything, malloc holding its arena's lock included. */
static int in_a_handler(void)
{
	return pv_thread_has_state(pv_self) && pv_self->signal_depth > 0;
}

/* The process ends here: write once, with every open frame closed. From
 * inside a signal handler (a SIGTERM handler's exit()), from a copy of the
 * process, as a dying one does: the writer's malloc would wait for good on
 * an arena the interrupted code holds, and the copy can be given up. */
void pv_runtime_exit_now(void)
{
	/* Once, even if two threads end the process at once (_exit and exit). */
	if (!pv_runtime_should_dump() || __atomic_exchange_n(&pv_dumped, 1, __ATOMIC_SEQ_CST))
		return;
	if (in_a_handler()) {
		struct pv_guard g;
		pv_guard_enter(&g, pv_self);
		pv_runtime_write_from_copy(100, "the code the signal handler interrupted, or "
						"another thread, held");
		pv_guard_leave(&g);
		return;
	}
	if (pv_window_at_exit())
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
