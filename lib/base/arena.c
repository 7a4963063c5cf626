/* SPDX-License-Identifier: MIT */
#include "base/arena.h"

#include <stdint.h>
#include <sys/mman.h>

#define PV_ARENA_CHUNK (64u * 1024u)

struct pv_arena_chunk {
	struct pv_arena_chunk *older;
	size_t size; /* including this header */
};

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

void *pv_arena_alloc(struct pv_arena *a, size_t size)
{
	size = round_up(size, 16);
	/* No next: empty (see below). */
	if (!a->next || (size_t)(a->end - a->next) < size) {
		size_t header = round_up(sizeof(struct pv_arena_chunk), 16);
		size_t chunk_size = round_up(header + size, PV_ARENA_CHUNK);
		void *m = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		struct pv_arena_chunk *c = m;
		c->older = a->chunks;
		c->size = chunk_size;
		a->chunks = c;
		/* The bounds change one at a time: a signal handler that leaves
		 * by longjmp between two of them must find an empty arena, never
		 * one bound of each chunk. */
		a->next = NULL;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		a->end = (char *)m + chunk_size;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		a->next = (char *)m + header;
	}
	void *p = a->next;
	a->next += size;
	return p; /* fresh anonymous pages are already zero */
}

void pv_arena_release(struct pv_arena *a)
{
	struct pv_arena_chunk *c = a->chunks;
	while (c) {
		struct pv_arena_chunk *older = c->older;
		munmap(c, c->size);
		c = older;
	}
	a->chunks = NULL;
	a->next = a->end = NULL;
}
