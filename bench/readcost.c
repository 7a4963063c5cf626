/* SPDX-License-Identifier: MIT */
/*
 * Cost of one counter read per backend. usage: readcost tsc|read|rdpmc-sim N
 * rdpmc-sim runs the production reader (pv_counters_read_simulated, what a
 * hook calls) on a simulated page, with a counter instruction that returns a
 * constant: its instruction count is the reader's own (the real rdpmc
 * instruction adds its latency, not instructions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/counters.h"
#include "runtime/events.h"
#include "runtime/rdpmc.h"
#include "runtime/thread.h"

static volatile uint64_t sink;

static uint64_t sim_rdpmc(void *ctx, uint32_t ecx)
{
	(void)ctx;
	return 1000 + ecx;
}

static uint64_t sim_clock(void *ctx)
{
	(void)ctx;
	return 12345;
}

int main(int argc, char **argv)
{
	const char *mode = argv[1];
	long n = atol(argv[2]);
	struct timespec t0, t1;
	static struct pv_thread t;
	static struct perf_event_mmap_page page;

	if (!strcmp(mode, "read")) {
		struct pv_event_set set;
		char summary[256];
		pv_events_parse("task-clock", PV_SYSFS_ROOT, &set);
		pv_counters_select(&set, 0, 0, summary, sizeof(summary));
		if (pv_counters_open(&t.counters, &set) < 0) {
			printf("read: cannot open task-clock\n");
			return 1;
		}
		t.nev = 1;
	}
	page.capabilities = PV_CAP_BIT0_IS_DEPRECATED | PV_CAP_USER_RDPMC;
	page.index = 1;
	page.pmc_width = 48;
	page.time_enabled = page.time_running = 1;
	if (!strcmp(mode, "rdpmc-sim")) {
		static struct pv_event_set set = { .n = 1 };
		strcpy(set.ev[0].name, "cycles");
		set.ev[0].backend = PV_BACKEND_RDPMC;
		t.counters.events = &set;
		t.counters.n = 1;
		t.counters.backend[0] = PV_BACKEND_RDPMC;
		t.counters.fd[0] = -1;
		t.counters.page[0] = &page;
		t.nev = 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t v[PV_MAX_EVENTS];
	for (long i = 0; i < n; i++) {
		if (mode[0] == 't') {
			v[0] = pv_arch_clock();
		} else if (mode[0] == 'r' && mode[1] == 'e') {
			pv_counters_read(&t.counters, t.last, v);
		} else {
			pv_counters_read_simulated(&t.counters, t.last, v, sim_rdpmc, sim_clock, NULL);
		}
		sink = v[0];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
	printf("%s %.1f\n", mode, ns);
	return 0;
}
