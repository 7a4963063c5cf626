/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/hotpcs.h"

#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"

/* The table starts with this many slots (64 KiB). */
#define FIRST_CAP 4096

void pv_hotpcs_init(struct pv_hotpcs *h, uintptr_t own_lo, uintptr_t own_hi)
{
	memset(h, 0, sizeof(*h));
	h->own_lo = own_lo;
	h->own_hi = own_hi;
}

struct own_search {
	uintptr_t addr;
	uintptr_t lo, hi;
	int found;
};

/* The executable segments of the object holding s->addr: their span. */
static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct own_search *s = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		lo = start < lo ? start : lo;
		hi = start + ph->p_memsz > hi ? start + ph->p_memsz : hi;
	}
	if (s->addr < lo || s->addr >= hi)
		return 0;
	s->lo = lo;
	s->hi = hi;
	s->found = 1;
	return 1;
}

int pv_hotpcs_own_text(uintptr_t *lo, uintptr_t *hi)
{
	struct own_search s = { .addr = (uintptr_t)pv_hotpcs_own_text };
	dl_iterate_phdr(find_own, &s);
	*lo = s.lo;
	*hi = s.hi;
	return s.found ? 0 : -1;
}

static size_t slot_of(uintptr_t pc, size_t cap)
{
	/* Fibonacci hashing: PCs of one function differ in their low bits. */
	return (size_t)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static struct pv_hotpc *find_slot(struct pv_hotpc *slots, size_t cap, uintptr_t pc)
{
	size_t i = slot_of(pc, cap);
	while (slots[i].pc && slots[i].pc != pc)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Twice the room (or the first), the PCs moved over. 0, or -1. It runs on
 * the sampler's thread, which may call no libc wrapper that a sanitizer
 * intercepts: the system calls go through syscall(2). */
static int grow(struct pv_hotpcs *h)
{
	size_t cap = h->cap ? 2 * h->cap : FIRST_CAP;
	if (cap > PV_HOTPCS_MAX)
		return -1;
	long mapped = syscall(SYS_mmap, NULL, cap * sizeof(struct pv_hotpc),
			      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mapped == -1)
		return -1;
	struct pv_hotpc *slots = (struct pv_hotpc *)mapped;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].pc)
			*find_slot(slots, cap, h->slots[i].pc) = h->slots[i];
	if (h->slots)
		syscall(SYS_munmap, h->slots, h->cap * sizeof(*h->slots));
	h->slots = slots;
	h->cap = cap;
	return 0;
}

void pv_hotpcs_add(uintptr_t pc, void *arg)
{
	struct pv_hotpcs *h = arg;
	h->account.samples++;
	if (pc >= h->own_lo && pc < h->own_hi) {
		h->account.own++;
		return;
	}
	if (!pc)
		pc = 1; /* 0 marks a free slot; no code runs at page 0 anyway */
	struct pv_hotpc *s = h->slots ? find_slot(h->slots, h->cap, pc) : NULL;
	if (s && s->pc) {
		s->samples++;
		return;
	}
	/* A new PC: keep the table at most half full, so probes stay short. */
	if ((h->used + 1) * 2 > h->cap) {
		if (grow(h) < 0 && (!h->slots || h->used + 1 >= h->cap)) {
			h->account.unkept++;
			return;
		}
		s = find_slot(h->slots, h->cap, pc);
	}
	s->pc = pc;
	s->samples = 1;
	h->used++;
}

void pv_hotpcs_refused(struct pv_hotpcs *h, int err)
{
	__atomic_add_fetch(&h->account.refused, 1, __ATOMIC_RELAXED);
	int none = 0;
	__atomic_compare_exchange_n(&h->refusal, &none, err, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

void pv_hotpcs_opened(struct pv_hotpcs *h, const struct pv_pcring *r)
{
	__atomic_store_n(&h->opened_any, 1, __ATOMIC_RELAXED);
	if (r->user_only)
		__atomic_store_n(&h->user_only, 1, __ATOMIC_RELAXED);
}

void pv_hotpcs_say_refusal(struct pv_hotpcs *h)
{
	if (__atomic_load_n(&h->user_only, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&h->user_only_said, 1, __ATOMIC_RELAXED)) {
		char paranoid[200];
		pv_pcring_explain(-EACCES, paranoid, sizeof(paranoid));
		pv_log("CPU time inside the kernel is not sampled: %s (said once)", paranoid);
	}
	int err = __atomic_load_n(&h->refusal, __ATOMIC_RELAXED);
	if (!err || __atomic_exchange_n(&h->refusal_said, 1, __ATOMIC_RELAXED))
		return;
	char why[200];
	pv_pcring_explain(err, why, sizeof(why));
	pv_log("no CPU samples for some threads: %s; their first CPU is timed at their hooks "
	       "(where glibc registers rseq), then looked at; they have no hot lines (said once)",
	       why);
}

void pv_hotpcs_take(struct pv_hotpcs *h, struct pv_pcring *r)
{
	uint64_t lost = r->lost;
	pv_pcring_drain(r, pv_hotpcs_add, h);
	h->account.lost += r->lost - lost;
}

void pv_hotpcs_close_ring(struct pv_hotpcs *h, struct pv_pcring *r)
{
	pv_hotpcs_take(h, r);
	pv_pcring_close(r);
}

struct pv_hotpc *pv_hotpcs_copy(const struct pv_hotpcs *h, size_t *n,
				struct pv_hotpcs_account *account)
{
	*account = h->account;
	account->refused = __atomic_load_n(&h->account.refused, __ATOMIC_RELAXED);
	struct pv_hotpc *out = h->used ? malloc(h->used * sizeof(*out)) : NULL;
	*n = 0;
	for (size_t i = 0; out && i < h->cap; i++)
		if (h->slots[i].pc)
			out[(*n)++] = h->slots[i];
	return out;
}

void pv_hotpcs_clear(struct pv_hotpcs *h)
{
	pv_hotpcs_release(h);
	pv_hotpcs_init(h, h->own_lo, h->own_hi);
}

void pv_hotpcs_release(struct pv_hotpcs *h)
{
	if (h->slots)
		munmap(h->slots, h->cap * sizeof(*h->slots));
	h->slots = NULL;
	h->cap = h->used = 0;
}
