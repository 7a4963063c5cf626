/* SPDX-License-Identifier: MIT */
/*
 * process.h — the runtime's process-wide state, which its entry
 * (runtime.c: start-up, threads, fork), its dumps (dump.c) and its
 * dlclose handling (unload.c) share. Guarded by pv_lock once hooks run.
 */
#ifndef PV_RUNTIME_PROCESS_H
#define PV_RUNTIME_PROCESS_H

#include <signal.h>

#include "base/compiler.h"
#include "model/compensate.h"
#include "model/profile.h"
#include "output/config.h"
#include "runtime/counters.h"
#include "runtime/lock.h"
#include "runtime/retire.h"
#include "runtime/sampler.h"
#include "runtime/thread.h"

PV_HIDDEN extern struct pv_config pv_config;
PV_HIDDEN extern struct pv_event_set pv_events;
PV_HIDDEN extern struct pv_profile pv_profile; /* threads that have ended */
PV_HIDDEN extern struct pv_thread *pv_live;    /* threads still running */
PV_HIDDEN extern struct pv_lock pv_lock;
PV_HIDDEN extern int pv_ready;     /* start-up finished */
PV_HIDDEN extern int pv_pid;       /* this process: differs from getpid() in a vfork child */
PV_HIDDEN extern int pv_child_pid; /* non-zero in a forked child: its files get .PID */
PV_HIDDEN extern int pv_dumped;    /* the exit dump ran */
PV_HIDDEN extern struct pv_unloaded *pv_unloaded; /* dlclose'd objects, for their names */
PV_HIDDEN extern struct pv_overhead pv_overhead;  /* the hooks' own cost per call */
PV_HIDDEN extern char pv_program[4096];
PV_HIDDEN extern int pv_time_sampled;   /* time is sampled: the profile's event 0 */
PV_HIDDEN extern struct pv_sampler pv_sampler;
PV_HIDDEN extern struct pv_hotpcs pv_hotpcs; /* sampled PCs, for hot lines */

/* The profile's events: the sampled time (when pv_time_sampled), then
 * pv_events, read per call. */
static inline unsigned pv_profile_events(void)
{
	return (unsigned)pv_time_sampled + pv_events.n;
}

/* Take pv_lock with the thread's signals blocked (saved, for the unlock):
 * a handler that enters the runtime there (a SIGTERM handler's exit()
 * reaching the exit dump) would otherwise wait for a lock its own thread
 * holds. */
PV_HIDDEN void pv_process_lock(sigset_t *saved);
PV_HIDDEN void pv_process_unlock(const sigset_t *saved);

/* quick_exit: the profile is written there (dump.c). */
PV_HIDDEN void pv_runtime_at_quick_exit(void);

#endif /* PV_RUNTIME_PROCESS_H */
