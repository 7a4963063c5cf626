/* SPDX-License-Identifier: MIT */
/*
 * ucontext.c — the libc context switches, seen by the shadow stacks.
 *
 * makecontext, swapcontext and setcontext tell contexts.c which context is
 * left and which entered, then call libc's own. getcontext is not wrapped: it
 * returns twice, and a wrapper's frame would be gone the second time; a
 * context it saved is unknown to contexts.c, which treats entering it as a
 * longjmp.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <ucontext.h>

#include "runtime/contexts.h"
#include "runtime/runtime.h"
#include "runtime/wrap/wrap.h"

typedef void makecontext_fn(ucontext_t *, void (*)(void), int, ...);
typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);
typedef int setcontext_fn(const ucontext_t *);

#define PV_NEXT_CONTEXT(name) PV_NEXT(name##_fn, name)

/* Arguments makecontext forwards: libc takes any number, the wrapper this
 * many (read as libc reads them, a register's width each). */
#define PV_CONTEXT_ARGS 16
/* A made context starts in context_start, which gets the context and its
 * function before the program's arguments: these many fit in registers. */
#define PV_START_ARGS 4

typedef void start_fn(unsigned long, unsigned long, unsigned long, unsigned long);

/* The bottom of a made context's machine stack: runs the program's
 * function, then tells contexts.c that the context ends (libc then resumes
 * uc_link, or exits the thread without one). */
static void context_start(unsigned long ucp, unsigned long func, unsigned long a0,
			  unsigned long a1, unsigned long a2, unsigned long a3)
{
	((start_fn *)(uintptr_t)func)(a0, a1, a2, a3);
	pv_contexts_finished(pv_self, (const void *)(uintptr_t)ucp);
}

PV_EXPORT void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...)
{
	unsigned long a[PV_CONTEXT_ARGS] = { 0 };
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc && i < PV_CONTEXT_ARGS; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (argc >= 0 && argc <= PV_START_ARGS && pv_contexts_made(pv_self, ucp, ucp->uc_link) == 0) {
		PV_NEXT_CONTEXT(makecontext)(ucp, (void (*)(void))context_start, argc + 2,
				     (unsigned long)(uintptr_t)ucp, (unsigned long)(uintptr_t)func,
				     a[0], a[1], a[2], a[3]);
		return;
	}
	/* Not followed: entering it will look like a longjmp. */
	PV_NEXT_CONTEXT(makecontext)(ucp, func, argc, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
			     a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
}

PV_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	int switched = pv_contexts_swap(pv_self, oucp, ucp);
	int r = PV_NEXT_CONTEXT(swapcontext)(oucp, ucp);
	if (r != 0 && switched) { /* still here: undo */
		int e = errno;
		pv_contexts_swap(pv_self, ucp, oucp);
		errno = e;
	}
	return r;
}

PV_EXPORT int setcontext(const ucontext_t *ucp)
{
	pv_contexts_set(pv_self, ucp);
	return PV_NEXT_CONTEXT(setcontext)(ucp);
}
