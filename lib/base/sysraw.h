/* SPDX-License-Identifier: MIT */
/*
 * sysraw.h — system calls the runtime makes for itself, straight to the
 * kernel. profviz.so wraps libc's close, nanosleep, clock_nanosleep and
 * abort (interpose.c, blocking.c, signals.c): the runtime calling them by
 * name would bind to its own wrappers, record waits of its own as the
 * program's and write a profile on its way out. errno may change.
 */
#ifndef PV_SYSRAW_H
#define PV_SYSRAW_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* close(2) of a descriptor the runtime opened itself. */
static inline int pv_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

/* clock_nanosleep(2) without the time left: 0, or -1 with errno (EINTR). */
static inline int pv_sys_sleep(clockid_t clock, int flags, const struct timespec *t)
{
	return (int)syscall(SYS_clock_nanosleep, clock, flags, t, NULL);
}

/* clock_gettime(2) in ns, through the system call: nothing of libc's
 * state (the sampler's thread runs none of it); 0 if it fails. errno is
 * kept: the program's threads read their CPU clocks with it, where a
 * seccomp filter may answer with one. */
static inline uint64_t pv_sys_clock_ns(clockid_t clock)
{
	struct timespec ts;
	int saved = errno;
	long rc = syscall(SYS_clock_gettime, clock, &ts);
	errno = saved;
	if (rc != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's id, and its process's: from the kernel, not libc's
 * cache (a vfork child or a raw clone shares the parent's). */
static inline pid_t pv_sys_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline pid_t pv_sys_getpid(void)
{
	return (pid_t)syscall(SYS_getpid);
}

/* Send sig to the calling thread, as raise() does. */
static inline void pv_sys_raise(int sig)
{
	syscall(SYS_tgkill, pv_sys_getpid(), pv_sys_gettid(), sig);
}

/* The runtime cannot go on: SIGABRT, as abort() would (without its
 * wrapper's profile), and a trap should the program handle or block it. */
static inline __attribute__((noreturn)) void pv_sys_abort(void)
{
	pv_sys_raise(SIGABRT);
	__builtin_trap();
}

#endif /* PV_SYSRAW_H */
