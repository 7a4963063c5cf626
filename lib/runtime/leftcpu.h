/* SPDX-License-Identifier: MIT */
/*
 * leftcpu.h — has this thread left its CPU since it last asked?
 *
 * A thread with no ring (perf_event_open refused: an unprivileged user
 * under Debian's perf_event_paranoid, a container's seccomp profile) has
 * no switch records to time its first CPU with (timedstart.h). The
 * kernel's restartable sequences tell the same thing for nothing: glibc
 * registers each thread's rseq area, and the kernel sets its rseq_cs word
 * to NULL whenever it preempts, blocks, or delivers a signal to the thread
 * outside the range that word points to (linux/rseq.h). So the thread
 * points the word at a sequence of no instructions, and one exchange later
 * knows whether it went off its CPU meanwhile; only then does it read its
 * CPU clock (a system call), to learn for how long.
 *
 * The sequence is a valid one (version 0, an abort address after the
 * signature glibc registered, RSEQ_SIG): the kernel kills a thread whose
 * word points at anything else.
 */
#ifndef PV_RUNTIME_LEFTCPU_H
#define PV_RUNTIME_LEFTCPU_H

#include <stddef.h>
#include <stdint.h>

/* The empty sequence, and where each thread's rseq area sits from its
 * thread pointer (glibc's __rseq_offset), once pv_leftcpu_init found it. */
extern const struct rseq_cs pv_leftcpu_sequence;
extern ptrdiff_t pv_leftcpu_offset;

/* Find glibc's rseq area, once per process (glibc 2.35 and later, looked
 * up by name so that an older one still loads profviz). 1 if there is one. */
int pv_leftcpu_init(void);

/* The calling thread's rseq area is registered: it can ask. */
int pv_leftcpu_ready(void);

static inline uint64_t *pv_leftcpu_word(void)
{
	/* rseq_cs is at offset 8 of struct rseq (linux/rseq.h: cpu_id_start,
	 * cpu_id, then rseq_cs). */
	return (uint64_t *)((char *)__builtin_thread_pointer() + pv_leftcpu_offset + 8);
}

/* Has the calling thread (ready) left its CPU since its last call? One
 * exchange, which the kernel's clearing cannot split. */
static inline int pv_leftcpu_since(void)
{
	uint64_t mine = (uint64_t)(uintptr_t)&pv_leftcpu_sequence;
	return __atomic_exchange_n(pv_leftcpu_word(), mine, __ATOMIC_RELAXED) != mine;
}

/* Stop asking: the word back to NULL if it is still ours. */
void pv_leftcpu_done(void);

#endif /* PV_RUNTIME_LEFTCPU_H */
