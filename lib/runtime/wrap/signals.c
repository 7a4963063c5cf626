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
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/arch.h"
#include "runtime/guard.h"
#include "runtime/runtime.h"
#include "runtime/sigdefer.h"
#include "runtime/window.h"
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
	 * land in a node whose total the hook has closed. So is what its ring
	 * holds: the handler's hooks leave the ring uncounted, as they do one
	 * a count was interrupted in (cpusamples.c), and the handler's own
	 * samples go with the rest. (A handler that leaves by longjmp drops
	 * what was owed: a look or two.) */
	struct pv_owed owed = { 0, 0 };
	int in_hook = pv_mode_is_profiling(arrival) && !__atomic_load_n(&t->at, __ATOMIC_RELAXED);
	int was_collecting = t->collecting;
	if (in_hook) {
		owed = pv_thread_take_owed(t);
		t->collecting = 1;
	}
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
		t->collecting = was_collecting;
	}
	if (unrecorded) { /* it ran BUSY and marked: back to what the signal found */
		pv_signal_fence();
		t->in_slow_path = was_abandonable;
	}
	if (temporary) /* the thread had ended: handed over as the handler's run ends */
		pv_runtime_handler_state_done(t);
}

/* ---- the profile of a dying process ---- */

/* Once per process: a handler's death and abort()'s may both come by. */
static void write_profile_before_death(void)
{
	static int dying;
	int saved_errno = errno; /* abort()'s path goes back to the program */
	/* Its holder normally lets go of the runtime's lock at once; it may
	 * also be stuck, or this very thread, interrupted inside the runtime
	 * (then there is no point waiting). */
	if (!__atomic_exchange_n(&dying, 1, __ATOMIC_SEQ_CST) && pv_runtime_should_dump())
		pv_runtime_write_from_copy(pv_self->mode == PV_MODE_BUSY ? 1 : 100,
					   "another thread held when the signal came");
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

int pv_wrap_take_signal(int sig, void (*handler)(int, siginfo_t *, void *))
{
	struct sigaction a = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&a.sa_mask);
	return next_sigaction()(sig, &a, NULL);
}

void pv_wrap_give_back_signal(int sig)
{
	struct sigaction a;
	if (user_installed[sig]) {
		a = user_action[sig];
	} else {
		memset(&a, 0, sizeof(a));
		a.sa_handler = SIG_DFL;
	}
	sigaction(sig, &a, NULL); /* the wrapper: pv_window_takes(sig) is false now */
}

/* The runtime's own signal (pv_wrap_take_signal): the program's asks kept,
 * as it will read them back; its handler said once not to run. */
static int keep_for_program(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int said;
	if (old) {
		if (user_installed[sig]) {
			*old = user_action[sig];
		} else {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
	}
	if (act) {
		user_action[sig] = *act;
		user_installed[sig] = 1;
		if ((act->sa_flags & SA_SIGINFO ||
		     (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN)) &&
		    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			pv_log("the program's handler of signal %d does not run: PROFVIZ_SIGNAL "
			       "takes that signal", sig);
	}
	return 0;
}

PV_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn *real = next_sigaction();
	if (sig <= 0 || sig >= PV_NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real(sig, act, old);
	if (pv_window_takes(sig))
		return keep_for_program(sig, act, old);
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

/* The older ways to install a handler: glibc's call its sigaction inside
 * libc, past the wrapper above, so each is wrapped too, with glibc's
 * semantics, and goes through it. */

/* The signals siginterrupt() said interrupt the calls they land in: the
 * BSD ways install their handlers without SA_RESTART, as glibc's do. */
static char interrupting[PV_NSIG];

static int bsd_flags(int sig)
{
	return sig > 0 && sig < PV_NSIG && interrupting[sig] ? 0 : SA_RESTART;
}

/* handler with flags, sig itself masked while it runs unless SA_NODEFER:
 * the previous handler, or SIG_ERR. */
static sighandler_t install(int sig, sighandler_t handler, int flags)
{
	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (!(flags & SA_NODEFER) && sigaddset(&sa.sa_mask, sig) < 0)
		return SIG_ERR;
	sa.sa_flags = flags;
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)old.sa_sigaction
					   : old.sa_handler;
}

/* BSD semantics, as glibc's signal(): restarted calls, the signal masked. */
PV_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	return install(sig, handler, bsd_flags(sig));
}

PV_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return install(sig, handler, bsd_flags(sig));
}

PV_EXPORT sighandler_t ssignal(int sig, sighandler_t handler)
{
	return install(sig, handler, bsd_flags(sig));
}

/* Whether sig interrupts the calls it lands in from now on: its handler's
 * SA_RESTART, now and for the BSD ways above later. */
PV_EXPORT int siginterrupt(int sig, int flag)
{
	struct sigaction now;
	if (sig <= 0 || sig >= PV_NSIG) {
		errno = EINVAL;
		return -1;
	}
	if (sigaction(sig, NULL, &now) < 0)
		return -1;
	interrupting[sig] = flag != 0;
	if (flag)
		now.sa_flags &= ~SA_RESTART;
	else
		now.sa_flags |= SA_RESTART;
	return sigaction(sig, &now, NULL);
}

/* System V's: reset to the default as it is delivered, not masked,
 * interrupted calls not restarted. */
PV_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return install(sig, handler, SA_RESETHAND | SA_NODEFER);
}

PV_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	return install(sig, handler, SA_RESETHAND | SA_NODEFER);
}

/* System V's sigset: SIG_HOLD blocks sig; anything else installs it with
 * nothing masked and unblocks sig. SIG_HOLD is returned when sig was
 * blocked before. */
PV_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t one, was;
	sigemptyset(&one);
	if (sigaddset(&one, sig) < 0)
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (pthread_sigmask(SIG_BLOCK, &one, &was) != 0)
			return SIG_ERR;
		if (sigismember(&was, sig))
			return SIG_HOLD;
		struct sigaction now;
		if (sigaction(sig, NULL, &now) < 0)
			return SIG_ERR;
		return now.sa_handler;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = disp;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0 || pthread_sigmask(SIG_UNBLOCK, &one, &was) != 0)
		return SIG_ERR;
	return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}
