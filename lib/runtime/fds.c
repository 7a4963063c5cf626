/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/fds.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime/lock.h"
#include "base/sysraw.h"

static uint64_t owned[PV_FDS_MAX / 64];

int pv_fd_claim(int fd)
{
	if (fd < 0 || fd >= PV_FDS_MAX)
		return -1;
	__atomic_or_fetch(&owned[fd / 64], 1ull << (fd % 64), __ATOMIC_SEQ_CST);
	return 0;
}

void pv_fd_release(int fd)
{
	if (fd >= 0 && fd < PV_FDS_MAX)
		__atomic_and_fetch(&owned[fd / 64], ~(1ull << (fd % 64)), __ATOMIC_SEQ_CST);
}

int pv_fd_is_ours(int fd)
{
	if (fd < 0 || fd >= PV_FDS_MAX)
		return 0;
	return (__atomic_load_n(&owned[fd / 64], __ATOMIC_SEQ_CST) >> (fd % 64)) & 1;
}

/* ---- where the runtime's descriptors go ---- */

/* Numbers [lowest, end) for the runtime's descriptors. above: they are past
 * the program's soft limit, so reaching them needs the limit raised. */
struct placement {
	int lowest, end, above;
	long limit;
};

static void place(struct placement *p, struct rlimit *lim)
{
	if (getrlimit(RLIMIT_NOFILE, lim) != 0)
		lim->rlim_cur = lim->rlim_max = 1024;
	rlim_t cap = lim->rlim_max < PV_FDS_MAX ? lim->rlim_max : PV_FDS_MAX;
	rlim_t soft = lim->rlim_cur < PV_FDS_MAX ? lim->rlim_cur : PV_FDS_MAX;
	p->limit = (long)(lim->rlim_cur < PV_FDS_MAX ? lim->rlim_cur : PV_FDS_MAX);
	p->above = soft < cap;
	p->lowest = (int)(p->above ? soft : soft - soft / 8);
	p->end = (int)(p->above ? cap : soft);
}

/* Serialises raising the limit, and keeps a fork from copying it raised. */
static struct pv_lock limit_lock = PV_LOCK_INITIALIZER;

static void lock_limit(void)
{
	pv_lock_take(&limit_lock);
}

static void unlock_limit(void)
{
	pv_lock_give(&limit_lock);
}

/* ---- the program taking descriptors, the runtime making and closing its own ---- */

static struct pv_gate takers = PV_GATE_INITIALIZER;
/* This thread's calls of the program's that take descriptors, entered or
 * about to be (a signal handler may make one inside another), and the
 * runtime sections it is in. */
static __thread unsigned program_calls, runtime_sections;

void pv_fds_program_begins(void)
{
	/* Counted first: a handler that lands while this call waits to enter
	 * neither opens descriptors nor waits for it. A handler's own call
	 * then goes in at once, even while the runtime's side waits for this
	 * thread's outer one (or, rarely, holds the gate). So does a call the
	 * runtime makes itself, inside its own section or holding one of its
	 * locks (a sanitizer's report symbolized in the exit snapshot, a
	 * program's malloc): the runtime's side may be waiting for that lock. */
	int at_once = program_calls++ > 0 || runtime_sections > 0 || pv_lock_held();
	pv_gate_enter_shared(&takers, at_once);
}

void pv_fds_program_ends(void)
{
	pv_gate_leave_shared(&takers);
	program_calls--;
}

int pv_fds_runtime_begins(int wait, sigset_t *saved)
{
	if (program_calls)
		return 0;
	if (runtime_sections) {
		runtime_sections++;
		return 1;
	}
	int saved_errno = errno;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	if (!pv_gate_enter_sole(&takers, wait)) {
		pthread_sigmask(SIG_SETMASK, saved, NULL);
		errno = saved_errno;
		return 0;
	}
	runtime_sections = 1;
	errno = saved_errno;
	return 1;
}

void pv_fds_runtime_ends(const sigset_t *saved)
{
	if (--runtime_sections)
		return;
	int saved_errno = errno;
	pv_gate_leave_sole(&takers);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
	errno = saved_errno;
}

void pv_fds_alone(void)
{
	pv_lock_reset(&limit_lock);
	pv_gate_reset(&takers, program_calls);
}

/* The forking thread took the limit lock before the fork, and is the only
 * one left. */
static void fork_child(void)
{
	unlock_limit();
	pv_gate_reset(&takers, program_calls);
}

void pv_fds_init(void)
{
	pthread_atfork(lock_limit, unlock_limit, fork_child);
}

static int dup_within(int fd, int lowest, int end)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, lowest);
	if (copy >= end) {
		pv_sys_close(copy);
		copy = -1;
	}
	return copy;
}

/* The soft limit is raised for the time of one fcntl. */
static int dup_above_limit(int fd, const struct placement *p, const struct rlimit *lim)
{
	int copy = -1;
	struct rlimit raised = { (rlim_t)p->end, lim->rlim_max }, before, seen;
	if (prlimit(0, RLIMIT_NOFILE, &raised, &before) == 0) {
		if (before.rlim_cur == lim->rlim_cur) /* not changed since place() */
			copy = dup_within(fd, p->lowest, p->end);
		/* Back to the program's limit, or to what the program has set
		 * since, should it have. */
		if (prlimit(0, RLIMIT_NOFILE, &before, &seen) == 0 &&
		    (seen.rlim_cur != raised.rlim_cur || seen.rlim_max != raised.rlim_max))
			prlimit(0, RLIMIT_NOFILE, &seen, NULL);
	}
	return copy;
}

/* Placing and duplicating happen under one lock, with this thread's signals
 * held: another thread placing while the limit is raised would take the
 * raised limit for the program's, and no handler of the program's may run
 * while it is. */
int pv_fd_dup_private(int fd)
{
	int saved_errno = errno;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	lock_limit();
	struct rlimit lim;
	struct placement p;
	place(&p, &lim);
	int copy = p.above ? dup_above_limit(fd, &p, &lim) : -1;
	if (copy < 0 && p.above) { /* the limit could not be raised: into the share */
		p.lowest = (int)(p.limit - p.limit / 8);
		p.end = (int)p.limit;
	}
	if (copy < 0)
		copy = dup_within(fd, p.lowest, p.end);
	unlock_limit();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (copy < 0) {
		errno = EMFILE;
		return -1;
	}
	pv_fd_claim(copy);
	errno = saved_errno;
	return copy;
}

int pv_fds_describe(char *out, size_t size)
{
	struct rlimit lim;
	struct placement p;
	lock_limit();
	place(&p, &lim);
	unlock_limit();
	if (p.above)
		snprintf(out, size, "numbers from %d up, above RLIMIT_NOFILE (%ld)", p.lowest, p.limit);
	else
		snprintf(out, size, "numbers %d-%d, the top eighth of RLIMIT_NOFILE (%ld)", p.lowest,
			 p.end - 1, p.limit);
	return !p.above;
}
