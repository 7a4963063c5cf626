/* SPDX-License-Identifier: MIT */
/*
 * cct.h — the per-thread calling-context tree.
 *
 * A node stands for one call path (root → … → fn). Recursion is folded: a call
 * to a function already on the node's path does not make a new node but a
 * "fold edge", a small record that counts the calls and points back at the
 * ancestor node of that function. So the tree stays as large as the program's
 * distinct non-recursive paths, however deep the recursion, while every arc's
 * call count stays exact.
 *
 * Costs are kept per node, in raw counter units: self (spent with the node's
 * frame on top) and total (inclusive cost of the activations that were not
 * nested inside another activation of the same function), one value per
 * event each, reached through pv_node_self() and pv_node_total() only.
 * Functions and arcs are derived from the tree when a thread's data is
 * merged (profile.c).
 */
#ifndef PV_CCT_H
#define PV_CCT_H

#include <stdint.h>
#include "base/arena.h"
#include "base/htab.h"
#include "model/profile.h" /* pv_rekey_fn */

/* One function as seen by one thread. */
struct pv_func {
	void *fn;
	uint32_t active; /* its activations on this thread's stack right now */
	UT_hash_handle hh;
};

/* Edges recently taken from a node, direct-mapped by callee address: a caller
 * that alternates between a few callees still finds each without a search. */
#define PV_CHILD_CACHE_BITS 2
#define PV_CHILD_CACHE (1u << PV_CHILD_CACHE_BITS)

static inline unsigned pv_child_slot(const void *fn)
{
	/* Fibonacci hashing: functions are 16- to 64-byte aligned, so low bits collide. */
	return (unsigned)(((uintptr_t)fn * 0x9e3779b97f4a7c15u) >> (64 - PV_CHILD_CACHE_BITS));
}

struct pv_node {
	void *fn;                   /* the function's address, NULL for the root */
	struct pv_node *cache[PV_CHILD_CACHE]; /* edges last taken from here */
	struct pv_node *target;     /* this node; for a fold edge, the ancestor */
	struct pv_func *func;       /* target's function record */
	uint64_t calls;             /* calls made through this edge */
	uint64_t misses;            /* ... of which missed the caller's cache (cost more) */
	struct pv_node *parent;
	struct pv_node *first_child; /* children and fold edges, for walking the tree */
	struct pv_node *next_sibling;
	/* The sampler's (sampler.h), written by its thread: CPU time charged
	 * here, and the looks that charged it; the sampled total of its
	 * outermost activations, from the thread's sampled clock (hooks.h). */
	uint64_t sampled_ns;
	uint64_t samples;
	uint64_t timed_ns; /* ... of sampled_ns, what was timed (timedstart.h) */
	uint64_t sampled_total_ns;
	uint64_t cost[];            /* pv_node_self(), pv_node_total(); none on fold edges */
};

/* A node's self costs, one per event. (Walkers see nodes as const; the
 * hooks write through the same accessors.) */
static inline uint64_t *pv_node_self(const struct pv_node *n)
{
	return (uint64_t *)n->cost;
}

/* A node's total costs, one per event (nev: the tree's event count). */
static inline uint64_t *pv_node_total(const struct pv_node *n, unsigned nev)
{
	return (uint64_t *)n->cost + nev;
}

/* Bytes of a node record with its costs; a fold edge has none. */
static inline size_t pv_node_size(unsigned nev)
{
	return sizeof(struct pv_node) + 2 * nev * sizeof(uint64_t);
}

/* Stand-in function addresses for signal deliveries: a handler of signal s
 * runs under an edge to fn = &pv_signal_markers[s] from the node it
 * interrupted, so it reads "<signal SIGx>" in outputs. */
#define PV_NSIG 65
extern const char pv_signal_markers[PV_NSIG];

static inline int pv_signal_of(const void *fn)
{
	const char *c = fn;
	return c >= pv_signal_markers && c < pv_signal_markers + PV_NSIG
		       ? (int)(c - pv_signal_markers)
		       : 0;
}

/* A call the compiler inlined (its hooks run in the host's frame: hooks.h)
 * keeps an edge of its own beside the callee's real calls, under this key:
 * the function's address with a bit no user-space address has. It gets no
 * frame, so no costs of its own; at hand-over its total is the calls made
 * from it (handover.c). Frames never carry it. */
#define PV_INLINED_BIT ((uintptr_t)1 << 62)

static inline void *pv_inlined_key(const void *fn)
{
	return (void *)((uintptr_t)fn | PV_INLINED_BIT);
}

static inline int pv_key_is_inlined(const void *key)
{
	return ((uintptr_t)key & PV_INLINED_BIT) != 0;
}

/* The function a key stands for. */
static inline void *pv_key_fn(const void *key)
{
	return (void *)((uintptr_t)key & ~PV_INLINED_BIT);
}

/* The child index: every edge by (parent node, callee), for callers with
 * more callees than the node's cache holds (an interpreter's dispatch). */
struct pv_child_slot {
	struct pv_node *parent; /* NULL: free */
	void *fn;
	struct pv_node *child;
};

/* A table and its size, behind one pointer: a lookup that a signal handler
 * interrupts to grow the index can never pair one table with another's mask. */
struct pv_child_index {
	uint64_t mask; /* slots - 1 */
	struct pv_child_slot slots[];
};

/* Edges recently found in the index, direct-mapped by (parent, callee):
 * a caller with more callees than its own cache holds (an interpreter's
 * dispatch, a host of many inlined bodies) finds most of them here. An
 * entry is one pointer, checked against the edge's own parent and key, so
 * a handler that fills the slot meanwhile leaves a miss, never a wrong edge. */
#define PV_RECENT_EDGES_BITS 10
#define PV_RECENT_EDGES (1u << PV_RECENT_EDGES_BITS)

struct pv_cct {
	unsigned nev;
	struct pv_node *recent[PV_RECENT_EDGES];
	struct pv_node *root;
	struct pv_child_index *index; /* open addressing, linear probing */
	uint64_t index_used;
	unsigned index_growth; /* odd while the index is being copied into a larger one */
	struct pv_arena arena;
	struct pv_func *funcs; /* uthash by fn, allocated in the arena */
	int adding_func;       /* inside an insertion into funcs */
	uint64_t nodes, fold_edges;
};

static inline int pv_node_is_fold(const struct pv_node *n)
{
	return n->target != n;
}

/* The root node, or -1 when memory ran out. */
int pv_cct_init(struct pv_cct *cct, unsigned nev);
void pv_cct_release(struct pv_cct *cct);

/* Existing edge from p for fn, cached in p for next time, or NULL. Never
 * allocates or reorders anything: safe on the hooks' fast path. */
struct pv_node *pv_cct_find(struct pv_cct *cct, struct pv_node *p, void *fn);

/* Edge from p for fn, made if new; NULL only when memory ran out. */
struct pv_node *pv_cct_child(struct pv_cct *cct, struct pv_node *p, void *fn);

/* Visit every node and fold edge below the root, each after its parent,
 * without recursion (paths can be thousands of functions long). */
void pv_cct_walk(const struct pv_cct *cct,
		 void (*visit)(const struct pv_node *n, void *arg), void *arg);

/* After a signal handler abandoned a change to the tree by longjmp: make
 * whole what an insertion may have left half done. The order in which
 * pv_cct_child() publishes a node leaves nothing else: an edge in the
 * tree but not yet in the index is only made again (a twin the profile
 * merges), and memory taken but not linked is only lost. */
void pv_cct_repair(struct pv_cct *cct);


/* Give every edge (node or fold edge) the key rekey maps its function to,
 * in the edge index too, so that calls with the old key miss it. Safe while
 * the tree's thread runs its hooks, provided it calls none of the functions
 * re-keyed: each key is one word, and an index the thread grows meanwhile
 * is done again. 0, or -1 if the thread kept copying its index for two
 * seconds (some edges may then keep their keys). */
int pv_cct_rekey(struct pv_cct *cct, pv_rekey_fn *rekey, void *arg);

/* Zero every count and cost: a forked child starts its own profile. */
void pv_cct_clear(struct pv_cct *cct);

#endif /* PV_CCT_H */
