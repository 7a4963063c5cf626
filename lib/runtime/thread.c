/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/thread.h"

#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "runtime/contexts.h"
#include "runtime/cpusamples.h"
#include "runtime/fds.h"
#include "runtime/guard.h"
#include "runtime/hooks.h"
#include "runtime/hooksites.h"
#include "runtime/stack.h"

int pv_thread_init(struct pv_thread *t, unsigned nev, pv_read_fn *read)
{
	t->nev = nev;
	t->read = read ? read : nev ? pv_read_clock : pv_read_none;
	t->run_mode = read ? PV_MODE_GENERIC : nev ? PV_MODE_CLOCK : PV_MODE_COUNT;
	t->frame_size = pv_frame_size(nev);
	pv_cpusamples_init(t);
	if (pv_cct_init(&t->cct, nev) < 0)
		return -1;
	if (pv_stack_init(t) < 0) {
		pv_cct_release(&t->cct);
		return -1;
	}
	t->top = t->stack;
	pv_stack_set_bottom(t->top, t->cct.root);
	t->read(t, t->last);
	pv_thread_publish(t, t->top->node);
	t->mode = t->run_mode;
	return 0;
}

void pv_thread_reopen_counters(struct pv_thread *t, uint64_t *now)
{
	/* Inside the boundary, so that whatever the opening calls (a lock that
	 * the program's wait wrappers see, its malloc) records nothing here. */
	struct pv_guard g;
	pv_guard_enter(&g, t);
	/* Not while the program is closing descriptors, which could take the
	 * new ones unseen (fds.h): then it is tried again at the next read. */
	sigset_t fds_mask;
	if (pv_fds_runtime_begins(0, &fds_mask)) {
		pv_counters_reopen(&t->counters, t->last);
		pv_fds_runtime_ends(&fds_mask);
		pv_debug(2, "thread %d: its events, closed by the program, reopened (%s)",
			 (int)t->tid,
			 pv_counters_state(&t->counters) == PV_COUNTERS_OPEN ? "all there"
			 : pv_counters_state(&t->counters) == PV_COUNTERS_GONE ? "gone for good"
									     : "not yet");
	}
	pv_guard_leave(&g);
	pv_counters_read(&t->counters, t->last, now);
}

void pv_thread_release(struct pv_thread *t)
{
	pv_contexts_release(t);
	if (t->stack)
		munmap(t->stack, t->stack_reserved);
	t->stack = NULL;
	pv_cct_release(&t->cct);
	t->mode = PV_MODE_OFF;
}

/* Does a hook given site at sp, below the stack pointer of f, whose site it
 * is, run in f's function (a body inlined there: under arguments the host
 * has pushed, below an alloca, in a part of it gcc split off and jumped
 * to), or in a function called from there (by the instruction that called
 * f, recursively or from a callback)? hooksites.h tells. A hook given no
 * site is a call's, and so is a recursive call's, as hooks.h tells it. */
static int runs_in_host(const struct pv_frame *f, uintptr_t site, uintptr_t sp)
{
	return site && f->site == site && f->sp > sp &&
	       pv_arch_return_address(f->sp) != site && pv_hooksite_in_host(sp, f->sp);
}

/* An inlined body on a path not taken before: its edge, then as the hook. */
static void enter_inlined_slow(struct pv_thread *t, void *fn)
{
	struct pv_frame *f = t->top;
	struct pv_node *c = pv_cct_child(&t->cct, f->inl, pv_inlined_key(fn));
	if (c)
		pv_open_body(f, c);
	else
		t->unrecorded++;
}

/* Close fn's body open in f, and the frames above f. 0 if no body there
 * is fn's. */
static int close_body(struct pv_thread *t, struct pv_frame *f, void *fn)
{
	for (struct pv_node *n = f->inl; n != f->node; n = n->parent)
		if (n->fn == pv_inlined_key(fn)) {
			t->resyncs += f != t->top;
			pv_stack_close_down_to(t, f);
			f->inl = n->parent;
			return 1;
		}
	return 0;
}

/* An exit the hook did not match, of a body inlined into the frame at the
 * hook's stack pointer: open further out than the innermost (whose exits
 * were skipped by a longjmp within the frame), or under frames left
 * without their exits (a C++ exception unwound through them, and clang
 * runs no exit hooks then); or of a body inlined into the top frame that
 * runs below its stack pointer. Closes it and those frames; 0 if no body
 * there is fn's. */
static int exit_inlined_slow(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp)
{
	struct pv_frame *f = t->top;
	if (runs_in_host(f, site, sp) && close_body(t, f, fn))
		return 1;
	while (f != t->stack && f->sp < sp && !pv_signal_of(f->node->fn))
		f = pv_stack_under(t, f);
	return f->sp == sp && close_body(t, f, fn);
}

static void enter_slow(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp)
{
	/* After a longjmp a frame at our very depth is the one jumped out of. */
	uintptr_t dead_from = t->jumped ? sp : sp - 1;
	t->jumped = 0;
	struct pv_frame *live = t->top;
	while (live != t->stack && live->sp <= dead_from)
		live = pv_stack_under(t, live);
	if (live != t->top) {
		t->resyncs++;
		pv_debug(3, "thread %d: frames left by a longjmp dropped", (int)t->tid);
		pv_stack_close_down_to(t, live);
	}
	if (!t->inlined_as_frames && (t->top->sp == sp || runs_in_host(t->top, site, sp))) {
		enter_inlined_slow(t, fn);
		return;
	}
	/* Without memory for its frame or node, a call goes unrecorded (and its
	 * exit becomes a stray one); the profile says how many. */
	struct pv_node *c = NULL;
	/* Growth moves nothing: a handler's longjmp may abandon it midway
	 * (pages made usable but not yet counted are made usable again). */
	int room = t->top != t->stack_limit || pv_stack_grow(t) == 0;
	if (room)
		c = pv_cct_child(&t->cct, t->top->inl, fn);
	if (c)
		pv_push(t, t->top, c, site, sp, t->nev, t->read);
	else
		t->unrecorded++;
}

static void exit_slow(struct pv_thread *t, void *fn, uintptr_t site, uintptr_t sp)
{
	t->jumped = 0;
	if (exit_inlined_slow(t, fn, site, sp))
		return;
	struct pv_frame *f = t->top;
	/* A signal handler never returns from the frames it interrupted: the
	 * search stops at a signal's frame. */
	while (f != t->stack && f->node->fn != fn && !pv_signal_of(f->node->fn))
		f = pv_stack_under(t, f);
	if (f == t->stack || f->node->fn != fn) {
		t->stray_exits++; /* entered before profiling began, or never recorded */
		pv_debug(3, "thread %d: an exit from %p with no activation", (int)t->tid, fn);
		return;
	}
	/* Frames above fn's were left without their exits (longjmp, unwinding). */
	t->resyncs += f != t->top;
	pv_stack_close_down_to(t, pv_stack_under(t, f));
}

int pv_thread_shares_tls(struct pv_thread *t)
{
	if (!pv_thread_has_state(t) || !pv_mode_is_profiling(t->mode))
		return -1;
	int mode = t->mode;
	t->shared_tls = 1;
	pv_thread_publish(t, NULL); /* the looks drop its time */
	pv_signal_fence();
	t->mode = PV_MODE_OFF;
	pv_debug(1, "thread %d: clone(2) shares its TLS: nothing more recorded on it",
		 (int)t->tid);
	return mode;
}

void pv_thread_unshares_tls(struct pv_thread *t, int mode)
{
	if (mode < 0)
		return;
	t->shared_tls = 0;
	pv_thread_publish(t, t->top->node);
	pv_signal_fence();
	t->mode = mode;
}

void pv_thread_caught(struct pv_thread *t, uintptr_t sp)
{
	if (!pv_thread_has_state(t) || !pv_mode_is_profiling(t->mode))
		return;
	struct pv_guard g;
	int entered = pv_guard_enter_abandonable(&g, t);
	if (entered) {
		/* A handler's frames are on its own stack: unwinding ends inside
		 * it, or the search stops there. */
		struct pv_frame *f = t->top;
		while (f != t->stack && f->sp < sp && !pv_signal_of(f->node->fn))
			f = pv_stack_under(t, f);
		int unwound = f != t->top;
		if (unwound) {
			t->resyncs++;
			pv_debug(3, "thread %d: frames an exception unwound closed at its catch",
				 (int)t->tid);
			pv_stack_close_down_to(t, f);
		}
		/* Thrown in a body inlined into this frame, which is still open:
		 * no exit hook ran as it was unwound. (One that holds the catch
		 * itself is its host's frame's next body out, left open.) */
		if (f == t->thrown_at && f->inl == t->thrown_in && f->inl != f->node &&
		    f->sp == sp) {
			t->resyncs++;
			f->inl = f->inl->parent;
		}
		/* Bodies open in the catching frame that the exception came out
		 * through, from frames it unwound without their exit hooks: those
		 * bodies' exits did not run either, unless the catch lies inside
		 * them, which only the debugging information could tell. Counted
		 * (the profile says it: handover.c). */
		else if (unwound && f->inl != f->node && f->sp == sp)
			t->catches_in_bodies++;
		t->thrown_at = NULL;
	}
	pv_guard_leave_abandonable(&g, entered);
}

void pv_thread_enter_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	struct pv_guard g;
	int entered = pv_guard_enter_abandonable(&g, t);
	if (entered) {
		enter_slow(t, fn, site, sp);
		g.mode = t->run_mode; /* resynchronised, if it had jumped */
	}
	pv_guard_leave_abandonable(&g, entered);
}

void pv_thread_exit_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	struct pv_guard g;
	int entered = pv_guard_enter_abandonable(&g, t);
	if (entered) {
		exit_slow(t, fn, site, sp);
		g.mode = t->run_mode;
	}
	pv_guard_leave_abandonable(&g, entered);
}

/* PROFVIZ_INLINED=frames: pushed as the hooks push a call (hooks.h). */
static PV_NOINLINE void enter_inlined_as_frame(void *fn, uintptr_t site, uintptr_t sp,
						struct pv_thread *t)
{
	struct pv_frame *f = t->top;
	pv_thread_publish(t, NULL);
	if (unlikely(f == t->stack_limit)) {
		pv_thread_enter_slow(fn, site, sp, t);
		return;
	}
	pv_thread_settle_owed(t, f->node);
	struct pv_node *c = f->inl->cache[pv_child_slot(fn)];
	if (likely(c->fn == fn))
		pv_push(t, f, c, site, sp, t->nev, t->read);
	else
		pv_hook_enter_indexed(t, fn, site, sp, t->nev, t->read, pv_thread_enter_slow);
}

void pv_thread_enter_inlined(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	if (unlikely(t->inlined_as_frames)) {
		enter_inlined_as_frame(fn, site, sp, t);
		return;
	}
	/* Its edge missed the cache (the hook counts the hits). NULL is
	 * published: the hook's own time. */
	struct pv_frame *f = t->top;
	struct pv_node *c = pv_cct_find(&t->cct, f->inl, pv_inlined_key(fn)); /* and caches it */
	if (unlikely(!c)) {
		pv_thread_enter_slow(fn, site, sp, t); /* a new path */
		return;
	}
	pv_open_body(f, c);
	pv_thread_publish(t, f->node);
}

/* ---- setjmp and longjmp ---- */

void pv_thread_note_setjmp(struct pv_thread *t, const void *env, uintptr_t sp)
{
	if (!pv_thread_has_state(t))
		return;
	struct pv_jmp_record *r = NULL;
	for (unsigned i = 0; i < PV_JMP_RECORDS && !r; i++)
		if (t->jmps[i].env == env)
			r = &t->jmps[i];
	/* One instruction: a handler's setjmp that interrupts this one takes another. */
	if (!r)
		r = &t->jmps[__atomic_fetch_add(&t->jmp_next, 1, __ATOMIC_RELAXED) % PV_JMP_RECORDS];
	r->env = NULL;
	pv_signal_fence();
	r->sp = sp;
	r->signal_depth = t->signal_depth;
	/* A BUSY thread's stack may be midway through a change: such a setjmp
	 * (in a handler that interrupted the runtime) only says how deep in
	 * handlers it was. */
	if (t->mode == PV_MODE_BUSY) {
		r->top = SIZE_MAX;
	} else {
		r->top = (size_t)((char *)t->top - (char *)t->stack);
		r->node = t->top->node;
		r->frame_sp = t->top->sp;
		r->inl = t->top->inl;
	}
	pv_signal_fence();
	r->env = env;
}

/* env's record, if a longjmp called at stack pointer sp can land there: its
 * setjmp's caller must still be live, so not below sp. */
static const struct pv_jmp_record *jmp_record(const struct pv_thread *t, const void *env,
					      uintptr_t sp)
{
	for (unsigned i = 0; i < PV_JMP_RECORDS; i++)
		if (t->jmps[i].env == env)
			return t->jmps[i].sp >= sp ? &t->jmps[i] : NULL;
	return NULL;
}

/* The frame r was taken at, if it is still on the stack as that same
 * activation: a frame at or below the top, on the chain down from it. */
static struct pv_frame *jmp_frame(const struct pv_thread *t, const struct pv_jmp_record *r)
{
	size_t top = (size_t)((char *)t->top - (char *)t->stack);
	if (r->top > top)
		return NULL;
	struct pv_frame *want = (struct pv_frame *)((char *)t->stack + r->top);
	struct pv_frame *f = t->top;
	while ((char *)f > (char *)want)
		f = pv_stack_under(t, f);
	return f == want && f->node == r->node && f->sp == r->frame_sp ? f : NULL;
}

/* A handler left by longjmp abandoned a hook or a slow path midway: what
 * it may have left half done is made whole. Frames pushed or popped halfway
 * are settled by the resynchronisation; the activation counts are
 * recounted from the stack. (The cost of the instant the hook was
 * interrupted at may be charged twice, or not at all.) */
static void repair_abandoned(struct pv_thread *t)
{
	pv_debug(2, "thread %d: a handler left a runtime section by longjmp: repaired",
		 (int)t->tid);
	pv_cct_repair(&t->cct);
	for (struct pv_func *f = t->cct.funcs; f; f = f->hh.next)
		f->active = 0;
	for (struct pv_frame *f = t->top; f != t->stack; f = pv_stack_under(t, f))
		f->node->func->active++;
}

void pv_thread_longjmp(struct pv_thread *t, const void *env, uintptr_t sp)
{
	if (!pv_thread_has_state(t))
		return;
	const struct pv_jmp_record *r = jmp_record(t, env, sp);
	/* Unknown: assumed to leave the handlers that run BUSY, if any. */
	unsigned depth = r ? r->signal_depth : t->busy_depth ? t->busy_depth - 1 : t->signal_depth;
	if (t->busy_depth && depth >= t->busy_depth)
		return; /* within a handler that runs BUSY: nothing was recorded there */
	/* Leaving a handler abandons what it interrupted: a hook midway, or a
	 * slow path (the handler then runs BUSY). */
	int leaves_handler = depth < t->signal_depth;
	struct pv_guard g;
	int entered = 1;
	/* Marked before BUSY and until after it: a second handler that lands
	 * here and jumps out too takes this section over in turn. */
	t->in_slow_path = 1;
	pv_signal_fence();
	if (t->busy_depth)
		pv_guard_take_over(&g, t);
	else
		entered = pv_guard_enter(&g, t);
	t->busy_depth = 0;
	t->signal_depth = depth;
	if (entered) {
		if (leaves_handler) {
			repair_abandoned(t);
			t->collecting = 0; /* the count, or the hook, it interrupted is gone */
		}
		struct pv_frame *f = r && r->top != SIZE_MAX ? jmp_frame(t, r) : NULL;
		if (f) {
			t->resyncs += f != t->top;
			pv_stack_close_down_to(t, f);
			f->inl = r->inl; /* the bodies open at the setjmp, no more */
			t->jumped = 0;
			g.mode = t->run_mode;
		} else {
			/* The next hook drops what lies below its stack pointer. */
			t->jumped = 1;
			g.mode = PV_MODE_JUMPED;
		}
	}
	pv_guard_leave(&g);
	pv_signal_fence();
	if (t->mode != PV_MODE_BUSY) {
		t->in_slow_path = 0;
		pv_sigdefer_send(); /* what the abandoned section had set aside */
	}
}

/* ---- signal handlers ---- */

void pv_thread_handler_begins(struct pv_thread *t, int unrecorded)
{
	if (!pv_thread_has_state(t))
		return;
	t->signal_depth++;
	/* Left by longjmp, such a handler abandons the runtime's section (or
	 * nothing, if it only had no room to be recorded). A BUSY thread
	 * outside the hooks' slow paths (a dump, holding a lock) is never
	 * abandoned: it stays BUSY. */
	int busy = t->mode == PV_MODE_BUSY && (unrecorded || t->in_slow_path);
	if (busy && !t->busy_depth)
		t->busy_depth = t->signal_depth;
}

void pv_thread_handler_ends(struct pv_thread *t)
{
	if (!pv_thread_has_state(t))
		return;
	if (t->busy_depth == t->signal_depth)
		t->busy_depth = 0;
	if (t->signal_depth)
		t->signal_depth--;
}

struct pv_frame *pv_thread_signal_enter(struct pv_thread *t, int sig, uintptr_t sp,
					uint64_t *saved_last)
{
	struct pv_frame *top = t->top;
	size_t fs = t->frame_size;
	if (sig <= 0 || sig >= PV_NSIG)
		return NULL;
	if ((char *)top + 2 * fs > (char *)t->stack_limit && pv_stack_grow(t) < 0)
		return NULL;
	/* An edge like a call's: the interrupted hook reads the edge index and
	 * never writes a child list, so adding to them here is safe. From the
	 * innermost body open, as a call's (an interrupted enter of one has
	 * opened it or not: either is whole). */
	struct pv_node *c = pv_cct_child(&t->cct, top->inl, (void *)&pv_signal_markers[sig]);
	if (!c)
		return NULL;
	struct pv_node *s = c->target; /* a signal nested in its own handler folds */
	uint64_t now[PV_MAX_EVENTS];
	t->read(t, now);
	struct pv_frame *f = pv_frame_above(pv_frame_above(top, fs), fs);
	f->sp = sp;
	f->site = 0;
	f->node = s;
	f->inl = s;
	f->sampled_start = pv_thread_sampled_clock(t);
	/* The interrupted code is charged nothing here: it may be a hook midway
	 * through its own accounting. The handler runs on a clock of its own. */
	for (unsigned i = 0; i < t->nev; i++) {
		saved_last[i] = t->last[i];
		t->last[i] = now[i];
		f->start[i] = now[i];
	}
	c->calls++;
	s->func->active++;
	pv_signal_fence();
	t->top = f;
	return top;
}

void pv_thread_signal_leave(struct pv_thread *t, struct pv_frame *restore,
			    const uint64_t *saved_last)
{
	struct pv_frame *f = pv_frame_above(pv_frame_above(restore, t->frame_size), t->frame_size);
	uint64_t start[PV_MAX_EVENTS];
	memcpy(start, f->start, t->nev * sizeof(uint64_t));
	/* The handler's frames are gone unless it skipped exits; then the signal's. */
	pv_stack_close_down_to(t, pv_frame_above(restore, t->frame_size));
	/* Resume the interrupted clock as if the handler took no time: whatever
	 * the interrupted code subtracts next excludes it. */
	for (unsigned i = 0; i < t->nev; i++)
		t->last[i] = saved_last[i] + (t->last[i] - start[i]);
	pv_signal_fence();
	t->top = restore;
}

void pv_thread_close_all(struct pv_thread *t)
{
	pv_contexts_close_suspended(t);
	pv_stack_close(t);
}

void pv_thread_restart(struct pv_thread *t)
{
	uint64_t now[PV_MAX_EVENTS];
	pv_cct_clear(&t->cct);
	/* What the parent's sampler or ring found is the parent's. */
	__atomic_store_n(&t->owed_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->owed_samples, 0, __ATOMIC_RELAXED);
	t->ring_total = (struct pv_pcring_news){ 0, 0, 0, 0, 0 };
	/* The counters may be new (a forked child's): no floor from the old ones. */
	memset(t->last, 0, sizeof(t->last));
	t->read(t, now);
	memcpy(t->last, now, sizeof(now));
	for (struct pv_frame *f = t->top; f != t->stack; f = pv_stack_under(t, f))
		pv_frame_restart(t, f, now);
	pv_contexts_restart(t, now);
	t->stray_exits = t->resyncs = t->unrecorded = 0;
}
