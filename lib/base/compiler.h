/* SPDX-License-Identifier: MIT */
/* compiler.h — small compiler helpers used across the runtime. */
#ifndef PV_COMPILER_H
#define PV_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PV_INLINE static inline __attribute__((always_inline))
#define PV_NOINLINE __attribute__((noinline))
#define PV_HIDDEN __attribute__((visibility("hidden")))
#define PV_EXPORT __attribute__((visibility("default")))

/* Orders stores against a signal handler on the same thread, at no cost. */
#define pv_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#define PV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A macro's value as a string literal: PV_TEXT(PV_DEFAULT_MAX_NODES) is "20". */
#define PV_STRINGIFY(x) #x
#define PV_TEXT(x) PV_STRINGIFY(x)

#endif /* PV_COMPILER_H */
