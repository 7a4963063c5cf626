/*
 * thread.h — one profiled thread: its shadow stack, call-path tree and counters.
 *
 * Only the owning thread writes here while it runs; the process-wide profile
 * takes the data over when the thread ends (or at exit, for those still alive).
 */
#ifndef PV_THREAD_H
#define PV_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "arch.h"
#include "cct.h"
#include "counters.h"

/* What a hook does on this thread. The fast clock path is 0 so the hooks'
 * one comparison is against zero. */
enum pv_mode {
	PV_MODE_CLOCK = 0, /* one event, the TSC: fully inlined hooks */
	PV_MODE_GENERIC,   /* any events, read through the counter backends */
	PV_MODE_JUMPED,    /* a longjmp left frames behind: next hook resynchronises */
	PV_MODE_BUSY,      /* inside the runtime: hooks of re-entered code are ignored */
	PV_MODE_OFF,       /* not profiled (disabled, or thread torn down) */
	PV_MODE_UNBORN,    /* first hook of a new thread sets it up */
};

/* One activation on the shadow stack. */
struct pv_frame {
	uintptr_t sp;         /* hook's CFA at entry: deeper calls have less, inlined equal */
	struct pv_node *node; /* where its costs go */
	uint64_t start[];     /* counter values at entry, one per event */
};

struct pv_thread;
typedef void pv_read_fn(struct pv_thread *t, uint64_t *now);

struct pv_thread {
	/* Hot: read by every hook. */
	int mode;
	struct pv_frame *top;
	struct pv_frame *stack_limit; /* the last frame that may be pushed onto */
	uint64_t last[PV_MAX_EVENTS]; /* counter values at the last hook */
	pv_read_fn *read;            /* counter read for PV_MODE_GENERIC */

	/* Cold. */
	int run_mode; /* the mode to return to after PV_MODE_BUSY */
	int jumped;   /* set by the longjmp wrappers, cleared on resynchronising */
	unsigned nev;
	size_t frame_size;
	struct pv_frame *stack;
	size_t stack_bytes;
	struct pv_cct cct;
	struct pv_counters counters;
	uint64_t stray_exits;    /* exits with no matching activation */
	uint64_t resyncs;        /* times frames left by longjmp were dropped */
	pid_t tid;
	struct pv_thread *next, *prev; /* the live-thread list */
};

/* The TSC as the only event: the reader the inlined hooks are built with. */
static inline void pv_read_clock(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	now[0] = pv_arch_clock();
}

static inline size_t pv_frame_size(unsigned nev)
{
	return sizeof(struct pv_frame) + nev * sizeof(uint64_t);
}

static inline struct pv_frame *pv_frame_above(struct pv_frame *f, size_t frame_size)
{
	return (struct pv_frame *)((char *)f + frame_size);
}

static inline struct pv_frame *pv_frame_below(struct pv_frame *f, size_t frame_size)
{
	return (struct pv_frame *)((char *)f - frame_size);
}

/* Set up t for nev events read by read (NULL: the TSC fast path).
 * 0, or -1 when memory ran out. */
int pv_thread_init(struct pv_thread *t, unsigned nev, pv_read_fn *read);
void pv_thread_release(struct pv_thread *t);

/* The hooks' slow halves: everything the inlined paths leave out (new call
 * paths, stack growth, frames left by longjmp, stray exits). The caller has
 * set t->mode to PV_MODE_BUSY. */
void pv_thread_enter_slow(struct pv_thread *t, void *fn, uintptr_t sp);
void pv_thread_exit_slow(struct pv_thread *t, void *fn);

/* Around a signal handler: the handler's calls are recorded under a node
 * for the signal, a child of the interrupted function. Its frame goes one
 * slot above the top, leaving the next slot to a hook the signal may have
 * interrupted mid-push. Returns the top to restore afterwards (and fills
 * saved_last for the leave), or NULL if the handler must run unrecorded (no
 * room without moving the stack, or no memory). */
struct pv_frame *pv_thread_signal_enter(struct pv_thread *t, int sig, uintptr_t sp,
					uint64_t *saved_last);
void pv_thread_signal_leave(struct pv_thread *t, struct pv_frame *restore,
			    const uint64_t *saved_last);

/* Close every open activation as if it returned now (thread end, exit, fork). */
void pv_thread_close_all(struct pv_thread *t);

/* Zero the profile but keep the open activations, restarted from now. */
void pv_thread_restart(struct pv_thread *t);

#endif /* PV_THREAD_H */
