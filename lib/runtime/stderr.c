/* SPDX-License-Identifier: MIT */
#include "runtime/stderr.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/fds.h"
#include "runtime/lock.h"

/* The start-up stderr: its identity, and the runtime's copy of it. */
static int had_stderr;
static dev_t stderr_dev;
static ino_t stderr_ino;
static int stderr_copy = -1;
static int detached; /* keeps no copy (pv_stderr_detach) */

static int is_start_stderr(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == stderr_dev && st.st_ino == stderr_ino;
}

/* The descriptor to write to, or -1 when the start-up stderr is gone. */
static int destination(void)
{
	if (!had_stderr)
		return -1;
	/* The program may have closed the copy (the wrappers then release it),
	 * and its number may have been reused since. */
	if (stderr_copy >= 0 && pv_fd_is_ours(stderr_copy) && is_start_stderr(stderr_copy))
		return stderr_copy;
	return is_start_stderr(2) ? 2 : -1;
}

/* Start-up's lines, each with its '\0', until pv_stderr_speak; what does
 * not fit is dropped (start-up says a few short lines). No malloc: the
 * program's allocator may not be ready. */
static char held[16384];
static size_t held_used;
static int holding;

static void to_start_stderr(const char *line)
{
	if (__atomic_load_n(&holding, __ATOMIC_ACQUIRE)) {
		size_t n = strlen(line) + 1;
		if (held_used + n <= sizeof(held)) {
			memcpy(held + held_used, line, n);
			held_used += n;
		}
		return;
	}
	int fd = destination();
	if (fd >= 0)
		pv_log_write_line(fd, line);
}

void pv_stderr_speak(void)
{
	__atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
	for (size_t at = 0; at < held_used; at += strlen(held + at) + 1)
		to_start_stderr(held + at);
	held_used = 0;
}

void pv_stderr_init(void)
{
	struct stat st;
	if (fstat(2, &st) == 0) {
		stderr_dev = st.st_dev;
		stderr_ino = st.st_ino;
		had_stderr = 1;
	}
	holding = 1;
	pv_log_set_sink(to_start_stderr);
}

/* One copy, even if two threads take fd 2 away at once. */
static struct pv_lock copy_lock = PV_LOCK_INITIALIZER;

void pv_stderr_keep(void)
{
	if (!had_stderr || detached || (stderr_copy >= 0 && pv_fd_is_ours(stderr_copy)))
		return;
	int saved_errno = errno; /* the program's call may leave it as it is */
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pv_lock_take(&copy_lock);
	if (!detached && (stderr_copy < 0 || !pv_fd_is_ours(stderr_copy)) && is_start_stderr(2))
		stderr_copy = pv_fd_dup_private(2);
	pv_lock_give(&copy_lock);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = saved_errno;
}

void pv_stderr_detach(void)
{
	int saved_errno = errno;
	sigset_t all, saved, fds_saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pv_lock_take(&copy_lock);
	detached = 1;
	/* Not a number the program has taken since: closed in a section of
	 * the runtime's own (fds.h). */
	if (stderr_copy >= 0 && pv_fds_runtime_begins(1, &fds_saved)) {
		if (pv_fd_is_ours(stderr_copy)) {
			pv_fd_release(stderr_copy);
			pv_sys_close(stderr_copy);
		}
		pv_fds_runtime_ends(&fds_saved);
	}
	stderr_copy = -1;
	pv_lock_give(&copy_lock);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = saved_errno;
}

void pv_stderr_forked(void)
{
	pv_lock_reset(&copy_lock);
}
