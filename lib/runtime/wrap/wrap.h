/* SPDX-License-Identifier: MIT */
/*
 * wrap.h — libc's own functions behind profviz.so's wrappers, in one table.
 *
 * Each is looked up with dlsym(RTLD_NEXT) once, at start-up (pv_wrap_init):
 * a wrapper may run in a signal handler (close, a wait, a context switch),
 * where dlsym is not safe. One called before start-up (by another preloaded
 * library's constructor, say) is looked up at that first call.
 */
#ifndef PV_WRAP_H
#define PV_WRAP_H

#include <signal.h>

#include "base/compiler.h"
#include "runtime/waits.h"

#define PV_NEXT_FNS(X)                                                                 \
	X(setjmp) X(_setjmp) X(__sigsetjmp) /* in this order: pv_setjmp_noted */        \
	X(longjmp) X(_longjmp) X(siglongjmp) X(__longjmp_chk)                           \
	X(execve) X(execv) X(execvp) X(execvpe) X(fexecve) X(execveat)                  \
	X(_exit) X(_Exit) X(dlclose) X(clone)                                           \
	X(close) X(dup2) X(dup3) X(close_range) X(closefrom)                            \
	X(freopen) X(freopen64) X(daemon) X(setsid)                                     \
	X(setuid) X(setgid) X(seteuid) X(setegid) X(setreuid) X(setregid)               \
	X(setresuid) X(setresgid) X(setgroups) X(capset) X(unshare) X(setns)            \
	X(opendir) X(closedir)                                                          \
	X(sigaction) X(abort)                                                           \
	X(makecontext) X(swapcontext) X(setcontext)                                     \
	X(pthread_mutex_trylock) X(pthread_rwlock_tryrdlock) X(pthread_rwlock_trywrlock) \
	PV_WAITS(X)                                                                     \
	X(__cxa_throw) X(__cxa_rethrow) X(__cxa_begin_catch) /* last: PV_NEXT_CXX_FIRST */

enum pv_next {
#define PV_NEXT_ENUM(name) PV_NEXT_##name,
	PV_NEXT_FNS(PV_NEXT_ENUM)
#undef PV_NEXT_ENUM
	PV_NEXT_COUNT,
	PV_NEXT_CXX_FIRST = PV_NEXT___cxa_throw, /* C++'s runtime's, from here on */
};

/* What runtime.c starts, and the only calls it makes into this folder. */
/* Look up every function of the table, while it is safe to. */
PV_HIDDEN void pv_wrap_init(void);
/* Install the runtime's handlers for fatal signals left at their default
 * (signals.c), when the process is profiled. */
PV_HIDDEN void pv_wrap_catch_fatal_signals(void);
/* Handle sig with the runtime's own handler (PROFVIZ_SIGNAL's, window.h):
 * what the program asks of sig from then on is kept for it to read back,
 * not installed. 0, or -1 with errno. */
PV_HIDDEN int pv_wrap_take_signal(int sig, void (*handler)(int, siginfo_t *, void *));
/* Give sig back to the program (a forked child, which has no windows):
 * what it asked of sig installed as any sigaction is. */
PV_HIDDEN void pv_wrap_give_back_signal(int sig);

/* libc's function which; never NULL: a libc without the function the
 * program has just called ends the process as abort() would. */
PV_HIDDEN void *pv_next_fn(enum pv_next which);

#define PV_NEXT(type, name) ((type *)pv_next_fn(PV_NEXT_##name))

#endif /* PV_WRAP_H */
