/* SPDX-License-Identifier: MIT */
#include "runtime/handover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/sysraw.h"
#include "runtime/cpusamples.h"
#include "runtime/naming.h"
#include "runtime/smallfile.h"
#include "runtime/stack.h"

/* One thread's merge: where each of its nodes went among the paths. */
struct merge {
	struct pv_path_map map;
	struct pv_thread_stat *ts; /* the thread's summary, or NULL */
	unsigned first;            /* the profile's event of the thread's first: 1
				    * when event 0 is the sampled time, else 0 */
	unsigned group;            /* the thread's name's (pv_profile_group) */
};

/* A node's costs as the profile's events: the sampled time first if the
 * profile has it, then the events its hooks read. */
static void node_costs(const struct merge *m, const struct pv_node *n, uint64_t *self,
		       uint64_t *total)
{
	unsigned nev = m->map.p->nev, tev = nev - m->first;
	if (m->first) {
		self[0] = n->sampled_ns;
		total[0] = n->sampled_total_ns;
	}
	const uint64_t *s = pv_node_self(n), *t = pv_node_total(n, tev);
	for (unsigned i = 0; i < tev; i++) {
		self[m->first + i] = s[i];
		total[m->first + i] = t[i];
	}
}

/* A node's path: its parent's path extended by it. Fold edges count their
 * calls on the path of the node they fold into. Every edge's calls are also
 * calls its parent's path made (a signal's delivery is no hook call; nor,
 * for compensation, is an inlined body's: its hooks cost less, and all of
 * it lands on its host, which compensation finds from the paths' inlined
 * calls). An inlined edge counts on its function's path under the host's,
 * as inlined calls. */
static void merge_path(struct merge *m, const struct pv_node *n, enum pv_func_kind kind,
		       const uint64_t *self, const uint64_t *total)
{
	int inlined = pv_key_is_inlined(n->fn);
	struct pv_profile *p = m->map.p;
	struct pv_path *parent = n->parent->fn ? pv_path_map_get(&m->map, n->parent) : NULL;
	if (n->parent->fn && !parent)
		return; /* its parent could not be merged (no memory) */
	/* A call from inside an inlined body: its hooks' caller part lands on
	 * the frame the body runs in. */
	const struct pv_node *host = n->parent;
	while (pv_key_is_inlined(host->fn))
		host = host->parent;
	struct pv_path *caller = host->fn ? pv_path_map_get(&m->map, host) : NULL;
	if (caller && kind != PV_FUNC_SIGNAL && !inlined) {
		caller->callees += n->calls;
		caller->callee_misses += n->misses;
	}
	if (pv_node_is_fold(n)) {
		struct pv_path *target = pv_path_map_get(&m->map, n->target);
		if (target)
			target->calls += n->calls;
		/* ... and kept as calls from the parent's path into it. */
		struct pv_fold *fold = target && parent ? pv_profile_fold(p, parent, target) : NULL;
		if (fold)
			fold->calls += n->calls;
		else if (target && parent)
			p->losses.merge_failures++;
		return;
	}
	struct pv_path *x = parent ? pv_profile_path(p, parent, pv_key_fn(n->fn))
				   : pv_profile_root_path(p, pv_key_fn(n->fn), m->group);
	if (!x) {
		p->losses.merge_failures++;
		return;
	}
	x->calls += n->calls;
	if (inlined)
		x->inlined_calls += n->calls;
	x->samples += n->samples;
	x->timed_ns += n->timed_ns;
	for (unsigned i = 0; i < p->nev; i++) {
		x->self[i] += self[i];
		x->total[i] += total[i];
	}
	pv_path_map_put(&m->map, n, x);
}

/* Add total to node n's path, function and arc (those that could be
 * merged: not for lack of memory, nor made after the tree was walked). */
static void add_to_totals(struct merge *m, const struct pv_node *n, const uint64_t *total)
{
	struct pv_profile *p = m->map.p;
	struct pv_path *x = pv_path_map_get(&m->map, n);
	if (!x)
		return;
	void *fn = pv_key_fn(n->fn);
	struct pv_fstat *f = pv_profile_func(p, fn);
	struct pv_astat *a = pv_profile_arc(p, pv_key_fn(n->parent->fn), fn);
	for (unsigned i = 0; i < p->nev; i++) {
		x->total[i] += total[i];
		if (f)
			f->total[i] += total[i];
		if (a)
			a->total[i] += total[i];
	}
}

/* An inlined body has no frame, so no costs of its own: its code's are
 * its host's self (hooks.h). Its total is what the calls it made took: a
 * call made from a body adds its total to the body's, and to each body it
 * is nested in, up to the host (their paths, functions and arcs: merged
 * already, parents first). */
static void give_total_to_bodies(struct merge *m, const struct pv_node *n, const uint64_t *total)
{
	for (const struct pv_node *b = n->parent; pv_key_is_inlined(b->fn); b = b->parent)
		add_to_totals(m, b, total);
}

static void merge_node(const struct pv_node *n, void *arg)
{
	struct merge *m = arg;
	struct pv_profile *p = m->map.p;
	void *fn = pv_key_fn(n->fn);
	uint64_t inlined = pv_key_is_inlined(n->fn) ? n->calls : 0;
	enum pv_func_kind kind = pv_runtime_kind_of(fn);
	uint64_t self[PV_MAX_EVENTS] = { 0 }, total[PV_MAX_EVENTS] = { 0 };
	if (!pv_node_is_fold(n)) /* a fold edge has no costs */
		node_costs(m, n, self, total);
	merge_path(m, n, kind, self, total);
	if (!inlined && !pv_node_is_fold(n))
		give_total_to_bodies(m, n, total);
	struct pv_fstat *f = pv_profile_func(p, fn);
	if (f)
		f->kind = kind;
	struct pv_astat *a = pv_profile_arc(p, pv_key_fn(n->parent->fn), fn);
	if (!f || !a) {
		p->losses.merge_failures++;
		return;
	}
	f->calls += n->calls;
	f->inlined_calls += inlined;
	a->calls += n->calls;
	a->inlined_calls += inlined;
	if (m->ts && kind != PV_FUNC_SIGNAL) {
		m->ts->calls += n->calls;
		m->ts->inlined_calls += inlined;
		if (n->parent->fn)
			m->ts->inner_misses += n->misses;
		else
			m->ts->outer_calls += n->calls;
	}
	if (pv_node_is_fold(n)) {
		/* Nested activations: their cost is in the target's self. */
		a->nested_calls += n->calls;
		return;
	}
	f->samples += n->samples;
	f->timed_ns += n->timed_ns;
	for (unsigned i = 0; i < p->nev; i++) {
		f->self[i] += self[i];
		f->total[i] += total[i];
		a->total[i] += total[i];
		if (m->ts && !n->parent->fn) /* called from outside: the thread's run */
			m->ts->total[i] += total[i];
	}
}

static double seconds_of(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

/* The thread's times, read now: its CPU clock, and wall time since it began. */
static void thread_times(const struct pv_thread *t, struct pv_thread_stat *ts)
{
	struct timespec now;
	ts->cpu_seconds = -1;
	if (t->has_cpu_clock && clock_gettime(t->cpu_clock, &now) == 0)
		ts->cpu_seconds = seconds_of(&now);
	ts->wall_seconds = t->began_ns ? (double)(pv_monotonic_ns() - t->began_ns) * 1e-9 : 0;
}

/* ---- a live thread's open activations ---- */

/* One open activation, and how deep it is (0: the bottom-most). */
struct open_frame {
	const struct pv_frame *f;
	uintptr_t func;
	size_t depth;
};

static int by_func_then_depth(const void *x, const void *y)
{
	const struct open_frame *a = x, *b = y;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* What the open activation f of node n would add to the totals if it
 * returned now: to its path, its function, its arc and, called from
 * outside, the thread's run (as merge_node adds a returned one's). */
static void add_open_total(struct merge *m, const struct pv_node *n, const uint64_t *total)
{
	if (!pv_path_map_get(&m->map, n))
		return; /* not merged: no memory, or made after the tree was walked */
	add_to_totals(m, n, total);
	for (unsigned i = 0; i < m->map.p->nev && m->ts && !n->parent->fn; i++)
		m->ts->total[i] += total[i];
	give_total_to_bodies(m, n, total); /* called from inside an open inlined body */
}

/* The top's self since the thread's last hook, and the sampled time it
 * owes (a thread in a wait owes it to the function that waited, and the
 * wait has the time it has been blocked so far: waited_ns). */
static void add_open_self(struct merge *m, const struct pv_thread *t, const struct pv_node *n,
			  const struct pv_thread_now *now, uint64_t owed_ns, uint64_t owed_samples,
			  uint64_t waited_ns)
{
	struct pv_profile *p = m->map.p;
	uint64_t self[PV_MAX_EVENTS] = { 0 }, samples = 0;
	for (unsigned i = 0; i < t->nev; i++)
		self[m->first + i] = now->now[i] > t->last[i] ? now->now[i] - t->last[i] : 0;
	const struct pv_node *owes = n;
	if (pv_runtime_kind_of(pv_key_fn(n->fn)) == PV_FUNC_WAIT && n->parent->fn)
		owes = n->parent;
	if (m->first) {
		struct pv_path *x = pv_path_map_get(&m->map, owes);
		struct pv_fstat *f = x ? pv_profile_func(p, pv_key_fn(owes->fn)) : NULL;
		if (owes == n) {
			self[0] = owed_ns;
			samples = owed_samples;
		} else if (f) {
			self[0] = waited_ns;
			x->self[0] += owed_ns;
			f->self[0] += owed_ns;
			x->samples += owed_samples;
			f->samples += owed_samples;
		}
	}
	struct pv_path *x = pv_path_map_get(&m->map, n);
	struct pv_fstat *f = x ? pv_profile_func(p, pv_key_fn(n->fn)) : NULL;
	if (!f)
		return;
	x->samples += samples;
	f->samples += samples;
	for (unsigned i = 0; i < p->nev; i++) {
		x->self[i] += self[i];
		f->self[i] += self[i];
	}
}

/* Count t's open activations as if they returned now, without touching t:
 * an activation nested in an open one of the same function adds no total
 * (pv_pop_at's rule, told here by the function's first activation from the
 * bottom). 0, or -1 when memory ran out (nothing added). */
static int add_open(struct merge *m, const struct pv_thread *t, const struct pv_thread_now *now)
{
	/* Read once: a thread still running moves its top meanwhile. Each step
	 * down is at least a slot, so the slots below the top bound the walk. */
	struct pv_frame *top = __atomic_load_n(&t->top, __ATOMIC_RELAXED);
	if (top <= t->stack)
		return 0;
	size_t slots = (size_t)((char *)top - (char *)t->stack) / t->frame_size;
	struct open_frame *open = malloc(slots * sizeof(*open));
	if (!open)
		return -1;
	size_t n = 0;
	for (struct pv_frame *f = top; f > t->stack && n < slots; f = pv_stack_under(t, f))
		open[n++] = (struct open_frame){ f, (uintptr_t)f->node->func, 0 };
	for (size_t i = 0; i < n; i++)
		open[i].depth = n - 1 - i;
	qsort(open, n, sizeof(*open), by_func_then_depth);
	uint64_t owed_ns = __atomic_load_n(&t->owed_ns, __ATOMIC_RELAXED);
	uint64_t owed_samples = __atomic_load_n(&t->owed_samples, __ATOMIC_RELAXED);
	uint64_t pending_ns, pending_samples; /* in its ring, not collected yet */
	pv_cpusamples_pending(t, &pending_ns, &pending_samples);
	owed_ns += pending_ns;
	owed_samples += pending_samples;
	/* A wait still open: blocked so far, as its end would add. */
	uint64_t since = __atomic_load_n(&t->waiting_since_ns, __ATOMIC_RELAXED);
	int in_wait = pv_runtime_kind_of(pv_key_fn(top->node->fn)) == PV_FUNC_WAIT;
	uint64_t waited = 0;
	if (in_wait && since && m->first) {
		uint64_t mono = pv_monotonic_ns();
		waited = mono > since ? mono - since : 0;
		m->map.p->sampling.blocked_ns += waited;
	}
	/* Atomic, as the thread and the sampler add to it. */
	uint64_t clock = __atomic_load_n(&t->sampled_clock, __ATOMIC_RELAXED);
	uint64_t sampled_now = clock + owed_ns + waited;
	for (size_t i = 0; i < n; i++) {
		if (i && open[i].func == open[i - 1].func)
			continue; /* nested in an open activation of its function */
		const struct pv_frame *f = open[i].f;
		uint64_t total[PV_MAX_EVENTS] = { 0 };
		/* The open wait's own: the time blocked, not the CPU it owes. */
		uint64_t upto = in_wait && f == top ? clock + waited : sampled_now;
		if (m->first && upto > f->sampled_start)
			total[0] = upto - f->sampled_start;
		for (unsigned e = 0; e < t->nev; e++)
			if (now->now[e] > f->start[e])
				total[m->first + e] = now->now[e] - f->start[e];
		add_open_total(m, f->node, total);
	}
	add_open_self(m, t, top->node, now, owed_ns, owed_samples, waited);
	free(open);
	return 0;
}

/* t's name: asked of the kernel once, at its first hand-over, then kept in
 * t, so that a thread renamed between two snapshots stays in one group (a
 * window subtracts one from the other). On t itself (its end) by prctl,
 * which takes no descriptor: a thread's end must not take the number the
 * program's next open() is due. Another thread's (a dump's snapshot) from
 * its process's /proc entry, which a copy writing the profile reads too.
 * "" when it cannot be read. */
static const char *thread_name(const struct pv_thread *t)
{
	struct pv_thread *kept = (struct pv_thread *)t; /* the name, t's cache */
	if (kept->name[0])
		return kept->name;
	char name[PV_THREAD_NAME_MAX + 1] = "";
	if (t->tid == pv_sys_gettid()) {
		syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0); /* prctl() is a sanitizer's */
	} else {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)t->pid, (int)t->tid);
		ssize_t n = pv_read_small_file(path, name, PV_THREAD_NAME_MAX);
		if (n > 0 && name[n - 1] == '\n')
			name[n - 1] = '\0';
		if (n <= 0)
			name[0] = '\0';
	}
	snprintf(kept->name, sizeof(kept->name), "%s", name);
	return kept->name;
}

static void hand_over(struct pv_profile *p, const struct pv_thread *t,
		      const struct pv_thread_now *now)
{
	struct merge m = { { p, NULL }, pv_profile_thread_add(p), p->nev - t->nev, 0 };
	struct pv_thread_stat times;
	thread_times(t, &times);
	const char *name = thread_name(t);
	int main_thread = t->tid == t->pid; /* the process's first thread */
	m.group = pv_profile_group(p, name, main_thread);
	if (m.ts) {
		m.ts->tid = t->tid;
		snprintf(m.ts->name, sizeof(m.ts->name), "%s", name);
		m.ts->main_thread = main_thread;
		/* While it was profiled, as its wall time: not the dynamic
		 * loader's, a sanitizer's start-up or the constructors before. */
		m.ts->cpu_seconds = times.cpu_seconds < 0 ? -1
				    : times.cpu_seconds > t->began_cpu_ns * 1e-9
					    ? times.cpu_seconds - t->began_cpu_ns * 1e-9
					    : 0;
		m.ts->wall_seconds = times.wall_seconds;
	} else {
		p->losses.merge_failures++;
	}
	p->losses.threads_shared += t->shared_tls != 0;
	p->losses.contexts_unplaced += t->contexts_unplaced;
	p->losses.catches_in_bodies += t->catches_in_bodies;
	if (m.first) {
		/* What it ran since the sampler's last look: no look saw where.
		 * (A ring samples to the end: what it came to is counted here.) */
		uint64_t cpu = times.cpu_seconds > 0 ? (uint64_t)(times.cpu_seconds * 1e9) : 0;
		if (!pv_cpusamples_from_ring(t) && cpu > t->sampled_cpu_ns)
			p->sampling.unsampled_ns += cpu - t->sampled_cpu_ns;
		p->sampling.blocked_ns += t->blocked_ns;
		p->sampling.samples += t->ring_total.samples;
		p->sampling.own_samples += t->ring_total.own;
		p->sampling.own_ns += t->ring_total.own_ns;
		uint64_t timed = __atomic_load_n(&t->timed.ns, __ATOMIC_RELAXED);
		p->sampling.timed_ns += timed;
		if (timed) /* what the caption says was timed, in a run that was */
			p->sampling.timed_start_ns = PV_TIMED_START_NS;
	}
	pv_cct_walk(&t->cct, merge_node, &m);
	if (now) {
		int has_open = t->top > t->stack;
		if ((add_open(&m, t, now) < 0 || now->at_last_hook) && has_open) {
			p->losses.threads_cut_short++;
			if (m.ts)
				m.ts->cut_short = 1;
		}
	}
	pv_path_map_clear(&m.map);
	p->threads++;
	p->stray_exits += t->stray_exits;
	p->resyncs += t->resyncs;
	p->losses.unrecorded_calls += t->unrecorded;
	p->losses.counters_lost += pv_counters_state(&t->counters) == PV_COUNTERS_GONE;
	for (unsigned i = 0; i < t->counters.n && m.first + i < p->nev; i++) {
		p->enabled[m.first + i] += t->counters.enabled[i];
		p->running[m.first + i] += t->counters.running[i];
	}
}

void pv_thread_hand_over(struct pv_profile *p, const struct pv_thread *t)
{
	hand_over(p, t, NULL);
}

void pv_thread_hand_over_live(struct pv_profile *p, const struct pv_thread *t,
			      const struct pv_thread_now *now)
{
	hand_over(p, t, now);
}
