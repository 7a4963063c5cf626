/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/leftcpu.h"

#include <dlfcn.h>
#include <linux/rseq.h>

/* The signature the kernel reads before the abort address: the one glibc
 * registers (its sysdeps' RSEQ_SIG; <sys/rseq.h> has it from glibc 2.35
 * only, and profviz builds against older ones too). */
#if defined(__x86_64__) || defined(__i386__)
#define PV_RSEQ_SIG 0x53053053u
#elif defined(__aarch64__)
#define PV_RSEQ_SIG 0xd428bc00u
#else
#define PV_RSEQ_SIG 0u /* not known here: not used (pv_leftcpu_init) */
#endif

static const uint32_t signature_then_abort[2] __attribute__((aligned(8))) = { PV_RSEQ_SIG, 0 };

/* Starts and ends at the abort address: no instruction is inside it, so
 * the kernel never restarts anything, and only clears the word. */
const struct rseq_cs pv_leftcpu_sequence __attribute__((aligned(32))) = {
	.version = 0,
	.flags = 0,
	.start_ip = (uintptr_t)&signature_then_abort[1],
	.post_commit_offset = 0,
	.abort_ip = (uintptr_t)&signature_then_abort[1],
};

ptrdiff_t pv_leftcpu_offset;
static int found;

int pv_leftcpu_init(void)
{
	const ptrdiff_t *offset = dlsym(RTLD_DEFAULT, "__rseq_offset");
	const unsigned *size = dlsym(RTLD_DEFAULT, "__rseq_size");
	/* glibc.pthread.rseq=0, or a kernel without rseq: size 0. */
	if (!PV_RSEQ_SIG || !offset || !size || *size < 20)
		return 0;
	pv_leftcpu_offset = *offset;
	found = 1;
	return 1;
}

int pv_leftcpu_ready(void)
{
	if (!found)
		return 0;
	const struct rseq *area =
		(const struct rseq *)((char *)__builtin_thread_pointer() + pv_leftcpu_offset);
	/* Unregistered: RSEQ_CPU_ID_UNINITIALIZED (-1) or glibc's -2 for a
	 * registration that failed. */
	return (int32_t)__atomic_load_n(&area->cpu_id, __ATOMIC_RELAXED) >= 0;
}

void pv_leftcpu_done(void)
{
	uint64_t mine = (uint64_t)(uintptr_t)&pv_leftcpu_sequence;
	__atomic_compare_exchange_n(pv_leftcpu_word(), &mine, 0, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}
