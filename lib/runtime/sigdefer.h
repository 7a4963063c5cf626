/* SPDX-License-Identifier: MIT */
/*
 * sigdefer.h — a program's signal that lands while the runtime works on its
 * thread (a new call path, a thread's start or end) is set aside, and sent
 * again to the same thread, with the same siginfo, as that work ends: the
 * handler then runs a few microseconds later, in the program's code, and
 * is recorded like any other. The runtime's tree is never changed from
 * inside a handler that interrupted a change to it.
 *
 * A standard signal set aside twice is delivered once, as the kernel
 * merges one pending while blocked; real-time signals each keep their own.
 * Not set aside: a fault's signal (the instruction would fault again), a
 * handler installed with SA_RESETHAND (the kernel has made the action the
 * default already), and more than PV_SIGDEFER_MAX at once. Such a handler
 * runs where it landed, unrecorded, and its calls are counted as lost
 * (pv_sigdefer_lost), as are those of a handler that lands in the
 * runtime's other work (a dump).
 */
#ifndef PV_RUNTIME_SIGDEFER_H
#define PV_RUNTIME_SIGDEFER_H

#include <signal.h>
#include <stdint.h>

#include "base/compiler.h"
#include "runtime/thread.h"

#define PV_SIGDEFER_MAX 4

/* Signals set aside on this thread, not yet sent again. */
struct pv_sigdefer {
	unsigned n;
	siginfo_t info[PV_SIGDEFER_MAX];
	unsigned holding;    /* sections that send them again as they end */
	/* The thread's signal depth (pv_thread.signal_depth) of the outermost
	 * handler running unrecorded on it; 0: none. A longjmp out of it
	 * lowers the depth below. */
	unsigned unrecorded_from;
};
PV_HIDDEN extern __thread struct pv_sigdefer pv_sigdefer
	__attribute__((tls_model("initial-exec")));

/* A section that is not abandonable but ends soon (a thread's start, its
 * end) holds signals while it runs; the last to end sends them again. */
void pv_sigdefer_hold(void);
void pv_sigdefer_release(void);

/* In the trampoline, for signal sig whose handler has flags: set aside if
 * the thread is in a section that sends it again (in_section: a hook's
 * slow path or the trampoline's own work, marked abandonable; or a held
 * section) and the signal may wait. 1 if set aside: the handler does not
 * run now. */
int pv_sigdefer_take(int sig, const siginfo_t *info, int flags, int in_section);

/* Send what was set aside again, oldest first, if anything was: on the
 * thread, once it is out of the runtime (each is taken off the list before
 * it is sent, so a handler that leaves by longjmp leaves the rest for the
 * next time). */
void pv_sigdefer_send_now(void);

static inline void pv_sigdefer_send(void)
{
	if (unlikely(pv_sigdefer.n))
		pv_sigdefer_send_now();
}

/* Around a program's handler that runs unrecorded on t: its delivery, and
 * every call it makes meanwhile on a thread with a state, are counted as
 * lost. (begins after pv_thread_handler_begins, ends before its end.) */
void pv_sigdefer_unrecorded_begins(const struct pv_thread *t);
void pv_sigdefer_unrecorded_ends(const struct pv_thread *t);

void pv_sigdefer_count_lost(void);

/* A call the hooks did not record on t (inside the runtime): lost if a
 * handler runs unrecorded there. */
static inline void pv_sigdefer_note_call(const struct pv_thread *t)
{
	unsigned from = pv_sigdefer.unrecorded_from;
	if (likely(!from))
		return;
	if (t->signal_depth >= from)
		pv_sigdefer_count_lost();
	else
		pv_sigdefer.unrecorded_from = 0; /* left by longjmp */
}

/* Calls lost that way in this process so far (the profile's
 * losses.unrecorded_calls add them); zeroed in a fork's child. */
uint64_t pv_sigdefer_lost(void);
void pv_sigdefer_forget_lost(void);

#endif /* PV_RUNTIME_SIGDEFER_H */
