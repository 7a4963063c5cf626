/* SPDX-License-Identifier: MIT */
/*
 * contexts.c — the shadow stacks of a thread's ucontexts (see contexts.h).
 */
#define _GNU_SOURCE
#include "runtime/guard.h"
#include "runtime/contexts.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/compiler.h"
#include "runtime/stack.h"

#define PV_CONTEXT_SLOTS 4096 /* a power of two */
#define PV_CONTEXT_MAX (PV_CONTEXT_SLOTS / 4 * 3)
#define PV_CONTEXT_STACK_FRAMES 4096     /* usable at first */
#define PV_CONTEXT_RESERVE_FRAMES 262144 /* address space held: how deep it may grow */
#define PV_CONTEXT_SPARES 16 /* stacks of ended contexts kept for new ones */

/* A shadow stack, with what says which context it belongs to. */
struct pv_shadow {
	struct pv_frame *stack, *top, *limit;
	size_t bytes;    /* usable */
	size_t reserved; /* address space held (stack.c grows within it) */
	const void *owner; /* the ucontext makecontext made it for; NULL: the thread's own */
	const void *link;  /* that context's uc_link, resumed when its function returns */
	int jumped;        /* a longjmp left frames on it: resynchronise when resumed */
};

struct pv_context {
	const void *key; /* the ucontext_t it is saved under; NULL: a free slot */
	struct pv_shadow shadow;
};

struct pv_contexts {
	const void *owner, *link; /* of the installed shadow stack */
	unsigned count;
	unsigned spares;
	struct {
		struct pv_frame *stack;
		size_t bytes, reserved;
	} spare[PV_CONTEXT_SPARES];
	struct pv_context slot[PV_CONTEXT_SLOTS]; /* open addressing, linear probing */
};

/* ---- a context's shadow stack: reserved and grown as the thread's own
 * (stack.c), so that growth and release apply to whichever is installed:
 * each carries its reservation, installed as t->stack_reserved. ---- */

/* Address space reserved inaccessible, its first part usable: stack.c
 * grows a stack in place within its reservation, whichever is installed. */
static struct pv_frame *shadow_stack_map(size_t frame_size, size_t *bytes, size_t *reserved)
{
	*reserved = pv_stack_page_round((size_t)PV_CONTEXT_RESERVE_FRAMES * frame_size);
	*bytes = pv_stack_page_round((size_t)PV_CONTEXT_STACK_FRAMES * frame_size);
	/* Under a limit on address space, a small share of it per context (a
	 * program may make thousands), so that its own mappings still fit. */
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
		size_t share = pv_stack_page_round(as.rlim_cur / 4096);
		if (share < *reserved)
			*reserved = share > *bytes ? share : *bytes;
	}
	return pv_stack_map(*reserved, *bytes);
}

static void shadow_stack_unmap(struct pv_frame *stack, size_t reserved)
{
	munmap(stack, reserved);
}

static struct pv_contexts *contexts_of(struct pv_thread *t)
{
	if (!t->contexts) {
		void *m = mmap(NULL, sizeof(struct pv_contexts), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			t->contexts = m; /* zeroed: the thread's own stack is installed */
	}
	return t->contexts;
}

/* A fresh shadow stack whose bottom frame, never left, holds the root. */
static int fresh_shadow(struct pv_thread *t, struct pv_contexts *cx, struct pv_shadow *s)
{
	if (cx->spares) {
		cx->spares--;
		s->stack = cx->spare[cx->spares].stack;
		s->bytes = cx->spare[cx->spares].bytes;
		s->reserved = cx->spare[cx->spares].reserved;
	} else {
		s->stack = shadow_stack_map(t->frame_size, &s->bytes, &s->reserved);
		if (!s->stack)
			return -1;
	}
	s->limit = pv_stack_limit_of(s->stack, s->bytes, t->frame_size);
	s->top = s->stack;
	pv_stack_set_bottom(s->top, t->cct.root);
	s->owner = s->link = NULL;
	s->jumped = 0;
	return 0;
}

static void drop_stack(struct pv_contexts *cx, struct pv_frame *stack, size_t bytes,
		       size_t reserved)
{
	if (cx->spares < PV_CONTEXT_SPARES) {
		cx->spare[cx->spares].stack = stack;
		cx->spare[cx->spares].bytes = bytes;
		cx->spare[cx->spares].reserved = reserved;
		cx->spares++;
	} else {
		shadow_stack_unmap(stack, reserved);
	}
}

/* ---- the table: ucontext address -> saved shadow stack ---- */

static unsigned home_slot(const void *key)
{
	uint64_t h = (uint64_t)((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 40) & (PV_CONTEXT_SLOTS - 1);
}

static int find_slot(const struct pv_contexts *cx, const void *key)
{
	if (!key)
		return -1;
	for (unsigned i = home_slot(key);; i = (i + 1) & (PV_CONTEXT_SLOTS - 1)) {
		if (cx->slot[i].key == key)
			return (int)i;
		if (!cx->slot[i].key)
			return -1;
	}
}

/* Free slot i, moving back the entries the probe sequence would lose. */
static void remove_slot(struct pv_contexts *cx, unsigned i)
{
	unsigned mask = PV_CONTEXT_SLOTS - 1;
	for (unsigned j = (i + 1) & mask; cx->slot[j].key; j = (j + 1) & mask) {
		unsigned home = home_slot(cx->slot[j].key);
		/* j's entry may fill i if its home is not cyclically within (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			cx->slot[i] = cx->slot[j];
			i = j;
		}
	}
	cx->slot[i].key = NULL;
	cx->count--;
}

/* Caller checked that key is absent and that there is room. */
static void insert_slot(struct pv_contexts *cx, const void *key, const struct pv_shadow *s)
{
	unsigned i = home_slot(key);
	while (cx->slot[i].key)
		i = (i + 1) & (PV_CONTEXT_SLOTS - 1);
	cx->slot[i].key = key;
	cx->slot[i].shadow = *s;
	cx->count++;
}

/* ---- the installed shadow stack ---- */

static void capture(const struct pv_thread *t, const struct pv_contexts *cx, int jumped,
		    struct pv_shadow *s)
{
	s->stack = t->stack;
	s->top = t->top;
	s->limit = t->stack_limit;
	s->bytes = t->stack_bytes;
	s->reserved = t->stack_reserved;
	s->owner = cx->owner;
	s->link = cx->link;
	s->jumped = jumped;
}

/* Install s; returns the mode the thread leaves the runtime in. */
static int install(struct pv_thread *t, struct pv_contexts *cx, const struct pv_shadow *s)
{
	t->stack = s->stack;
	t->stack_bytes = s->bytes;
	t->stack_reserved = s->reserved;
	t->stack_limit = s->limit;
	t->jumped = s->jumped;
	cx->owner = s->owner;
	cx->link = s->link;
	pv_signal_fence();
	t->top = s->top;
	return s->jumped ? PV_MODE_JUMPED : t->run_mode;
}

/* The installed top has run until now: its self cost, before it is suspended. */
static void charge_installed_top(struct pv_thread *t)
{
	uint64_t now[PV_MAX_EVENTS];
	uint64_t *self = pv_node_self(t->top->node);
	t->read(t, now);
	for (unsigned i = 0; i < t->nev; i++) {
		self[i] += now[i] - t->last[i];
		t->last[i] = now[i];
	}
}

/* Close the frames of a suspended shadow stack as if they returned now. It
 * has not run since it was left: its top earns no self cost here. */
static void close_suspended(struct pv_thread *t, struct pv_contexts *cx, struct pv_shadow *s)
{
	if (s->top == s->stack)
		return;
	struct pv_shadow installed;
	uint64_t last[PV_MAX_EVENTS];
	capture(t, cx, t->jumped, &installed);
	memcpy(last, t->last, sizeof(last));
	t->read(t, t->last);
	t->stack = s->stack;
	t->stack_bytes = s->bytes;
	t->stack_reserved = s->reserved;
	t->stack_limit = s->limit;
	t->top = s->top;
	pv_stack_close(t);
	s->top = t->top;
	install(t, cx, &installed);
	memcpy(t->last, last, sizeof(last));
}

/* A context saved under key is replaced (its ucontext_t was made or saved
 * into again): its frames will never resume. */
static void forget(struct pv_thread *t, struct pv_contexts *cx, const void *key)
{
	int i = find_slot(cx, key);
	if (i < 0)
		return;
	struct pv_shadow *s = &cx->slot[i].shadow;
	close_suspended(t, cx, s);
	drop_stack(cx, s->stack, s->bytes, s->reserved);
	remove_slot(cx, (unsigned)i);
}

/* Take the shadow stack saved under key out of the table; 0 if there is none. */
static int take(struct pv_contexts *cx, const void *key, struct pv_shadow *s)
{
	int i = find_slot(cx, key);
	if (i < 0)
		return 0;
	*s = cx->slot[i].shadow;
	remove_slot(cx, (unsigned)i);
	return 1;
}

/* Control goes where the thread cannot follow: as after a longjmp. */
static void resync_later(struct pv_thread *t, struct pv_guard *g)
{
	(void)t;
	if (pv_mode_is_profiling(g->mode)) {
		t->jumped = 1;
		g->mode = PV_MODE_JUMPED;
	}
}

/* ---- the program's context operations ---- */

/* The switches' bookkeeping is half done while it runs (a slot taken, a
 * stack not yet installed): no handler may land there and leave by
 * longjmp, so signals wait; swapcontext makes the same system call. */
static int enter_held(struct pv_guard *g, struct pv_thread *t, sigset_t *held)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, held);
	return pv_guard_enter(g, t);
}

static void leave_held(struct pv_guard *g, const sigset_t *held)
{
	pv_guard_leave(g);
	pthread_sigmask(SIG_SETMASK, held, NULL);
}

int pv_contexts_made(struct pv_thread *t, const void *ucp, const void *link)
{
	struct pv_guard g;
	sigset_t held;
	int made = -1;
	if (enter_held(&g, t, &held)) {
		struct pv_contexts *cx = contexts_of(t);
		struct pv_shadow s;
		if (cx && ucp) {
			forget(t, cx, ucp);
			if (cx->count < PV_CONTEXT_MAX && fresh_shadow(t, cx, &s) == 0) {
				s.owner = ucp;
				s.link = link;
				insert_slot(cx, ucp, &s);
				made = 0;
			} else {
				t->contexts_unplaced++;
			}
		}
	}
	leave_held(&g, &held);
	return made;
}

int pv_contexts_swap(struct pv_thread *t, const void *oucp, const void *ucp)
{
	struct pv_guard g;
	sigset_t held;
	int switched = 0;
	if (enter_held(&g, t, &held)) {
		struct pv_contexts *cx = t->contexts;
		struct pv_shadow entered, left;
		if (!cx || !oucp || oucp == ucp || !take(cx, ucp, &entered)) {
			resync_later(t, &g);
		} else {
			charge_installed_top(t);
			capture(t, cx, g.mode == PV_MODE_JUMPED, &left);
			forget(t, cx, oucp);
			insert_slot(cx, oucp, &left); /* the slot ucp's stack left is free */
			g.mode = install(t, cx, &entered);
			switched = 1;
		}
	}
	leave_held(&g, &held);
	return switched;
}

void pv_contexts_set(struct pv_thread *t, const void *ucp)
{
	struct pv_guard g;
	sigset_t held;
	if (enter_held(&g, t, &held)) {
		struct pv_contexts *cx = t->contexts;
		struct pv_shadow entered;
		if (!cx || !take(cx, ucp, &entered)) {
			resync_later(t, &g);
		} else {
			/* The context left is abandoned: its frames never return. */
			pv_stack_close(t);
			drop_stack(cx, t->stack, t->stack_bytes, t->stack_reserved);
			g.mode = install(t, cx, &entered);
		}
	}
	leave_held(&g, &held);
}

void pv_contexts_finished(struct pv_thread *t, const void *ucp)
{
	struct pv_guard g;
	sigset_t held;
	if (enter_held(&g, t, &held)) {
		struct pv_contexts *cx = t->contexts;
		struct pv_shadow entered;
		if (!cx || cx->owner != ucp) {
			/* Its shadow stack is not the installed one (it ran on another
			 * thread, or was entered the old way). */
			resync_later(t, &g);
		} else if (take(cx, cx->link, &entered)) {
			pv_stack_close(t);
			drop_stack(cx, t->stack, t->stack_bytes, t->stack_reserved);
			g.mode = install(t, cx, &entered);
		} else {
			/* No link (the thread exits next), or one unknown here: the
			 * emptied stack serves whatever runs next. */
			pv_stack_close(t);
			if (cx->link)
				resync_later(t, &g);
			cx->owner = cx->link = NULL;
		}
	}
	leave_held(&g, &held);
}

/* ---- for thread.c: the thread's end, exit and fork ---- */

void pv_contexts_close_suspended(struct pv_thread *t)
{
	struct pv_contexts *cx = t->contexts;
	if (!cx)
		return;
	for (unsigned i = 0; i < PV_CONTEXT_SLOTS; i++)
		if (cx->slot[i].key)
			close_suspended(t, cx, &cx->slot[i].shadow);
}

void pv_contexts_restart(struct pv_thread *t, const uint64_t *now)
{
	struct pv_contexts *cx = t->contexts;
	if (!cx)
		return;
	for (unsigned i = 0; i < PV_CONTEXT_SLOTS; i++) {
		struct pv_shadow *s = &cx->slot[i].shadow;
		if (!cx->slot[i].key)
			continue;
		/* Every slot above the bottom (a signal's spare slot too: harmless). */
		for (struct pv_frame *f = s->stack; f != s->top;) {
			f = pv_frame_above(f, t->frame_size);
			pv_frame_restart(t, f, now);
		}
	}
}

void pv_contexts_release(struct pv_thread *t)
{
	struct pv_contexts *cx = t->contexts;
	if (!cx)
		return;
	for (unsigned i = 0; i < PV_CONTEXT_SLOTS; i++)
		if (cx->slot[i].key)
			shadow_stack_unmap(cx->slot[i].shadow.stack, cx->slot[i].shadow.reserved);
	for (unsigned i = 0; i < cx->spares; i++)
		shadow_stack_unmap(cx->spare[i].stack, cx->spare[i].reserved);
	t->contexts = NULL;
	munmap(cx, sizeof(*cx));
}
