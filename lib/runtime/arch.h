/* SPDX-License-Identifier: MIT */
/*
 * arch.h — the few machine instructions the runtime needs, one place per CPU.
 *
 * An arm64 port adds CNTVCT_EL0 for the clock and PMEVCNTR<n>_EL0 (with
 * perf_user_access) for the counters here, and nothing else changes.
 */
#ifndef PV_ARCH_H
#define PV_ARCH_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)

#define PV_ARCH_HAS_RDPMC 1

/* Not serializing: a few cycles of skew at a hook is fine for a profiler. */
static inline uint64_t pv_arch_clock(void)
{
	return __builtin_ia32_rdtsc();
}

/* ecx is the page's index - 1, passed verbatim (bit 30 selects fixed counters). */
static inline uint64_t pv_arch_rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (uint64_t)hi << 32 | lo;
}

/* The calling frame's stack pointer at the call (the hook's CFA). */
#define pv_arch_stack_pointer() ((uintptr_t)__builtin_dwarf_cfa())

/* Where a function whose CFA is cfa returns to: the call pushed it there. */
static inline uintptr_t pv_arch_return_address(uintptr_t cfa)
{
	return *(const uintptr_t *)(cfa - sizeof(uintptr_t));
}

#endif

#if defined(__x86_64__)

/* fn() on the stack whose top (16-byte aligned) is given, then back. Every
 * register a call may change is declared changed; the caller's stack
 * pointer waits in rbx, which fn() keeps. */
static inline void pv_arch_call_on_stack(void (*fn)(void), void *top)
{
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %[top], %%rsp\n\t"
			 "call *%[fn]\n\t"
			 "mov %%rbx, %%rsp"
			 :
			 : [top] "r"(top), [fn] "r"(fn)
			 : "rbx", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
			   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
			   "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory",
			   "cc");
}

#else

/* Not ported: on the caller's stack. */
static inline void pv_arch_call_on_stack(void (*fn)(void), void *top)
{
	(void)top;
	fn();
}

#endif

#if !defined(__x86_64__) && !defined(__i386__)

#include "base/clock.h"
#define PV_ARCH_HAS_RDPMC 0

static inline uint64_t pv_arch_clock(void)
{
	return pv_monotonic_ns();
}

static inline uint64_t pv_arch_rdpmc(uint32_t ecx)
{
	(void)ecx;
	return 0;
}

#define pv_arch_stack_pointer() ((uintptr_t)__builtin_dwarf_cfa())

/* Not known from the CFA alone (a link register holds it): 0. */
static inline uintptr_t pv_arch_return_address(uintptr_t cfa)
{
	(void)cfa;
	return 0;
}

#endif

#endif /* PV_ARCH_H */
