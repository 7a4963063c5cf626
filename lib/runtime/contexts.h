/* SPDX-License-Identifier: MIT */
/*
 * contexts.h — a shadow stack per ucontext (makecontext/swapcontext coroutines).
 *
 * A thread has one shadow stack installed (struct pv_thread's stack, top,
 * stack_limit), the one of the machine stack it runs on. When the program
 * switches contexts, the installed shadow stack is saved under the context
 * being left (the ucontext_t's address) and the one saved under the context
 * being entered is installed, so the hooks never see a move between machine
 * stacks. A context made by makecontext starts with a fresh shadow stack whose
 * bottom is the root: a coroutine's function is an entry point of the thread,
 * like a thread's start routine. A context the thread does not know (saved
 * by getcontext, made or saved on another thread, or more than the table
 * holds: PV_CONTEXT_MAX at once, counted in the profile's losses) is
 * entered the old way: the shadow stack stays and the next hook
 * resynchronises it, as after a longjmp.
 *
 * Each thread's table is its own (no lock): only the owning thread switches
 * its contexts, except at exit and fork, when the thread is stopped or gone.
 */
#ifndef PV_CONTEXTS_H
#define PV_CONTEXTS_H

#include "runtime/thread.h"

/* makecontext(ucp, ...) ran on t: ucp starts afresh, ending in link. 0, or -1
 * when the table is full or memory ran out (ucp is then unknown). */
int pv_contexts_made(struct pv_thread *t, const void *ucp, const void *link);

/* swapcontext(oucp, ucp) is about to run on t: 1 if t's shadow stack was
 * switched (undo with the same call, arguments swapped, if it then fails),
 * 0 if ucp is unknown and the thread resynchronises as after a longjmp. */
int pv_contexts_swap(struct pv_thread *t, const void *oucp, const void *ucp);

/* setcontext(ucp) is about to run on t: the context left is abandoned. */
void pv_contexts_set(struct pv_thread *t, const void *ucp);

/* The function of context ucp (made by makecontext) returned: its context
 * ends and libc resumes its link. */
void pv_contexts_finished(struct pv_thread *t, const void *ucp);

/* For thread.c: close the frames of every suspended context as if they
 * returned now; restart them from now; free everything at the thread's end. */
void pv_contexts_close_suspended(struct pv_thread *t);
void pv_contexts_restart(struct pv_thread *t, const uint64_t *now);
void pv_contexts_release(struct pv_thread *t);

#endif /* PV_CONTEXTS_H */
