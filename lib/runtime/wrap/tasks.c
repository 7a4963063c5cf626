/* SPDX-License-Identifier: MIT */
/*
 * tasks.c — a program that lists its own tasks.
 *
 * A program that signals every task in /proc/self/task and waits for each
 * to answer (crash reporters, "dump every stack" commands) would wait for
 * the sampler's thread, which blocks every signal, for ever. So while the
 * program holds a listing of its own tasks open (opendir), the sampler's
 * thread does not exist, and the one started again once the last listing
 * is closed is in none. A listing read with raw system calls is not seen
 * (README).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/wrap/wrap.h"

#define LISTINGS 8
static DIR *listings[LISTINGS]; /* the open listings of our tasks (under the gate) */

/* Is path /proc/self/task or /proc/<this process>/task (a slash after)? */
static int our_tasks(const char *path)
{
	static const char proc[] = "/proc/";
	if (!path || strncmp(path, proc, sizeof(proc) - 1))
		return 0;
	const char *p = path + sizeof(proc) - 1;
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	size_t n = strlen(pid);
	if (!strncmp(p, "self/", 5))
		p += 5;
	else if (!strncmp(p, pid, n) && p[n] == '/')
		p += n + 1;
	else
		return 0;
	return !strcmp(p, "task") || !strcmp(p, "task/");
}

typedef DIR *opendir_fn(const char *);
typedef int closedir_fn(DIR *);

PV_EXPORT DIR *opendir(const char *path)
{
	if (!our_tasks(path))
		return PV_NEXT(opendir_fn, opendir)(path);
	sigset_t saved;
	pv_runtime_sampler_pause(&saved, 1);
	DIR *d = PV_NEXT(opendir_fn, opendir)(path);
	int err = errno;
	unsigned slot = 0;
	while (d && slot < LISTINGS && listings[slot])
		slot++;
	if (d && slot < LISTINGS) {
		listings[slot] = d; /* held off until it is closed */
		pv_runtime_sampler_let_go(&saved);
	} else {
		pv_runtime_sampler_resume(&saved, 1);
	}
	errno = err;
	return d;
}

PV_EXPORT int closedir(DIR *d)
{
	int rc = PV_NEXT(closedir_fn, closedir)(d);
	int err = errno;
	for (unsigned slot = 0; slot < LISTINGS; slot++) {
		if (__atomic_load_n(&listings[slot], __ATOMIC_RELAXED) != d)
			continue;
		sigset_t saved;
		pv_runtime_sampler_pause(&saved, 0);
		if (listings[slot] == d) {
			listings[slot] = NULL;
			pv_runtime_sampler_resume(&saved, 1);
		} else {
			pv_runtime_sampler_resume(&saved, 0);
		}
		break;
	}
	errno = err;
	return rc;
}
