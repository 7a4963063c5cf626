/* SPDX-License-Identifier: MIT */
/*
 * The call-graph math, driven by a scripted counter through the hooks the
 * runtime ships (runtime/hooks.h's pv_hook_enter/pv_hook_exit, with the slow paths
 * of lib/runtime/thread.c): exact calls, self and total for nested, recursive and
 * mutually recursive sequences, checked against a brute-force model on
 * random call sequences too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/profile.h"
#include "runtime/hooks.h"
#include "runtime/handover.h"
#include "runtime/naming.h"
#include "tap.h"

#define NEV 2
static uint64_t fake_clock;

/* Event 0 is the scripted clock; event 1 runs at three times its rate. */
static void fake_read(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	now[0] = fake_clock;
	now[1] = 3 * fake_clock;
}

#define STACK_TOP ((uintptr_t)1 << 40)
static int depth;

static void enter_indexed(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, NEV, fake_read, pv_thread_enter_slow);
}

/* The hooks given site at sp. */
static void enter_given(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp)
{
	pv_hook_enter(t, fn, site, sp, PV_MODE_GENERIC, NEV, fake_read, enter_indexed,
		      pv_thread_enter_slow);
}

static void leave_given(struct pv_thread *t, uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	pv_hook_exit(t, (void *)fn, site, sp, PV_MODE_GENERIC, NEV, fake_read,
		     pv_thread_exit_slow);
}

/* A scripted call returns to a site its caller's depth says; a body
 * inlined into its caller, at that depth, is given its host's. */
static void enter_at(struct pv_thread *t, void *fn, uintptr_t sp)
{
	enter_given(t, fn, sp + 1, sp);
}

static void leave_at(struct pv_thread *t, uintptr_t fn, uintptr_t sp)
{
	leave_given(t, fn, sp + 1, sp);
}

static void enter(struct pv_thread *t, uintptr_t fn)
{
	depth++;
	enter_at(t, (void *)fn, STACK_TOP - 64 * (uintptr_t)depth);
}

static void leave(struct pv_thread *t, uintptr_t fn)
{
	leave_at(t, fn, STACK_TOP - 64 * (uintptr_t)depth--);
}

static struct pv_thread *new_thread(void)
{
	static struct pv_thread t;
	pv_thread_release(&t);
	memset(&t, 0, sizeof(t));
	fake_clock = 0;
	depth = 0;
	if (pv_thread_init(&t, NEV, fake_read) < 0)
		abort();
	return &t;
}

static struct pv_profile prof;

static void merge(struct pv_thread *t)
{
	pv_profile_clear(&prof);
	pv_profile_init(&prof, NEV);
	pv_thread_hand_over(&prof, t);
}

static struct pv_fstat *func(uintptr_t fn)
{
	void *key = (void *)fn;
	struct pv_fstat *f;
	HASH_FIND_PTR(prof.funcs, &key, f);
	static struct pv_fstat none;
	return f ? f : &none;
}

static struct pv_astat *arc(uintptr_t caller, uintptr_t callee)
{
	struct pv_arc_key key = { (void *)caller, (void *)callee };
	struct pv_astat *a;
	HASH_FIND(hh, prof.arcs, &key, sizeof(key), a);
	static struct pv_astat none;
	return a ? a : &none;
}

enum { MAIN = 0x1000, A = 0x2000, B = 0x3000, C = 0x4000, D = 0x5000 };

static void test_nested(void)
{
	struct pv_thread *t = new_thread();
	fake_clock = 100;
	enter(t, MAIN);
	fake_clock = 110;
	enter(t, A);
	fake_clock = 115;
	enter(t, B);
	fake_clock = 125;
	leave(t, B);
	fake_clock = 130;
	leave(t, A);
	fake_clock = 132;
	enter(t, C);
	fake_clock = 140;
	leave(t, C);
	fake_clock = 150;
	leave(t, MAIN);
	merge(t);

	tap_is(func(MAIN)->calls, 1, "nested: main called once");
	tap_is(func(MAIN)->total[0], 50, "nested: main total");
	tap_is(func(MAIN)->self[0], 22, "nested: main self excludes callees");
	tap_is(func(A)->total[0], 20, "nested: a total");
	tap_is(func(A)->self[0], 10, "nested: a self");
	tap_is(func(B)->self[0], 10, "nested: b self");
	tap_is(func(C)->total[0], 8, "nested: c total");
	tap_is(arc(0, MAIN)->total[0], 50, "nested: root arc is the run");
	tap_is(arc(MAIN, A)->total[0], 20, "nested: main->a total");
	tap_is(arc(A, B)->calls, 1, "nested: a->b calls");
	tap_is(arc(MAIN, C)->total[1], 24, "nested: second event counted separately");
	tap_is(HASH_COUNT(prof.arcs), 4, "nested: exactly four arcs");
}

static void test_direct_recursion(void)
{
	struct pv_thread *t = new_thread();
	/* f(3) -> f(2) -> f(1), each spends 1 before and 1 after its call. */
	enter(t, A);
	fake_clock += 1;
	enter(t, A);
	fake_clock += 1;
	enter(t, A);
	fake_clock += 1;
	leave(t, A);
	fake_clock += 1;
	leave(t, A);
	fake_clock += 1;
	leave(t, A);
	merge(t);
	tap_is(func(A)->calls, 3, "recursion: three calls");
	tap_is(func(A)->total[0], 5, "recursion: total counts the outermost only");
	tap_is(func(A)->self[0], 5, "recursion: self takes every level");
	tap_is(arc(A, A)->calls, 2, "recursion: self arc counts the recursive calls");
	tap_is(arc(A, A)->total[0], 0, "recursion: self arc adds no total");
	tap_is(arc(0, A)->total[0], 5, "recursion: root arc total");
	tap_is(t->cct.nodes, 2, "recursion: folded into one node (plus root)");
}

static void test_mutual_recursion(void)
{
	struct pv_thread *t = new_thread();
	/* a -> b -> a -> b, 2 units of own work per activation. */
	enter(t, A);
	fake_clock += 2;
	enter(t, B);
	fake_clock += 2;
	enter(t, A);
	fake_clock += 2;
	enter(t, B);
	fake_clock += 2;
	leave(t, B);
	leave(t, A);
	leave(t, B);
	leave(t, A);
	merge(t);
	tap_is(func(A)->total[0], 8, "mutual: a total is its outer activation");
	tap_is(func(B)->total[0], 6, "mutual: b total is its outer activation");
	tap_is(func(A)->self[0] + func(B)->self[0], 8, "mutual: selves add up to the run");
	tap_is(arc(A, B)->calls, 2, "mutual: a->b calls");
	tap_is(arc(A, B)->total[0], 6, "mutual: a->b counts the outer b only");
	tap_is(arc(B, A)->calls, 1, "mutual: b->a calls");
	tap_is(arc(B, A)->total[0], 0, "mutual: b->a is nested in a, so no total");
	tap_ok(arc(A, B)->total[0] <= func(A)->total[0], "mutual: no arc exceeds its caller");
}

static void test_longjmp(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter(t, A);
	int depth_a = depth;
	enter(t, B);
	enter(t, C);
	fake_clock = 10;
	/* longjmp back into a: b and c never return; a calls d at b's depth. */
	depth = depth_a;
	pv_thread_note_longjmp(t); /* what the longjmp wrappers do */
	enter(t, D);
	fake_clock = 12;
	leave(t, D);
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(arc(A, D)->calls, 1, "longjmp: d's caller is a, not the dead c");
	tap_is(arc(C, D)->calls, 0, "longjmp: no arc from the dead frame");
	tap_is(func(C)->total[0], 10, "longjmp: dead frames closed when noticed");
	tap_is(t->resyncs, 1, "longjmp: one resynchronisation");
	tap_is(func(D)->total[0], 2, "longjmp: d timed normally");
}

/* setjmp in main; b (a small prologue) longjmps; main then calls c, whose
 * hook's stack pointer is below b's (a larger prologue). */
static void test_setjmp_landing(void)
{
	static char env[200];
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	pv_thread_note_setjmp(t, env, STACK_TOP - 80);
	enter_at(t, (void *)B, STACK_TOP - 128);
	fake_clock = 10;
	pv_thread_longjmp(t, env, STACK_TOP - 136);
	tap_is(t->mode, PV_MODE_GENERIC, "setjmp: the landing is exact, nothing left to resync");
	enter_at(t, (void *)C, STACK_TOP - 160);
	fake_clock = 12;
	leave(t, C);
	leave(t, MAIN);
	merge(t);
	tap_is(arc(MAIN, C)->calls, 1, "setjmp: c's caller is main");
	tap_is(arc(B, C) ? arc(B, C)->calls : 0, 0, "setjmp: no arc from the frame jumped out of");
	tap_is(func(B)->total[0], 10, "setjmp: b closed at the jump");
	tap_is(t->resyncs, 1, "setjmp: one resynchronisation");
	tap_ok(t->top == t->stack, "setjmp: stack empty again");
}

/* Records that must not be trusted: the longjmp falls back to the stack
 * pointer rule (the thread JUMPED) and drops nothing itself. */
static void test_setjmp_stale(void)
{
	static char env[200], other[200];
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	/* Set in a, which returned; b now sits at a's depth and stack pointer. */
	enter_at(t, (void *)A, STACK_TOP - 128);
	pv_thread_note_setjmp(t, env, STACK_TOP - 136);
	leave(t, A);
	enter_at(t, (void *)B, STACK_TOP - 128);
	struct pv_frame *top = t->top;
	pv_thread_longjmp(t, env, STACK_TOP - 140);
	tap_ok(t->mode == PV_MODE_JUMPED && t->top == top,
	       "stale: a frame returned since is not landed on");
	t->mode = PV_MODE_GENERIC;
	/* A setjmp caller below the longjmp's caller cannot be live. */
	pv_thread_note_setjmp(t, env, STACK_TOP - 300);
	pv_thread_longjmp(t, env, STACK_TOP - 140);
	tap_ok(t->mode == PV_MODE_JUMPED && t->top == top, "stale: a dead setjmp caller is ignored");
	t->mode = PV_MODE_GENERIC;
	pv_thread_longjmp(t, other, STACK_TOP - 140);
	tap_ok(t->mode == PV_MODE_JUMPED && t->top == top, "stale: an unknown jmp_buf falls back");
	/* More jmp_bufs than records: the oldest are forgotten, never mixed up. */
	t->mode = PV_MODE_GENERIC;
	static char many[PV_JMP_RECORDS + 1][200];
	for (int i = 0; i <= PV_JMP_RECORDS; i++)
		pv_thread_note_setjmp(t, many[i], STACK_TOP - 136);
	pv_thread_longjmp(t, many[0], STACK_TOP - 140);
	tap_is(t->mode, PV_MODE_JUMPED, "bounded: the oldest record was reused");
	t->mode = PV_MODE_GENERIC;
	pv_thread_longjmp(t, many[PV_JMP_RECORDS], STACK_TOP - 140);
	tap_ok(t->mode == PV_MODE_GENERIC && t->top == top, "bounded: the newest still lands");
}

static void test_inlined_same_frame(void)
{
	struct pv_thread *t = new_thread();
	/* gcc calls the hooks of an inlined callee from its caller's frame. */
	enter(t, MAIN);
	enter_at(t, (void *)A, STACK_TOP - 128);
	enter_at(t, (void *)B, STACK_TOP - 128);
	leave_at(t, B, STACK_TOP - 128);
	leave_at(t, A, STACK_TOP - 128);
	leave(t, MAIN);
	merge(t);
	tap_is(arc(A, B)->calls, 1, "inlined: same stack pointer is nesting, not a longjmp");
	tap_is(arc(A, B)->inlined_calls, 1, "inlined: the call is counted as inlined");
	tap_is(t->resyncs + t->stray_exits, 0, "inlined: no resynchronisation, no stray exit");
}

/* An inlined body has no frame: its time is its host's, as in the real
 * program, and the sampler keeps finding the host. */
static void test_inlined_no_frame(void)
{
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter_at(t, (void *)A, STACK_TOP - 128);
	struct pv_frame *host = t->top;
	fake_clock = 10;
	enter_at(t, (void *)B, STACK_TOP - 128);
	tap_ok(t->top == host && t->at == host->node,
	       "inlined: no frame pushed, the host still published");
	fake_clock = 30;
	enter_at(t, (void *)C, STACK_TOP - 160); /* a real call from the body */
	fake_clock = 35;
	leave_at(t, C, STACK_TOP - 160);
	fake_clock = 40;
	leave_at(t, B, STACK_TOP - 128);
	tap_ok(t->top == host && host->inl == host->node, "inlined: its exit closes it");
	fake_clock = 50;
	leave_at(t, A, STACK_TOP - 128);
	leave(t, MAIN);
	merge(t);
	tap_is(func(A)->self[0], 45, "inlined: the body's time is its host's self");
	tap_is(func(B)->self[0], 0, "inlined: none of its own");
	tap_is(func(B)->total[0], 5, "inlined: its total is the call it made");
	tap_is(arc(B, C)->calls, 1, "inlined: that call hangs from the body");
	tap_is(arc(A, C)->calls, 0, "inlined: not from the host");
}

/* Bodies whose exits never come: a longjmp out of a body lands at the
 * setjmp with the bodies open then; an outer body's exit closes the inner
 * ones left open. */
static void test_inlined_left_open(void)
{
	static char env[200];
	struct pv_thread *t = new_thread();
	enter(t, MAIN);
	enter_at(t, (void *)A, STACK_TOP - 128);
	struct pv_frame *host = t->top;
	pv_thread_note_setjmp(t, env, STACK_TOP - 128);
	enter_at(t, (void *)B, STACK_TOP - 128);
	enter_at(t, (void *)C, STACK_TOP - 160);
	pv_thread_longjmp(t, env, STACK_TOP - 168); /* from c, out of the body b */
	tap_ok(t->top == host && host->inl == host->node,
	       "inlined: the longjmp lands with no body open");
	enter_at(t, (void *)B, STACK_TOP - 128);
	enter_at(t, (void *)D, STACK_TOP - 128); /* nested in b */
	leave_at(t, B, STACK_TOP - 128);         /* d's exit skipped */
	tap_ok(t->top == host && host->inl == host->node,
	       "inlined: an outer body's exit closes the inner one too");
	leave_at(t, A, STACK_TOP - 128);
	leave(t, MAIN);
	merge(t);
	tap_is(arc(A, B)->inlined_calls, 2, "inlined: both bodies of b under a");
	tap_is(arc(B, B)->calls, 0, "inlined: the second not nested in the one left");
	tap_is(t->stray_exits, 0, "inlined: no stray exit");
}

/* Where the frame of the function calling each hook ends, as the unwinder
 * would tell thread.c (the runtime's hooksites.c, tried on real programs
 * by t_inlined_shapes.py): this test's stand-in. */
static uintptr_t caller_frame_end;
static unsigned unwinds;

int pv_hooksite_in_host(uintptr_t hook_cfa, uintptr_t host_sp)
{
	(void)hook_cfa;
	unwinds++;
	return caller_frame_end > host_sp;
}

enum { MAIN_SITE = 0x6000, HOST_SITE = 0x7000, PART_SITE = 0x7100 };
/* The program's stack, as words: the hooks read the one a call from the
 * top frame's stack pointer pushes (hooks.h), so it is real memory. */
static uintptr_t words[512];
#define AT(i) ((uintptr_t)&words[i])
#define HOST_SP AT(400)
#define HOST_END (HOST_SP + 56) /* a's frame: six registers saved */
#define MAIN_SP AT(511)

/* The host a, entered from main. */
static struct pv_frame *host(struct pv_thread *t)
{
	unwinds = 0;
	memset(words, 0, sizeof(words));
	enter_given(t, (void *)MAIN, MAIN_SITE, MAIN_SP);
	enter_given(t, (void *)A, HOST_SITE, HOST_SP);
	return t->top;
}

static void host_returns(struct pv_thread *t, uintptr_t sp)
{
	leave_given(t, A, HOST_SITE, sp);
	leave_given(t, MAIN, MAIN_SITE, MAIN_SP);
	merge(t);
}

/* gcc hooks a body inlined after its host pushed a call's stack arguments
 * (push $0x1; push $0x0, popped later): two words below the host's stack
 * pointer, given the host's return address. Its exit comes after the pops. */
static void test_inlined_under_arguments(void)
{
	struct pv_thread *t = new_thread();
	struct pv_frame *f = host(t);
	caller_frame_end = HOST_END;
	enter_given(t, (void *)B, HOST_SITE, HOST_SP - 16);
	tap_ok(t->top == f && f->inl != f->node, "under arguments: opened in the host, no frame");
	leave_given(t, B, HOST_SITE, HOST_SP);
	tap_ok(t->top == f && f->inl == f->node, "under arguments: its exit closes it");
	enter_given(t, (void *)B, HOST_SITE, HOST_SP - 16);
	leave_given(t, B, HOST_SITE, HOST_SP);
	host_returns(t, HOST_SP);
	tap_is(arc(A, B)->inlined_calls, 2, "under arguments: counted as inlined");
	tap_is(arc(A, B)->calls, 2, "under arguments: twice");
	tap_is(t->resyncs + t->stray_exits, 0, "under arguments: nothing to resynchronise");
}

/* gcc splits a host's cold half into a part (a.part.0) that the host jumps
 * to once its own frame is gone: the bodies inlined there run in the
 * part's frame, which ends where the host's did, far below the host's
 * hooks, and are given the host's return address. A call from such a body
 * returns into the part. */
static void test_inlined_in_split_part(void)
{
	struct pv_thread *t = new_thread();
	struct pv_frame *f = host(t);
	uintptr_t part = HOST_END - 440;
	caller_frame_end = HOST_END;
	enter_given(t, (void *)B, HOST_SITE, part);
	enter_given(t, (void *)C, HOST_SITE, part); /* nested in b */
	tap_ok(t->top == f, "split part: no frame for its bodies");
	enter_given(t, (void *)D, PART_SITE, part - 64);
	tap_ok(t->top != f && t->top->node->fn == (void *)D, "split part: a call is a frame");
	leave_given(t, D, PART_SITE, part - 64);
	leave_given(t, C, HOST_SITE, part);
	leave_given(t, B, HOST_SITE, part);
	tap_ok(t->top == f && f->inl == f->node, "split part: the exits close them");
	host_returns(t, HOST_END); /* the part jumps to the exit hook */
	tap_is(arc(A, B)->inlined_calls, 1, "split part: b inlined into a");
	tap_is(arc(B, C)->inlined_calls, 1, "split part: c inlined into b");
	tap_is(arc(C, D)->calls - arc(C, D)->inlined_calls, 1, "split part: d called from c");
	tap_is(t->resyncs + t->stray_exits, 0, "split part: nothing to resynchronise");
}

/* What is given the host's site and is a call all the same: a callback
 * that the instruction which called the host calls again (qsort's
 * comparator calling qsort), whose frame ends below the host's stack
 * pointer; a recursive call from that instruction, whose return address is
 * where a call from the caller's stack pointer pushes it (not asked about);
 * and code whose hooks are given no site. */
static void test_same_site_calls(void)
{
	struct pv_thread *t = new_thread();
	host(t);
	caller_frame_end = HOST_SP - 200;
	enter_given(t, (void *)B, HOST_SITE, HOST_SP - 248);
	tap_ok(t->top->node->fn == (void *)B, "same site: a callback's call is a frame");
	tap_is(unwinds, 1, "same site: the unwinder asked");
	words[400 - 31 - 1] = HOST_SITE; /* b calls b from its own stack pointer */
	enter_given(t, (void *)B, HOST_SITE, HOST_SP - 256 - 16);
	tap_ok(t->top->node->fn == (void *)B && t->top->sp == HOST_SP - 256 - 16,
	       "same site: a recursive call is a frame");
	leave_given(t, B, HOST_SITE, HOST_SP - 256 - 16);
	leave_given(t, B, HOST_SITE, HOST_SP - 248);
	leave_given(t, A, HOST_SITE, HOST_SP);
	enter_given(t, (void *)A, 0, HOST_SP);
	enter_given(t, (void *)C, 0, HOST_SP - 64);
	tap_ok(t->top->node->fn == (void *)C, "same site: a call given no site is a frame");
	leave_given(t, C, 0, HOST_SP - 64);
	host_returns(t, HOST_SP);
	tap_is(unwinds, 1, "same site: recursion and no site not asked about");
	tap_is(arc(A, B)->inlined_calls + arc(B, B)->inlined_calls + arc(A, C)->inlined_calls, 0,
	       "same site: none inlined");
	tap_is(arc(A, B)->calls + arc(B, B)->calls + arc(A, C)->calls, 3, "same site: three calls");
	tap_is(t->resyncs + t->stray_exits, 0, "same site: nothing to resynchronise");
}

/* gcc inlines a recursive function into itself: its copy's hooks are given
 * the host's site and its own function, and under a call's stack arguments
 * run below the host's stack pointer. A body, as the unwinder says: the
 * exits that follow are the copy's and then the host's, none stray. */
static void test_inlined_into_itself(void)
{
	struct pv_thread *t = new_thread();
	struct pv_frame *f = host(t);
	words[400 - 1] = 7; /* pushed stack arguments, not a return address */
	words[400 - 2] = 6;
	caller_frame_end = HOST_END;
	enter_given(t, (void *)A, HOST_SITE, HOST_SP - 16);
	tap_ok(t->top == f && f->inl != f->node, "into itself: opened in the host, no frame");
	tap_is(unwinds, 1, "into itself: the unwinder asked");
	leave_given(t, A, HOST_SITE, HOST_SP);
	host_returns(t, HOST_SP);
	tap_is(arc(A, A)->calls, 1, "into itself: once");
	tap_is(arc(A, A)->inlined_calls, 1, "into itself: inlined");
	tap_is(func(A)->calls - func(A)->inlined_calls, 1, "into itself: one call of a");
	tap_is(t->resyncs + t->stray_exits, 0, "into itself: nothing to resynchronise");
}

static void test_unmatched_exits(void)
{
	struct pv_thread *t = new_thread();
	leave(t, D); /* entered before profiling began */
	enter(t, MAIN);
	enter(t, A);
	enter(t, B);
	fake_clock = 5;
	leave(t, A); /* b's exit never came (unwinding without its hook) */
	leave(t, MAIN);
	merge(t);
	tap_is(t->stray_exits, 1, "stray exit ignored and counted");
	tap_is(func(B)->total[0], 5, "missing exit: frame closed with its caller");
	tap_is(func(A)->calls, 1, "missing exit: caller still counted once");
	tap_ok(t->top == t->stack, "missing exit: stack empty again");
}

static void test_signal_frames(void)
{
	struct pv_thread *t = new_thread();
	uint64_t saved[PV_MAX_EVENTS];
	enter(t, MAIN);
	enter(t, A);
	fake_clock = 10;
	struct pv_frame *restore = pv_thread_signal_enter(t, 14, STACK_TOP - 64 * 10 + 32, saved);
	tap_ok(restore != NULL, "signal: frame pushed");
	depth = 10;
	enter(t, B); /* the handler */
	fake_clock = 14;
	leave(t, B);
	leave(t, A); /* an exit the handler cannot make: A belongs to the interrupted code */
	fake_clock = 16;
	pv_thread_signal_leave(t, restore, saved);
	depth = 2;
	fake_clock = 20;
	leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(t->stray_exits, 1, "signal: an exit past the signal's frame is stray");
	tap_is(func(A)->calls, 1, "signal: the interrupted frame survived it");
	tap_is(func(A)->total[0], 20, "signal: interrupted activation's total includes the handler");
	tap_is(func(A)->self[0], 14, "signal: ... but its self does not");
	tap_is(func(B)->total[0], 4, "signal: handler timed on its own clock");
	tap_is(func(MAIN)->self[0] + func(A)->self[0] + func(B)->self[0] +
		       func((uintptr_t)&pv_signal_markers[14])->self[0],
	       20, "signal: selves still add up to the run");
	tap_ok(t->top == t->stack, "signal: stack empty again");
	tap_ok(func((uintptr_t)&pv_signal_markers[14])->kind == PV_FUNC_SIGNAL &&
		       func(A)->kind == PV_FUNC_PLAIN,
	       "signal: the profile records the delivery as a signal's, the handler's caller as "
	       "a function");
}

static void test_nested_signal(void)
{
	struct pv_thread *t = new_thread();
	uint64_t outer_saved[PV_MAX_EVENTS], inner_saved[PV_MAX_EVENTS];
	uintptr_t marker = (uintptr_t)&pv_signal_markers[10];
	enter(t, MAIN);
	fake_clock = 10;
	struct pv_frame *outer = pv_thread_signal_enter(t, 10, STACK_TOP - 64 * 10, outer_saved);
	depth = 10;
	enter(t, B); /* the handler, interrupted by the same signal (SA_NODEFER) */
	fake_clock = 12;
	struct pv_frame *inner = pv_thread_signal_enter(t, 10, STACK_TOP - 64 * 20, inner_saved);
	depth = 20;
	enter(t, B);
	fake_clock = 15;
	leave(t, B);
	pv_thread_signal_leave(t, inner, inner_saved);
	depth = 11;
	fake_clock = 16;
	leave(t, B);
	pv_thread_signal_leave(t, outer, outer_saved);
	depth = 1;
	fake_clock = 20;
	leave(t, MAIN);
	merge(t);
	tap_ok(outer && inner, "nested signal: both frames pushed");
	tap_is(func(marker)->calls, 2, "nested signal: both deliveries counted");
	tap_is(arc(MAIN, marker)->calls, 1, "nested signal: the outer one under main");
	tap_is(arc(B, marker)->calls, 1, "nested signal: the inner one under the handler");
	tap_is(t->cct.fold_edges, 1, "nested signal: folded into the outer signal's node");
	tap_is(func(B)->calls, 2, "nested signal: both handler runs counted");
	tap_is(func(B)->self[0], 6, "nested signal: each handler run's own time as self (3 + 3)");
	tap_is(func(MAIN)->self[0] + func(B)->self[0] + func(marker)->self[0], 20,
	       "nested signal: selves still add up to the run");
	tap_ok(t->top == t->stack, "nested signal: stack empty again");
}

static void test_many_callees(void)
{
	struct pv_thread *t = new_thread();
	const int n = 1000, rounds = 20;
	enter(t, MAIN);
	srand(7);
	for (int r = 0; r < rounds * n; r++) {
		uintptr_t fn = 0x100000 + 0x40 * (uintptr_t)(rand() % n);
		enter(t, fn);
		fake_clock++;
		leave(t, fn);
	}
	leave(t, MAIN);
	merge(t);
	uint64_t calls = 0, arcs = 0;
	for (struct pv_astat *a = prof.arcs; a; a = a->hh.next)
		if (a->key.caller == (void *)MAIN)
			calls += a->calls, arcs++;
	tap_is(calls, rounds * n, "many callees: every call counted");
	tap_is(arcs, n, "many callees: one arc each");
	tap_ok(t->cct.index->mask + 1 >= 2 * (uint64_t)n, "many callees: the index grew (%" PRIu64
	       " slots)", t->cct.index->mask + 1);
	tap_is(func(MAIN)->self[0], 0, "many callees: all time in the callees");
}

static void test_deep_recursion(void)
{
	struct pv_thread *t = new_thread();
	const int n = 100000;
	enter(t, MAIN);
	for (int i = 0; i < n; i++) {
		enter(t, A);
		fake_clock++;
	}
	for (int i = 0; i < n; i++)
		leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_is(func(A)->calls, n, "deep: every call counted");
	tap_is(arc(A, A)->calls, n - 1, "deep: recursive arc exact");
	tap_is(func(A)->total[0], n, "deep: total once");
	tap_ok(t->cct.nodes <= 3, "deep: tree stays bounded (%" PRIu64 " nodes)", t->cct.nodes);
}

/* The private writable memory this process has now (what RLIMIT_DATA
 * limits), in bytes. */
static rlim_t data_now(void)
{
	char line[256];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		abort();
	while (fgets(line, sizeof(line), f) && sscanf(line, "VmData: %lu kB", &kib) != 1)
		;
	fclose(f);
	if (!kib)
		abort();
	return (rlim_t)kib * 1024;
}

/* No memory for the shadow stack to grow: calls go unrecorded, are counted
 * as such, and the profile says so. */
static void test_out_of_memory(void)
{
	struct pv_thread *t = new_thread();
	const int n = 10000; /* beyond the shadow stack's first 4096 frames */
	enter(t, MAIN);
	struct rlimit old, tight;
	getrlimit(RLIMIT_DATA, &old);
	tight = old;
	tight.rlim_cur = data_now() + 64 * 1024;
	setrlimit(RLIMIT_DATA, &tight);
	for (int i = 0; i < n; i++)
		enter(t, A);
	setrlimit(RLIMIT_DATA, &old);
	for (int i = 0; i < n; i++)
		leave(t, A);
	leave(t, MAIN);
	merge(t);
	tap_ok(t->unrecorded > 0 && t->unrecorded < (uint64_t)n,
	       "out of memory: calls past the stack's end counted unrecorded (%" PRIu64 ")",
	       t->unrecorded);
	tap_is(func(A)->calls + t->unrecorded, n, "out of memory: every call recorded or counted");
	tap_is(t->stray_exits, t->unrecorded, "out of memory: their exits are stray");
	tap_is(prof.losses.unrecorded_calls, t->unrecorded, "out of memory: the profile says so");
	tap_ok(t->top == t->stack, "out of memory: stack empty again");
}

/* The shadow stack grows in place up to its deepest, never moving a frame;
 * calls beyond are counted unrecorded. */
static void test_deepest(void)
{
	struct pv_thread *t = new_thread();
	const int beyond = 1000, n = PV_STACK_MAX_FRAMES + beyond;
	struct pv_frame *stack = t->stack;
	enter(t, MAIN);
	struct pv_frame *main_frame = t->top;
	for (int i = 0; i < n; i++)
		enter(t, A);
	tap_ok(t->stack == stack && main_frame->node->fn == (void *)MAIN,
	       "deepest: frames stayed where they were");
	for (int i = 0; i < n; i++)
		leave(t, A);
	leave(t, MAIN);
	merge(t);
	/* The bottom frame and MAIN's take two of the slots. */
	tap_is(t->unrecorded, beyond + 2, "deepest: calls past the limit counted unrecorded");
	tap_is(func(A)->calls + t->unrecorded, n, "deepest: every call recorded or counted");
	tap_ok(t->top == t->stack, "deepest: stack empty again");
}

/* Brute-force model: a stack of activations and sums taken on the spot. */
#define NFN 5
struct model {
	uintptr_t stack[256];
	uint64_t start[256];
	int depth;
	uint64_t last;
	uint64_t calls[NFN], self[NFN], total[NFN];
	uint64_t arc_calls[NFN + 1][NFN], arc_total[NFN + 1][NFN];
};

static int on_stack_below(const struct model *m, uintptr_t fn, int top)
{
	for (int i = 0; i < top; i++)
		if (m->stack[i] == fn)
			return 1;
	return 0;
}

static void model_enter(struct model *m, int fn)
{
	if (m->depth)
		m->self[m->stack[m->depth - 1]] += fake_clock - m->last;
	m->last = fake_clock;
	int caller = m->depth ? (int)m->stack[m->depth - 1] + 1 : 0;
	m->calls[fn]++;
	m->arc_calls[caller][fn]++;
	m->stack[m->depth] = (uintptr_t)fn;
	m->start[m->depth++] = fake_clock;
}

static void model_exit(struct model *m)
{
	int top = --m->depth;
	int fn = (int)m->stack[top];
	m->self[fn] += fake_clock - m->last;
	m->last = fake_clock;
	if (!on_stack_below(m, (uintptr_t)fn, top)) {
		uint64_t incl = fake_clock - m->start[top];
		m->total[fn] += incl;
		int caller = top ? (int)m->stack[top - 1] + 1 : 0;
		m->arc_total[caller][fn] += incl;
	}
}

static uintptr_t fn_addr(int i)
{
	return 0x10000 + 0x100 * (uintptr_t)i;
}

static void test_random_against_model(void)
{
	int mismatches = 0, checks = 0;
	for (unsigned seed = 1; seed <= 200; seed++) {
		srand(seed);
		struct pv_thread *t = new_thread();
		static struct model m;
		memset(&m, 0, sizeof(m));
		int steps = 400 + rand() % 400;
		for (int s = 0; s < steps || m.depth; s++) {
			fake_clock += (uint64_t)(rand() % 7);
			int push = m.depth == 0 || (s < steps && m.depth < 200 && rand() % 2);
			if (push) {
				int fn = rand() % NFN;
				model_enter(&m, fn);
				enter(t, fn_addr(fn));
			} else {
				int fn = (int)m.stack[m.depth - 1];
				model_exit(&m);
				leave(t, fn_addr(fn));
			}
		}
		merge(t);
		uint64_t self_sum = 0, root_sum = 0;
		for (int f = 0; f < NFN; f++) {
			struct pv_fstat *fs = func(fn_addr(f));
			checks += 3;
			mismatches += fs->calls != m.calls[f];
			mismatches += fs->self[0] != m.self[f] || fs->self[1] != 3 * m.self[f];
			mismatches += fs->total[0] != m.total[f];
			self_sum += fs->self[0];
			root_sum += arc(0, fn_addr(f))->total[0];
			for (int c = 0; c <= NFN; c++) {
				struct pv_astat *a = arc(c ? fn_addr(c - 1) : 0, fn_addr(f));
				checks += 2;
				mismatches += a->calls != m.arc_calls[c][f];
				mismatches += a->total[0] != m.arc_total[c][f];
				if (c && a->total[0] > func(fn_addr(c - 1))->total[0])
					mismatches++;
			}
		}
		checks++;
		mismatches += self_sum != root_sum;
	}
	tap_ok(mismatches == 0, "random sequences: %d of %d checks differ from the model",
	       mismatches, checks);
}

/* What a hand-over gave: every function's and arc's counts, the thread's run. */
struct handed {
	uint64_t calls[NFN], self[NFN][NEV], total[NFN][NEV];
	uint64_t arc_calls[NFN + 1][NFN], arc_total[NFN + 1][NFN][NEV];
	uint64_t run[NEV];
};

static void take(struct handed *h)
{
	memset(h, 0, sizeof(*h));
	for (int f = 0; f < NFN; f++) {
		struct pv_fstat *fs = func(fn_addr(f));
		h->calls[f] = fs->calls;
		for (int c = 0; c <= NFN; c++) {
			struct pv_astat *a = arc(c ? fn_addr(c - 1) : 0, fn_addr(f));
			h->arc_calls[c][f] = a->calls;
			memcpy(h->arc_total[c][f], a->total, sizeof(h->arc_total[c][f]));
		}
		memcpy(h->self[f], fs->self, sizeof(h->self[f]));
		memcpy(h->total[f], fs->total, sizeof(h->total[f]));
	}
	if (prof.n_thread_stats)
		memcpy(h->run, prof.thread_stats[0].total, sizeof(h->run));
}

/* A live thread handed over with its readings now: its open activations
 * (recursion among them) count as closing them then would, and the thread
 * is left as it was. */
static void test_live_hand_over(void)
{
	int differ = 0, written = 0;
	for (unsigned seed = 1; seed <= 100; seed++) {
		srand(seed);
		struct pv_thread *t = new_thread();
		int open = 0;
		uintptr_t stack[64];
		for (int s = 0; s < 300 || !open; s++) {
			fake_clock += (uint64_t)(rand() % 7);
			if (!open || (open < 60 && rand() % 2)) {
				stack[open++] = fn_addr(rand() % NFN);
				enter(t, stack[open - 1]);
			} else {
				leave(t, stack[--open]);
			}
		}
		fake_clock += 5;
		struct pv_thread_now now = { .at_last_hook = 0 };
		fake_read(t, now.now);
		struct pv_frame *top = t->top;
		uint64_t last = t->last[0], start = top->start[0];
		pv_profile_clear(&prof);
		pv_profile_init(&prof, NEV);
		pv_thread_hand_over_live(&prof, t, &now);
		written += t->top != top || t->last[0] != last || top->start[0] != start ||
			   prof.losses.threads_cut_short;
		static struct handed live, closed;
		take(&live);
		pv_thread_close_all(t);
		merge(t);
		take(&closed);
		differ += memcmp(&live, &closed, sizeof(live)) != 0;
	}
	tap_ok(!differ, "live hand-over: open activations counted as closing them would (%d of "
	       "100 sequences differ)", differ);
	tap_ok(!written, "live hand-over: the thread is not written, nor cut short (%d)", written);
}

/* Open across a signal's frame (and the spare slot under it), and cut
 * short when its events could not be read. */
static void test_live_hand_over_signal(void)
{
	struct pv_thread *t = new_thread();
	uint64_t saved[PV_MAX_EVENTS];
	enter(t, MAIN);
	enter(t, A);
	fake_clock = 10;
	pv_thread_signal_enter(t, 14, STACK_TOP - 64 * 10 + 32, saved);
	depth = 10;
	enter(t, B);
	fake_clock = 14;
	struct pv_thread_now now = { .at_last_hook = 1 };
	memcpy(now.now, t->last, sizeof(now.now));
	pv_profile_clear(&prof);
	pv_profile_init(&prof, NEV);
	pv_thread_hand_over_live(&prof, t, &now);
	tap_is(func(MAIN)->total[0], 10, "live hand-over, signal: the interrupted frames' totals "
	       "to the last hook");
	tap_is(func(B)->total[0], 0, "live hand-over, signal: the handler's too");
	tap_is(prof.thread_stats[0].total[0], 10, "live hand-over, signal: the thread's run");
	tap_ok(prof.losses.threads_cut_short == 1 && prof.thread_stats[0].cut_short,
	       "live hand-over: not read now, the thread is cut short");
	fake_clock = 20;
	fake_read(t, now.now);
	now.at_last_hook = 0;
	pv_profile_clear(&prof);
	pv_profile_init(&prof, NEV);
	pv_thread_hand_over_live(&prof, t, &now);
	tap_ok(func(MAIN)->total[0] == 20 && func(B)->self[0] == 10 && func(B)->total[0] == 10 &&
		       !prof.losses.threads_cut_short,
	       "live hand-over, signal: read now, to now (main %" PRIu64 ", b %" PRIu64 ")",
	       func(MAIN)->total[0], func(B)->total[0]);
}

int main(void)
{
	test_nested();
	test_direct_recursion();
	test_mutual_recursion();
	test_longjmp();
	test_setjmp_landing();
	test_setjmp_stale();
	test_inlined_same_frame();
	test_inlined_no_frame();
	test_inlined_left_open();
	test_inlined_under_arguments();
	test_inlined_in_split_part();
	test_same_site_calls();
	test_inlined_into_itself();
	test_unmatched_exits();
	test_signal_frames();
	test_nested_signal();
	test_many_callees();
	test_deep_recursion();
	test_out_of_memory();
	test_deepest();
	test_random_against_model();
	test_live_hand_over();
	test_live_hand_over_signal();
	return tap_done();
}
