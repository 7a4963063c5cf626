#define _GNU_SOURCE
#include "thread.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "shadow.h"

#define PV_STACK_INITIAL_FRAMES 4096

static void set_limit(struct pv_thread *t)
{
	size_t frames = t->stack_bytes / t->frame_size;
	t->stack_limit = (struct pv_frame *)((char *)t->stack + (frames - 1) * t->frame_size);
}

int pv_thread_init(struct pv_thread *t, unsigned nev, pv_read_fn *read)
{
	t->nev = nev;
	t->read = read ? read : pv_read_clock;
	t->run_mode = read ? PV_MODE_GENERIC : PV_MODE_CLOCK;
	t->frame_size = pv_frame_size(nev);
	if (pv_cct_init(&t->cct, nev) < 0)
		return -1;
	t->stack_bytes = PV_STACK_INITIAL_FRAMES * t->frame_size;
	void *m = mmap(NULL, t->stack_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		pv_cct_release(&t->cct);
		return -1;
	}
	t->stack = m;
	set_limit(t);
	/* The bottom frame stands for the code that called in from outside:
	 * it is never left, and it holds the root as its node. */
	t->top = t->stack;
	t->top->sp = UINTPTR_MAX;
	t->top->node = t->cct.root;
	t->read(t, t->last);
	t->mode = t->run_mode;
	return 0;
}

void pv_thread_release(struct pv_thread *t)
{
	if (t->stack)
		munmap(t->stack, t->stack_bytes);
	t->stack = NULL;
	pv_cct_release(&t->cct);
	t->mode = PV_MODE_OFF;
}

/* Double the shadow stack; frames are addressed relative to its base. */
static int grow_stack(struct pv_thread *t)
{
	size_t top_offset = (char *)t->top - (char *)t->stack;
	void *m = mremap(t->stack, t->stack_bytes, 2 * t->stack_bytes, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return -1;
	t->stack = m;
	t->stack_bytes *= 2;
	t->top = (struct pv_frame *)((char *)m + top_offset);
	set_limit(t);
	return 0;
}

/* The frame under f. A signal's frame sits two slots above the frame it
 * interrupted: the slot between belongs to the hook it may have interrupted. */
static struct pv_frame *frame_under(const struct pv_thread *t, struct pv_frame *f)
{
	struct pv_frame *below = pv_frame_below(f, t->frame_size);
	return pv_signal_of(f->node->fn) ? pv_frame_below(below, t->frame_size) : below;
}

/* Pop frames down to (not including) keep, as if they all returned now. */
static void close_frames_down_to(struct pv_thread *t, struct pv_frame *keep)
{
	uint64_t now[PV_MAX_EVENTS];
	t->read(t, now);
	while ((char *)t->top > (char *)keep) {
		struct pv_frame *f = t->top, *under = frame_under(t, f);
		pv_pop_at(t, f, now, t->nev);
		t->top = under;
	}
}

void pv_thread_enter_slow(struct pv_thread *t, void *fn, uintptr_t sp)
{
	int saved_errno = errno; /* mremap and mmap may set it */
	/* After a longjmp a frame at our very depth is the one jumped out of. */
	uintptr_t dead_from = t->jumped ? sp : sp - 1;
	t->jumped = 0;
	struct pv_frame *live = t->top;
	while (live != t->stack && live->sp <= dead_from)
		live = frame_under(t, live);
	if (live != t->top) {
		t->resyncs++;
		close_frames_down_to(t, live);
	}
	if (t->top == t->stack_limit && grow_stack(t) < 0)
		goto out; /* no memory: this call goes unrecorded, and so will its exit */
	struct pv_node *c = pv_cct_child(&t->cct, t->top->node, fn);
	if (c)
		pv_push(t, t->top, c, sp, t->nev, t->read);
out:
	errno = saved_errno;
}

void pv_thread_exit_slow(struct pv_thread *t, void *fn)
{
	t->jumped = 0;
	struct pv_frame *f = t->top;
	/* A signal handler never returns from the frames it interrupted: the
	 * search stops at a signal's frame. */
	while (f != t->stack && f->node->fn != fn && !pv_signal_of(f->node->fn))
		f = frame_under(t, f);
	if (f == t->stack || f->node->fn != fn) {
		t->stray_exits++; /* entered before profiling began, or never recorded */
		return;
	}
	/* Frames above fn's were left without their exits (longjmp, unwinding). */
	t->resyncs += f != t->top;
	close_frames_down_to(t, frame_under(t, f));
}

struct pv_frame *pv_thread_signal_enter(struct pv_thread *t, int sig, uintptr_t sp,
					uint64_t *saved_last)
{
	struct pv_frame *top = t->top;
	size_t fs = t->frame_size;
	if ((char *)top + 2 * fs > (char *)t->stack_limit || sig <= 0 || sig >= PV_NSIG)
		return NULL;
	/* An edge like a call's: the interrupted hook reads the edge index and
	 * never writes a child list, so adding to them here is safe. */
	struct pv_node *c = pv_cct_child(&t->cct, top->node, (void *)&pv_signal_markers[sig]);
	if (!c)
		return NULL;
	struct pv_node *s = c->target; /* a signal nested in its own handler folds */
	uint64_t now[PV_MAX_EVENTS];
	t->read(t, now);
	struct pv_frame *f = pv_frame_above(pv_frame_above(top, fs), fs);
	f->sp = sp;
	f->node = s;
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
	close_frames_down_to(t, pv_frame_above(restore, t->frame_size));
	/* Resume the interrupted clock as if the handler took no time: whatever
	 * the interrupted code subtracts next excludes it. */
	for (unsigned i = 0; i < t->nev; i++)
		t->last[i] = saved_last[i] + (t->last[i] - start[i]);
	pv_signal_fence();
	t->top = restore;
}

void pv_thread_close_all(struct pv_thread *t)
{
	close_frames_down_to(t, t->stack);
}

void pv_thread_restart(struct pv_thread *t)
{
	uint64_t now[PV_MAX_EVENTS];
	pv_cct_clear(&t->cct);
	t->read(t, now);
	memcpy(t->last, now, sizeof(now));
	for (struct pv_frame *f = t->top; f != t->stack; f = frame_under(t, f))
		memcpy(f->start, now, t->nev * sizeof(uint64_t));
	t->stray_exits = t->resyncs = 0;
}
