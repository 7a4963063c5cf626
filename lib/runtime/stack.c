/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/stack.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime/hooks.h"

/* Usable at first on a thread's own stack. */
#define PV_STACK_INITIAL_FRAMES 4096

size_t pv_stack_page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

struct pv_frame *pv_stack_map(size_t reserved, size_t usable)
{
	/* Inaccessible pages are not charged as memory, only as address space. */
	void *m = mmap(NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m, usable, PROT_READ | PROT_WRITE) != 0) {
		munmap(m, reserved);
		return NULL;
	}
	return m;
}

struct pv_frame *pv_stack_limit_of(struct pv_frame *stack, size_t bytes, size_t frame_size)
{
	size_t frames = bytes / frame_size;
	return (struct pv_frame *)((char *)stack + (frames - 1) * frame_size);
}

void pv_stack_set_bottom(struct pv_frame *bottom, struct pv_node *root)
{
	bottom->sp = UINTPTR_MAX;
	bottom->site = UINTPTR_MAX; /* no call's: the hooks never read below its sp */
	bottom->node = root;
	bottom->inl = root;
}

/* Address space for the deepest stack; under a limit on address space, a
 * small share of it, so that the program's own mappings still fit. */
static size_t reservation(size_t frame_size)
{
	size_t bytes = (size_t)PV_STACK_MAX_FRAMES * frame_size;
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
	    as.rlim_cur / 256 < bytes)
		bytes = as.rlim_cur / 256;
	size_t least = 2 * PV_STACK_INITIAL_FRAMES * frame_size;
	return pv_stack_page_round(bytes > least ? bytes : least);
}

int pv_stack_init(struct pv_thread *t)
{
	size_t reserved = reservation(t->frame_size);
	size_t usable = pv_stack_page_round(PV_STACK_INITIAL_FRAMES * t->frame_size);
	struct pv_frame *stack = pv_stack_map(reserved, usable);
	if (!stack)
		return -1;
	t->stack = stack;
	t->stack_reserved = reserved;
	t->stack_bytes = usable;
	t->stack_limit = pv_stack_limit_of(stack, usable, t->frame_size);
	return 0;
}

int pv_stack_grow(struct pv_thread *t)
{
	size_t bytes = 2 * t->stack_bytes;
	if (bytes > t->stack_reserved)
		bytes = t->stack_reserved;
	if (bytes <= t->stack_bytes)
		return -1;
	if (mprotect((char *)t->stack + t->stack_bytes, bytes - t->stack_bytes,
		     PROT_READ | PROT_WRITE) != 0)
		return -1;
	t->stack_bytes = bytes;
	/* Only now: a hook that read the old limit pushes below it. */
	pv_signal_fence();
	t->stack_limit = pv_stack_limit_of(t->stack, bytes, t->frame_size);
	return 0;
}

struct pv_frame *pv_stack_under(const struct pv_thread *t, struct pv_frame *f)
{
	struct pv_frame *below = pv_frame_below(f, t->frame_size);
	return pv_signal_of(f->node->fn) ? pv_frame_below(below, t->frame_size) : below;
}

void pv_stack_close_down_to(struct pv_thread *t, struct pv_frame *keep)
{
	uint64_t now[PV_MAX_EVENTS];
	t->read(t, now);
	while ((char *)t->top > (char *)keep) {
		struct pv_frame *f = t->top, *under = pv_stack_under(t, f);
		pv_pop_at(t, f, now, t->nev);
		t->top = under;
	}
}

void pv_stack_close(struct pv_thread *t)
{
	pv_stack_close_down_to(t, t->stack);
}
