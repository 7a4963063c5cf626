/* SPDX-License-Identifier: MIT */
/*
 * thread.h — one profiled thread: its shadow stack, call-path tree and counters.
 *
 * Only the owning thread writes here while it runs; the process-wide profile
 * takes the data over when the thread ends (or at exit, for those still alive).
 */
#ifndef PV_THREAD_H
#define PV_THREAD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "base/compiler.h"
#include "runtime/arch.h"
#include "runtime/cct.h"
#include "runtime/counters.h"
#include "runtime/pcring.h"
#include "runtime/timedstart.h"

/* What a hook does on this thread. The default path is 0 so the hooks'
 * one comparison is against zero. */
enum pv_mode {
	PV_MODE_COUNT = 0, /* no event read per call (time is sampled): calls and the stack */
	PV_MODE_CLOCK,     /* one event, the TSC: fully inlined hooks */
	PV_MODE_GENERIC,   /* any events, read through the counter backends */
	PV_MODE_JUMPED,    /* a longjmp left frames behind: next hook resynchronises */
	PV_MODE_BUSY,      /* inside the runtime: hooks of re-entered code are ignored */
	PV_MODE_OFF,       /* not profiled (disabled, or thread torn down) */
	PV_MODE_UNBORN,    /* first hook of a new thread sets it up */
};

/* Is a thread in this mode running the program's code, profiled (any
 * per-call mode, or one whose next hook resynchronises)? */
static inline int pv_mode_is_profiling(int mode)
{
	return mode < PV_MODE_BUSY;
}

/* The deepest a thread's shadow stack goes: calls deeper still run, but
 * are counted as unrecorded (a loss the profile states). The program's own
 * stack gives out long before this (16 bytes or more per frame). Under a
 * limit on address space (RLIMIT_AS) the stack holds 1/256 of it at most. */
#define PV_STACK_MAX_FRAMES (1u << 22)

/* One activation on the shadow stack. */
struct pv_frame {
	uintptr_t sp;         /* hook's CFA at entry: deeper calls have less, inlined equal */
	uintptr_t site;       /* the call site its enter hook was given (where it
			       * returns to): a body inlined into it is given the
			       * same. 0 for a signal's frame, UINTPTR_MAX for a
			       * stack's bottom */
	struct pv_node *node; /* where its costs go */
	struct pv_node *inl;  /* the innermost body inlined into it that is open
			       * (a node under node's), else node: calls made
			       * now hang from here (hooks.h) */
	uint64_t sampled_start; /* the thread's sampled clock at entry */
	uint64_t start[];     /* counter values at entry, one per event */
};

/* Where a setjmp was called, so that its longjmp lands exactly there. */
#define PV_JMP_RECORDS 16
struct pv_jmp_record {
	const void *env;       /* the jmp_buf; NULL: free (written last, cleared first) */
	uintptr_t sp;          /* setjmp's caller's stack pointer */
	size_t top;            /* the shadow top then, as an offset from the stack's base */
	struct pv_node *node;  /* that frame's node and sp: is it still the same activation? */
	uintptr_t frame_sp;
	struct pv_node *inl;   /* and its innermost open inlined body then */
	unsigned signal_depth; /* trampolines running then */
};

struct pv_thread;
typedef void pv_read_fn(struct pv_thread *t, uint64_t *now);

struct pv_thread {
	/* Hot: read by every hook. */
	int mode;
	struct pv_node *at; /* for the sampler: the top node, NULL inside the runtime */
	/* A word that moves when CPU samples wait to be charged (cpusamples.h):
	 * the head of the thread's own ring, else `looks`; and its value when
	 * the thread last collected them. */
	const uint64_t *news;
	uint64_t news_seen;
	uint64_t owed_ns;   /* CPU time sampled in the program's code, collected
			     * but not yet charged (pv_thread_settle) */
	struct pv_frame *top;
	struct pv_frame *stack_limit; /* the last frame that may be pushed onto */
	int inlined_as_frames;       /* PROFVIZ_INLINED=frames: inlined bodies pushed */
	uint64_t last[PV_MAX_EVENTS]; /* counter values at the last hook */
	pv_read_fn *read;            /* counter read for PV_MODE_GENERIC */

	/* Cold. */
	int run_mode; /* the mode to return to after PV_MODE_BUSY */
	int jumped;   /* set by the longjmp wrappers, cleared on resynchronising */
	/* Where the last C++ exception was thrown: the top frame, and the body
	 * open innermost in it (pv_thread_throws). */
	struct pv_frame *thrown_at;
	struct pv_node *thrown_in;
	unsigned nev;
	size_t frame_size;
	struct pv_frame *stack; /* never moves while the thread lives */
	size_t stack_bytes;     /* usable from stack on */
	size_t stack_reserved;  /* address space held for it (PV_STACK_MAX_FRAMES) */
	struct pv_cct cct;
	struct pv_counters counters;
	uint64_t stray_exits;    /* exits with no matching activation */
	uint64_t resyncs;        /* times frames left by longjmp were dropped */
	uint64_t unrecorded;     /* calls not recorded: no memory for their frame or node */
	int shared_tls;          /* a clone(2) shares its TLS: nothing recorded since */
	/* setjmp positions, and what a longjmp out of a signal handler must undo. */
	struct pv_jmp_record jmps[PV_JMP_RECORDS];
	unsigned jmp_next;     /* the next record to reuse, round robin */
	unsigned signal_depth; /* trampolines running on this thread */
	unsigned busy_depth;   /* the depth of the outermost handler running BUSY, 0 if none */
	int in_slow_path;      /* BUSY in a section a handler may abandon by longjmp */
	pid_t tid;
	pid_t pid;               /* its process's, when it was set up: its name is in
				  * /proc/PID/task/TID, even for a copy writing the profile */
	/* Its name as the kernel had it at its first hand-over (handover.c),
	 * kept so that its call paths stay in one group if it renames itself
	 * later; "" until then. */
	char name[16];
	struct pv_thread *next, *prev; /* the live-thread list */
	/* For the per-thread summary: the thread's CPU clock (when has_cpu_clock)
	 * and when it began to be profiled (CLOCK_MONOTONIC, ns). */
	int has_cpu_clock;
	clockid_t cpu_clock;
	uint64_t began_ns;
	uint64_t began_cpu_ns;   /* its CPU clock then (when has_cpu_clock) */
	uint64_t sampled_cpu_ns; /* its CPU clock at the sampler's last look (sampler.h) */
	/* Without a ring: the CPU its waits used, measured around them and
	 * charged to the functions that waited; and as much as the looks have
	 * left out of theirs so far (the sampler's). */
	uint64_t waits_cpu_ns;
	uint64_t waits_cpu_looked;
	uint64_t owed_samples;   /* the samples owed_ns stands for */
	uint64_t looks;          /* moved by the sampler's looks when it has no ring */
	int collecting;          /* in pv_thread_collect: a handler's hooks leave the ring */
	struct pv_pcring_news ring_total; /* what its ring's samples came to */
	/* The time charged to its nodes so far, by the thread itself: a clock
	 * whose difference over an activation is the activation's sampled
	 * total, as the TSC's is its time. */
	uint64_t sampled_clock;
	struct pv_pcring pcring; /* its sampled PCs, for hot lines (pcring.h) */
	struct pv_timed_start timed; /* its first CPU time, timed (timedstart.h) */
	uint64_t blocked_ns;     /* in libc's waits, measured around them (sampled runs) */
	uint64_t waiting_since_ns; /* CLOCK_MONOTONIC as its wait began, 0 outside one */
	struct pv_contexts *contexts;  /* shadow stacks of suspended ucontexts (contexts.c) */
	uint64_t contexts_unplaced;    /* ucontexts made past its table's room */
	uint64_t catches_in_bodies;    /* catches with bodies open, perhaps left (thread.c) */
};

/* Say where t is, for the sampler (sampler.h): its top node while the
 * program's code runs, NULL while the runtime's does. One relaxed store:
 * the sampler reads no field of the node, only whether there is one. (Not
 * a release store: ThreadSanitizer makes that a lock, which a signal
 * handler's hooks would then wait for inside the one they interrupted.) */
static inline void pv_thread_publish(struct pv_thread *t, struct pv_node *n)
{
	__atomic_store_n(&t->at, n, __ATOMIC_RELAXED);
}

/* t's sampled clock now. */
static inline uint64_t pv_thread_sampled_clock(const struct pv_thread *t)
{
	return t->sampled_clock;
}

/* What t owes, taken aside (a signal arriving inside a hook: the code the
 * looks found is the interrupted hook's caller's or callee's, which the
 * hook charges when it goes on), and given back. */
struct pv_owed {
	uint64_t ns, samples;
};

static inline struct pv_owed pv_thread_take_owed(struct pv_thread *t)
{
	/* Taken by subtracting what was read: a look added meanwhile stays owed. */
	struct pv_owed o = { __atomic_load_n(&t->owed_ns, __ATOMIC_RELAXED),
			     __atomic_load_n(&t->owed_samples, __ATOMIC_RELAXED) };
	if (o.ns) /* a timed thread's hooks owe nothing: no locked instruction */
		__atomic_fetch_sub(&t->owed_ns, o.ns, __ATOMIC_RELAXED);
	if (o.samples)
		__atomic_fetch_sub(&t->owed_samples, o.samples, __ATOMIC_RELAXED);
	return o;
}

static inline void pv_thread_give_owed(struct pv_thread *t, struct pv_owed o)
{
	__atomic_fetch_add(&t->owed_samples, o.samples, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->owed_ns, o.ns, __ATOMIC_RELAXED);
}

/* Take what t's own ring sampled since the last collection into what it
 * owes (cpusamples.c); what was timed instead (timedstart.h), returned, is
 * the caller's to charge. */
uint64_t pv_thread_collect(struct pv_thread *t);

/* On t's own thread: charge the CPU time sampled since the last charge to
 * n, the node whose code ran then (the top node, as a hook's slow path or
 * a runtime section begins; a wait's is the function that waited's), and
 * advance the sampled clock by as much. The thread does both, so every
 * sample in a node's self is in its total. Each addition is one atomic
 * instruction, which a signal handler's own settling cannot split
 * (cpusamples.c). */
void pv_thread_settle(struct pv_thread *t, struct pv_node *n);

/* Are there samples to charge since the last charge? Two loads and a
 * compare on the hooks' straight line; the charge itself is out of line. */
static inline int pv_thread_owes(const struct pv_thread *t)
{
	const uint64_t *news = __atomic_load_n(&t->news, __ATOMIC_RELAXED);
	return __atomic_load_n(news, __ATOMIC_RELAXED) != t->news_seen;
}

static inline void pv_thread_settle_owed(struct pv_thread *t, struct pv_node *n)
{
	if (unlikely(pv_thread_owes(t)))
		pv_thread_settle(t, n);
}

/* No event read per call: the count-only hooks. */
static inline void pv_read_none(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	(void)now;
}

/* The TSC as the only event: the reader the inlined hooks are built with. */
static inline void pv_read_clock(struct pv_thread *t, uint64_t *now)
{
	(void)t;
	now[0] = pv_arch_clock();
}

/* The program took t's events: open them again, inside the runtime
 * boundary, and read them (t is the caller's own). */
void pv_thread_reopen_counters(struct pv_thread *t, uint64_t *now);

/* Any events, through the counter backends: never below the thread's last
 * readings. */
static inline void pv_read_counters(struct pv_thread *t, uint64_t *now)
{
	if (unlikely(pv_counters_read(&t->counters, t->last, now) == PV_COUNTERS_LOST))
		pv_thread_reopen_counters(t, now);
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

/* An open activation of t counted from now on (counters read as now): a
 * forked child's profile starts at the fork. */
static inline void pv_frame_restart(const struct pv_thread *t, struct pv_frame *f,
				    const uint64_t *now)
{
	for (unsigned i = 0; i < t->nev; i++)
		f->start[i] = now[i];
	f->sampled_start = pv_thread_sampled_clock(t);
}

/* Does t have state of its own (not a shared sentinel, not torn down), that
 * the runtime may write? */
static inline int pv_thread_has_state(const struct pv_thread *t)
{
	return t->stack && t->mode <= PV_MODE_BUSY;
}

/* A longjmp abandons frames whose exit hooks will never run: the thread's
 * next hook resynchronises its shadow stack with the machine's. */
static inline void pv_thread_note_longjmp(struct pv_thread *t)
{
	if (pv_mode_is_profiling(t->mode) && t->mode != PV_MODE_JUMPED) {
		t->jumped = 1;
		t->mode = PV_MODE_JUMPED;
	} else if (t->mode == PV_MODE_JUMPED) {
		t->jumped = 1;
	}
}

/* setjmp(env) called with the caller's stack pointer sp: remember the
 * shadow top, for the longjmp that comes back to it. Async-signal-safe. */
void pv_thread_note_setjmp(struct pv_thread *t, const void *env, uintptr_t sp);

/* longjmp(env) called at stack pointer sp: drop exactly the frames above
 * env's setjmp when it is known and still live, else mark the thread for
 * the next hook to resynchronise by stack pointers. A jump out of a handler
 * that interrupted the runtime abandons what the runtime was doing there:
 * the thread's state is repaired and it profiles again. */
void pv_thread_longjmp(struct pv_thread *t, const void *env, uintptr_t sp);

/* A C++ exception is thrown (or rethrown) here: where, on the shadow
 * stack, for its catch. Async-signal-safe. */
static inline void pv_thread_throws(struct pv_thread *t)
{
	if (pv_thread_has_state(t) && pv_mode_is_profiling(t->mode)) {
		t->thrown_at = t->top;
		t->thrown_in = t->top->inl;
	}
}

/* A clone(2) is about to start a flow of control that shares t's TLS, so
 * t itself (CLONE_VM without CLONE_SETTLS, and no vfork's wait): two flows
 * cannot keep one shadow stack, and each would tear the other's. Nothing
 * more is recorded on t, by either; the profile counts it among its
 * losses (handover.c). Returns the mode t was in, or -1 if it was not
 * recording. */
int pv_thread_shares_tls(struct pv_thread *t);

/* That clone(2) failed: t records again, in mode, what pv_thread_shares_tls
 * returned (-1: it had not stopped). */
void pv_thread_unshares_tls(struct pv_thread *t, int mode);

/* A C++ catch block begins in the frame whose stack pointer is sp: the
 * frames deeper than it were unwound, whether or not their exit hooks ran
 * (clang's do not), and are closed now; and so is a body inlined into the
 * catching frame that threw, if it is still open (wrap/exceptions.c). */
void pv_thread_caught(struct pv_thread *t, uintptr_t sp);

/* Around a program's signal handler, in the trampoline (unrecorded: the
 * thread was profiling but there was no room to record the handler, which
 * then runs BUSY). */
void pv_thread_handler_begins(struct pv_thread *t, int unrecorded);
void pv_thread_handler_ends(struct pv_thread *t);

/* Set up t for nev events read by read (NULL: none when nev is 0, else the
 * TSC fast path). 0, or -1 when memory ran out. */
int pv_thread_init(struct pv_thread *t, unsigned nev, pv_read_fn *read);
void pv_thread_release(struct pv_thread *t);

/* The hooks' slow halves: everything the inlined paths leave out (new call
 * paths, stack growth, frames left by longjmp, stray exits), inside the
 * runtime boundary. A thread already inside the runtime, or not profiled,
 * records nothing. (Argument order as hooks.h's pv_enter_fn/pv_exit_fn.) */
void pv_thread_enter_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);
void pv_thread_exit_slow(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);

/* An enter hook called in the top frame's own frame (hooks.h): a body the
 * compiler inlined there. Counted on an edge of its own (the inlined key,
 * cct.h) from the frame's innermost open body, which it becomes: its calls,
 * its nesting and the calls it makes stay exact, and no frame is pushed, so
 * that its time is the function's whose code it is, as in the real program.
 * Its exit closes it (hooks.h). Pushed like a call, under the plain key,
 * when t->inlined_as_frames (PROFVIZ_INLINED=frames: each a function of its
 * own). */
void pv_thread_enter_inlined(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t);

/* Around a signal handler: the handler's calls are recorded under a node
 * for the signal, a child of the interrupted function. Its frame goes one
 * slot above the top, leaving the next slot to a hook the signal may have
 * interrupted mid-push. Returns the top to restore afterwards (and fills
 * saved_last for the leave), or NULL if the handler must run unrecorded (the
 * stack at its deepest, or no memory). */
struct pv_frame *pv_thread_signal_enter(struct pv_thread *t, int sig, uintptr_t sp,
					uint64_t *saved_last);
void pv_thread_signal_leave(struct pv_thread *t, struct pv_frame *restore,
			    const uint64_t *saved_last);

/* Close every open activation as if it returned now (thread end, exit, fork),
 * those of suspended coroutines included. */
void pv_thread_close_all(struct pv_thread *t);

/* Zero the profile but keep the open activations, restarted from now (the
 * thread's counters may have been reopened: a forked child's). */
void pv_thread_restart(struct pv_thread *t);

#endif /* PV_THREAD_H */
