/* SPDX-License-Identifier: MIT */
/*
 * hotpcs.h — the process's sampled program counters, counted by address.
 *
 * The threads' rings (pcring.h) are drained into one table: each distinct
 * PC with its samples. PCs in the runtime's own code are counted apart and
 * dropped: they are the profiler's cost, not the program's. The table
 * lives in memory mapped for it (never the program's malloc) and grows by
 * doubling. It has no lock of its own: every call but pv_hotpcs_refused
 * runs under the one lock its callers share, the runtime's pv_lock, under
 * which the sampler looks at the live threads and a thread ends; so a ring
 * is never drained twice at once, nor unmapped mid-drain. What runs on the
 * sampler's thread (take, add) calls nothing of libc's but mmap and munmap,
 * when the table grows. Nothing here is on the program's threads' hot path.
 */
#ifndef PV_HOTPCS_H
#define PV_HOTPCS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/pcring.h"

struct pv_hotpc {
	uintptr_t pc; /* 0: a free slot */
	uint64_t samples;
};

/* What became of the samples read. */
struct pv_hotpcs_account {
	uint64_t samples; /* read from the rings, all of them */
	uint64_t own;     /* ... of which in the runtime's code: dropped */
	uint64_t unkept;  /* ... of which a new PC the table had no room for */
	uint64_t lost;    /* the kernel dropped these: a ring was full */
	uint64_t refused; /* threads whose ring could not be opened */
};

struct pv_hotpcs {
	struct pv_hotpc *slots; /* open addressing; NULL until the first PC */
	size_t cap, used;       /* slots (a power of two), and those taken */
	uintptr_t own_lo, own_hi; /* the runtime's code: [own_lo, own_hi) */
	struct pv_hotpcs_account account;
	int refusal;      /* the first ring's refusal (-errno), or 0 */
	int refusal_said;
	int user_only;    /* a ring samples no time in the kernel: that was refused */
	int user_only_said;
	int opened_any;   /* a ring was opened */
};

/* At most this many distinct PCs are kept (16 MiB of table). */
#define PV_HOTPCS_MAX (1u << 20)

/* An empty table that drops PCs in [own_lo, own_hi) as the runtime's. */
void pv_hotpcs_init(struct pv_hotpcs *h, uintptr_t own_lo, uintptr_t own_hi);

/* The executable range of the object this code is linked into (profviz.so
 * when preloaded). 0, or -1 if it cannot be found. */
int pv_hotpcs_own_text(uintptr_t *lo, uintptr_t *hi);

/* A thread's ring could not be opened (err from pv_pcring_open): counted,
 * and the first reason kept; the thread runs on without hot lines. Nothing
 * of libc's: the sampler's thread calls it. */
void pv_hotpcs_refused(struct pv_hotpcs *h, int err);

/* A thread's ring was opened: noted if it samples no time in the kernel.
 * Nothing of libc's. */
void pv_hotpcs_opened(struct pv_hotpcs *h, const struct pv_pcring *r);

/* Was every ring refused so far, one at least, the first for what every
 * thread will meet (perf_event_open not allowed), not for what one met
 * (descriptors or memory used up)? (Any thread.) */
static inline int pv_hotpcs_all_refused(const struct pv_hotpcs *h)
{
	int why = __atomic_load_n(&h->refusal, __ATOMIC_RELAXED);
	return __atomic_load_n(&h->account.refused, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&h->opened_any, __ATOMIC_RELAXED) && why != -EMFILE &&
	       why != -ENFILE && why != -ENOMEM;
}

/* Say why, once per process, in one line with the system's reason, if a
 * ring was refused, or samples no time in the kernel (on a thread of the program's: messages go to its
 * stderr, which the sampler's descriptor table does not have). */
void pv_hotpcs_say_refusal(struct pv_hotpcs *h);

/* Drain r into h (pcring.h). */
void pv_hotpcs_take(struct pv_hotpcs *h, struct pv_pcring *r);

/* r's last samples into h, then r closed (pv_hotpcs_take(h, r) then does
 * nothing): at the end of r's thread. */
void pv_hotpcs_close_ring(struct pv_hotpcs *h, struct pv_pcring *r);

/* One PC into h (pv_pc_fn's shape, arg h). */
void pv_hotpcs_add(uintptr_t pc, void *h);

/* A copy of h's PCs (malloc'd, *n of them, in no order) and its account:
 * for the dump, whose report maps them later without the lock. NULL with
 * *n 0 when there are none or memory ran out. */
struct pv_hotpc *pv_hotpcs_copy(const struct pv_hotpcs *h, size_t *n,
				struct pv_hotpcs_account *account);

/* Empty h again, keeping its own range (a fork's child starts afresh).
 * Only the calling thread may use h. */
void pv_hotpcs_clear(struct pv_hotpcs *h);

/* Unmap h's table. */
void pv_hotpcs_release(struct pv_hotpcs *h);

#endif /* PV_HOTPCS_H */
