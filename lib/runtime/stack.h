/* SPDX-License-Identifier: MIT */
/*
 * stack.h — a thread's shadow stack as memory and frames: reserving it,
 * growing it in place, walking and closing its frames.
 *
 * The thread's own stack and each ucontext's (contexts.c) are made and
 * grown alike, so that whichever is installed in the thread grows and is
 * closed the same way. A stack never moves: an interrupted hook, a signal
 * handler's trampoline and the exit snapshot of a running thread all hold
 * pointers into it. Its address space is reserved once, inaccessible, and
 * pages are made usable from the bottom up as the thread goes deeper.
 */
#ifndef PV_RUNTIME_STACK_H
#define PV_RUNTIME_STACK_H

#include <stddef.h>

#include "runtime/thread.h"

/* n rounded up to whole pages. */
size_t pv_stack_page_round(size_t n);

/* reserved bytes of address space, inaccessible but for the first usable
 * bytes (both whole pages); NULL when either fails. */
struct pv_frame *pv_stack_map(size_t reserved, size_t usable);

/* The last frame of frame_size bytes that fits in bytes from stack: the
 * highest a hook may push onto. */
struct pv_frame *pv_stack_limit_of(struct pv_frame *stack, size_t bytes, size_t frame_size);

/* The bottom frame of a stack: it stands for the code that called in from
 * outside, is never left, and holds the tree's root. */
void pv_stack_set_bottom(struct pv_frame *bottom, struct pv_node *root);

/* Reserve and map t's own stack for frames of t->frame_size. 0, or -1. */
int pv_stack_init(struct pv_thread *t);

/* Twice the installed stack's usable part, in place (within its
 * reservation): no frame moves. 0, or -1. */
int pv_stack_grow(struct pv_thread *t);

/* The frame under f. A signal's frame sits two slots above the frame it
 * interrupted: the slot between belongs to the hook it may have interrupted. */
struct pv_frame *pv_stack_under(const struct pv_thread *t, struct pv_frame *f);

/* Pop the installed stack's frames down to (not including) keep, as if they
 * all returned now. */
void pv_stack_close_down_to(struct pv_thread *t, struct pv_frame *keep);

/* Close every open activation of the installed stack. */
void pv_stack_close(struct pv_thread *t);

#endif /* PV_RUNTIME_STACK_H */
