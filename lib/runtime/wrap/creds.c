/* SPDX-License-Identifier: MIT */
/*
 * creds.c — libc's calls that change what the process's threads may do:
 * their user and group ids, their capabilities, their namespaces.
 *
 * glibc applies a set*id call to every thread it made, by a signal to
 * each; the sampler's thread is not one of them (sampler.h), and would
 * keep root's ids and capabilities in a process that dropped them, its
 * memory shared with code running as the unprivileged user. And unshare
 * and setns refuse a process another task shares its memory with. So the
 * sampler's thread ends before each of these calls and starts again after
 * it, from the calling thread, whose ids it then takes
 * (pv_runtime_sampler_pause).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/wrap/wrap.h"

/* The body of a wrapper: libc's name(args) with the sampler's thread gone;
 * errno as libc left it. */
#define WITHOUT_SAMPLER(type, name, ...)                                    \
	do {                                                                \
		sigset_t saved;                                             \
		pv_runtime_sampler_pause(&saved, 0);                        \
		int rc = PV_NEXT(type, name)(__VA_ARGS__);                  \
		int err = errno;                                            \
		pv_runtime_sampler_resume(&saved, 0);                       \
		errno = err;                                                \
		return rc;                                                  \
	} while (0)

typedef int id_fn(unsigned);
typedef int id2_fn(unsigned, unsigned);
typedef int id3_fn(unsigned, unsigned, unsigned);
typedef int setgroups_fn(size_t, const gid_t *);
typedef int capset_fn(void *, const void *);
typedef int unshare_fn(int);
typedef int setns_fn(int, int);

PV_EXPORT int setuid(uid_t uid)
{
	WITHOUT_SAMPLER(id_fn, setuid, uid);
}

PV_EXPORT int setgid(gid_t gid)
{
	WITHOUT_SAMPLER(id_fn, setgid, gid);
}

PV_EXPORT int seteuid(uid_t uid)
{
	WITHOUT_SAMPLER(id_fn, seteuid, uid);
}

PV_EXPORT int setegid(gid_t gid)
{
	WITHOUT_SAMPLER(id_fn, setegid, gid);
}

PV_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	WITHOUT_SAMPLER(id2_fn, setreuid, ruid, euid);
}

PV_EXPORT int setregid(gid_t rgid, gid_t egid)
{
	WITHOUT_SAMPLER(id2_fn, setregid, rgid, egid);
}

PV_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	WITHOUT_SAMPLER(id3_fn, setresuid, ruid, euid, suid);
}

PV_EXPORT int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	WITHOUT_SAMPLER(id3_fn, setresgid, rgid, egid, sgid);
}

PV_EXPORT int setgroups(size_t n, const gid_t *groups)
{
	WITHOUT_SAMPLER(setgroups_fn, setgroups, n, groups);
}

/* Capabilities are a thread's own: capset changes only the caller's, and
 * the sampler's, started again from it, takes them. */
int capset(void *header, const void *data);
PV_EXPORT int capset(void *header, const void *data)
{
	WITHOUT_SAMPLER(capset_fn, capset, header, data);
}

PV_EXPORT int unshare(int flags)
{
	WITHOUT_SAMPLER(unshare_fn, unshare, flags);
}

PV_EXPORT int setns(int fd, int type)
{
	WITHOUT_SAMPLER(setns_fn, setns, fd, type);
}
