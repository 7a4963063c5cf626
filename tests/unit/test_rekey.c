/* SPDX-License-Identifier: MIT */
/*
 * Re-keying the records of an unloaded object's functions (cct.c
 * pv_cct_rekey, profile.c pv_profile_rekey / pv_profile_add_rekeyed): every
 * edge in the range gets its new key, in the index too, while the tree's
 * own thread keeps adding edges and growing its index; the merged profile
 * keeps paths after their parents; records whose keys become equal add up.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "model/profile.h"
#include "runtime/thread.h"
#include "runtime/handover.h"
#include "runtime/naming.h"
#include "tap.h"

#define LO 0x100000u
#define HI 0x200000u
#define RETIRED 0x1000000u /* + the old address: a key outside any range here */

static void *fn_at(uintptr_t a)
{
	return (void *)a;
}

static void *retire(void *fn, void *arg)
{
	(void)arg;
	uintptr_t a = (uintptr_t)fn;
	return a >= LO && a < HI ? fn_at(a + RETIRED) : NULL;
}

/* ThreadSanitizer slows both threads down tenfold: fewer of each. */
#ifdef __SANITIZE_THREAD__
#define ROUNDS 5
#define MAX_EDGES 20000
#else
#define ROUNDS 100
#define MAX_EDGES 1000000
#endif

struct grower {
	struct pv_cct *cct;
	struct pv_node *from;
	int stop;
};

/* The tree's own thread: new edges to functions outside every range,
 * until the re-keying is over. */
static void *grow(void *arg)
{
	struct grower *g = arg;
	for (unsigned i = 0; i < MAX_EDGES && !__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE); i++)
		pv_cct_child(g->cct, g->from, fn_at(0x400000u + 16u * i));
	return NULL;
}

/* Round r moves the keys of round r - 1 on: every round can meet a copy. */
static void *move_on(void *fn, void *arg)
{
	uintptr_t shift = (uintptr_t)*(unsigned *)arg * RETIRED, a = (uintptr_t)fn;
	return a >= LO + shift && a < HI + shift ? fn_at(a + RETIRED) : NULL;
}

static unsigned final_round;

static int at_final_key(const void *fn)
{
	uintptr_t shift = (uintptr_t)final_round * RETIRED, a = (uintptr_t)fn;
	return a >= LO + shift && a < HI + shift;
}

static int at_older_key(const void *fn)
{
	for (unsigned r = 0; r < final_round; r++) {
		uintptr_t shift = (uintptr_t)r * RETIRED, a = (uintptr_t)fn;
		if (a >= LO + shift && a < HI + shift)
			return 1;
	}
	return 0;
}

static unsigned count_in_index(const struct pv_cct *cct, int (*match)(const void *))
{
	unsigned n = 0;
	for (uint64_t i = 0; i <= cct->index->mask; i++) {
		const struct pv_child_slot *s = &cct->index->slots[i];
		if (s->parent && (match(s->fn) || match(s->child->fn)))
			n++;
	}
	return n;
}

static int retired_key(const void *fn) /* test_profile's single re-keying */
{
	return (uintptr_t)fn >= LO + RETIRED && (uintptr_t)fn < HI + RETIRED;
}

static void test_concurrent_growth(void)
{
	struct pv_cct cct;
	pv_cct_init(&cct, 1);
	/* 2,000 edges in the range: root -> a_i -> b_i. */
	for (unsigned i = 0; i < 1000; i++) {
		struct pv_node *a = pv_cct_child(&cct, cct.root, fn_at(LO + 32u * i));
		pv_cct_child(&cct, a, fn_at(LO + 32u * i + 16u));
	}
	struct pv_node *other = pv_cct_child(&cct, cct.root, fn_at(0x300000u));
	struct grower g = { &cct, other, 0 };
	unsigned growth_before = cct.index_growth;
	pthread_t t;
	pthread_create(&t, NULL, grow, &g);
	while (__atomic_load_n(&cct.index_growth, __ATOMIC_ACQUIRE) == growth_before)
		sched_yield(); /* the grower is under way */
	int rc = 0;
	unsigned round = 0;
	while (round < ROUNDS)
		rc |= pv_cct_rekey(&cct, move_on, &round), round++;
	unsigned grown = (__atomic_load_n(&cct.index_growth, __ATOMIC_ACQUIRE) - growth_before) / 2;
	__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	final_round = round;
	printf("# %u re-keyings while the index grew %u times\n", round, grown);
	tap_is(rc, 0, "re-keyed while the tree's thread grew its index");
	tap_is(count_in_index(&cct, at_older_key), 0, "no edge left at an older key, in any table copy");
	tap_is(count_in_index(&cct, at_final_key), 2000, "all 2,000 edges under their last keys");
	round = final_round;
	pv_cct_rekey(&cct, move_on, &round); /* and once more, as in test_profile */
	final_round++;
	tap_is(count_in_index(&cct, at_final_key), 2000, "and once more when nothing grows");
	tap_ok(pv_cct_find(&cct, cct.root, fn_at(LO)) == NULL, "a call at the first address misses");
	struct pv_node *fresh = pv_cct_child(&cct, cct.root, fn_at(LO));
	tap_ok(fresh && fresh->fn == fn_at(LO) && fresh->target == fresh,
	       "and makes a fresh node");
	pv_cct_release(&cct);
}

static void fake_read(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	now[0] = 0;
}

/* A thread whose tree is root -> main -> lib (lib in the range) -> back. */
static void build_thread(struct pv_thread *t, uintptr_t lib)
{
	memset(t, 0, sizeof(*t));
	pv_thread_init(t, 1, fake_read);
	struct pv_node *m = pv_cct_child(&t->cct, t->cct.root, fn_at(0x10));
	struct pv_node *l = pv_cct_child(&t->cct, m, fn_at(lib));
	struct pv_node *b = pv_cct_child(&t->cct, l, fn_at(0x20));
	m->calls = 1;
	l->calls = 3;
	b->calls = 5;
}

static const struct pv_path *path_of_fn(const struct pv_profile *p, uintptr_t fn)
{
	for (const struct pv_path *x = p->paths; x; x = x->hh.next)
		if (x->key.fn == fn_at(fn))
			return x;
	return NULL;
}

static int parents_first(const struct pv_profile *p)
{
	for (const struct pv_path *x = p->paths; x; x = x->hh.next)
		if (x->key.parent) {
			int seen = 0;
			for (const struct pv_path *y = p->paths; y != x; y = y->hh.next)
				seen |= y == x->key.parent;
			if (!seen)
				return 0;
		}
	return 1;
}

static void *unretire(void *fn, void *arg)
{
	(void)arg;
	return retired_key(fn) ? fn_at((uintptr_t)fn - RETIRED) : NULL;
}

static void test_profile(void)
{
	struct pv_profile p, merged;
	struct pv_thread t;
	pv_profile_init(&p, 1);
	build_thread(&t, LO + 0x40);
	pv_thread_hand_over(&p, &t);
	pv_profile_rekey(&p, retire, NULL);
	tap_ok(path_of_fn(&p, LO + 0x40) == NULL && path_of_fn(&p, LO + 0x40 + RETIRED) != NULL,
	       "the merged profile's path re-keyed");
	tap_ok(parents_first(&p), "paths still after their parents");
	const struct pv_path *back = path_of_fn(&p, 0x20);
	tap_ok(back && back->key.parent == path_of_fn(&p, LO + 0x40 + RETIRED),
	       "the callee's path still under it");

	/* The same object loaded again at the same place, called again. */
	pv_thread_release(&t);
	build_thread(&t, LO + 0x40);
	pv_thread_hand_over(&p, &t);
	tap_is(HASH_COUNT(p.funcs), 4, "retired and live: two records before merging");
	pv_profile_init(&merged, 1);
	pv_profile_add_rekeyed(&merged, &p, unretire, NULL);
	struct pv_fstat *f;
	void *lib = fn_at(LO + 0x40);
	HASH_FIND_PTR(merged.funcs, &lib, f);
	tap_is(HASH_COUNT(merged.funcs), 3, "one record per function once merged");
	tap_is(f ? f->calls : 0, 6, "its calls added up");
	tap_is(HASH_COUNT(merged.paths), 3, "its call paths merged too");
	const struct pv_path *x = path_of_fn(&merged, 0x20);
	tap_is(x ? x->calls : 0, 10, "and its callees' paths");
	pv_thread_release(&t);
	pv_profile_clear(&p);
	pv_profile_clear(&merged);
}

int main(void)
{
	test_concurrent_growth();
	test_profile();
	return tap_done();
}
