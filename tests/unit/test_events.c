/* SPDX-License-Identifier: MIT */
/* PROFVIZ_EVENTS parsing: every accepted form, and the message for each kind
 * of bad item. PMU forms run against a fake sysfs tree made here. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/events.h"
#include "messages.h"
#include "tap.h"

static char sysfs[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[600];
	snprintf(path, sizeof(path), "%s/%s", sysfs, rel);
	snprintf(dir, sizeof(dir), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(dir) != 0)
		abort();
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void make_sysfs(void)
{
	snprintf(sysfs, sizeof(sysfs), "/tmp/profviz-sysfs-XXXXXX");
	if (!mkdtemp(sysfs))
		abort();
	put("bus/event_source/devices/cpu/type", "4\n");
	put("bus/event_source/devices/cpu/format/event", "config:0-7\n");
	put("bus/event_source/devices/cpu/format/umask", "config:8-15\n");
	put("bus/event_source/devices/cpu/format/cmask", "config:24-31\n");
	put("bus/event_source/devices/cpu/format/ldlat", "config1:0-15\n");
	put("bus/event_source/devices/cpu/format/edge", "config:18\n");
	put("bus/event_source/devices/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("bus/event_source/devices/amdcpu/type", "8\n");
	put("bus/event_source/devices/amdcpu/format/event", "config:0-7,32-35\n");
}

static struct pv_event_set set;

static unsigned parse(const char *list)
{
	messages_clear();
	return pv_events_parse(list, sysfs, &set);
}

static void expect(const char *list, uint32_t type, uint64_t config, const char *what)
{
	unsigned n = parse(list);
	int good = n == 1 && n_messages == 0 && set.ev[0].type == type &&
		   set.ev[0].config == config && !pv_event_is_tsc(&set.ev[0]);
	if (!tap_ok(good, "%s: '%s'", what, list))
		printf("#   n=%u type=%u config=0x%llx messages=%d %s\n", n, set.ev[0].type,
		       (unsigned long long)set.ev[0].config, n_messages, messages[0]);
}

static void expect_message(const char *list, unsigned kept, const char *message)
{
	unsigned n = parse(list);
	int good = n == kept && n_messages == 1 && !strcmp(messages[0], message);
	if (!tap_ok(good, "bad input '%s' reported", list))
		printf("#   kept %u (want %u), %d messages: '%s'\n#   want: '%s'\n", n, kept,
		       n_messages, messages[0], message);
}

int main(void)
{
	messages_capture();
	make_sysfs();

	tap_ok(parse("tsc") == 1 && pv_event_is_tsc(&set.ev[0]) && n_messages == 0, "tsc");
	expect("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "hardware");
	expect("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "hardware");
	expect("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "hardware");
	expect("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "hardware");
	expect("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "hardware");
	expect("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "hardware");
	expect("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "hardware");
	expect("stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "hardware");
	expect("stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	       "hardware");
	expect("bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "hardware");
	expect("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "software");
	expect("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "software");
	expect("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "software");
	expect("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "software");
	expect("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, "cache (L1D read miss)");
	expect("LLC-loads", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL, "cache");
	expect("dTLB-load-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB | 0x10000, "cache");
	expect("L1-icache-load-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1I | 0x10000,
	       "cache");
	expect("branch-load-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_BPU | 0x10000, "cache");
	expect("LLC-store-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL | 1 << 8 | 1 << 16,
	       "cache");
	parse("instructions");
	tap_is(set.ev[0].backend, PV_BACKEND_READ, "a perf event is read with read(2) until rdpmc "
		"is known to work");
	expect("r1a8", PERF_TYPE_RAW, 0x1a8, "raw");
	expect("r00c0", PERF_TYPE_RAW, 0xc0, "raw");
	expect("cpu/event=0x3c,umask=0x2/", 4, 0x23c, "PMU terms from sysfs formats");
	expect("cpu/event=0xc0,edge=1,cmask=2/", 4, 0x020400c0, "single-bit and wide terms");
	expect("cpu/config=0x1234/", 4, 0x1234, "PMU config term");
	expect("cpu/event=0x3c/:u", 4, 0x3c, "user-only modifier");
	expect("amdcpu/event=0x1c0/", 8, 0x1000000c0, "split format (AMD event bits 32-35)");
	parse("cpu/mem-loads/");
	tap_ok(set.n == 1 && set.ev[0].config == 0x1cd && set.ev[0].config1 == 3,
	       "sysfs alias cpu/mem-loads/ expands to its terms");
	unsigned n = parse("cycles,cpu/event=0x3c,umask=0x0/,instructions");
	tap_ok(n == 3 && set.ev[1].type == 4 && set.ev[2].config == PERF_COUNT_HW_INSTRUCTIONS,
	       "commas inside a PMU's terms do not split the list");

	/* The real software PMU of this machine, through the real sysfs. */
	n_messages = 0;
	n = pv_events_parse("software/config=2/", PV_SYSFS_ROOT, &set);
	tap_ok(n == 1 && set.ev[0].type == PERF_TYPE_SOFTWARE && set.ev[0].config == 2,
	       "real sysfs: software/config=2/ is page-faults");

	if (access("/usr/lib/x86_64-linux-gnu/libpfm.so.4", R_OK) == 0 ||
	    access("/usr/lib/libpfm.so.4", R_OK) == 0)
		expect("perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE,
		       PERF_COUNT_SW_PAGE_FAULTS, "libpfm4 name");
	else
		printf("ok %d - libpfm4 name # SKIP libpfm4 is not installed\n", ++tap_count);

	expect_message("bogus-event", 0,
		       "profviz: PROFVIZ_EVENTS: 'bogus-event': unknown event (libpfm4: event not "
		       "found); it is ignored");
	expect_message("cycels", 0,
		       "profviz: PROFVIZ_EVENTS: 'cycels': unknown event (did you mean 'cycles'?); "
		       "it is ignored");
	expect_message("task-clok,instructions", 1,
		       "profviz: PROFVIZ_EVENTS: 'task-clok': unknown event (did you mean "
		       "'task-clock'?); it is ignored");
	expect_message("L1-dcache-load-mises", 0,
		       "profviz: PROFVIZ_EVENTS: 'L1-dcache-load-mises': unknown event (did you "
		       "mean 'L1-dcache-load-misses'?); it is ignored");
	expect_message("cycles,r12zz", 1,
		       "profviz: PROFVIZ_EVENTS: 'r12zz': not a raw event (r followed by up to 16 "
		       "hex digits); it is ignored");
	expect_message("cycles,,instructions", 2,
		       "profviz: PROFVIZ_EVENTS='cycles,,instructions' has an empty item; it is "
		       "ignored");
	expect_message("", 0, "profviz: PROFVIZ_EVENTS='' has an empty item; it is ignored");
	expect_message(",,,", 0, "profviz: PROFVIZ_EVENTS=',,,' has an empty item; it is ignored");
	expect_message("cycles,cpu-cycles", 1,
		       "profviz: PROFVIZ_EVENTS: 'cpu-cycles' is listed twice; counted once");
	n = parse("nopmu/event=1/");
	tap_ok(n == 0 && n_messages == 1 &&
		       strstr(messages[0], "'nopmu/event=1/': no PMU 'nopmu' in /tmp/profviz-sysfs-"),
	       "unknown PMU named, with where it was looked for");
	expect_message("cpu/bogus=1/", 0,
		       "profviz: PROFVIZ_EVENTS: 'cpu/bogus=1/': PMU 'cpu' has no term 'bogus'; it "
		       "is ignored");
	expect_message("cpu/event=0x1ff/", 0,
		       "profviz: PROFVIZ_EVENTS: 'cpu/event=0x1ff/': value 0x1ff does not fit "
		       "config:0-7; it is ignored");
	expect_message("cpu/event=zz/", 0,
		       "profviz: PROFVIZ_EVENTS: 'cpu/event=zz/': 'event=zz' is not a number; it "
		       "is ignored");
	expect_message("cpu/nosuch/", 0,
		       "profviz: PROFVIZ_EVENTS: 'cpu/nosuch/': PMU 'cpu' has no event 'nosuch'; "
		       "it is ignored");
	expect_message("cpu/event=1", 0,
		       "profviz: PROFVIZ_EVENTS: 'cpu/event=1': not of the form "
		       "pmu/term=value,.../; it is ignored");
	expect_message("tsc,cycles,instructions,branches,branch-misses,cache-misses,"
		       "cache-references,ref-cycles,bus-cycles", 8,
		       "profviz: PROFVIZ_EVENTS: more than 8 events; 'bus-cycles' is ignored");

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysfs);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
