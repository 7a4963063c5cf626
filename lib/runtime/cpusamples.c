/* SPDX-License-Identifier: MIT */
#include "runtime/cpusamples.h"

#include "base/compiler.h"
#include "runtime/timedstart.h"
#include "runtime/waits.h"

/* What a timed thread saw last (timedstart.h): no head and no look is ever
 * this word, so every hook finds news. */
#define PV_NEWS_ALWAYS UINT64_MAX

/* The looks count in odd numbers, a ring's head in whole records (even):
 * a thread whose word changes from one to the other always finds news in
 * it, though what it saw last and the new word's value were the same
 * number (a fresh ring's 0, the looks' 0), and charges what it owes. */
void pv_cpusamples_init(struct pv_thread *t)
{
	pv_timed_start_init(&t->timed);
	t->looks = 1;
	t->news_seen = 1;
	__atomic_store_n(&t->news, &t->looks, __ATOMIC_RELEASE);
}

void pv_cpusamples_attach(struct pv_thread *t, uintptr_t own_lo, uintptr_t own_hi)
{
	struct pv_pcring *r = &t->pcring;
	r->own_lo = own_lo;
	r->own_hi = own_hi;
	pv_pcring_start_count(r);
	pv_timed_start_begin(t);
	/* Release: the thread that loads the new word finds the ring whole. */
	__atomic_store_n(&t->news, pv_pcring_head(r), __ATOMIC_RELEASE);
}

int pv_cpusamples_time_without_ring(struct pv_thread *t)
{
	if (!pv_timed_start_begin_by_rseq(t))
		return 0;
	t->news_seen = PV_NEWS_ALWAYS; /* every hook counts its span */
	return 1;
}

void pv_cpusamples_detach(struct pv_thread *t)
{
	pv_timed_start_stop(t);
	__atomic_store_n(&t->news, &t->looks, __ATOMIC_RELEASE);
	t->news_seen = __atomic_load_n(&t->looks, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pcring.counted_by_owner, 0, __ATOMIC_RELEASE);
}

/* Owed, as the sampler's looks and the ring both leave it. */
static void owe(struct pv_thread *t, uint64_t ns, uint64_t samples)
{
	__atomic_fetch_add(&t->owed_samples, samples, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->owed_ns, ns, __ATOMIC_RELAXED);
}

uint64_t pv_thread_collect(struct pv_thread *t)
{
	uint64_t timed = 0;
	const uint64_t *news = __atomic_load_n(&t->news, __ATOMIC_ACQUIRE);
	uint64_t seen = __atomic_load_n(news, __ATOMIC_ACQUIRE);
	if (news == &t->looks && pv_timed_start_on(&t->timed)) {
		/* Timed by rseq: no ring, and the looks charge nothing. A
		 * handler's hooks arriving mid-count (its clock's system call
		 * returns with a signal) leave the span to it. */
		if (t->collecting)
			return 0;
		t->collecting = 1;
		pv_signal_fence();
		timed = pv_timed_start_count(t, NULL);
		pv_signal_fence();
		t->collecting = 0;
	} else if (news != &t->looks) {
		/* A handler's hooks, arriving mid-count, leave the ring to the
		 * count they interrupted (it charges their samples with its own). */
		if (t->collecting)
			return 0;
		t->collecting = 1;
		pv_signal_fence();
		struct pv_pcring_news n = { 0, 0, 0, 0, 0 };
		if (pv_timed_start_on(&t->timed)) {
			/* Timed: its samples are not its time (timedstart.h). */
			timed = pv_timed_start_count(t, &n);
			t->ring_total.lost += n.lost;
		} else {
			pv_pcring_count(&t->pcring, &n, NULL);
			if (n.samples)
				owe(t, n.ns, n.samples);
			t->ring_total.samples += n.samples;
			t->ring_total.ns += n.ns;
			t->ring_total.own += n.own;
			t->ring_total.own_ns += n.own_ns;
			t->ring_total.lost += n.lost;
		}
		pv_signal_fence();
		t->collecting = 0;
	}
	/* Timed, every hook has news: no head is ever this odd word. */
	t->news_seen = pv_timed_start_on(&t->timed) ? PV_NEWS_ALWAYS : seen;
	return timed;
}

void pv_thread_settle(struct pv_thread *t, struct pv_node *n)
{
	/* What was timed is charged here at once: no other thread owes it. */
	uint64_t timed = pv_thread_collect(t);
	struct pv_owed o = pv_thread_take_owed(t);
	o.ns += timed;
	if (pv_wait_name(n->fn) && n->parent) { /* one of libc's waits (waits.h) */
		/* The CPU a wait used (its system call's, what came due while
		 * it was being entered or left) is the waiting function's, and
		 * not in the wait's total too: its box holds the time blocked. */
		if (t->top->node == n)
			t->top->sampled_start += o.ns;
		n = n->parent;
	}
	__atomic_fetch_add(&t->sampled_clock, o.ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n->sampled_ns, o.ns, __ATOMIC_RELAXED);
	if (o.samples) /* each an atomic instruction, so none where there is nothing */
		__atomic_fetch_add(&n->samples, o.samples, __ATOMIC_RELAXED);
	if (timed)
		__atomic_fetch_add(&n->timed_ns, timed, __ATOMIC_RELAXED);
}

void pv_cpusamples_pending(const struct pv_thread *t, uint64_t *ns, uint64_t *samples)
{
	*ns = *samples = 0;
	/* Timed by rseq: what its CPU clock moved since its code resumed. */
	if (!pv_cpusamples_from_ring(t)) {
		*ns = pv_timed_start_pending(t);
		return;
	}
	/* A thread timed by its ring's switches: its time since its last hook
	 * is not known here (a wait's blocked time would pass for its CPU). */
	if (pv_timed_start_on(&t->timed))
		return;
	struct pv_pcring_news n = { 0, 0, 0, 0, 0 };
	pv_pcring_peek(&t->pcring, &n);
	*samples = n.samples;
	*ns = n.ns;
}

void pv_cpusamples_looked(struct pv_thread *t, uint64_t ns, uint64_t samples)
{
	owe(t, ns, samples);
	/* After the owed amount: a hook that sees the word move finds it. */
	__atomic_fetch_add(&t->looks, 2, __ATOMIC_RELEASE);
}
