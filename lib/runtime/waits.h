/* SPDX-License-Identifier: MIT */
/*
 * waits.h — the waits in libc that the runtime sees (blocking.c wraps
 * them), each a pseudo-function of its own in the profile.
 *
 * A program blocked in pthread_cond_wait is not working: its wait runs
 * under an edge to fn = &pv_wait_markers[w] from the function that waited,
 * which reads "<blocked: pthread_cond_wait>" in the outputs, so that
 * function's self is its own work.
 */
#ifndef PV_WAITS_H
#define PV_WAITS_H

#define PV_WAITS(X)                                                                   \
	X(pthread_cond_wait) X(pthread_cond_timedwait) X(pthread_cond_clockwait)      \
	X(pthread_mutex_lock) X(pthread_rwlock_rdlock) X(pthread_rwlock_wrlock)       \
	X(pthread_join) X(sem_wait) X(sem_timedwait) X(nanosleep) X(clock_nanosleep) \
	X(usleep) X(sleep) X(poll) X(ppoll) X(select) X(pselect) X(epoll_wait)        \
	X(epoll_pwait) X(accept) X(accept4) X(recv) X(recvfrom) X(recvmsg) X(waitpid) \
	X(wait) X(waitid)

enum pv_wait {
#define PV_WAIT_ENUM(name) PV_WAIT_##name,
	PV_WAITS(PV_WAIT_ENUM)
#undef PV_WAIT_ENUM
	PV_WAIT_COUNT
};

extern const char pv_wait_markers[PV_WAIT_COUNT];

/* The libc function fn stands for, if it is a wait's marker; else NULL. */
const char *pv_wait_name(const void *fn);

#endif /* PV_WAITS_H */
