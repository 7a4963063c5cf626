/*
 * signals.c — signal handlers, the program's and the runtime's.
 *
 * The program's handlers are installed through sigaction()/signal(), which
 * are interposed here: each handler runs behind a trampoline that records
 * its calls under the signal's own node, and the program always reads back
 * the handler it installed. Signals whose default action kills the process
 * get a handler of the runtime's while their disposition is the default: it
 * writes the profile and then lets the signal kill the process as before,
 * with the same signal (and core dump).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runtime.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

static sigaction_fn *real_sigaction;
/* What the program installed, as it will read it back. */
static struct sigaction user_action[PV_NSIG];
static char user_installed[PV_NSIG];

/* Signals whose default action ends the process (SIGTRAP is left to debuggers). */
static const int fatal_signals[] = { SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGBUS,
				     SIGFPE,  SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM,
				     SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS };

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

static sigaction_fn *next_sigaction(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

static void trampoline(int sig, siginfo_t *info, void *context)
{
	int saved_errno = errno;
	struct pv_thread *t = pv_self;
	struct pv_frame *restore = NULL;
	uint64_t saved_last[PV_MAX_EVENTS];
	int mode = t->mode;
	if (mode == PV_MODE_CLOCK || mode == PV_MODE_GENERIC) {
		t->mode = PV_MODE_BUSY;
		restore = pv_thread_signal_enter(t, sig, pv_arch_stack_pointer(), saved_last);
		t->mode = restore ? mode : PV_MODE_BUSY; /* no room: run it unrecorded */
	}
	struct sigaction *a = &user_action[sig];
	errno = saved_errno;
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, info, context);
	else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
		a->sa_handler(sig);
	saved_errno = errno;
	if (restore) {
		t->mode = PV_MODE_BUSY;
		pv_thread_signal_leave(t, restore, saved_last);
	}
	t->mode = mode;
	errno = saved_errno;
}

/* Write the profile from a copy of the process made by fork, so that a
 * crash inside malloc or stdio (whose locks the copy may inherit held) can
 * delay the death by at most the timeout, never prevent it. */
static void dump_before_dying(void)
{
	pid_t child = (pid_t)syscall(SYS_fork); /* no atfork handlers: they take locks */
	if (child == 0) {
		pv_runtime_dump(1);
		syscall(SYS_exit_group, 0);
	}
	if (child < 0)
		return;
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	for (int waited = 0; waited < 2000; waited++) { /* 20 s */
		if (waitpid(child, NULL, WNOHANG) == child)
			return;
		nanosleep(&nap, NULL);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void fatal_handler(int sig, siginfo_t *info, void *context)
{
	(void)info;
	(void)context;
	static int dying;
	if (!__atomic_exchange_n(&dying, 1, __ATOMIC_SEQ_CST) && pv_runtime_should_dump())
		dump_before_dying();
	/* SA_RESETHAND made the disposition the default again; unblocked by
	 * SA_NODEFER, the signal now does what it would have done. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	next_sigaction()(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
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

static int is_ours(const struct sigaction *k)
{
	return (k->sa_flags & SA_SIGINFO) &&
	       (k->sa_sigaction == trampoline || k->sa_sigaction == fatal_handler);
}

void pv_signals_init(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int sig = fatal_signals[i];
		struct sigaction now;
		/* Only where the default would kill: an ignored or handled signal stays so. */
		if (next_sigaction()(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
		    now.sa_handler == SIG_DFL)
			install_fatal(sig, NULL);
	}
}

PV_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn *real = next_sigaction();
	if (sig <= 0 || sig >= PV_NSIG || sig == SIGKILL || sig == SIGSTOP || !real)
		return real ? real(sig, act, old) : (errno = ENOSYS, -1);
	struct sigaction kernel_old, program_old = user_action[sig];
	int had_user = user_installed[sig];
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
		}
	} else {
		struct sigaction k = *act;
		k.sa_sigaction = trampoline;
		k.sa_flags |= SA_SIGINFO;
		/* The program's handler is in place before the kernel can call it. */
		struct sigaction keep = user_action[sig];
		user_action[sig] = *act;
		user_installed[sig] = 1;
		rc = real(sig, &k, &kernel_old);
		if (rc != 0)
			user_action[sig] = keep, user_installed[sig] = had_user;
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
