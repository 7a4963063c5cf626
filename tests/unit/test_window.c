/* SPDX-License-Identifier: MIT */
/* test_window.c — a window's profile: what a later profile holds beyond an
 * earlier one, record by record, and nothing the window did not touch. */
#include <string.h>

#include "model/window.h"
#include "tap.h"

/* Function addresses: any distinct pointers do. */
static char fn_main, fn_setup, fn_serve, fn_handle, fn_fib;
enum { NEV = 1 };

struct calls {
	uint64_t setup, serve, handle, fib, fib_folded;
	uint64_t main_self, handle_self;
	uint64_t tid2_calls; /* 0: thread 2 not started */
};

static void add_func(struct pv_profile *p, void *fn, uint64_t calls, uint64_t self)
{
	struct pv_fstat *f = pv_profile_func(p, fn);
	f->calls = calls;
	f->self[0] = self;
	f->total[0] = self;
}

static struct pv_path *add_path(struct pv_profile *p, struct pv_path *parent, void *fn,
				uint64_t calls, uint64_t self)
{
	struct pv_path *x = pv_profile_path(p, parent, fn);
	x->calls = calls;
	x->self[0] = self;
	x->total[0] = self;
	if (parent)
		parent->callees += calls;
	return x;
}

/* The profile of a server after c: main -> setup (start-up), main -> serve
 * -> handle -> fib, fib's recursion folded. */
static void profile(struct pv_profile *p, const struct calls *c)
{
	pv_profile_init(p, NEV);
	add_func(p, &fn_main, 1, c->main_self);
	add_func(p, &fn_setup, c->setup, 50);
	add_func(p, &fn_serve, c->serve, 0);
	add_func(p, &fn_handle, c->handle, c->handle_self);
	add_func(p, &fn_fib, c->fib, 7 * c->fib);
	pv_profile_arc(p, NULL, &fn_main)->calls = 1;
	pv_profile_arc(p, &fn_main, &fn_setup)->calls = c->setup;
	pv_profile_arc(p, &fn_main, &fn_serve)->calls = c->serve;
	pv_profile_arc(p, &fn_serve, &fn_handle)->calls = c->handle;
	pv_profile_arc(p, &fn_handle, &fn_fib)->calls = c->fib - c->fib_folded;
	pv_profile_arc(p, &fn_fib, &fn_fib)->calls = c->fib_folded;
	struct pv_path *m = add_path(p, NULL, &fn_main, 1, c->main_self);
	add_path(p, m, &fn_setup, c->setup, 50);
	struct pv_path *s = add_path(p, m, &fn_serve, c->serve, 0);
	struct pv_path *h = add_path(p, s, &fn_handle, c->handle, c->handle_self);
	if (c->fib) {
		struct pv_path *f = add_path(p, h, &fn_fib, c->fib, 7 * c->fib);
		pv_profile_fold(p, f, f)->calls = c->fib_folded;
	}
	struct pv_thread_stat *t = pv_profile_thread_add(p);
	t->tid = 1;
	t->calls = 1 + c->setup + c->serve + c->handle + c->fib;
	t->cpu_seconds = 0.5 + 0.001 * (double)t->calls;
	if (c->tid2_calls) {
		t = pv_profile_thread_add(p);
		t->tid = 2;
		t->calls = c->tid2_calls;
		t->cpu_seconds = 0.1;
	}
	p->threads = p->n_thread_stats;
	p->sampling.samples = c->main_self + c->handle_self;
	p->losses.unrecorded_calls = c->fib_folded / 2;
}

static const struct pv_path *path_of(const struct pv_profile *p, const void *fn)
{
	for (const struct pv_path *x = p->paths; x; x = x->hh.next)
		if (x->key.fn == fn)
			return x;
	return NULL;
}

static const struct pv_fstat *func_of(const struct pv_profile *p, const void *fn)
{
	const struct pv_fstat *f;
	HASH_FIND(hh, p->funcs, &fn, sizeof(fn), f);
	return f;
}

int main(void)
{
	struct pv_profile then, now;
	/* The window opens after start-up and three requests (one recursing),
	 * and sees five more, some recursing deeper, and a thread start. */
	profile(&then, &(struct calls){ .setup = 4, .serve = 1, .handle = 3, .fib = 10,
					.fib_folded = 8, .main_self = 100, .handle_self = 30 });
	profile(&now, &(struct calls){ .setup = 4, .serve = 1, .handle = 8, .fib = 40,
				       .fib_folded = 34, .main_self = 130, .handle_self = 80,
				       .tid2_calls = 6 });
	pv_profile_since(&now, &then);

	tap_ok(!func_of(&now, &fn_setup) && !path_of(&now, &fn_setup),
	       "start-up's function, untouched in the window, is not in it");
	tap_is(func_of(&now, &fn_handle)->calls, 5, "a function's calls: the window's");
	tap_is(func_of(&now, &fn_fib)->calls, 30, "... and its recursion's");
	tap_is(func_of(&now, &fn_handle)->self[0], 50, "a function's cost: the window's");
	const struct pv_fstat *serve = func_of(&now, &fn_serve);
	tap_ok(serve && serve->calls == 0 && path_of(&now, &fn_serve),
	       "a call open across the window's start: kept, with no call of the window's");
	tap_ok(path_of(&now, &fn_main) && func_of(&now, &fn_main)->self[0] == 30,
	       "main, open throughout: its cost in the window (30)");
	const struct pv_path *h = path_of(&now, &fn_handle);
	tap_ok(h && h->key.parent == path_of(&now, &fn_serve) && h->calls == 5 && h->callees == 30,
	       "the handler's path is whole, under serve, its calls and callees the window's");
	const struct pv_path *f = path_of(&now, &fn_fib);
	const struct pv_fold *fold = now.folds;
	tap_ok(f && fold && fold->key.from == f && fold->key.into == f && fold->calls == 26 &&
		       !fold->hh.next,
	       "fib's folded recursion: the window's 26 calls");
	struct pv_arc_key setup_arc = { &fn_main, &fn_setup }, fib_arc = { &fn_fib, &fn_fib };
	const struct pv_astat *a;
	HASH_FIND(hh, now.arcs, &setup_arc, sizeof(setup_arc), a);
	tap_ok(!a, "start-up's arc is not in it");
	HASH_FIND(hh, now.arcs, &fib_arc, sizeof(fib_arc), a);
	tap_ok(a && a->calls == 26, "fib -> fib: 26 calls");
	tap_ok(now.n_thread_stats == 2 && now.thread_stats[0].tid == 1 &&
		       now.thread_stats[0].calls == 35 && now.thread_stats[1].tid == 2 &&
		       now.thread_stats[1].calls == 6 && now.threads == 2,
	       "threads: the window's calls each (35, and the new thread's 6)");
	tap_is(now.sampling.samples, 80, "the sampling account: the window's samples");
	tap_is(now.losses.unrecorded_calls, 13, "losses: the window's");
	pv_profile_clear(&now);

	/* A window in which nothing ran: nothing but what stays open. */
	profile(&now, &(struct calls){ .setup = 4, .serve = 1, .handle = 3, .fib = 10,
				       .fib_folded = 8, .main_self = 100, .handle_self = 30 });
	pv_profile_since(&now, &then);
	tap_ok(!now.funcs && !now.paths && !now.arcs && !now.folds && now.n_thread_stats == 0,
	       "an idle window holds nothing");
	pv_profile_clear(&now);
	pv_profile_clear(&then);
	return tap_done();
}
