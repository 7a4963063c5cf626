/* SPDX-License-Identifier: MIT */
/*
 * runtime.h — what the runtime's entry (runtime.c, dump.c, unload.c) offers
 * the wrappers it interposes on libc (runtime/wrap/).
 */
#ifndef PV_RUNTIME_H
#define PV_RUNTIME_H

#include <signal.h>

#include "base/compiler.h"
#include "runtime/thread.h"

/* This thread's state; never NULL (a static sentinel before and after). */
extern __thread struct pv_thread *pv_self __attribute__((tls_model("initial-exec")));

/* Write the profile, with every open frame closed, from a copy of the
 * process made by a raw fork (no atfork handlers, no SIGCHLD) in which only
 * this thread exists: a crash or a lock held at the fork can delay the
 * caller by a moment (the copy is killed within 0.2 s of waiting on a
 * lock, and said "no profile: ... a lock that " held_by), never stop it.
 * The runtime's lock is held across the fork if it comes free within
 * lock_tries ms. For a dying process (signals.c) and an exit from inside a
 * signal handler. */
PV_HIDDEN void pv_runtime_write_from_copy(int lock_tries, const char *held_by);

/* Is there a profile to write from this process (enabled, not yet written,
 * not a vfork child sharing its parent's memory)? */
PV_HIDDEN int pv_runtime_should_dump(void);

/* exec is about to replace this image: write its profile (files get
 * ".execN" before their extension, so the new image's do not replace them).
 * The N written, for pv_runtime_exec_failed; 0 when nothing was. */
PV_HIDDEN int pv_runtime_before_exec(void);

/* That exec returned: the image was not replaced, and its .execN files
 * (exec_n from pv_runtime_before_exec) are taken back. errno kept. */
PV_HIDDEN void pv_runtime_exec_failed(int exec_n);

/* _exit/_Exit: write the profile now, frames closed. */
PV_HIDDEN void pv_runtime_exit_now(void);

/* dlclose(handle) is about to run: where its object is mapped, for
 * pv_runtime_module_closed (NULL: nothing to follow). */
PV_HIDDEN void *pv_runtime_module_closing(void *handle);

/* dlclose has returned: if it unloaded the object, its functions' records
 * are retired (retire.h). Frees closing. */
PV_HIDDEN void pv_runtime_module_closed(void *closing);

/* Is time sampled in this run (the wait wrappers then time each wait)? */
PV_HIDDEN int pv_runtime_sampled(void);

/* Around a call that changes what the process's threads may do (creds.c):
 * every signal blocked (into *saved), one such call at a time, and the
 * sampler's thread gone (pv_sampler_stop). Then started again from the
 * calling thread, if it had been started and nothing holds it off, and the
 * mask back. held_off 1: from the pause to the resume of a listing of the
 * process's tasks, which holds it off, the gate and the mask are let go. */
PV_HIDDEN void pv_runtime_sampler_pause(sigset_t *saved, int held_off);
PV_HIDDEN void pv_runtime_sampler_resume(const sigset_t *saved, int held_off);
PV_HIDDEN void pv_runtime_sampler_let_go(const sigset_t *saved);

/* A program's handler is about to run on this thread, which has ended (its
 * data handed over): a state for the handler's run alone, and *temporary
 * 1: pv_runtime_handler_state_done hands it over as the handler returns.
 * (A thread before its first hook is set up by the handler's first hook,
 * if it makes one: a process that runs no instrumented code writes
 * nothing.) The thread's state, or the same sentinel. */
PV_HIDDEN struct pv_thread *pv_runtime_handler_state(int *temporary);
PV_HIDDEN void pv_runtime_handler_state_done(struct pv_thread *t);

/* The program closes or replaces descriptors first..last: stop using ours. */
PV_HIDDEN void pv_runtime_fds_taken(unsigned first, unsigned last);

/* A clone(2) is about to start a flow that shares this thread's TLS
 * (wrap/interpose.c): nothing more is recorded on the thread (thread.h),
 * nor, by a thread not yet set up, ever; returns what undoes it. */
struct pv_tls_share {
	struct pv_thread *self;
	int mode;
};
void pv_runtime_tls_shared(struct pv_tls_share *share);

/* That clone failed: as before. */
void pv_runtime_tls_unshared(const struct pv_tls_share *share);

/* How many threads were shared so before they were set up (dump.c). */
uint64_t pv_runtime_shared_unborn(void);

/* This thread's hooks ignored until pv_runtime_hooks_back, when it has no
 * state a guard (guard.h) could mark busy: the runtime's own threads, or a
 * thread of the program's that ran no instrumented code yet, whose first
 * hook would set it up under the runtime's lock, which a dump holds. What
 * to give back. */
PV_HIDDEN struct pv_thread *pv_runtime_hooks_off(void);
PV_HIDDEN void pv_runtime_hooks_back(struct pv_thread *was);

#endif /* PV_RUNTIME_H */
