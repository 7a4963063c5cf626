/* SPDX-License-Identifier: MIT */
/*
 * blocking.c — libc's waits, wrapped so that a profile shows them.
 *
 * Each wrapper runs libc's function between the hooks of a pseudo-function
 * (waits.h), so the time a thread spends blocked is a node of its own under
 * the function that waited, and that function's self is its own work. Only
 * a thread that is profiling records: a process that never runs
 * instrumented code (a shell that inherited LD_PRELOAD) is left alone.
 * Locks are recorded only when contended: a lock taken at once is not a
 * wait. The runtime's own locks are not pthread mutexes (lock.h): they
 * never come here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/sysraw.h"
#include "runtime/cpusamples.h"
#include "runtime/runtime.h"
#include "runtime/sampler.h"
#include "runtime/waits.h"
#include "runtime/waittime.h"
#include "runtime/wrap/wrap.h"

void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

/* When a wait began: CLOCK_MONOTONIC ns in a sampled run, whose hooks read
 * no clock (1 in any other run; 0 if the thread is not profiling), and the
 * thread's CPU clock where it has no ring (else 0): the sampler's looks
 * cannot tell a wait's CPU from the burst before it, so the wait measures
 * it, at two system calls beside its own. */
struct wait_start {
	uint64_t began, cpu;
};

/* Enter the wait's pseudo-function if this thread is profiling. */
static struct wait_start wait_begins(enum pv_wait w)
{
	struct wait_start s = { 0, 0 };
	if (!pv_mode_is_profiling(pv_self->mode))
		return s;
	__cyg_profile_func_enter((void *)&pv_wait_markers[w], NULL);
	s.began = 1;
	if (!pv_runtime_sampled())
		return s;
	pv_wait_entered(pv_self, &pv_wait_markers[w]);
	/* Timed at its hooks (timedstart.h), the wait's CPU is in their span. */
	if (!pv_cpusamples_from_ring(pv_self) && !pv_timed_start_on(&pv_self->timed))
		s.cpu = pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	s.began = pv_monotonic_ns();
	return s;
}

/* Leave it; the hooks keep the wait's errno (and so do the clocks). */
static void wait_ends(struct wait_start s, enum pv_wait w)
{
	if (!s.began)
		return;
	const void *fn = &pv_wait_markers[w];
	struct pv_thread *t = pv_self;
	if (pv_runtime_sampled() && s.began > 1 && pv_thread_has_state(t)) {
		uint64_t blocked = pv_monotonic_ns() - s.began;
		uint64_t cpu = s.cpu ? pv_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
		pv_wait_blocked(t, fn, blocked, cpu > s.cpu ? cpu - s.cpu : 0);
	}
	__cyg_profile_func_exit((void *)fn, NULL);
}

/* The body of a wrapper: libc's name(args) between the wait's hooks. */
#define WAITING(ret_type, type, name, ...)                                  \
	do {                                                                \
		struct wait_start began = wait_begins(PV_WAIT_##name);      \
		ret_type waited = PV_NEXT(type, name)(__VA_ARGS__);         \
		wait_ends(began, PV_WAIT_##name);                           \
		return waited;                                              \
	} while (0)

typedef int cond_wait_fn(pthread_cond_t *, pthread_mutex_t *);
typedef int cond_timedwait_fn(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int cond_clockwait_fn(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
typedef int mutex_fn(pthread_mutex_t *);
typedef int rwlock_fn(pthread_rwlock_t *);
typedef int join_fn(pthread_t, void **);
typedef int sem_wait_fn(sem_t *);
typedef int sem_timedwait_fn(sem_t *, const struct timespec *);
typedef int nanosleep_fn(const struct timespec *, struct timespec *);
typedef int clock_nanosleep_fn(clockid_t, int, const struct timespec *, struct timespec *);
typedef int usleep_fn(useconds_t);
typedef unsigned sleep_fn(unsigned);
typedef int poll_fn(struct pollfd *, nfds_t, int);
typedef int ppoll_fn(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
typedef int select_fn(int, fd_set *, fd_set *, fd_set *, struct timeval *);
typedef int pselect_fn(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		       const sigset_t *);
typedef int epoll_wait_fn(int, struct epoll_event *, int, int);
typedef int epoll_pwait_fn(int, struct epoll_event *, int, int, const sigset_t *);
typedef int accept_fn(int, struct sockaddr *, socklen_t *);
typedef int accept4_fn(int, struct sockaddr *, socklen_t *, int);
typedef ssize_t recv_fn(int, void *, size_t, int);
typedef ssize_t recvfrom_fn(int, void *, size_t, int, struct sockaddr *, socklen_t *);
typedef ssize_t recvmsg_fn(int, struct msghdr *, int);
typedef pid_t waitpid_fn(pid_t, int *, int);
typedef pid_t wait_fn(int *);
typedef int waitid_fn(idtype_t, id_t, siginfo_t *, int);

PV_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	WAITING(int, cond_wait_fn, pthread_cond_wait, c, m);
}

PV_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *at)
{
	WAITING(int, cond_timedwait_fn, pthread_cond_timedwait, c, m, at);
}

PV_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
				     const struct timespec *at)
{
	WAITING(int, cond_clockwait_fn, pthread_cond_clockwait, c, m, clock, at);
}

/* A lock is a wait only when it is held by another: try first. (trylock
 * answers as lock would for the recursive, error-checking and robust kinds;
 * EBUSY leaves it to lock, which then waits or reports as it would have.) */
PV_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int got = PV_NEXT(mutex_fn, pthread_mutex_trylock)(m);
	if (got != EBUSY)
		return got;
	WAITING(int, mutex_fn, pthread_mutex_lock, m);
}

PV_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	int got = PV_NEXT(rwlock_fn, pthread_rwlock_tryrdlock)(l);
	if (got != EBUSY)
		return got;
	WAITING(int, rwlock_fn, pthread_rwlock_rdlock, l);
}

PV_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	int got = PV_NEXT(rwlock_fn, pthread_rwlock_trywrlock)(l);
	if (got != EBUSY)
		return got;
	WAITING(int, rwlock_fn, pthread_rwlock_wrlock, l);
}

PV_EXPORT int pthread_join(pthread_t t, void **ret)
{
	WAITING(int, join_fn, pthread_join, t, ret);
}

PV_EXPORT int sem_wait(sem_t *s)
{
	WAITING(int, sem_wait_fn, sem_wait, s);
}

PV_EXPORT int sem_timedwait(sem_t *s, const struct timespec *at)
{
	WAITING(int, sem_timedwait_fn, sem_timedwait, s, at);
}

PV_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	WAITING(int, nanosleep_fn, nanosleep, req, rem);
}

PV_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			      struct timespec *rem)
{
	WAITING(int, clock_nanosleep_fn, clock_nanosleep, clock, flags, req, rem);
}

PV_EXPORT int usleep(useconds_t us)
{
	WAITING(int, usleep_fn, usleep, us);
}

PV_EXPORT unsigned sleep(unsigned s)
{
	WAITING(unsigned, sleep_fn, sleep, s);
}

PV_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	WAITING(int, poll_fn, poll, fds, n, timeout);
}

PV_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		    const sigset_t *mask)
{
	WAITING(int, ppoll_fn, ppoll, fds, n, timeout, mask);
}

PV_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
	WAITING(int, select_fn, select, n, r, w, e, timeout);
}

PV_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
		      const sigset_t *mask)
{
	WAITING(int, pselect_fn, pselect, n, r, w, e, timeout, mask);
}

PV_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int n, int timeout)
{
	WAITING(int, epoll_wait_fn, epoll_wait, fd, ev, n, timeout);
}

PV_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int n, int timeout,
			  const sigset_t *mask)
{
	WAITING(int, epoll_pwait_fn, epoll_pwait, fd, ev, n, timeout, mask);
}

PV_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	WAITING(int, accept_fn, accept, fd, addr, len);
}

PV_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	WAITING(int, accept4_fn, accept4, fd, addr, len, flags);
}

PV_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	WAITING(ssize_t, recv_fn, recv, fd, buf, n, flags);
}

PV_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
			   socklen_t *len)
{
	WAITING(ssize_t, recvfrom_fn, recvfrom, fd, buf, n, flags, from, len);
}

PV_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	WAITING(ssize_t, recvmsg_fn, recvmsg, fd, msg, flags);
}

PV_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	WAITING(pid_t, waitpid_fn, waitpid, pid, status, options);
}

PV_EXPORT pid_t wait(int *status)
{
	WAITING(pid_t, wait_fn, wait, status);
}

PV_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	WAITING(int, waitid_fn, waitid, type, id, info, options);
}
