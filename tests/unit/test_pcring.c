/* SPDX-License-Identifier: MIT */
/*
 * The PC ring reader (lib/runtime/pcring.c): on rings written by hand as
 * the kernel writes them (records across the end of the data area at each
 * of their words, lost samples, records of other types, a record that
 * cannot be one, running positions past 2^32), then on a real task-clock
 * sampling event of this thread, whose descriptor is closed at once.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakering.h"
#include "ring.h"
#include "runtime/fds.h"
#include "runtime/pcring.h"
#include "tap.h"

/* ---- a ring written by hand (fakering.h) ---- */

struct seen {
	uintptr_t pc[64];
	unsigned n;
};

static void collect(uintptr_t pc, void *arg)
{
	struct seen *s = arg;
	if (s->n < 64)
		s->pc[s->n] = pc;
	s->n++;
}

static void samples_in_order(void)
{
	struct fake f;
	fake_open(&f, 1, 0);
	struct seen s = { { 0 }, 0 };
	pv_pcring_drain(&f.r, collect, &s);
	tap_is(s.n, 0, "an empty ring gives nothing");
	put_sample(&f, 0x401000);
	put_sample(&f, 0x401004);
	put_sample(&f, 0x402000);
	pv_pcring_drain(&f.r, collect, &s);
	tap_is(s.n, 0, "records not yet published (data_head) are not read");
	fake_publish(&f);
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 3 && s.pc[0] == 0x401000 && s.pc[1] == 0x401004 && s.pc[2] == 0x402000,
	       "three samples, their PCs in order");
	tap_is(f.page->data_tail, f.page->data_head, "data_tail given back up to data_head");
	tap_is(f.r.samples, 3, "the ring counts them");
	pv_pcring_drain(&f.r, collect, &s);
	tap_is(s.n, 3, "drained twice: nothing read again");
	free(f.page);
}

/* Records across the end of the data area, at each word of them: the
 * kernel writes whole words from a word boundary. */
static void wraparound(void)
{
	size_t size = (size_t)sysconf(_SC_PAGESIZE);
	for (unsigned cut = 8; cut <= 64; cut += 8) {
		struct fake f;
		/* Far along, past 2^32 bytes, so that a record straddles the end. */
		fake_open(&f, 1, (5ull << 32) + size - cut);
		struct seen s = { { 0 }, 0 };
		put_sample(&f, 0x7f0000001234);
		put_lost(&f, 3);
		put_sample(&f, 0x7f0000005678);
		fake_publish(&f);
		pv_pcring_drain(&f.r, collect, &s);
		tap_ok(s.n == 2 && s.pc[0] == 0x7f0000001234 && s.pc[1] == 0x7f0000005678 &&
		       f.r.lost == 3, "records cut %u bytes before the end of the ring read whole",
		       cut);
		tap_is(f.page->data_tail, (5ull << 32) + size - cut + 96,
		       "... and the tail moves by the records' sizes");
		free(f.page);
	}
	/* A full lap and more, in small drains. */
	struct fake f;
	fake_open(&f, 1, 0);
	struct seen s = { { 0 }, 0 };
	unsigned wrong = 0, total = 0;
	for (unsigned round = 0; round < 3 * size / 32; round += 10) {
		for (unsigned i = 0; i < 10; i++)
			put_sample(&f, 0x1000 + round + i);
		fake_publish(&f);
		s.n = 0;
		pv_pcring_drain(&f.r, collect, &s);
		for (unsigned i = 0; i < 10; i++)
			wrong += s.pc[i] != 0x1000 + round + i;
		total += s.n;
	}
	tap_ok(wrong == 0 && total == f.r.samples && f.r.samples >= 3 * size / 32,
	       "three laps of the ring in drains of ten: every PC in order (%u)", total);
	free(f.page);
}

static void lost_and_others(void)
{
	struct fake f;
	fake_open(&f, 1, 0);
	struct seen s = { { 0 }, 0 };
	put_sample(&f, 0x10);
	put_lost(&f, 7);
	/* A throttling record, longer than a sample: read past, not as a PC. */
	struct perf_event_header throttle = { PERF_RECORD_THROTTLE, 0, 32 };
	uint64_t body[3] = { 1, 2, 3 };
	fake_put(&f, &throttle, sizeof(throttle));
	fake_put(&f, body, sizeof(body));
	put_sample(&f, 0x20);
	put_lost(&f, 5);
	fake_publish(&f);
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 2 && s.pc[0] == 0x10 && s.pc[1] == 0x20,
	       "samples around lost and throttling records: only the samples' PCs");
	tap_is(f.r.lost, 12, "the lost records' counts are summed");
	free(f.page);
}

/* Its thread counts a ring's samples as its time (pv_pcring_count): in the
 * program's code or the runtime's by PC, lost ones apart; a count from
 * another thread moves nothing (pv_pcring_peek); and a drain takes PCs
 * only up to what the thread has counted, the rest staying the thread's. */
static void counted_by_its_thread(void)
{
	struct fake f;
	fake_open(&f, 1, 4096 - 16); /* the first record across the end */
	f.r.own_lo = 0x7000;
	f.r.own_hi = 0x8000;
	f.r.counted = f.page->data_head;
	f.r.counted_by_owner = 1;
	put_sample(&f, 0x401000);
	put_sample(&f, 0x7010); /* in the runtime's code */
	put_lost(&f, 5);
	put_sample(&f, 0x401008);
	fake_publish(&f);
	struct pv_pcring_news peeked = { 0, 0, 0 };
	pv_pcring_peek(&f.r, &peeked);
	tap_ok(peeked.samples == 2 && peeked.own == 1 && peeked.lost == 5,
	       "peeked: 2 in the program, 1 in the runtime, 5 lost");
	struct seen s = { { 0 }, 0 };
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 0 && f.page->data_tail == 4096 - 16,
	       "nothing counted yet: a drain takes nothing and gives nothing back");
	struct pv_pcring_news n = { 0, 0, 0 };
	pv_pcring_count(&f.r, &n, NULL);
	tap_ok(n.samples == 2 && n.own == 1 && n.lost == 5, "counted as peeked");
	tap_is(f.r.counted, f.page->data_head, "... and counted up to the head");
	struct pv_pcring_news again = { 0, 0, 0 };
	pv_pcring_count(&f.r, &again, NULL);
	pv_pcring_peek(&f.r, &again);
	tap_ok(!again.samples && !again.own && !again.lost, "counted once");
	put_sample(&f, 0x402000);
	fake_publish(&f);
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 3 && s.pc[0] == 0x401000 && s.pc[2] == 0x401008 && f.r.lost == 5,
	       "a drain takes the counted PCs (the runtime's too) and the lost count");
	tap_is(f.page->data_tail, f.r.counted, "... and gives back no more than was counted");
	f.r.counted_by_owner = 0;
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 4 && s.pc[3] == 0x402000, "a ring nobody counts drains to the head");
	free(f.page);
}

/* A size no record has: the reader stops there and empties the ring, then
 * reads what comes after. */
static void garbage(void)
{
	static const uint16_t sizes[] = { 0, 4, 20, 4000 };
	for (unsigned k = 0; k < 4; k++) {
		struct fake f;
		fake_open(&f, 1, 64);
		struct seen s = { { 0 }, 0 };
		put_sample(&f, 0x30);
		struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, sizes[k] };
		fake_put(&f, &bad, sizeof(bad));
		fake_put(&f, &bad, sizeof(bad));
		fake_publish(&f);
		pv_pcring_drain(&f.r, collect, &s);
		tap_ok(s.n == 1 && s.pc[0] == 0x30 && f.page->data_tail == f.page->data_head,
		       "a record of size %u: the samples before it, then the ring emptied",
		       sizes[k]);
		put_sample(&f, 0x40);
		fake_publish(&f);
		pv_pcring_drain(&f.r, collect, &s);
		tap_ok(s.n == 2 && s.pc[1] == 0x40, "... and the next sample is read");
		free(f.page);
	}
	struct fake f;
	fake_open(&f, 1, 4); /* not at a word: the kernel never writes so */
	struct seen s = { { 0 }, 0 };
	put_sample(&f, 0x50);
	fake_publish(&f);
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 0 && f.page->data_tail == f.page->data_head,
	       "a tail not at a word: nothing read, the ring emptied");
	free(f.page);
	fake_open(&f, 1, 0);
	f.page->data_head = 3 * f.page->data_size; /* more than the ring holds */
	s.n = 0;
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 0 && f.page->data_tail == f.page->data_head,
	       "a head further than the ring holds: nothing read, the ring emptied");
	free(f.page);
}

static void layouts(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *p = aligned_alloc(page, 3 * page);
	memset(p, 0, 3 * page);
	struct pv_pcring r;
	tap_ok(pv_pcring_attach(&r, p, 3 * page) == 0 && r.data_size == 2 * page &&
	       r.data == (unsigned char *)p + page,
	       "without data_offset and data_size (before Linux 4.1): the data follow the page");
	p->data_offset = page;
	p->data_size = page + 8;
	tap_ok(pv_pcring_attach(&r, p, 3 * page) < 0 && !r.map,
	       "a data size that is no power of two is refused");
	p->data_size = 4 * page;
	tap_ok(pv_pcring_attach(&r, p, 3 * page) < 0, "data beyond the mapping are refused");
	tap_ok(pv_pcring_attach(&r, p, page) < 0, "a mapping of the control page alone is refused");
	free(p);
	tap_is(pv_pcring_pages(1000000, 50000000), 1, "1 kHz, drained within 50 ms: one page");
	tap_is(pv_pcring_pages(100000, 50000000), 4, "10 kHz, drained within 50 ms: four pages");
	tap_is(pv_pcring_pages(1, 1ull << 40), 1024, "at most 1024 pages");
}

/* ---- a real event ---- */

static unsigned open_descriptors(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the directory's own */
}

static void count_pc(uintptr_t pc, void *arg)
{
	(void)pc;
	++*(uint64_t *)arg;
}

static volatile uint64_t sink;

/* The periods of task-clock a ring can have sampled since its clock read
 * since: one sample each at most (the kernel's timer only runs late), and
 * one more for the part of a period run before since was read. */
static uint64_t periods_since(int clock, uint64_t since, uint64_t period_ns)
{
	return (own_task_clock_ns(clock) - since) / period_ns + 1;
}

static void real_event(void)
{
	/* The ring's clock, before the descriptors are counted: it stays open. */
	int clock = own_task_clock_open();
	unsigned fds = open_descriptors();
	struct pv_pcring r;
	if (!ring_or_skip(&r, 100000, 2)) {
		close(clock);
		return;
	}
	uint64_t opened = own_task_clock_ns(clock);
	tap_is(open_descriptors(), fds, "the ring is open and the thread has no more descriptors");
	uint64_t got = 0, began = thread_cpu_ns();
	while (thread_cpu_ns() - began < 200000000u) {
		for (unsigned i = 0; i < 100000; i++)
			sink += i;
		pv_pcring_drain(&r, count_pc, &got);
	}
	pv_pcring_drain(&r, count_pc, &got);
	/* 200 ms of CPU at 100 us: some 2,000 periods of the thread's
	 * task-clock, one sample each at most, less those that fell in the
	 * kernel (excluded): a few here, where the thread runs its own loop. */
	uint64_t most = periods_since(clock, opened, 100000);
	/* The two events' clocks start and stop a few microseconds apart at
	 * each switch: a period's worth either way, a few times over. */
	tap_ok(got > most / 4 && got <= most + most / 200 + 2,
	       "200 ms of CPU at a 100 us period: %" PRIu64
	       " samples, of %" PRIu64 " periods of its task-clock (the descriptor is closed and "
	       "the event still samples)", got, most);
	tap_is(r.lost, 0, "drained often: nothing lost");
	pv_pcring_close(&r);
	tap_ok(!r.map, "closed");
	/* Not drained: the ring fills, and the kernel says what it dropped. */
	pv_pcring_open(&r, 100000, 1);
	opened = own_task_clock_ns(clock);
	got = 0;
	began = thread_cpu_ns();
	while (thread_cpu_ns() - began < 200000000u)
		for (unsigned i = 0; i < 100000; i++)
			sink += i;
	pv_pcring_drain(&r, count_pc, &got);
	tap_ok(got > 0 && got <= r.data_size / 16, "a ring not drained holds what fits: %" PRIu64
	       " samples", got);
	/* The kernel writes its lost record with the first sample that fits again. */
	began = thread_cpu_ns();
	while (thread_cpu_ns() - began < 5000000u)
		for (unsigned i = 0; i < 10000; i++)
			sink += i;
	pv_pcring_drain(&r, count_pc, &got);
	most = periods_since(clock, opened, 100000);
	tap_ok(r.lost > 0 && got + r.lost > most / 4 && got + r.lost <= most,
	       "then it says how many it dropped: %" PRIu64 " samples read and %" PRIu64 " lost, "
	       "as many as the %" PRIu64 " periods of task-clock asked for", got, r.lost, most);
	pv_pcring_close(&r);
	/* Kept, its descriptor in the ring, its period changed (the sampler's
	 * way: its thread's descriptor table is its own). */
	int err = pv_pcring_open_thread(&r, (pid_t)syscall(SYS_gettid), 1000000, 1, 1, 0);
	int fd = r.event_fd;
	tap_ok(err == 0 && r.has_event_fd && fd >= 0, "a ring opened keeping its descriptor (%d)",
	       fd);
	tap_ok(pv_pcring_period(fd, 50000) == 0, "its period changed to 50 us");
	got = 0;
	opened = own_task_clock_ns(clock);
	began = thread_cpu_ns();
	while (thread_cpu_ns() - began < 20000000u) {
		for (unsigned i = 0; i < 10000; i++)
			sink += i;
		pv_pcring_drain(&r, count_pc, &got);
	}
	/* Twice what the old period of 1 ms could have given, and no more
	 * than the new one can. */
	uint64_t old_most = periods_since(clock, opened, 1000000);
	most = periods_since(clock, opened, 50000);
	tap_ok(got > 2 * old_most && got <= most, "... and it samples at the new period: %" PRIu64
	       " in 20 ms of CPU (%" PRIu64 " periods of 50 us of its task-clock, %" PRIu64
	       " of 1 ms)", got, most, old_most);
	close(fd);
	pv_pcring_close(&r);
	tap_ok(open_descriptors() == fds, "closed: nothing held");
	close(clock);
	char why[200];
	pv_pcring_explain(-EACCES, why, sizeof(why));
	tap_ok(strstr(why, "perf_event_paranoid=") != NULL, "a refusal names perf_event_paranoid: %s",
	       why);
}

/* The thread's switches off and onto a CPU (timedstart.h): a drain passes
 * over them, and a count that asks finds the time off the CPU within its
 * span, a time off that began before the span cut to it, one that began
 * before the switches were written from the span's start, and all of it
 * after the last sample. */
static void switches(void)
{
	struct fake f;
	fake_open(&f, 1, 0);
	f.r.counted_by_owner = 1;
	fake_now_ns = 100;
	put_switch(&f, 0); /* back from a time off begun before any record */
	fake_now_ns = 150;
	put_sample(&f, 0x401000);
	put_switch(&f, 1);
	fake_now_ns = 400;
	put_switch(&f, 0);
	fake_now_ns = 500;
	put_switch(&f, 1);
	fake_now_ns = 700;
	put_switch(&f, 0);
	fake_publish(&f);
	struct pv_pcring_offcpu off = { .from_ns = 50, .to_ns = 600 };
	struct pv_pcring_news n = { 0, 0, 0, 0, 0 };
	pv_pcring_count(&f.r, &n, &off);
	tap_is(off.off_ns, 50 + 250 + 100, "off the CPU within the span: 50 + 250 + 100 ns");
	tap_ok(off.sample_ns == 150 && off.sample_cpu_ns == FAKE_PERIOD_NS,
	       "the last sample: its time and CPU clock");
	tap_is(off.off_since_sample_ns, 250 + 200, "off since it: all of each time off");
	tap_ok(off.switches == 2 && !off.switched_out_ns, "two switches out, each back in");
	tap_ok(n.samples == 1, "the sample counted as one");
	struct seen s = { { 0 }, 0 };
	pv_pcring_drain(&f.r, collect, &s);
	tap_ok(s.n == 1 && s.pc[0] == 0x401000 && f.page->data_tail == f.page->data_head,
	       "a drain takes the sample's PC only, and gives everything back");
	free(f.page);
}

/* Full: the kernel drops what does not fit, and says so only later. */
static void full(void)
{
	struct fake f;
	fake_open(&f, 1, 0);
	size_t size = (size_t)f.page->data_size;
	while (f.page->data_head + 32 * 3 <= size) {
		put_sample(&f, 0x401000);
		fake_publish(&f);
	}
	tap_ok(!pv_pcring_full(&f.r), "room for a lost record and a sample: not full");
	put_sample(&f, 0x401000);
	fake_publish(&f);
	tap_ok(pv_pcring_full(&f.r), "room for less: full");
	f.page->data_tail += 64; /* a drain gave some back */
	tap_ok(!pv_pcring_full(&f.r), "given back: not full");
	free(f.page);
}

int main(void)
{
	samples_in_order();
	wraparound();
	lost_and_others();
	counted_by_its_thread();
	switches();
	full();
	garbage();
	layouts();
	real_event();
	return tap_done();
}
