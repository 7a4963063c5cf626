/* SPDX-License-Identifier: MIT */
/*
 * interpose.c — libc functions the runtime must see happen.
 *
 * Each wrapper notes what the shadow stack needs to know, then calls libc's
 * own function (wrap.h), so the program's behaviour is unchanged.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/close_range.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/fds.h"
#include "runtime/runtime.h"
#include "runtime/stderr.h"
#include "runtime/wrap/wrap.h"

/* ---- setjmp and longjmp: each longjmp lands where its setjmp was called ---- */

/* setjmp, _setjmp and __sigsetjmp (which: 0, 1, 2) are entered in
 * returns_twice.S. It calls this with the caller's stack pointer, then
 * jumps to libc's function returned here with the registers and return
 * address as the program left them, so that setjmp saves the program's. */
PV_HIDDEN void *pv_setjmp_noted(void *env, uintptr_t caller_sp, int which)
{
	pv_thread_note_setjmp(pv_self, env, caller_sp);
	return pv_next_fn((enum pv_next)(PV_NEXT_setjmp + which));
}

typedef void jump_fn(struct __jmp_buf_tag *, int);

#define PV_JUMP_WRAPPER(name)                                                     \
	PV_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                         \
		pv_thread_longjmp(pv_self, env, pv_arch_stack_pointer());         \
		PV_NEXT(jump_fn, name)(env, val);                                 \
		__builtin_unreachable();                                          \
	}

PV_JUMP_WRAPPER(longjmp)
PV_JUMP_WRAPPER(_longjmp)
PV_JUMP_WRAPPER(siglongjmp)
PV_JUMP_WRAPPER(__longjmp_chk)

/* ---- vfork: the child borrows the parent's memory, profile included ---- */

/* What the hooks of a vfork child find: a thread the runtime never writes
 * and whose hooks record nothing. */
static struct pv_thread vfork_child = { .mode = PV_MODE_OFF };

/* vfork in returns_twice.S: before the system call, this thread's hooks are
 * pointed at vfork_child (what the child runs with: it shares this TLS);
 * the parent, resumed, gets its own back with vfork's result. */
PV_HIDDEN struct pv_thread *pv_vfork_begins(void)
{
	struct pv_thread *parent = pv_self;
	pv_self = &vfork_child;
	return parent;
}

PV_HIDDEN long pv_vfork_ended(long result, struct pv_thread *parent)
{
	pv_self = parent;
	if ((unsigned long)result > -4096UL) {
		errno = (int)-result;
		return -1;
	}
	return result;
}

/* ---- clone: a child that runs with this thread's TLS ---- */

typedef int clone_fn(int (*)(void *), void *, int, void *, ...);

/* The program's clone (pthread_create and posix_spawn call one of glibc's
 * own). A child made with CLONE_VM and without CLONE_SETTLS runs with this
 * thread's TLS, pv_self included. Under CLONE_VFORK this thread waits till
 * the child execs or ends, and the child's hooks find vfork_child, as a
 * vfork child's do; without it, both run at once, and this thread records
 * nothing more (thread.h). The optional arguments are passed on as read:
 * libc's clone reads them whatever the flags. */
PV_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	pid_t *parent_tid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *child_tid = va_arg(ap, pid_t *);
	va_end(ap);
	clone_fn *next = PV_NEXT(clone_fn, clone);
	if (!(flags & CLONE_VM) || (flags & CLONE_SETTLS))
		return next(fn, stack, flags, arg, parent_tid, tls, child_tid);
	if (!(flags & CLONE_VFORK)) {
		struct pv_tls_share share;
		pv_runtime_tls_shared(&share);
		int pid = next(fn, stack, flags, arg, parent_tid, tls, child_tid);
		if (pid < 0) {
			int saved_errno = errno;
			pv_runtime_tls_unshared(&share);
			errno = saved_errno;
		}
		return pid;
	}
	struct pv_thread *parent = pv_vfork_begins();
	int pid = next(fn, stack, flags, arg, parent_tid, tls, child_tid);
	pv_self = parent;
	return pid;
}

/* ---- exec: write the profile of the image that is about to be replaced ---- */

/* Each attempt writes the image's files, and one that returns takes them
 * back: the image was not replaced, and its exit writes the whole profile. */

/* Whether an exec of path (from dirfd) plainly cannot start, nothing being
 * there by that name: then it is not written at all (a shell-like search
 * through PATH tries many such names). Only absence is trusted: whether a
 * file that is there executes, access() cannot tell for sure (ENOEXEC,
 * E2BIG, ETXTBSY). */
static int exec_finds_nothing(int dirfd, const char *path)
{
	int saved_errno = errno;
	int missing = path && path[0] && faccessat(dirfd, path, F_OK, 0) != 0 &&
		      (errno == ENOENT || errno == ENOTDIR);
	errno = saved_errno;
	return missing;
}

/* The same for execvp and execvpe, which look up a name without a slash in
 * PATH (an empty entry is the working directory), as glibc does. */
static int execvp_finds_nothing(const char *file)
{
	const char *dirs = getenv("PATH");
	if (!file || strchr(file, '/'))
		return exec_finds_nothing(AT_FDCWD, file);
	if (!dirs || !file[0])
		return 0; /* glibc's default PATH has changed over versions */
	size_t len = strlen(file);
	for (const char *dir = dirs;; dir++) {
		const char *end = strchrnul(dir, ':');
		size_t n = (size_t)(end - dir);
		char path[PATH_MAX];
		if (n + 1 + len >= sizeof(path))
			return 0;
		memcpy(path, dir, n);
		if (n)
			path[n++] = '/';
		memcpy(path + n, file, len + 1);
		if (!exec_finds_nothing(AT_FDCWD, path))
			return 0;
		if (!*end)
			return 1;
		dir = end;
	}
}

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);

PV_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int n = exec_finds_nothing(AT_FDCWD, path) ? 0 : pv_runtime_before_exec();
	int rc = PV_NEXT(execve_fn, execve)(path, argv, envp);
	pv_runtime_exec_failed(n);
	return rc;
}

PV_EXPORT int execv(const char *path, char *const argv[])
{
	int n = exec_finds_nothing(AT_FDCWD, path) ? 0 : pv_runtime_before_exec();
	int rc = PV_NEXT(execv_fn, execv)(path, argv);
	pv_runtime_exec_failed(n);
	return rc;
}

PV_EXPORT int execvp(const char *file, char *const argv[])
{
	int n = execvp_finds_nothing(file) ? 0 : pv_runtime_before_exec();
	int rc = PV_NEXT(execv_fn, execvp)(file, argv);
	pv_runtime_exec_failed(n);
	return rc;
}

PV_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int n = execvp_finds_nothing(file) ? 0 : pv_runtime_before_exec();
	int rc = PV_NEXT(execve_fn, execvpe)(file, argv, envp);
	pv_runtime_exec_failed(n);
	return rc;
}

PV_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int n = pv_runtime_before_exec();
	int rc = PV_NEXT(fexecve_fn, fexecve)(fd, argv, envp);
	pv_runtime_exec_failed(n);
	return rc;
}

PV_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	int n = exec_finds_nothing(dirfd, path) ? 0 : pv_runtime_before_exec();
	int rc = PV_NEXT(execveat_fn, execveat)(dirfd, path, argv, envp, flags);
	pv_runtime_exec_failed(n);
	return rc;
}

/* The execl family passes arguments inline: gather them, then use the above. */
#define PV_GATHER_ARGS(first, ap, argv, extra)                                    \
	size_t n = 1;                                                             \
	va_start(ap, first);                                                      \
	while (va_arg(ap, char *))                                                \
		n++;                                                              \
	va_end(ap);                                                               \
	char **argv = alloca((n + 1) * sizeof(char *));                           \
	va_start(ap, first);                                                      \
	argv[0] = (char *)(first);                                                \
	for (size_t i = 1; i <= n; i++)                                           \
		argv[i] = va_arg(ap, char *);                                     \
	extra;                                                                    \
	va_end(ap)

PV_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	PV_GATHER_ARGS(arg, ap, argv, (void)0);
	return execv(path, argv);
}

PV_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	PV_GATHER_ARGS(arg, ap, argv, (void)0);
	return execvp(file, argv);
}

PV_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **envp;
	PV_GATHER_ARGS(arg, ap, argv, envp = va_arg(ap, char **));
	return execve(path, argv, envp);
}

/* ---- exits that skip atexit handlers and destructors ---- */

typedef void exit_fn(int);

PV_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	pv_runtime_exit_now();
	PV_NEXT(exit_fn, _exit)(status);
	__builtin_unreachable();
}

PV_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	pv_runtime_exit_now();
	PV_NEXT(exit_fn, _Exit)(status);
	__builtin_unreachable();
}

/* ---- dlclose: the functions of an unloaded object keep their names ---- */

typedef int dlclose_fn(void *);

PV_EXPORT int dlclose(void *handle)
{
	void *closing = pv_runtime_module_closing(handle);
	int rc = PV_NEXT(dlclose_fn, dlclose)(handle);
	pv_runtime_module_closed(closing);
	return rc;
}

/* ---- descriptors: the program may take back any number, ours included ---- */

typedef int close_fn(int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef void closefrom_fn(int);

/* Each runs whole inside pv_fds_program_begins/ends: the runtime opens and
 * closes its own descriptors only between such calls (fds.h). One that
 * takes fd 2 away keeps a copy of the start-up stderr first, for the
 * runtime's messages (stderr.h); not in a vfork child, whose descriptors
 * are its own but whose memory is its parent's. */

static void keep_stderr(unsigned first, unsigned last)
{
	if (first <= 2 && last >= 2 && pv_self != &vfork_child)
		pv_stderr_keep();
}

PV_EXPORT int close(int fd)
{
	pv_fds_program_begins();
	if (unlikely(fd == 2))
		keep_stderr(2, 2);
	if (unlikely(pv_fd_is_ours(fd)))
		pv_runtime_fds_taken((unsigned)fd, (unsigned)fd);
	int rc = PV_NEXT(close_fn, close)(fd);
	pv_fds_program_ends();
	return rc;
}

PV_EXPORT int dup2(int oldfd, int newfd)
{
	pv_fds_program_begins();
	if (unlikely(newfd == 2) && oldfd != newfd)
		keep_stderr(2, 2);
	if (unlikely(pv_fd_is_ours(newfd)) && oldfd != newfd)
		pv_runtime_fds_taken((unsigned)newfd, (unsigned)newfd);
	int rc = PV_NEXT(dup2_fn, dup2)(oldfd, newfd);
	pv_fds_program_ends();
	return rc;
}

PV_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	pv_fds_program_begins();
	if (unlikely(newfd == 2) && oldfd != newfd)
		keep_stderr(2, 2);
	if (unlikely(pv_fd_is_ours(newfd)) && oldfd != newfd)
		pv_runtime_fds_taken((unsigned)newfd, (unsigned)newfd);
	int rc = PV_NEXT(dup3_fn, dup3)(oldfd, newfd, flags);
	pv_fds_program_ends();
	return rc;
}

PV_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	pv_fds_program_begins();
	if (!(flags & CLOSE_RANGE_CLOEXEC)) {
		keep_stderr(first, last);
		pv_runtime_fds_taken(first, last);
	}
	int rc = PV_NEXT(close_range_fn, close_range)(first, last, flags);
	pv_fds_program_ends();
	return rc;
}

PV_EXPORT void closefrom(int lowfd)
{
	pv_fds_program_begins();
	keep_stderr(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u);
	pv_runtime_fds_taken(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u);
	PV_NEXT(closefrom_fn, closefrom)(lowfd);
	pv_fds_program_ends();
}

/* These take fd 2 away inside libc, past the wrappers above. */

typedef FILE *freopen_fn(const char *, const char *, FILE *);
typedef int daemon_fn(int, int);
typedef pid_t setsid_fn(void);

PV_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	if (stream == stderr)
		keep_stderr(2, 2);
	return PV_NEXT(freopen_fn, freopen)(path, mode, stream);
}

PV_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	if (stream == stderr)
		keep_stderr(2, 2);
	return PV_NEXT(freopen_fn, freopen64)(path, mode, stream);
}

/* A daemon holds no copy of its starter's stderr (stderr.h); daemon()
 * starts a new session inside libc, past setsid's wrapper. */
PV_EXPORT int daemon(int nochdir, int noclose)
{
	pv_stderr_detach();
	return PV_NEXT(daemon_fn, daemon)(nochdir, noclose);
}

PV_EXPORT pid_t setsid(void)
{
	pid_t sid = PV_NEXT(setsid_fn, setsid)();
	if (sid >= 0 && pv_self != &vfork_child) /* a vfork child's memory is its parent's */
		pv_stderr_detach();
	return sid;
}
