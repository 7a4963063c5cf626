/* SPDX-License-Identifier: MIT */
/*
 * rdpmc.h — reading a perf event in user space through its mmap page.
 *
 * The kernel publishes, in each event's perf_event_mmap_page, what is needed
 * to turn the hardware counter into the event's count: the counter's index
 * and width, an offset, and the enabled/running times (for multiplexing).
 * It rewrites the page under a sequence count (lock), so the reader retries
 * until it sees the same, even count before and after. See
 * ../shared/PMU-NOTES.md for the protocol and its pitfalls.
 *
 * The counter and clock instructions are parameters so that the same code
 * runs in production (rdpmc, rdtsc) and against simulated pages in tests.
 */
#ifndef PV_RDPMC_H
#define PV_RDPMC_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "base/compiler.h"

enum pv_rdpmc_status {
	PV_RDPMC_OK,
	PV_RDPMC_FALLBACK,    /* no user read possible now: use read(2) */
	PV_RDPMC_NOT_COUNTED, /* the event has not run at all yet (scaling only) */
};

/* One reading, raw: what the counter counted while it was running. Scaling
 * is a separate step (pv_count_scale): the difference of two scaled
 * cumulative values is not a scaled difference, and can even be negative. */
struct pv_rdpmc_sample {
	uint64_t raw;     /* offset + counter, as counted while running */
	uint64_t enabled; /* times up to this read */
	uint64_t running;
};

typedef uint64_t pv_rdpmc_insn(void *ctx, uint32_t ecx);
typedef uint64_t pv_clock_insn(void *ctx);

#define PV_CAP_BIT0_IS_DEPRECATED (1ull << 1)
#define PV_CAP_USER_RDPMC (1ull << 2)
#define PV_CAP_USER_TIME (1ull << 3)
#define PV_CAP_USER_TIME_SHORT (1ull << 5)

#define PV_LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* Sign-extend a width-bit counter value (width 1..64). */
PV_INLINE uint64_t pv_sign_extend(uint64_t raw, unsigned width)
{
	unsigned shift = 64 - width;
	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

PV_INLINE int pv_rdpmc_read(struct perf_event_mmap_page *pc, pv_rdpmc_insn *rdpmc,
			    pv_clock_insn *clock, void *ctx, struct pv_rdpmc_sample *out)
{
	uint32_t seq, idx = 0, width = 0;
	uint64_t caps = 0, enabled = 0, running = 0, count = 0;
	uint64_t cyc = 0, mult = 0, shift = 0, time_offset = 0, time_cycles = 0,
		 time_mask = ~0ull;

	do {
		seq = PV_LOAD(pc->lock);
		pv_signal_fence();
		if (unlikely(seq & 1))
			continue; /* being rewritten right now */
		caps = PV_LOAD(pc->capabilities);
		enabled = PV_LOAD(pc->time_enabled);
		running = PV_LOAD(pc->time_running);
		if ((caps & PV_CAP_USER_TIME) && enabled != running) {
			cyc = clock(ctx);
			mult = PV_LOAD(pc->time_mult);
			shift = PV_LOAD(pc->time_shift);
			time_offset = PV_LOAD(pc->time_offset);
			if (caps & PV_CAP_USER_TIME_SHORT) {
				time_cycles = PV_LOAD(pc->time_cycles);
				time_mask = PV_LOAD(pc->time_mask);
			}
		}
		idx = PV_LOAD(pc->index);
		count = PV_LOAD(pc->offset);
		width = PV_LOAD(pc->pmc_width);
		if (!(caps & PV_CAP_BIT0_IS_DEPRECATED) || !(caps & PV_CAP_USER_RDPMC) ||
		    idx == 0 || width == 0 || width > 64)
			return PV_RDPMC_FALLBACK;
		/* Only the hardware counter is sign-extended, never the offset. */
		count += pv_sign_extend(rdpmc(ctx, idx - 1), width);
		pv_signal_fence();
	} while (unlikely(PV_LOAD(pc->lock) != seq || (seq & 1)));

	if (enabled != running && (caps & PV_CAP_USER_TIME)) {
		/* Bring the times up to now: they are as of the kernel's last update. */
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
		uint64_t delta = time_offset + (uint64_t)(((unsigned __int128)cyc * mult) >> shift);
		enabled += delta;
		running += delta;
	}
	out->raw = count;
	out->enabled = enabled;
	out->running = running;
	return PV_RDPMC_OK;
}

/* A raw count (or a difference of raw counts) extrapolated to the whole of
 * the enabled time, as if the event had never been multiplexed out. */
static inline int pv_count_scale(uint64_t raw, uint64_t enabled, uint64_t running,
				 uint64_t *value)
{
	if (enabled == running) {
		*value = raw;
		return PV_RDPMC_OK;
	}
	if (running == 0)
		return PV_RDPMC_NOT_COUNTED;
	*value = (uint64_t)((unsigned __int128)raw * enabled / running);
	return PV_RDPMC_OK;
}

/* The layout of a group read with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING: { nr, enabled, running, value[nr] }. Fills values[]
 * with the raw counts (scale them with pv_count_scale); returns nr, or -1 if
 * the buffer is malformed (including a group in error, which reads as 0 bytes). */
static inline int pv_group_parse(const uint64_t *buf, long bytes, unsigned max,
				 uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	if (bytes < 3 * (long)sizeof(uint64_t))
		return -1;
	uint64_t nr = buf[0];
	if (nr > max || bytes < (long)((3 + nr) * sizeof(uint64_t)))
		return -1;
	*enabled = buf[1];
	*running = buf[2];
	for (uint64_t i = 0; i < nr; i++)
		values[i] = buf[3 + i];
	return (int)nr;
}

#endif /* PV_RDPMC_H */
