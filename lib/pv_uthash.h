/*
 * pv_uthash.h — uthash, with its memory taken from an arena.
 *
 * Per-thread tables live in their thread's arena so that building them never
 * calls malloc (which may be the program's own, and instrumented). Set
 * pv_uthash_arena before any HASH_ADD on such a table. Tables that live in
 * the process-wide profile leave it NULL and use malloc.
 */
#ifndef PV_UTHASH_H
#define PV_UTHASH_H

#include <stdlib.h>
#include "arena.h"

extern __thread struct pv_arena *pv_uthash_arena
	__attribute__((tls_model("initial-exec")));
extern __thread int pv_uthash_failed __attribute__((tls_model("initial-exec")));

static inline void *pv_uthash_malloc(size_t size)
{
	return pv_uthash_arena ? pv_arena_alloc(pv_uthash_arena, size) : malloc(size);
}

static inline void pv_uthash_free(void *p)
{
	if (!pv_uthash_arena)
		free(p); /* arena memory goes back with the whole arena */
}

#define uthash_malloc(sz) pv_uthash_malloc(sz)
#define uthash_free(ptr, sz) pv_uthash_free(ptr)
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (pv_uthash_failed = 1)

#include <uthash.h>

#endif /* PV_UTHASH_H */
