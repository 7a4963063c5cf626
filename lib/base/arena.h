/* SPDX-License-Identifier: MIT */
/*
 * arena.h — a per-thread bump allocator.
 *
 * Call-graph records are only ever freed all at once, when their thread's data
 * has been merged, so a bump allocator over mmap'd chunks is all they need: no
 * malloc (which may be the program's own, instrumented one) and no locks.
 */
#ifndef PV_ARENA_H
#define PV_ARENA_H

#include <stddef.h>

struct pv_arena_chunk;

struct pv_arena {
	struct pv_arena_chunk *chunks; /* newest first */
	char *next;                    /* first free byte of the newest chunk */
	char *end;                     /* one past its last byte */
};

/* Zeroed, 16-byte aligned memory, or NULL when the system refuses more. */
void *pv_arena_alloc(struct pv_arena *a, size_t size);

/* Unmap every chunk; the arena is empty and reusable afterwards. */
void pv_arena_release(struct pv_arena *a);

#endif /* PV_ARENA_H */
