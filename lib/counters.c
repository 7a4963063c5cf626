#define _GNU_SOURCE
#include "counters.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "fds.h"
#include "log.h"
#include "rdpmc.h"
#include "thread.h"

const char *pv_backend_name(enum pv_backend b)
{
	switch (b) {
	case PV_BACKEND_RDPMC: return "rdpmc";
	case PV_BACKEND_READ: return "read";
	default: return "tsc";
	}
}

int pv_counters_need_perf(const struct pv_event_set *set)
{
	for (unsigned i = 0; i < set->n; i++)
		if (!set->ev[i].is_tsc)
			return 1;
	return 0;
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
	 * perf_event_paranoid=2 (the usual default) allows. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	if (leader)
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	return found;
}

/* Why perf_event_open refused, in the user's terms. */
static void explain(int err, const struct pv_event *e, char *out, size_t size)
{
	int paranoid = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	int hw = e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_HW_CACHE ||
		 e->type == PERF_TYPE_RAW;
	if ((err == ENOENT || err == ENODEV || err == EOPNOTSUPP) && hw)
		snprintf(out, size, "no PMU%s", hypervisor() ? " (virtualized)" : "");
	else if (err == EACCES || err == EPERM)
		snprintf(out, size, "not permitted (perf_event_paranoid=%d)", paranoid);
	else if (err == ENOSYS)
		snprintf(out, size, "perf_event_open is unavailable (seccomp?)");
	else
		snprintf(out, size, "%s", strerror(err));
}

/* Which backend one event gets on this machine: rdpmc when its page allows
 * user reads, else read(2). -errno if it cannot be opened at all. */
static int probe(const struct pv_event *e, enum pv_backend *backend)
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
	close(fd);
	return 0;
}

static void append(char *buf, unsigned size, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(buf);
	if (len < size)
		snprintf(buf + len, size - len, fmt, a, b);
}

void pv_counters_select(struct pv_event_set *set, int defaulted, char *summary,
			unsigned summary_size)
{
	char why[160] = "";
	unsigned kept = 0;
	for (unsigned i = 0; i < set->n; i++) {
		struct pv_event *e = &set->ev[i];
		if (!e->is_tsc) {
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
	if (kept == 0) {
		memset(&set->ev[0], 0, sizeof(set->ev[0]));
		strcpy(set->ev[0].name, "tsc");
		set->ev[0].is_tsc = 1;
		set->ev[0].backend = PV_BACKEND_TSC;
		set->n = 1;
		append(summary, summary_size, "events tsc (%s%s: using tsc)",
		       defaulted ? "" : "no requested event can be counted; ", why);
		return;
	}
	snprintf(summary, summary_size, "events ");
	for (unsigned i = 0; i < set->n; i++)
		append(summary, summary_size, i ? ", %s (%s)" : "%s (%s)", set->ev[i].name,
		       pv_backend_name(set->ev[i].backend));
}

/* Move fd above the numbers programs count on (0, 1, 2 after a daemon's
 * close loop, say) and record it as the runtime's. */
static int adopt_fd(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 256);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	pv_fd_claim(fd);
	return fd;
}

int pv_counters_open(struct pv_counters *c, const struct pv_event_set *set)
{
	memset(c, 0, sizeof(*c));
	c->events = set;
	c->n = set->n;
	int hw_leader = -1;
	unsigned hw_members = 0;
	for (unsigned i = 0; i < set->n; i++) {
		c->fd[i] = -1;
		c->leader[i] = -1;
	}
	for (unsigned i = 0; i < set->n; i++) {
		const struct pv_event *e = &set->ev[i];
		c->backend[i] = e->backend;
		if (e->is_tsc)
			continue;
		int software = e->type == PERF_TYPE_SOFTWARE;
		int leader = software ? (int)i : hw_leader < 0 ? (int)i : hw_leader;
		int fd = perf_open(e, leader == (int)i ? -1 : c->fd[leader], leader == (int)i);
		if (fd < 0) {
			int err = errno;
			pv_counters_close(c);
			return -err;
		}
		c->fd[i] = adopt_fd(fd);
		c->leader[i] = leader;
		c->slot[i] = software ? 0 : hw_members++;
		if (!software && hw_leader < 0)
			hw_leader = (int)i;
		if (e->backend == PV_BACKEND_RDPMC) {
			void *pc = mmap(NULL, (size_t)page_size(), PROT_READ, MAP_SHARED, c->fd[i], 0);
			if (pc == MAP_FAILED)
				c->backend[i] = PV_BACKEND_READ;
			else
				c->page[i] = pc;
		}
	}
	return 0;
}

static void close_fd(struct pv_counters *c, unsigned i)
{
	/* Never a number the program has taken back. */
	if (c->fd[i] >= 0 && pv_fd_is_ours(c->fd[i])) {
		pv_fd_release(c->fd[i]);
		close(c->fd[i]);
	}
	c->fd[i] = -1;
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
		if (c->fd[i] == fd) {
			__atomic_store_n(&c->lost, 1, __ATOMIC_SEQ_CST);
			pv_fd_release(fd);
		}
}

/* The program closed some of our fds: reopen the group, and let every event
 * continue from its last value. */
static PV_NOINLINE void recover(struct pv_thread *t)
{
	struct pv_counters *c = &t->counters;
	const struct pv_event_set *set = c->events;
	pv_counters_close(c);
	if (!set || pv_counters_open(c, set) < 0) {
		c->n = 0;
		c->lost = 2; /* for good: readings stay where they are */
		return;
	}
	for (unsigned i = 0; i < c->n; i++)
		if (c->backend[i] != PV_BACKEND_TSC)
			c->base[i] = t->last[i];
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

/* One read(2) of the group led by event lead; 0 on success. */
static int read_group(struct pv_counters *c, int lead, uint64_t *values)
{
	uint64_t buf[3 + PV_MAX_EVENTS];
	uint64_t enabled, running;
	int saved_errno = errno;
	ssize_t got = read(c->fd[lead], buf, sizeof(buf));
	errno = saved_errno;
	if (pv_group_parse(buf, got, PV_MAX_EVENTS, values, &enabled, &running) < 0)
		return -1;
	for (unsigned i = 0; i < c->n; i++)
		if (c->leader[i] == lead) {
			c->enabled[i] = enabled;
			c->running[i] = running;
		}
	return 0;
}

void pv_counters_read(struct pv_thread *t, uint64_t *now)
{
	struct pv_counters *c = &t->counters;
	uint64_t group[PV_MAX_EVENTS][PV_MAX_EVENTS];
	signed char group_state[PV_MAX_EVENTS] = { 0 }; /* per leader: 1 read, -1 failed */
	if (unlikely(__atomic_load_n(&c->lost, __ATOMIC_SEQ_CST))) {
		if (c->lost == 1)
			recover(t);
		if (c->lost == 2) {
			for (unsigned i = 0; i < t->nev; i++)
				now[i] = t->last[i];
			return;
		}
	}
	for (unsigned i = 0; i < c->n; i++) {
		if (c->backend[i] == PV_BACKEND_TSC) {
			now[i] = pv_arch_clock();
			continue;
		}
		if (c->page[i]) {
			struct pv_rdpmc_sample s;
			int status = pv_rdpmc_read(c->page[i], hw_rdpmc, hw_clock, NULL, &s);
			if (likely(status == PV_RDPMC_OK)) {
				now[i] = c->base[i] + s.value;
				c->enabled[i] = s.enabled;
				c->running[i] = s.running;
				continue;
			}
			if (status == PV_RDPMC_NOT_COUNTED) {
				now[i] = t->last[i];
				continue;
			}
			/* Not readable in user space right now: ask the kernel. */
		}
		int lead = c->leader[i];
		if (group_state[lead] == 0)
			group_state[lead] = read_group(c, lead, group[lead]) == 0 ? 1 : -1;
		now[i] = group_state[lead] > 0 ? c->base[i] + group[lead][c->slot[i]] : t->last[i];
	}
}
