/* SPDX-License-Identifier: MIT */
/* fakering.h — a PC ring written by hand as the kernel writes it: a
 * perf-shaped mapping whose records the test puts at the head (across the
 * end of the data area, as the kernel does) and publishes by moving
 * data_head. */
#ifndef PV_TEST_FAKERING_H
#define PV_TEST_FAKERING_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/pcring.h"
#include "tap.h"

/* The thread's CPU clock in the samples put (put_sample): each a period
 * after the last, from 0 in each new ring. */
#define FAKE_PERIOD_NS 1000000u
static uint64_t fake_cpu_ns;
/* The time (CLOCK_MONOTONIC) written into each record: the test's. */
static uint64_t fake_now_ns;

struct fake {
	struct perf_event_mmap_page *page;
	size_t bytes;
	struct pv_pcring r;
};

static void fake_open(struct fake *f, unsigned data_pages, uint64_t position)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	f->bytes = (1 + data_pages) * page;
	f->page = aligned_alloc(page, f->bytes);
	memset(f->page, 0xAB, f->bytes); /* stale bytes a reader must not take for records */
	memset(f->page, 0, sizeof(*f->page));
	f->page->data_offset = page;
	f->page->data_size = data_pages * page;
	f->page->data_head = f->page->data_tail = position;
	fake_cpu_ns = 0;
	fake_now_ns = 0;
	tap_ok(pv_pcring_attach(&f->r, f->page, f->bytes) == 0, "a perf-shaped mapping is a ring");
}

/* Write len bytes at the kernel's head, across the end as the kernel does;
 * data_head moves only with fake_publish. */
static uint64_t written;
static void fake_put(struct fake *f, const void *bytes, size_t len)
{
	unsigned char *data = (unsigned char *)f->page + f->page->data_offset;
	for (size_t i = 0; i < len; i++)
		data[(f->page->data_head + written + i) & (f->page->data_size - 1)] =
			((const unsigned char *)bytes)[i];
	written += len;
}

static void fake_publish(struct fake *f)
{
	f->page->data_head += written;
	written = 0;
}

/* A sample as the runtime's rings are asked for: the PC, its time, then
 * the thread's CPU clock (the event's count). */
static void put_sample_at(struct fake *f, uint64_t ip, uint64_t cpu_ns)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32 };
	fake_put(f, &h, sizeof(h));
	fake_put(f, &ip, sizeof(ip));
	fake_put(f, &fake_now_ns, sizeof(fake_now_ns));
	fake_put(f, &cpu_ns, sizeof(cpu_ns));
}

/* The thread left its CPU (out) or came back to one, now. */
static void put_switch(struct fake *f, int out)
{
	struct perf_event_header h = { PERF_RECORD_SWITCH,
				       (uint16_t)(out ? PERF_RECORD_MISC_SWITCH_OUT : 0), 16 };
	fake_put(f, &h, sizeof(h));
	fake_put(f, &fake_now_ns, sizeof(fake_now_ns));
}

static void put_sample(struct fake *f, uint64_t ip)
{
	fake_cpu_ns += FAKE_PERIOD_NS;
	put_sample_at(f, ip, fake_cpu_ns);
}

static void put_lost(struct fake *f, uint64_t lost)
{
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 32 };
	uint64_t id = 99;
	fake_put(f, &h, sizeof(h));
	fake_put(f, &id, sizeof(id));
	fake_put(f, &lost, sizeof(lost));
	fake_put(f, &fake_now_ns, sizeof(fake_now_ns)); /* its trailer: the time */
}

#endif
