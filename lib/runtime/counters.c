/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/counters.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sysraw.h"
#include "runtime/sandbox.h"
#include "runtime/arch.h"
#include "runtime/fds.h"
#include "runtime/rdpmc.h"
#include "runtime/smallfile.h"

const char *pv_backend_name(enum pv_backend b)
{
	switch (b) {
	case PV_BACKEND_RDPMC: return "rdpmc";
	case PV_BACKEND_READ: return "read";
	case PV_BACKEND_TSC: return "tsc";
	default: return "none";
	}
}

static enum pv_event_kind kind_of(const struct pv_event *e)
{
	if (pv_event_is_tsc(e))
		return PV_EVENT_TIME;
	if (e->type == PERF_TYPE_SOFTWARE)
		return e->config == PERF_COUNT_SW_TASK_CLOCK || e->config == PERF_COUNT_SW_CPU_CLOCK
			       ? PV_EVENT_TIME
			       : PV_EVENT_COUNT;
	return e->type == PERF_TYPE_HARDWARE && (e->config == PERF_COUNT_HW_CPU_CYCLES ||
						  e->config == PERF_COUNT_HW_REF_CPU_CYCLES)
		       ? PV_EVENT_CYCLES
		       : PV_EVENT_COUNT;
}

void pv_counters_describe(const struct pv_event *e, struct pv_event_desc *d)
{
	pv_event_describe(d, e->name, kind_of(e), pv_backend_name(e->backend));
}

/* ---- from raw counts to output units ---- */

static uint64_t run_start_clock, run_start_mono;

void pv_counters_mark_start(void)
{
	run_start_clock = pv_arch_clock();
	run_start_mono = pv_monotonic_ns();
}

void pv_counters_conversion(const struct pv_event_set *set, const uint64_t *enabled,
			    const uint64_t *running, struct pv_conversion *out)
{
	uint64_t mono = pv_monotonic_ns();
	while (mono - run_start_mono < 5000000)
		mono = pv_monotonic_ns();
	uint64_t ticks = pv_arch_clock() - run_start_clock;
	double ns_per_tick = ticks ? (double)(mono - run_start_mono) / (double)ticks : 1.0;
	out->wall_seconds = (double)(mono - run_start_mono) / 1e9;
	for (unsigned i = 0; i < set->n; i++) {
		int multiplexed = enabled[i] && running[i] < enabled[i];
		out->running_ratio[i] = multiplexed ? (double)running[i] / (double)enabled[i] : 1.0;
		if (pv_event_is_tsc(&set->ev[i]))
			out->factor[i] = ns_per_tick;
		else if (multiplexed && running[i])
			out->factor[i] = (double)enabled[i] / (double)running[i];
		else
			out->factor[i] = 1.0;
	}
}

void pv_counters_plan(const struct pv_event_set *set, int *leader, unsigned *slot)
{
	int hw_leader = -1;
	unsigned hw_members = 0;
	for (unsigned i = 0; i < set->n; i++) {
		const struct pv_event *e = &set->ev[i];
		leader[i] = -1;
		slot[i] = 0;
		if (pv_event_is_tsc(e))
			continue;
		if (e->type == PERF_TYPE_SOFTWARE) {
			leader[i] = (int)i;
			continue;
		}
		if (hw_leader < 0)
			hw_leader = (int)i;
		leader[i] = hw_leader;
		slot[i] = hw_members++;
	}
}

static long page_size(void)
{
	static long size;
	if (!size)
		size = sysconf(_SC_PAGESIZE);
	return size;
}

static int perf_open(const struct pv_event *e, int group_fd, int leader)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.config1 = e->config1;
	attr.config2 = e->config2;
	/* User space only: what the profiled code itself costs, and what
	 * perf_event_paranoid=2 (the usual default) allows; except for events
	 * that only ever happen in the kernel. */
	attr.exclude_kernel = !e->with_kernel;
	attr.exclude_hv = 1;
	if (leader)
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return pv_sandbox_perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int hypervisor(void)
{
	/* The first processor's flags are near the start of the file. */
	char text[16384];
	if (pv_read_small_file("/proc/cpuinfo", text, sizeof(text)) <= 0)
		return 0;
	for (const char *line = text; line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, "flags", 5))
			continue;
		const char *end = strchr(line, '\n');
		const char *found = strstr(line, " hypervisor");
		return found && (!end || found < end);
	}
	return 0;
}

/* Events that happen only in the kernel (the scheduler's): user space
 * alone would always count 0. */
static int only_in_kernel(const struct pv_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		e->config == PERF_COUNT_SW_CPU_MIGRATIONS ||
		e->config == PERF_COUNT_SW_CGROUP_SWITCHES);
}

/* Why perf_event_open refused, in the user's terms. */
static void explain(int err, const struct pv_event *e, char *out, size_t size)
{
	int paranoid = -9;
	char text[32], *end;
	if (pv_read_small_file("/proc/sys/kernel/perf_event_paranoid", text, sizeof(text)) > 0) {
		long v = strtol(text, &end, 10);
		if (end != text)
			paranoid = (int)v;
	}
	int hw = e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_HW_CACHE ||
		 e->type == PERF_TYPE_RAW;
	if ((err == ENOENT || err == ENODEV || err == EOPNOTSUPP) && hw)
		snprintf(out, size, "no PMU%s", hypervisor() ? " (virtualized)" : "");
	else if ((err == EACCES || err == EPERM) && e->with_kernel)
		snprintf(out, size, "it happens only in the kernel, which perf_event_paranoid=%d "
			 "does not let this user count (needs 1 or less, or CAP_PERFMON)", paranoid);
	else if (err == EACCES || err == EPERM)
		snprintf(out, size, "not permitted (perf_event_paranoid=%d)", paranoid);
	else if (err == ENOSYS)
		snprintf(out, size, "perf_event_open is unavailable (seccomp?)");
	else if (err == ECANCELED)
		snprintf(out, size, "%s", PV_SANDBOX_REFUSAL);
	else
		snprintf(out, size, "%s", strerror(err));
}

/* What one read(2) of a group leader costs here: every hook pays it, and
 * the user is told (the best of a few rounds: a round may be preempted). */
static double read_cost_ns(int fd)
{
	uint64_t buf[2 + 2 * PV_MAX_EVENTS];
	double best = 0;
	for (int round = 0; round < 4; round++) {
		uint64_t t0 = pv_monotonic_ns();
		for (int i = 0; i < 8; i++)
			if (read(fd, buf, sizeof(buf)) <= 0)
				return 0;
		double each = (double)(pv_monotonic_ns() - t0) / 8;
		if (round == 0 || each < best)
			best = each;
	}
	return best;
}

/* Which backend one event gets on this machine: rdpmc when its page allows
 * user reads, else read(2), with what a read costs. -errno if it cannot be
 * opened at all. */
static int probe(struct pv_event *e, enum pv_backend *backend)
{
	int fd = perf_open(e, -1, 1);
	if (fd < 0)
		return -errno;
	*backend = PV_BACKEND_READ;
	struct perf_event_mmap_page *pc = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED,
					       fd, 0);
	if (pc != MAP_FAILED) {
		if ((pc->capabilities & PV_CAP_BIT0_IS_DEPRECATED) && pc->cap_user_rdpmc &&
		    pc->index && pc->pmc_width && PV_ARCH_HAS_RDPMC)
			*backend = PV_BACKEND_RDPMC;
		munmap(pc, (size_t)page_size());
	}
	if (*backend == PV_BACKEND_READ)
		e->read_ns = read_cost_ns(fd);
	pv_sys_close(fd);
	return 0;
}

static void append(char *buf, unsigned size, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(buf);
	if (len < size)
		snprintf(buf + len, size - len, fmt, a, b);
}

void pv_counters_select(struct pv_event_set *set, int defaulted, int none_ok, char *summary,
			unsigned summary_size)
{
	char why[160] = "";
	unsigned kept = 0;
	for (unsigned i = 0; i < set->n; i++) {
		struct pv_event *e = &set->ev[i];
		e->with_kernel = only_in_kernel(e);
		if (!pv_event_is_tsc(e)) {
			int err = probe(e, &e->backend);
			if (err < 0) {
				explain(-err, e, why, sizeof(why));
				if (!defaulted)
					pv_log("PROFVIZ_EVENTS: '%s' cannot be counted: %s; it is left out",
					       e->name, why);
				continue;
			}
		}
		set->ev[kept++] = *e;
	}
	set->n = kept;
	summary[0] = '\0';
	if (kept == 0 && none_ok) {
		append(summary, summary_size, "no event (%s%s)", "none can be counted: ", why);
		return;
	}
	if (kept == 0) {
		memset(&set->ev[0], 0, sizeof(set->ev[0]));
		strcpy(set->ev[0].name, "tsc");
		set->ev[0].backend = PV_BACKEND_TSC;
		set->n = 1;
		append(summary, summary_size, "events tsc (%s%s: using tsc)",
		       defaulted ? "" : "no requested event can be counted; ", why);
		return;
	}
	snprintf(summary, summary_size, "events ");
	double per_hook = 0;
	int hardware_group_read = 0;
	for (unsigned i = 0; i < set->n; i++) {
		const struct pv_event *e = &set->ev[i];
		char backend[64];
		snprintf(backend, sizeof(backend), "%s%s", pv_backend_name(e->backend),
			 e->with_kernel ? ", kernel included" : "");
		append(summary, summary_size, i ? ", %s (%s)" : "%s (%s)", e->name, backend);
		/* One read per group per hook: hardware events share one, each
		 * software event leads its own (pv_counters_plan). */
		if (e->backend != PV_BACKEND_READ)
			continue;
		if (e->type == PERF_TYPE_SOFTWARE)
			per_hook += e->read_ns;
		else if (!hardware_group_read++)
			per_hook += e->read_ns;
	}
	if (per_hook > 0) {
		char cost[96];
		snprintf(cost, sizeof(cost), "; a system call per hook: about %.1f us per call "
			 "(tsc: about 0.015)", 2 * per_hook / 1000);
		append(summary, summary_size, "%s%s", cost, "");
	}
}

/* Move fd out of the program's way (fds.h) and record it as the runtime's;
 * -1 with errno EMFILE, fd closed, when it has no room there. */
static int adopt_fd(int fd)
{
	int moved = pv_fd_dup_private(fd);
	int err = errno;
	pv_sys_close(fd);
	errno = err;
	return moved;
}

/* Open set's events into fresh, the caller's own: 0, or -errno with
 * nothing left open. */
static int open_events(struct pv_counters *fresh, const struct pv_event_set *set)
{
	memset(fresh, 0, sizeof(*fresh));
	fresh->events = set;
	fresh->n = set->n;
	pv_counters_plan(set, fresh->leader, fresh->slot);
	for (unsigned i = 0; i < set->n; i++)
		fresh->fd[i] = -1;
	for (unsigned i = 0; i < set->n; i++) {
		const struct pv_event *e = &set->ev[i];
		fresh->backend[i] = e->backend;
		if (pv_event_is_tsc(e))
			continue;
		int leads = fresh->leader[i] == (int)i;
		int fd = perf_open(e, leads ? -1 : fresh->fd[fresh->leader[i]], leads);
		if (fd >= 0)
			fd = adopt_fd(fd);
		if (fd < 0) {
			int err = errno;
			pv_counters_close(fresh);
			return -err;
		}
		fresh->fd[i] = fd;
		if (e->backend == PV_BACKEND_RDPMC) {
			void *pc = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, fd, 0);
			if (pc == MAP_FAILED)
				fresh->backend[i] = PV_BACKEND_READ;
			else
				fresh->page[i] = pc;
		}
	}
	return 0;
}

int pv_counters_open(struct pv_counters *c, const struct pv_event_set *set)
{
	struct pv_counters fresh;
	int err = open_events(&fresh, set);
	if (err == 0)
		*c = fresh; /* no other thread sees c yet */
	return err;
}

static void close_fd(struct pv_counters *c, unsigned i)
{
	/* Never a number the program has taken back. */
	if (c->fd[i] >= 0 && pv_fd_is_ours(c->fd[i])) {
		pv_fd_release(c->fd[i]);
		pv_sys_close(c->fd[i]);
	}
	__atomic_store_n(&c->fd[i], -1, __ATOMIC_RELAXED);
}

void pv_counters_close(struct pv_counters *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (c->page[i])
			munmap(c->page[i], (size_t)page_size());
		c->page[i] = NULL;
	}
	for (unsigned i = 0; i < c->n; i++) /* members before leaders */
		if (c->leader[i] != (int)i)
			close_fd(c, i);
	for (unsigned i = 0; i < c->n; i++)
		close_fd(c, i);
}

void pv_counters_forget_fd(struct pv_counters *c, int fd)
{
	for (unsigned i = 0; i < c->n; i++)
		if (__atomic_load_n(&c->fd[i], __ATOMIC_RELAXED) == fd) {
			/* The number is someone else's from now on: never read nor
			 * closed as the owner's, even once handed back to the runtime. */
			__atomic_store_n(&c->fd[i], -1, __ATOMIC_RELAXED);
			__atomic_store_n(&c->state, PV_COUNTERS_LOST, __ATOMIC_SEQ_CST);
			pv_fd_release(fd);
		}
}

void pv_counters_reopen(struct pv_counters *c, const uint64_t *floor)
{
	pv_counters_close(c);
	struct pv_counters fresh;
	if (!c->events || open_events(&fresh, c->events) < 0) {
		/* For good: readings stay where they are, and the times counted so
		 * far still scale what was read with them. */
		__atomic_store_n(&c->state, PV_COUNTERS_GONE, __ATOMIC_SEQ_CST);
		return;
	}
	for (unsigned i = 0; i < c->n; i++) {
		c->backend[i] = fresh.backend[i];
		c->page[i] = fresh.page[i];
		c->base[i] = fresh.backend[i] == PV_BACKEND_TSC ? 0 : floor[i];
		c->enabled_base[i] = c->enabled[i];
		c->running_base[i] = c->running[i];
		__atomic_store_n(&c->fd[i], fresh.fd[i], __ATOMIC_RELAXED);
	}
	/* LOST until now: the thread never reads a set half open. */
	__atomic_store_n(&c->state, PV_COUNTERS_OPEN, __ATOMIC_SEQ_CST);
}

static void note_times(struct pv_counters *c, unsigned i, uint64_t enabled, uint64_t running)
{
	c->enabled[i] = c->enabled_base[i] + enabled;
	c->running[i] = c->running_base[i] + running;
}

/* Each group's time_enabled and time_running as its read(2) found them,
 * kept aside until the read is known to be trusted: the descriptor may have
 * become another file's meanwhile. (A mmap page stays the event's own
 * whatever happens to its descriptor: rdpmc readings note theirs at once.) */
struct group_times {
	uint64_t enabled[PV_MAX_EVENTS], running[PV_MAX_EVENTS];
	unsigned read; /* a bit per leader */
};

/* One read(2) of the group led by event lead; 0 on success. */
static int read_group(struct pv_counters *c, int lead, uint64_t *values, struct group_times *gt)
{
	uint64_t buf[3 + PV_MAX_EVENTS];
	int saved_errno = errno;
	ssize_t got = read(__atomic_load_n(&c->fd[lead], __ATOMIC_RELAXED), buf, sizeof(buf));
	errno = saved_errno;
	if (pv_group_parse(buf, got, PV_MAX_EVENTS, values, &gt->enabled[lead],
			   &gt->running[lead]) < 0)
		return -1;
	gt->read |= 1u << lead;
	return 0;
}

/* Every event's raw reading, never below its floor: a delta the hooks
 * take can then never wrap around. rdpmc NULL: from another thread than
 * c's, which reads each perf event with read(2) (rdpmc reads the counter of
 * the processor it runs on) and keeps no times (c's thread writes them). */
PV_INLINE enum pv_counters_state read_all(struct pv_counters *c, const uint64_t *floor,
					  uint64_t *now, pv_rdpmc_insn *rdpmc,
					  pv_clock_insn *clock, void *ctx)
{
	uint64_t group[PV_MAX_EVENTS][PV_MAX_EVENTS];
	signed char group_state[PV_MAX_EVENTS] = { 0 }; /* per leader: 1 read, -1 failed */
	struct group_times gt;
	gt.read = 0;
	enum pv_counters_state state = pv_counters_state(c);
	if (unlikely(state != PV_COUNTERS_OPEN)) {
		memcpy(now, floor, c->n * sizeof(uint64_t));
		return state;
	}
	for (unsigned i = 0; i < c->n; i++) {
		uint64_t v = floor[i]; /* when nothing can be read */
		struct pv_rdpmc_sample s;
		if (c->backend[i] == PV_BACKEND_TSC) {
			v = clock(ctx);
		} else if (rdpmc && c->page[i] &&
			   likely(pv_rdpmc_read(c->page[i], rdpmc, clock, ctx, &s) == PV_RDPMC_OK)) {
			v = c->base[i] + s.raw;
			note_times(c, i, s.enabled, s.running);
		} else if (c->backend[i] != PV_BACKEND_NONE) {
			/* No rdpmc, or not readable in user space right now: ask the kernel. */
			int lead = c->leader[i];
			if (group_state[lead] == 0)
				group_state[lead] = read_group(c, lead, group[lead], &gt) == 0 ? 1 : -1;
			if (group_state[lead] > 0)
				v = c->base[i] + group[lead][c->slot[i]];
		}
		now[i] = v >= floor[i] ? v : floor[i];
	}
	/* The program took a descriptor while it was read: its number may be
	 * another file's by now, so none of the readings is trusted, nor the
	 * times read with them. */
	state = pv_counters_state(c);
	if (unlikely(state != PV_COUNTERS_OPEN)) {
		memcpy(now, floor, c->n * sizeof(uint64_t));
		return state;
	}
	if (gt.read && rdpmc)
		for (unsigned i = 0; i < c->n; i++)
			if (c->leader[i] >= 0 && (gt.read >> c->leader[i]) & 1)
				note_times(c, i, gt.enabled[c->leader[i]], gt.running[c->leader[i]]);
	return state;
}

static uint64_t hw_rdpmc(void *ctx, uint32_t ecx)
{
	(void)ctx;
	return pv_arch_rdpmc(ecx);
}

static uint64_t hw_clock(void *ctx)
{
	(void)ctx;
	return pv_arch_clock();
}

enum pv_counters_state pv_counters_read(struct pv_counters *c, const uint64_t *floor,
					uint64_t *now)
{
	return read_all(c, floor, now, hw_rdpmc, hw_clock, NULL);
}

enum pv_counters_state pv_counters_read_simulated(struct pv_counters *c, const uint64_t *floor,
						  uint64_t *now, pv_rdpmc_insn *rdpmc,
						  pv_clock_insn *clock, void *ctx)
{
	return read_all(c, floor, now, rdpmc, clock, ctx);
}

enum pv_counters_state pv_counters_read_elsewhere(struct pv_counters *c, const uint64_t *floor,
						  uint64_t *now)
{
	return read_all(c, floor, now, NULL, hw_clock, NULL);
}
