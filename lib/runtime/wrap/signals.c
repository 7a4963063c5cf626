/* SPDX-License-Identifier: MIT */
/*
 * signals.c — signal handlers, the program's and the runtime's.
 *
 * The program's handlers are installed through sigaction()/signal(), which
 * are interposed here: each handler runs behind a trampoline that records
 * its calls under the signal's own node, and the program always reads back
 * the handler it installed. Signals whose default action kills the process
 * get a handler of the runtime's while their disposition is the default: it
 * writes the profile and then lets the signal kill the process as before,
 * with the same signal (and core dump). Where the default comes back past
 * the wrapper (SA_RESETHAND, glibc's abort()), the runtime's handler is put
 * in its place, or the profile written before abort() ends the process.
 * The profile is written by a copy of the process, on a stack of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/arch.h"
#include "runtime/guard.h"
#include "runtime/runtime.h"
#include "runtime/sigdefer.h"
#include "runtime/wrap/wrap.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
/* What the program installed, as it will read it back. */
static struct sigaction user_action[PV_NSIG];
static char user_installed[PV_NSIG];

/* Signals whose default action ends the process: the classic ones, those
 * Linux adds, and the real-time ones (SIGTRAP is left to debuggers). */
static int is_fatal(int sig)
{
	switch (sig) {
	case SIGHUP: case SIGINT: case SIGQUIT: case SIGILL: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGUSR1: case SIGSEGV: case SIGUSR2: case SIGPIPE: case SIGALRM:
	case SIGTERM: case SIGXCPU: case SIGXFSZ: case SIGVTALRM: case SIGPROF: case SIGSYS:
	case SIGIO: case SIGPWR:
#ifdef SIGSTKFLT
	case SIGSTKFLT:
#endif
		return 1;
	}
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

typedef void abort_fn(void);

static sigaction_fn *next_sigaction(void)
{
	return PV_NEXT(sigaction_fn, sigaction);
}

static void trampoline(int sig, siginfo_t *info, void *context)
{
	struct pv_thread *t = pv_self;
	int arrival = t->mode;
	/* In the runtime's work on this thread: sent again as it ends, and
	 * recorded then (sigdefer.h). */
	if (arrival == PV_MODE_BUSY &&
	    pv_sigdefer_take(sig, info, user_action[sig].sa_flags, t->in_slow_path))
		return;
	/* A thread past its end: a state for the handler, whose run is then
	 * recorded. */
	int temporary = 0;
	if (arrival == PV_MODE_OFF) {
		t = pv_runtime_handler_state(&temporary);
		arrival = t->mode;
	}
	struct pv_frame *restore = NULL;
	uint64_t saved_last[PV_MAX_EVENTS];
	struct pv_guard g;
	/* Recorded when the signal interrupted profiled code: not the runtime,
	 * nor a thread whose longjmp is still to be resynchronised. */
	int unrecorded = 0;
	/* Inside a hook (the thread said NULL, yet is not in the runtime): what
	 * it owes is for the hook to charge when it goes on, to the node it
	 * leaves or enters with its total still open; charged here, it could
	 * land in a node whose total the hook has closed. (A handler that leaves
	 * by longjmp drops them: a look or two.) */
	struct pv_owed owed = { 0, 0 };
	int in_hook = pv_mode_is_profiling(arrival) && !__atomic_load_n(&t->at, __ATOMIC_RELAXED);
	if (in_hook)
		owed = pv_thread_take_owed(t);
	int entered = pv_guard_enter_abandonable(&g, t);
	if (entered && arrival != PV_MODE_JUMPED) {
		restore = pv_thread_signal_enter(t, sig, pv_arch_stack_pointer(), saved_last);
		if (!restore)
			g.mode = PV_MODE_BUSY; /* no room: the handler runs unrecorded */
		unrecorded = !restore;
	}
	int was_abandonable = g.was_abandonable;
	pv_guard_leave_abandonable(&g, entered);
	/* Not recorded, though profiled: the handler's calls are counted lost. */
	int lost = unrecorded || (arrival == PV_MODE_BUSY && pv_runtime_should_dump());
	/* The handler may leave by longjmp, abandoning what it interrupted. */
	pv_thread_handler_begins(t, unrecorded);
	if (lost)
		pv_sigdefer_unrecorded_begins(t);

	struct sigaction *a = &user_action[sig];
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, info, context);
	else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
		a->sa_handler(sig);

	/* The handler's errno stays; the thread goes back to the mode the signal found. */
	if (lost)
		pv_sigdefer_unrecorded_ends(t);
	pv_thread_handler_ends(t);
	entered = pv_guard_enter_abandonable(&g, t);
	if (restore)
		pv_thread_signal_leave(t, restore, saved_last);
	g.mode = arrival;
	pv_guard_leave_abandonable(&g, entered);
	if (in_hook) { /* back as the signal found it: the hook publishes when it is done */
		pv_thread_publish(t, NULL);
		pv_thread_give_owed(t, owed);
	}
	if (unrecorded) { /* it ran BUSY and marked: back to what the signal found */
		pv_signal_fence();
		t->in_slow_path = was_abandonable;
	}
	if (temporary) /* the thread had ended: handed over as the handler's run ends */
		pv_runtime_handler_state_done(t);
}

/* ---- the profile of a dying process ---- */

/* glibc's: re-initialises the lock of its list of streams. */
extern void _IO_list_resetlock(void) __attribute__((weak));

/* The copy writes on a stack of its own: the signal may have come on a small
 * alternate stack, which the writer (symbols, formats) would overflow. */
#define WRITER_STACK_BYTES ((size_t)8 << 20)

static void write_in_copy(void)
{
	pv_runtime_dump_in_copy();
}

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
		write_in_copy(); /* on the stack the signal found */
	else
		pv_arch_call_on_stack(write_in_copy, stack + guard + WRITER_STACK_BYTES);
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
static pid_t wait_raw(pid_t pid, int flags)
{
	return (pid_t)syscall(SYS_wait4, pid, NULL, flags, NULL);
}

/* Until the copy has written the profile; not for long if it waits on a
 * lock that another thread held at the fork (malloc's, the loader's). */
static void wait_for_copy(pid_t child)
{
	char path[64], seen[SYSCALL_LINE] = "";
	syscall_file(child, path);
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int stuck = 0;
	for (int waited = 0; waited < 2000; waited++) { /* 20 s */
		pid_t done = wait_raw(child, WNOHANG | __WALL);
		if (done == child || (done < 0 && errno == ECHILD)) /* or reaped by the program */
			return;
		stuck = copy_still_in_futex(path, seen) ? stuck + 1 : 0;
		if (stuck == 20)
			break;
		pv_sys_sleep(CLOCK_MONOTONIC, 0, &nap);
	}
	kill(child, SIGKILL);
	wait_raw(child, __WALL);
	pv_log("no profile: its writer %s", stuck == 20
		       ? "waited for a lock that another thread held when the signal came"
		       : "took more than 20 s");
}

/* Write the profile from a copy of the process made by fork, so that a
 * crash inside malloc or stdio, or a lock whose holder is not in the copy,
 * can delay the death by a moment or at most the timeout, never prevent it. */
static void dump_before_dying(void)
{
	/* With the runtime's lock held across the fork, no other thread is
	 * changing the profile the copy reads. Its holder normally lets go at
	 * once; it may also be stuck, or this very thread, interrupted inside
	 * the runtime (then there is no point waiting). */
	int locked = 0, tries = pv_self->mode == PV_MODE_BUSY ? 1 : 100;
	struct timespec nap = { 0, 1000 * 1000 };
	while (!(locked = pv_runtime_trylock()) && --tries > 0)
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
		wait_for_copy(child);
	if (locked)
		pv_runtime_unlock();
}

/* Once per process: a handler's death and abort()'s may both come by. */
static void write_profile_before_death(void)
{
	static int dying;
	int saved_errno = errno; /* abort()'s path goes back to the program */
	if (!__atomic_exchange_n(&dying, 1, __ATOMIC_SEQ_CST) && pv_runtime_should_dump())
		dump_before_dying();
	errno = saved_errno;
}

static void fatal_handler(int sig, siginfo_t *info, void *context)
{
	(void)info;
	(void)context;
	write_profile_before_death();
	/* SA_RESETHAND made the disposition the default again; unblocked by
	 * SA_NODEFER, the signal now does what it would have done. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	next_sigaction()(sig, &dfl, NULL);
	pv_sys_raise(sig);
}

static int install_fatal(int sig, struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	return next_sigaction()(sig, &sa, old);
}

/* The kernel made the program's action the default on delivery
 * (SA_RESETHAND): the runtime's handler stands in for it. */
static char reset_by_delivery[PV_NSIG];
/* abort() was called on this thread and its SIGABRT is not yet handled. */
static __thread int aborting;

/* A program's handler of a fatal signal, behind the trampoline. */
static void fatal_entry(int sig, siginfo_t *info, void *context)
{
	int from_abort = sig == SIGABRT && aborting;
	aborting = 0;
	if (user_action[sig].sa_flags & SA_RESETHAND) {
		reset_by_delivery[sig] = 1;
		if (pv_runtime_should_dump())
			install_fatal(sig, NULL);
	}
	trampoline(sig, info, context);
	/* glibc's abort() now makes SIGABRT's action the default itself, past
	 * the wrapper, and raises it again: the process ends. */
	if (from_abort)
		write_profile_before_death();
}

static int is_ours(const struct sigaction *k)
{
	return (k->sa_flags & SA_SIGINFO) &&
	       (k->sa_sigaction == trampoline || k->sa_sigaction == fatal_entry ||
		k->sa_sigaction == fatal_handler);
}

void pv_wrap_catch_fatal_signals(void)
{
	for (int sig = 1; sig < PV_NSIG; sig++) {
		struct sigaction now;
		if (!is_fatal(sig))
			continue;
		/* Only where the default would kill: an ignored or handled signal stays so. */
		if (next_sigaction()(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
		    now.sa_handler == SIG_DFL)
			install_fatal(sig, NULL);
	}
}

PV_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn *real = next_sigaction();
	if (sig <= 0 || sig >= PV_NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real(sig, act, old);
	struct sigaction kernel_old, program_old = user_action[sig];
	int had_user = user_installed[sig] && !reset_by_delivery[sig];
	int was_reset = reset_by_delivery[sig];
	int rc;
	if (!act) {
		rc = real(sig, NULL, &kernel_old);
	} else if (act->sa_handler == SIG_IGN ||
		   (act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO))) {
		if (act->sa_handler == SIG_DFL && is_fatal(sig) && pv_runtime_should_dump())
			rc = install_fatal(sig, &kernel_old);
		else
			rc = real(sig, act, &kernel_old);
		if (rc == 0) {
			user_action[sig] = *act;
			user_installed[sig] = 1;
			reset_by_delivery[sig] = 0;
		}
	} else {
		struct sigaction k = *act;
		k.sa_sigaction = is_fatal(sig) ? fatal_entry : trampoline;
		k.sa_flags |= SA_SIGINFO;
		/* The program's handler is in place before the kernel can call it. */
		struct sigaction keep = user_action[sig];
		int was_installed = user_installed[sig];
		user_action[sig] = *act;
		user_installed[sig] = 1;
		reset_by_delivery[sig] = 0;
		rc = real(sig, &k, &kernel_old);
		if (rc != 0) {
			user_action[sig] = keep;
			user_installed[sig] = (char)was_installed;
			reset_by_delivery[sig] = (char)was_reset;
		}
	}
	if (rc == 0 && old) {
		if (is_ours(&kernel_old) && had_user) {
			*old = program_old;
		} else if (is_ours(&kernel_old)) {
			memset(old, 0, sizeof(*old)); /* our own handler stands for the default */
			old->sa_handler = SIG_DFL;
		} else {
			*old = kernel_old; /* e.g. reset to the default by SA_RESETHAND */
		}
	}
	return rc;
}

/* glibc's abort() raises SIGABRT and, if that returns (a handler returned,
 * or the signal is ignored), makes its action the default itself, past the
 * wrapper, and raises it again: the runtime's handler never runs then. */
PV_EXPORT __attribute__((noreturn)) void abort(void)
{
	struct sigaction now;
	if (next_sigaction()(SIGABRT, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
	    now.sa_handler == SIG_IGN)
		write_profile_before_death(); /* nothing can stop the death now */
	aborting = 1; /* fatal_entry writes it once the program's handler returns */
	PV_NEXT(abort_fn, abort)();
	__builtin_trap();
}

PV_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)old.sa_sigaction
					   : old.sa_handler;
}
