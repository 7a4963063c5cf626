/* SPDX-License-Identifier: MIT */
#include "runtime/cct.h"

#include "base/clock.h"
#include "base/compiler.h"

#include <sched.h>
#include <string.h>
#include <time.h>

/* A thread's table of functions takes its memory from the thread's arena,
 * never from malloc (which may be the program's own, and instrumented); the
 * arena's memory goes back with the whole arena. Every insertion has the
 * tree in scope as cct. */
#undef uthash_malloc
#undef uthash_free
#define uthash_malloc(size) pv_arena_alloc(&cct->arena, size)
#define uthash_free(ptr, size) ((void)(ptr))

/* A first cached child that matches no function, so the hot path never tests
 * for NULL. Only its fn is ever read. */
static struct pv_node pv_no_child = { .fn = (void *)~(uintptr_t)0 };

static struct pv_node *new_node(struct pv_cct *cct, void *fn, struct pv_node *parent)
{
	struct pv_node *n = pv_arena_alloc(&cct->arena, pv_node_size(cct->nev));
	if (!n)
		return NULL;
	n->fn = fn;
	n->target = n;
	for (unsigned i = 0; i < PV_CHILD_CACHE; i++)
		n->cache[i] = &pv_no_child;
	n->parent = parent;
	cct->nodes++;
	return n;
}

static int index_reserve(struct pv_cct *cct);

static struct pv_func *func_of(struct pv_cct *cct, void *fn)
{
	struct pv_func *f;
	HASH_FIND_PTR(cct->funcs, &fn, f);
	if (f)
		return f;
	f = pv_arena_alloc(&cct->arena, sizeof(*f));
	if (!f)
		return NULL;
	f->fn = fn;
	cct->adding_func = 1;
	HASH_ADD_PTR(cct->funcs, fn, f);
	cct->adding_func = 0;
	return pv_htab_added(f, hh) ? f : NULL;
}

int pv_cct_init(struct pv_cct *cct, unsigned nev)
{
	memset(cct, 0, sizeof(*cct));
	cct->nev = nev;
	for (unsigned i = 0; i < PV_RECENT_EDGES; i++)
		cct->recent[i] = &pv_no_child;
	if (index_reserve(cct) < 0)
		return -1;
	cct->root = new_node(cct, NULL, NULL);
	if (!cct->root)
		return -1;
	/* The root's function record only absorbs the root's own bookkeeping. */
	cct->root->func = pv_arena_alloc(&cct->arena, sizeof(struct pv_func));
	return cct->root->func ? 0 : -1;
}

void pv_cct_release(struct pv_cct *cct)
{
	pv_arena_release(&cct->arena);
	cct->root = NULL;
	cct->funcs = NULL;
	cct->index = NULL;
	cct->index_used = 0;
}

static uint64_t slot_hash(const struct pv_node *p, const void *fn)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)(uintptr_t)fn * 0xc2b2ae3d27d4eb4fu;
	return h ^ (h >> 29);
}

/* (p, fn)'s slot in the recent edges: the hash's top bits, where both
 * products mix. */
static struct pv_node **recent_slot(struct pv_cct *cct, uint64_t hash)
{
	return &cct->recent[hash >> (64 - PV_RECENT_EDGES_BITS)];
}

struct pv_node *pv_cct_find(struct pv_cct *cct, struct pv_node *p, void *fn)
{
	uint64_t hash = slot_hash(p, fn);
	struct pv_node **recent = recent_slot(cct, hash);
	struct pv_node *c = *recent; /* pv_no_child's parent is NULL: never p */
	if (c->parent == p && c->fn == fn) {
		p->cache[pv_child_slot(fn)] = c;
		return c;
	}
	const struct pv_child_index *index = cct->index;
	uint64_t mask = index->mask;
	for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
		const struct pv_child_slot *s = &index->slots[i];
		if (!s->parent)
			return NULL;
		if (s->parent == p && s->fn == fn) {
			p->cache[pv_child_slot(fn)] = s->child;
			*recent = s->child;
			return s->child;
		}
	}
}

static void index_put(struct pv_child_index *index, struct pv_node *p, void *fn,
		      struct pv_node *child)
{
	struct pv_child_slot *slots = index->slots;
	uint64_t i = slot_hash(p, fn) & index->mask;
	while (slots[i].parent)
		i = (i + 1) & index->mask;
	/* The key last: a lookup interrupted here (by a signal whose handler
	 * adds edges) sees either a free slot or a whole one. */
	slots[i].child = child;
	slots[i].fn = fn;
	pv_signal_fence();
	slots[i].parent = p;
}

/* Room for one more edge, keeping the index at most half full. The old
 * table stays in the arena, so an interrupted lookup still reads memory. */
static int index_reserve(struct pv_cct *cct)
{
	const struct pv_child_index *old = cct->index;
	uint64_t slots = old ? old->mask + 1 : 0;
	if (old && 2 * (cct->index_used + 1) <= slots)
		return 0;
	uint64_t grown = old ? 2 * slots : 64;
	struct pv_child_index *fresh =
		pv_arena_alloc(&cct->arena, sizeof(*fresh) + grown * sizeof(fresh->slots[0]));
	if (!fresh)
		return -1;
	fresh->mask = grown - 1;
	/* Odd while copying, for a re-keying thread (pv_cct_rekey): a key it
	 * changes in the old table after it was copied must be changed again. */
	unsigned growth = __atomic_fetch_add(&cct->index_growth, 1, __ATOMIC_SEQ_CST);
	for (uint64_t i = 0; i < slots; i++)
		if (old->slots[i].parent) /* fn: the re-keying thread may be storing it */
			index_put(fresh, old->slots[i].parent,
				  __atomic_load_n(&old->slots[i].fn, __ATOMIC_RELAXED),
				  old->slots[i].child);
	pv_signal_fence(); /* a whole table, then the pointer to it */
	__atomic_store_n(&cct->index, fresh, __ATOMIC_RELEASE);
	__atomic_store_n(&cct->index_growth, growth + 2, __ATOMIC_RELEASE);
	return 0;
}

struct pv_node *pv_cct_child(struct pv_cct *cct, struct pv_node *p, void *fn)
{
	struct pv_node *c = pv_cct_find(cct, p, fn);
	if (c)
		return c;
	if (index_reserve(cct) < 0)
		return NULL;

	/* Recursion folds within a signal handler's subtree, never across it:
	 * above it are the interrupted code's nodes, which it may be updating. */
	struct pv_node *ancestor = p;
	while (ancestor && ancestor->fn != fn && !pv_signal_of(ancestor->fn))
		ancestor = ancestor->parent;
	/* An inlined body never folds: the compiler inlines recursion a few
	 * levels at most, and its exit goes back to the node it came from
	 * through the parent link (hooks.h). */
	if (ancestor && (ancestor->fn != fn || pv_key_is_inlined(fn)))
		ancestor = NULL;

	if (ancestor) {
		/* Recursion: count the call here, charge the activation to the ancestor. */
		c = pv_arena_alloc(&cct->arena, sizeof(struct pv_node));
		if (!c)
			return NULL;
		c->fn = fn;
		c->target = ancestor;
		c->func = ancestor->func;
		c->parent = p;
		cct->fold_edges++;
	} else {
		struct pv_func *f = func_of(cct, fn);
		if (!f)
			return NULL;
		c = new_node(cct, fn, p);
		if (!c)
			return NULL;
		c->func = f;
	}
	c->next_sibling = p->first_child;
	/* A whole edge, then the link: the exit snapshot walks a running
	 * thread's tree. */
	pv_signal_fence();
	p->first_child = c;
	index_put(cct->index, p, fn, c);
	cct->index_used++;
	p->cache[pv_child_slot(fn)] = c;
	*recent_slot(cct, slot_hash(p, fn)) = c;
	return c;
}

void pv_cct_repair(struct pv_cct *cct)
{
	if (!cct->adding_func)
		return;
	/* The list of functions holds together at every step of an insertion;
	 * the buckets may not (they move when the table grows): rebuild them. */
	struct pv_func *f = cct->funcs;
	cct->funcs = NULL;
	while (f) {
		struct pv_func *next = f->hh.next;
		HASH_ADD_PTR(cct->funcs, fn, f);
		f = next;
	}
	cct->adding_func = 0;
}

const char pv_signal_markers[PV_NSIG];

/* Every edge is in the index once: re-key it there, and its record. */
static void rekey_index(struct pv_child_index *index, pv_rekey_fn *rekey, void *arg)
{
	for (uint64_t i = 0; i <= index->mask; i++) {
		struct pv_child_slot *s = &index->slots[i];
		if (!__atomic_load_n(&s->parent, __ATOMIC_ACQUIRE))
			continue;
		void *old = __atomic_load_n(&s->fn, __ATOMIC_RELAXED);
		void *key = rekey(pv_key_fn(old), arg);
		if (!key)
			continue;
		if (pv_key_is_inlined(old)) /* an inlined body's edge stays one */
			key = pv_inlined_key(key);
		__atomic_store_n(&s->fn, key, __ATOMIC_RELAXED);
		__atomic_store_n(&s->child->fn, key, __ATOMIC_RELAXED);
	}
}

/* How long a re-keying waits for a thread that keeps copying its index. */
#define REKEY_PATIENCE_NS (2 * 1000000000ull)

int pv_cct_rekey(struct pv_cct *cct, pv_rekey_fn *rekey, void *arg)
{
	uint64_t give_up = pv_monotonic_ns() + REKEY_PATIENCE_NS;
	do {
		unsigned growth = __atomic_load_n(&cct->index_growth, __ATOMIC_ACQUIRE);
		if (growth & 1) {
			sched_yield();
			continue;
		}
		rekey_index(__atomic_load_n(&cct->index, __ATOMIC_ACQUIRE), rekey, arg);
		/* Read-modify-write, as the growth's start is: if the copy starts
		 * after this, it sees every key changed here. */
		if (__atomic_fetch_add(&cct->index_growth, 0, __ATOMIC_SEQ_CST) == growth)
			return 0;
	} while (pv_monotonic_ns() < give_up);
	return -1;
}

/* top and everything below it, depth first. */
static void walk_subtree(const struct pv_node *top,
			 void (*visit)(const struct pv_node *n, void *arg), void *arg)
{
	const struct pv_node *n = top;
	for (;;) {
		visit(n, arg);
		/* Fold edges have no children of their own: their target's are elsewhere. */
		if (!pv_node_is_fold(n) && n->first_child) {
			n = n->first_child;
			continue;
		}
		while (n != top && !n->next_sibling)
			n = n->parent;
		if (n == top)
			return;
		n = n->next_sibling;
	}
}

void pv_cct_walk(const struct pv_cct *cct,
		 void (*visit)(const struct pv_node *n, void *arg), void *arg)
{
	for (const struct pv_node *n = cct->root->first_child; n; n = n->next_sibling)
		walk_subtree(n, visit, arg);
}

static void clear_node(const struct pv_node *n, void *arg)
{
	struct pv_cct *cct = arg;
	struct pv_node *w = (struct pv_node *)n;
	w->calls = w->misses = 0;
	w->sampled_ns = w->samples = w->sampled_total_ns = 0;
	if (!pv_node_is_fold(w))
		memset(w->cost, 0, pv_node_size(cct->nev) - sizeof(*w));
}

void pv_cct_clear(struct pv_cct *cct)
{
	clear_node(cct->root, cct);
	pv_cct_walk(cct, clear_node, cct);
}
