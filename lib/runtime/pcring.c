/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/pcring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/sysraw.h"
#include "runtime/sandbox.h"
#include "runtime/fds.h"
#include "runtime/smallfile.h"

/* A sample as this ring's attributes write it: the header, the PC, when
 * (CLOCK_MONOTONIC), then the event's count then, the thread's CPU time in
 * ns (PERF_SAMPLE_READ): the difference from the sample before is the CPU
 * time this one stands for, whatever the period was meanwhile (the sampler
 * changes it). */
struct sample_record {
	struct perf_event_header header;
	uint64_t ip;
	uint64_t at_ns;
	uint64_t cpu_ns;
};

/* PERF_RECORD_LOST: how many samples did not fit. */
struct lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

/* PERF_RECORD_SWITCH: the thread left its CPU (PERF_RECORD_MISC_SWITCH_OUT)
 * or came back to one, at the time in its trailer (sample_id_all). */
struct switch_record {
	struct perf_event_header header;
	uint64_t at_ns;
};

unsigned pv_pcring_pages(uint64_t period_ns, uint64_t reads_ns)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t bytes = (reads_ns / (period_ns ? period_ns : 1) + 1) * sizeof(struct sample_record);
	unsigned pages = 1;
	while ((uint64_t)pages * page < bytes && pages < (1u << 10))
		pages *= 2;
	return pages;
}

static void sampling_attributes(struct perf_event_attr *attr, uint64_t period_ns,
				uint64_t data_bytes, int user_only)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_TASK_CLOCK; /* the thread's CPU time, in ns */
	attr->sample_period = period_ns;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
	attr->read_format = 0; /* the count alone */
	/* Times on the clock the runtime reads (timedstart.h), in every
	 * record, so that a switch's time can be set against it. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->sample_id_all = 1;
	/* A sample that lands while the thread is in the kernel (a system
	 * call, a page fault) is its CPU time too; where that is refused
	 * (perf_event_paranoid=2 for an unprivileged user) the kernel drops
	 * such samples, and the thread's time there is not seen. */
	attr->exclude_kernel = (uint64_t)user_only;
	attr->exclude_hv = 1;
	/* No one waits on the ring: wake no one before it is full. */
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)data_bytes;
}

/* The thread's switches off and onto a CPU, written into the ring of the
 * event behind ring_fd: a dummy event that counts nothing, with the
 * ring's attributes (the same clock and trailers). Its descriptor, or -1. */
static int open_switches(const struct perf_event_attr *ring, pid_t tid, int ring_fd)
{
	struct perf_event_attr attr = *ring;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_period = 0;
	attr.context_switch = 1;
	int fd = pv_sandbox_perf_event_open(&attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
		pv_sys_close(fd);
		return -1;
	}
	return fd;
}

/* mmap(2) and munmap(2) by number: a sanitizer's wrappers would see a
 * descriptor their open never saw (perf_event_open has none) and take a
 * number the program used before for a race on it. */
static void *map_ring(int fd, size_t bytes)
{
	long map = syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return map == -1 ? MAP_FAILED : (void *)map;
}

static void unmap_ring(void *map, size_t bytes)
{
	syscall(SYS_munmap, map, bytes);
}

/* What becomes of a ring's descriptor once the ring is mapped. */
enum keeping {
	CLOSE_IT,      /* closed: the mapping holds the event */
	KEEP_AS_IS,    /* in r->event_fd: the calling thread's table is its own */
};

/* The ring of thread tid (0: the calling one), its descriptor kept as
 * keeping says. own_table: the calling thread's descriptor table is not
 * the program's, which then never sees the descriptor. */
static int open_ring(struct pv_pcring *r, pid_t tid, uint64_t period_ns, unsigned data_pages,
		     enum keeping keeping, int own_table, int switches)
{
	memset(r, 0, sizeof(*r));
	r->event_fd = -1;
	int switch_fd = -1;
	if (!period_ns || !data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = (1 + (size_t)data_pages) * page;
	struct perf_event_attr attr;
	sampling_attributes(&attr, period_ns, (uint64_t)data_pages * page, 0);
	/* The descriptor lives from the open to the close below: the program
	 * must not close or dup2 over its number meanwhile (fds.h). */
	sigset_t saved;
	if (!own_table && !pv_fds_runtime_begins(1, &saved))
		return -EAGAIN;
	int err = 0;
	void *map = MAP_FAILED;
	int fd = pv_sandbox_perf_event_open(&attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	int user_only = 0;
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		sampling_attributes(&attr, period_ns, (uint64_t)data_pages * page, 1);
		fd = pv_sandbox_perf_event_open(&attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		user_only = 1;
	}
	int kept = -1;
	if (fd < 0) {
		err = -errno;
	} else {
		map = map_ring(fd, bytes);
		if (map == MAP_FAILED) {
			err = -errno;
		} else {
			if (switches)
				switch_fd = open_switches(&attr, tid, fd);
		}
		if (map != MAP_FAILED && keeping == KEEP_AS_IS)
			kept = fd;
		else
			pv_sys_close(fd); /* the mapping holds the event */
	}
	if (!own_table)
		pv_fds_runtime_ends(&saved);
	if (err)
		return err;
	if (pv_pcring_attach(r, map, bytes) < 0) {
		unmap_ring(map, bytes);
		if (switch_fd >= 0)
			pv_sys_close(switch_fd);
		if (keeping == KEEP_AS_IS)
			pv_sys_close(kept);
		return -EINVAL;
	}
	r->period_ns = period_ns;
	r->user_only = user_only;
	r->switch_fd = switch_fd;
	r->has_switch_fd = r->switches_on = switch_fd >= 0;
	if (keeping == KEEP_AS_IS) {
		r->event_fd = kept;
		r->has_event_fd = 1;
	}
	return 0;
}

int pv_pcring_open(struct pv_pcring *r, uint64_t period_ns, unsigned data_pages)
{
	return open_ring(r, 0, period_ns, data_pages, CLOSE_IT, 0, 0);
}

int pv_pcring_open_thread(struct pv_pcring *r, pid_t tid, uint64_t period_ns,
			  unsigned data_pages, int keep_fd, int switches)
{
	return open_ring(r, tid, period_ns, data_pages, keep_fd ? KEEP_AS_IS : CLOSE_IT, 1,
			 switches);
}

int pv_pcring_period(int fd, uint64_t period_ns)
{
	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &period_ns) < 0 ? -errno : 0;
}

void pv_pcring_explain(int err, char *out, size_t size)
{
	char text[32] = "";
	pv_read_small_file("/proc/sys/kernel/perf_event_paranoid", text, sizeof(text));
	text[strcspn(text, "\n")] = '\0';
	if (err == -EACCES || err == -EPERM)
		snprintf(out, size, "perf_event_open or its ring refused (perf_event_paranoid=%s; "
			 "locked memory: perf_event_mlock_kb, then RLIMIT_MEMLOCK)",
			 text[0] ? text : "unknown");
	else if (err == -ENOSYS)
		snprintf(out, size, "perf_event_open is unavailable (seccomp?)");
	else if (err == -ECANCELED)
		snprintf(out, size, "%s", PV_SANDBOX_REFUSAL);
	else if (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP)
		snprintf(out, size, "this kernel has no task-clock sampling (%s)", strerror(-err));
	else
		snprintf(out, size, "%s", strerror(-err));
}

int pv_pcring_attach(struct pv_pcring *r, void *map, size_t map_bytes)
{
	memset(r, 0, sizeof(*r));
	r->event_fd = -1;
	const struct perf_event_mmap_page *p = map;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (map_bytes <= page)
		return -1;
	/* data_offset and data_size are there since Linux 4.1; before, the
	 * data followed the first page. */
	uint64_t offset = p->data_offset ? p->data_offset : page;
	uint64_t size = p->data_size ? p->data_size : map_bytes - page;
	if (offset < sizeof(*p) || !size || (size & (size - 1)) || offset > map_bytes ||
	    size > map_bytes - offset)
		return -1;
	r->map = map;
	r->map_bytes = map_bytes;
	r->data = (const unsigned char *)map + offset;
	r->data_size = size;
	return 0;
}

/* The ring's 8-byte word at position at (a running byte count). The kernel
 * writes every record in whole words from a word boundary, so no word
 * crosses the end of the data area; and the reader copies nothing with
 * libc's memcpy (the sampler's thread runs none of libc but its system
 * calls). */
static uint64_t word_at(const struct pv_pcring *r, uint64_t at)
{
	return *(const uint64_t *)(r->data + (at & (r->data_size - 1)));
}

/* A record's header word: its type and size. */
static void header_of(uint64_t word, uint32_t *type, uint16_t *size)
{
	struct perf_event_header h;
	__builtin_memcpy(&h, &word, sizeof(h)); /* inlined: a fixed 8 bytes */
	*type = h.type;
	*size = h.size;
}

/* What a walk over a ring's records does with each: a sample's PC, time
 * and the thread's CPU clock, a lost record's count, a switch's time
 * (NULL: switches passed over). */
struct walk {
	void (*sample)(struct walk *w, uintptr_t pc, uint64_t at_ns, uint64_t cpu_ns);
	void (*lost)(struct walk *w, uint64_t lost);
	void (*switched)(struct walk *w, int out, uint64_t at_ns);
};

/* ... and its misc bits. */
static uint16_t misc_of(uint64_t word)
{
	struct perf_event_header h;
	__builtin_memcpy(&h, &word, sizeof(h));
	return h.misc;
}

/* Hand the records from `from` to head to w; where the walk stopped: head,
 * when a record cannot be one (a size below its header's, not whole words,
 * past the data written), so that the reader starts again from what comes
 * next. Others (throttling) say nothing, and are passed over. */
static uint64_t walk_records(const struct pv_pcring *r, uint64_t from, uint64_t head,
			     struct walk *w)
{
	if (head - from > r->data_size || (from & 7))
		return head; /* cannot be: start again from what comes next */
	while (head - from >= sizeof(struct perf_event_header)) {
		uint32_t type;
		uint16_t size;
		header_of(word_at(r, from), &type, &size);
		if (size < sizeof(struct perf_event_header) || size > head - from || (size & 7))
			return head;
		if (type == PERF_RECORD_SAMPLE && size >= sizeof(struct sample_record))
			w->sample(w, (uintptr_t)word_at(r, from + offsetof(struct sample_record, ip)),
				  word_at(r, from + offsetof(struct sample_record, at_ns)),
				  word_at(r, from + offsetof(struct sample_record, cpu_ns)));
		else if (type == PERF_RECORD_LOST && size >= sizeof(struct lost_record))
			w->lost(w, word_at(r, from + offsetof(struct lost_record, lost)));
		else if (type == PERF_RECORD_SWITCH && size >= sizeof(struct switch_record) &&
			 w->switched)
			w->switched(w, misc_of(word_at(r, from)) & PERF_RECORD_MISC_SWITCH_OUT,
				    word_at(r, from + offsetof(struct switch_record, at_ns)));
		from += size;
	}
	return from;
}

/* A count's walk: each sample weighed from the CPU clock of the one before
 * (*last, moved on). No sample stands for more than three mean periods
 * (the longest a drawn period and one cut short by the next draw make),
 * but for one after samples the kernel dropped: the first one counted
 * would otherwise carry all the CPU since the event opened, profviz's
 * start-up too. */
struct counting {
	struct walk walk;
	const struct pv_pcring *r;
	struct pv_pcring_news *n;
	uint64_t *last;
	int after_loss;
	struct pv_pcring_offcpu *off; /* or NULL */
};

static void count_sample(struct walk *w, uintptr_t pc, uint64_t at_ns, uint64_t cpu)
{
	struct counting *c = (struct counting *)w;
	uint64_t longest = 3 * c->r->period_ns;
	uint64_t ns = cpu > *c->last ? cpu - *c->last : 0;
	*c->last = cpu > *c->last ? cpu : *c->last;
	if (ns > longest && longest && !c->after_loss)
		ns = longest;
	c->after_loss = 0;
	if (pc >= c->r->own_lo && pc < c->r->own_hi) {
		c->n->own++;
		c->n->own_ns += ns;
	} else {
		c->n->samples++;
		c->n->ns += ns;
	}
	if (c->off) {
		c->off->sample_ns = at_ns;
		c->off->sample_cpu_ns = cpu;
		c->off->off_since_sample_ns = 0;
	}
}

static void count_lost(struct walk *w, uint64_t lost)
{
	struct counting *c = (struct counting *)w;
	c->n->lost += lost;
	c->after_loss = 1;
}

/* The part of [lo, hi] inside [from, to]. */
static uint64_t overlap(uint64_t lo, uint64_t hi, uint64_t from, uint64_t to)
{
	lo = lo > from ? lo : from;
	hi = hi < to ? hi : to;
	return hi > lo ? hi - lo : 0;
}

/* A switch out opens a time off the CPU, the switch back in closes it:
 * its part in the span asked about, and all of it after the last sample
 * (no sample is taken off the CPU). A switch in with no switch out before
 * it ends a time off that began before the switches were written (a new
 * thread blocked as its ring opened): off from the span's start. */
static void count_switch(struct walk *w, int out, uint64_t at_ns)
{
	struct pv_pcring_offcpu *o = ((struct counting *)w)->off;
	if (out) {
		if (!o->switched_out_ns)
			o->switched_out_ns = at_ns;
		o->switches++;
		return;
	}
	if (!o->switched_out_ns) {
		o->off_ns += overlap(o->from_ns, at_ns, o->from_ns, o->to_ns);
		return;
	}
	o->off_ns += overlap(o->switched_out_ns, at_ns, o->from_ns, o->to_ns);
	if (at_ns > o->switched_out_ns)
		o->off_since_sample_ns += at_ns - o->switched_out_ns;
	o->switched_out_ns = 0;
}

/* The records from `from` to head into n, and the switches into off
 * unless it is NULL; where the count stopped. */
static uint64_t count_from(const struct pv_pcring *r, uint64_t from, uint64_t head,
			   struct pv_pcring_news *n, uint64_t *last, struct pv_pcring_offcpu *off)
{
	struct counting c = { { count_sample, count_lost, off ? count_switch : NULL },
			      r, n, last, 0, off };
	return walk_records(r, from, head, &c.walk);
}

void pv_pcring_start_count(struct pv_pcring *r)
{
	if (!r->map)
		return;
	const struct perf_event_mmap_page *p = r->map;
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&p->data_tail, __ATOMIC_RELAXED);
	struct pv_pcring_news ignored = { 0, 0, 0, 0, 0 };
	uint64_t last = r->drained_cpu_ns;
	count_from(r, tail, head, &ignored, &last, NULL); /* the last sample's clock */
	r->counted_cpu_ns = last;
	__atomic_store_n(&r->counted, head, __ATOMIC_RELEASE);
	__atomic_store_n(&r->counted_by_owner, 1, __ATOMIC_RELEASE);
}

void pv_pcring_count(struct pv_pcring *r, struct pv_pcring_news *n, struct pv_pcring_offcpu *off)
{
	if (!r->map)
		return;
	const struct perf_event_mmap_page *p = r->map;
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
	uint64_t at = count_from(r, r->counted, head, n, &r->counted_cpu_ns, off);
	/* Release: a drain that reads `counted` finds these records read. */
	__atomic_store_n(&r->counted, at, __ATOMIC_RELEASE);
}

int pv_pcring_full(const struct pv_pcring *r)
{
	if (!r->map)
		return 0;
	const struct perf_event_mmap_page *p = r->map;
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&p->data_tail, __ATOMIC_RELAXED);
	/* Room for less than a sample and the lost record before it. */
	return r->data_size - (head - tail) < sizeof(struct sample_record) + sizeof(struct lost_record);
}

void pv_pcring_peek(const struct pv_pcring *r, struct pv_pcring_news *n)
{
	if (!r->map)
		return;
	const struct perf_event_mmap_page *p = r->map;
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
	uint64_t last = __atomic_load_n(&r->counted_cpu_ns, __ATOMIC_RELAXED);
	count_from(r, __atomic_load_n(&r->counted, __ATOMIC_ACQUIRE), head, n, &last, NULL);
}

/* A drain's walk: each PC to its reader, the lost counted in the ring. */
struct draining {
	struct walk walk;
	struct pv_pcring *r;
	pv_pc_fn *add;
	void *arg;
};

static void drain_sample(struct walk *w, uintptr_t pc, uint64_t at_ns, uint64_t cpu)
{
	(void)at_ns;
	struct draining *d = (struct draining *)w;
	d->r->samples++;
	d->r->drained_cpu_ns = cpu;
	d->add(pc, d->arg);
}

static void drain_lost(struct walk *w, uint64_t lost)
{
	((struct draining *)w)->r->lost += lost;
}

void pv_pcring_drain(struct pv_pcring *r, pv_pc_fn *add, void *arg)
{
	if (!r->map)
		return;
	struct perf_event_mmap_page *p = r->map;
	/* Acquire: the records the kernel wrote before data_head are seen. */
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&r->counted_by_owner, __ATOMIC_ACQUIRE))
		head = __atomic_load_n(&r->counted, __ATOMIC_ACQUIRE); /* the rest is its thread's */
	uint64_t tail = __atomic_load_n(&p->data_tail, __ATOMIC_RELAXED); /* ours alone */
	struct draining d = { { drain_sample, drain_lost, NULL }, r, add, arg };
	tail = walk_records(r, tail, head, &d.walk);
	/* Release: every read of those records is done before the kernel may
	 * write over them. */
	__atomic_store_n(&p->data_tail, tail, __ATOMIC_RELEASE);
}

void pv_pcring_close(struct pv_pcring *r)
{
	if (r->map)
		unmap_ring(r->map, r->map_bytes);
	*r = (struct pv_pcring){ 0 };
}

void pv_pcring_forget(struct pv_pcring *r)
{
	memset(r, 0, sizeof(*r));
}
