/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h — perf_event_open, unless the program has sandboxed itself.
 *
 * A program may install a seccomp filter while it runs (prctl or
 * seccomp(2), often through libseccomp), and a sandbox may answer
 * perf_event_open by killing the whole process (SECCOMP_RET_KILL_PROCESS):
 * the runtime's next open, for a thread started after, would end the
 * program. So before each open the opening thread asks the kernel whether
 * a filter applies to it (prctl(PR_GET_SECCOMP): one system call; a
 * filter that refuses it is a filter too), and tries none under a filter
 * the process did not start with. A process started under one (a container's) opens as
 * before: its first open told what that filter does.
 */
#ifndef PV_RUNTIME_SANDBOX_H
#define PV_RUNTIME_SANDBOX_H

#include <stdint.h>
#include <sys/types.h>

/* At start-up, before any open: is the process under a filter already? */
void pv_sandbox_note_start(void);

/* perf_event_open(2) of attr (a struct perf_event_attr) as the runtime
 * opens its events and rings; -1 with errno ECANCELED when not tried. */
int pv_sandbox_perf_event_open(void *attr, pid_t tid, int cpu, int group_fd,
			       unsigned long flags);

/* What ECANCELED means here, for the messages that say why an open failed. */
#define PV_SANDBOX_REFUSAL                                                     \
	"perf_event_open not tried: the program installed a seccomp filter, which " \
	"may kill the process for it"

#endif /* PV_RUNTIME_SANDBOX_H */
