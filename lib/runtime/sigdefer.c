/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/sigdefer.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/sysraw.h"

PV_HIDDEN __thread struct pv_sigdefer pv_sigdefer __attribute__((tls_model("initial-exec")));

static uint64_t lost_calls;

void pv_sigdefer_hold(void)
{
	pv_sigdefer.holding++;
	pv_signal_fence();
}

void pv_sigdefer_release(void)
{
	pv_signal_fence();
	if (pv_sigdefer.holding && --pv_sigdefer.holding == 0)
		pv_sigdefer_send();
}

/* The signal of a fault in the code it interrupted: returning without its
 * handler runs the faulting instruction again. */
static int from_fault(int sig, const siginfo_t *info)
{
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP: case SIGSYS:
		return info->si_code > 0; /* the kernel's, not kill() or sigqueue() */
	}
	return 0;
}

int pv_sigdefer_take(int sig, const siginfo_t *info, int flags, int in_section)
{
	struct pv_sigdefer *d = &pv_sigdefer;
	if (!info || (!in_section && !d->holding) || (flags & SA_RESETHAND) ||
	    from_fault(sig, info))
		return 0;
	/* A standard signal already set aside takes this one in, as the kernel
	 * merges one that is pending while blocked; real-time ones queue. */
	for (unsigned i = 0; sig < SIGRTMIN && i < d->n; i++)
		if (d->info[i].si_signo == sig)
			return 1;
	if (d->n >= PV_SIGDEFER_MAX)
		return 0;
	d->info[d->n] = *info;
	d->info[d->n].si_signo = sig;
	pv_signal_fence();
	d->n++; /* last: a signal arriving meanwhile takes the slot after */
	return 1;
}

/* sig to this thread again, with its siginfo (which the kernel lets a
 * thread give to a signal it sends itself); tgkill, without it, if the
 * kernel will not queue another. */
static void send_again(const siginfo_t *info)
{
	siginfo_t copy = *info;
	long pid = pv_sys_getpid(), tid = pv_sys_gettid();
	if (syscall(SYS_rt_tgsigqueueinfo, pid, tid, copy.si_signo, &copy) != 0)
		syscall(SYS_tgkill, pid, tid, copy.si_signo);
}

void pv_sigdefer_send_now(void)
{
	struct pv_sigdefer *d = &pv_sigdefer;
	int saved_errno = errno;
	while (d->n) {
		/* Taken off first: one that arrives while it is sent, or a
		 * handler that leaves by longjmp, finds the list whole. */
		siginfo_t info = d->info[0];
		unsigned left = --d->n;
		pv_signal_fence();
		memmove(&d->info[0], &d->info[1], left * sizeof(d->info[0]));
		pv_signal_fence();
		send_again(&info);
	}
	errno = saved_errno;
}

void pv_sigdefer_unrecorded_begins(const struct pv_thread *t)
{
	pv_sigdefer_count_lost(); /* its delivery: the <signal> node's call */
	if (!pv_sigdefer.unrecorded_from && pv_thread_has_state(t))
		pv_sigdefer.unrecorded_from = t->signal_depth;
}

void pv_sigdefer_unrecorded_ends(const struct pv_thread *t)
{
	if (pv_sigdefer.unrecorded_from == t->signal_depth)
		pv_sigdefer.unrecorded_from = 0;
}

void pv_sigdefer_count_lost(void)
{
	__atomic_add_fetch(&lost_calls, 1, __ATOMIC_RELAXED);
}

uint64_t pv_sigdefer_lost(void)
{
	return __atomic_load_n(&lost_calls, __ATOMIC_RELAXED);
}

void pv_sigdefer_forget_lost(void)
{
	__atomic_store_n(&lost_calls, 0, __ATOMIC_RELAXED);
}
