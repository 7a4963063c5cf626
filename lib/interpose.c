/*
 * interpose.c — libc functions the runtime must see happen.
 *
 * Each wrapper notes what the shadow stack needs to know, then calls libc's
 * own function found with dlsym(RTLD_NEXT), so the program's behaviour is
 * unchanged.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <linux/close_range.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "fds.h"
#include "runtime.h"

/* A longjmp abandons frames whose exit hooks will never run: make this
 * thread's next hook resynchronise its shadow stack with the machine's. */
static void note_longjmp(void)
{
	struct pv_thread *t = pv_self;
	if (t->mode == PV_MODE_CLOCK || t->mode == PV_MODE_GENERIC) {
		t->jumped = 1;
		t->mode = PV_MODE_JUMPED;
	} else if (t->mode == PV_MODE_JUMPED) {
		t->jumped = 1;
	}
}

typedef void jump_fn(struct __jmp_buf_tag *, int);

static jump_fn *next_fn(jump_fn **cache, const char *name)
{
	if (!*cache)
		*cache = (jump_fn *)dlsym(RTLD_NEXT, name);
	if (!*cache)
		abort(); /* no libc longjmp: nothing sane is left to do */
	return *cache;
}

#define PV_JUMP_WRAPPER(name)                                                     \
	PV_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                         \
		static jump_fn *real;                                             \
		note_longjmp();                                                   \
		next_fn(&real, #name)(env, val);                                  \
		__builtin_unreachable();                                          \
	}

PV_JUMP_WRAPPER(longjmp)
PV_JUMP_WRAPPER(_longjmp)
PV_JUMP_WRAPPER(siglongjmp)
PV_JUMP_WRAPPER(__longjmp_chk)

/* ---- exec: write the profile of the image that is about to be replaced ---- */

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);

#define PV_NEXT(type, name) ((type *)next_symbol(#name))

static void *next_symbol(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f)
		abort(); /* libc without the function the program just called */
	return f;
}

PV_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	pv_runtime_before_exec();
	return PV_NEXT(execve_fn, execve)(path, argv, envp);
}

PV_EXPORT int execv(const char *path, char *const argv[])
{
	pv_runtime_before_exec();
	return PV_NEXT(execv_fn, execv)(path, argv);
}

PV_EXPORT int execvp(const char *file, char *const argv[])
{
	pv_runtime_before_exec();
	return PV_NEXT(execv_fn, execvp)(file, argv);
}

PV_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	pv_runtime_before_exec();
	return PV_NEXT(execve_fn, execvpe)(file, argv, envp);
}

PV_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	pv_runtime_before_exec();
	return PV_NEXT(fexecve_fn, fexecve)(fd, argv, envp);
}

PV_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	pv_runtime_before_exec();
	return PV_NEXT(execveat_fn, execveat)(dirfd, path, argv, envp, flags);
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

/* ---- dlclose: keep the names of what is about to be unmapped ---- */

typedef int dlclose_fn(void *);

PV_EXPORT int dlclose(void *handle)
{
	pv_runtime_module_closing(handle);
	return PV_NEXT(dlclose_fn, dlclose)(handle);
}

/* ---- descriptors: the program may take back any number, ours included ---- */

typedef int close_fn(int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef void closefrom_fn(int);

PV_EXPORT int close(int fd)
{
	static close_fn *real;
	if (!real)
		real = PV_NEXT(close_fn, close);
	if (unlikely(pv_fd_is_ours(fd)))
		pv_runtime_fds_taken((unsigned)fd, (unsigned)fd);
	return real(fd);
}

PV_EXPORT int dup2(int oldfd, int newfd)
{
	if (unlikely(pv_fd_is_ours(newfd)) && oldfd != newfd)
		pv_runtime_fds_taken((unsigned)newfd, (unsigned)newfd);
	return PV_NEXT(dup2_fn, dup2)(oldfd, newfd);
}

PV_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (unlikely(pv_fd_is_ours(newfd)) && oldfd != newfd)
		pv_runtime_fds_taken((unsigned)newfd, (unsigned)newfd);
	return PV_NEXT(dup3_fn, dup3)(oldfd, newfd, flags);
}

PV_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		pv_runtime_fds_taken(first, last);
	return PV_NEXT(close_range_fn, close_range)(first, last, flags);
}

PV_EXPORT void closefrom(int lowfd)
{
	pv_runtime_fds_taken(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u);
	PV_NEXT(closefrom_fn, closefrom)(lowfd);
}
