/* SPDX-License-Identifier: MIT */
/*
 * The rdpmc reader against simulated perf mmap pages: the cases of
 * ../shared/PMU-NOTES.md section 5, and a writer thread playing the kernel
 * while readers check that no read ever mixes two generations of the page.
 */
#include <pthread.h>
#include <time.h>
#include <string.h>

#include "runtime/rdpmc.h"
#include "tap.h"

struct fake_cpu {
	struct perf_event_mmap_page *page;
	uint64_t raw;     /* what rdpmc returns */
	uint64_t tsc;     /* what the clock returns */
	int rdpmc_calls;
	uint32_t last_ecx;
	int bump_lock_on_first_call; /* the kernel rewrote the page mid-read */
};

static uint64_t fake_rdpmc(void *ctx, uint32_t ecx)
{
	struct fake_cpu *cpu = ctx;
	cpu->last_ecx = ecx;
	if (cpu->rdpmc_calls++ == 0 && cpu->bump_lock_on_first_call)
		cpu->page->lock += 2;
	return cpu->raw;
}

static uint64_t fake_clock(void *ctx)
{
	return ((struct fake_cpu *)ctx)->tsc;
}

static struct perf_event_mmap_page page;
static struct fake_cpu cpu;

/* A page that allows rdpmc with counter index 1 and the given width. */
static void setup(unsigned width, uint64_t offset, uint64_t raw)
{
	memset(&page, 0, sizeof(page));
	memset(&cpu, 0, sizeof(cpu));
	page.capabilities = PV_CAP_BIT0_IS_DEPRECATED | PV_CAP_USER_RDPMC;
	page.index = 1;
	page.pmc_width = (uint16_t)width;
	page.offset = (int64_t)offset;
	page.time_enabled = page.time_running = 500;
	cpu.page = &page;
	cpu.raw = raw;
}

/* A reading and its value scaled by enabled/running: the two steps the
 * runtime takes apart (the hooks keep raw counts, the report scales). */
struct sample {
	uint64_t raw, value, enabled, running;
};

static int read_page(struct sample *s)
{
	struct pv_rdpmc_sample r = { 0 };
	memset(s, 0, sizeof(*s));
	int status = pv_rdpmc_read(&page, fake_rdpmc, fake_clock, &cpu, &r);
	s->raw = r.raw;
	s->enabled = r.enabled;
	s->running = r.running;
	if (status != PV_RDPMC_OK)
		return status;
	return pv_count_scale(r.raw, r.enabled, r.running, &s->value);
}

static void test_counter_arithmetic(void)
{
	struct sample s;

	setup(48, 1000, 100);
	tap_is(read_page(&s), PV_RDPMC_OK, "1: read ok");
	tap_is(s.value, 1100, "1: offset + counter");
	tap_is(cpu.last_ecx, 0, "1: rdpmc gets index - 1");

	setup(48, 1256, 0xFFFFFFFFFF00ull);
	read_page(&s);
	tap_is(s.value, 1000, "2: negative 48-bit counter sign-extended");

	setup(48, 0x7FFFFFFFFFFFull, 0x80000373F8CAull);
	read_page(&s);
	tap_is(s.value, 0x373F8C9ull, "3: large offset, counter with bit 47 set (no 2^48 jump)");

	setup(32, 100, 0xDEADBEEF00000010ull);
	read_page(&s);
	tap_is(s.value, 116, "4: 32-bit counter ignores undefined upper bits");
	setup(32, 100, 0xFFFFFFF0ull);
	read_page(&s);
	tap_is(s.value, 84, "4: 32-bit negative counter");

	setup(64, 0, 1ull << 63);
	read_page(&s);
	tap_is(s.value, 1ull << 63, "5: 64-bit counter, no shift by 64");
}

static void test_fallbacks(void)
{
	struct sample s;

	setup(0, 0, 1);
	tap_is(read_page(&s), PV_RDPMC_FALLBACK, "6: width 0 falls back");
	tap_is(cpu.rdpmc_calls, 0, "6: ... without executing rdpmc");
	setup(48, 0, 1);
	page.index = 0;
	tap_is(read_page(&s), PV_RDPMC_FALLBACK, "6: index 0 falls back");
	tap_is(cpu.rdpmc_calls, 0, "6: ... without executing rdpmc");
	setup(48, 0, 1);
	page.capabilities = PV_CAP_BIT0_IS_DEPRECATED;
	tap_is(read_page(&s), PV_RDPMC_FALLBACK, "6: no cap_user_rdpmc falls back");
	tap_is(cpu.rdpmc_calls, 0, "6: ... without executing rdpmc");
	setup(48, 0, 1);
	page.capabilities = PV_CAP_USER_RDPMC; /* old kernel: capability bits unreliable */
	tap_is(read_page(&s), PV_RDPMC_FALLBACK, "6: cap_bit0_is_deprecated clear falls back");
	tap_is(cpu.rdpmc_calls, 0, "6: ... without executing rdpmc");
	setup(65, 0, 1);
	tap_is(read_page(&s), PV_RDPMC_FALLBACK, "6: width over 64 falls back");

	setup(48, 0, 5);
	page.index = (1u << 30 | 1) + 1;
	read_page(&s);
	tap_is(cpu.last_ecx, 0x40000001, "7: fixed-counter index passed verbatim");
}

static void test_retry(void)
{
	struct sample s;
	setup(48, 5000, 7);
	cpu.bump_lock_on_first_call = 1;
	tap_is(read_page(&s), PV_RDPMC_OK, "8: read ok after the page changed");
	tap_is(s.value, 5007, "8: value from the consistent second pass");
	tap_is(cpu.rdpmc_calls, 2, "8: retried exactly once");
}

static void test_scaling(void)
{
	struct sample s;

	setup(48, 1000, 0);
	page.time_enabled = 2000;
	page.time_running = 1000;
	read_page(&s);
	tap_is(s.value, 2000, "9: multiplexed count scaled by enabled/running");
	tap_is(s.raw, 1000, "9: raw count kept");

	setup(48, 1000, 0);
	page.capabilities |= PV_CAP_USER_TIME;
	page.time_enabled = 2000;
	page.time_running = 1000;
	page.time_mult = 1024;
	page.time_shift = 10;
	page.time_offset = (uint64_t)-9000;
	cpu.tsc = 10000;
	read_page(&s);
	tap_is(s.enabled, 3000, "10: enabled time brought up to now");
	tap_is(s.running, 2000, "10: running time brought up to now");
	tap_is(s.value, 1500, "10: scaled with the current times");

	setup(48, 1000, 0);
	page.capabilities |= PV_CAP_USER_TIME | PV_CAP_USER_TIME_SHORT;
	page.time_enabled = 2000;
	page.time_running = 1000;
	page.time_mult = 1;
	page.time_shift = 0;
	page.time_offset = 0;
	page.time_cycles = 0x00FFFFFFFFFFFF00ull;
	page.time_mask = (1ull << 56) - 1;
	cpu.tsc = 0x100;
	read_page(&s);
	tap_is(s.enabled - 2000, 0x0100000000000100ull, "11: short clock wrapped into 64 bits");

	setup(48, 1000, 0);
	page.capabilities |= PV_CAP_USER_TIME;
	page.time_enabled = 2000;
	page.time_running = 1000;
	page.time_mult = 3;
	page.time_shift = 32;
	page.time_offset = 0;
	cpu.tsc = 10 * (1ull << 32) + 5;
	read_page(&s);
	tap_is(s.enabled - 2000, 30, "12: 128-bit clock product, shift 32");

	setup(48, 1000, 0);
	page.time_enabled = 2000;
	page.time_running = 0;
	tap_is(read_page(&s), PV_RDPMC_NOT_COUNTED, "13: never ran: not counted, no SIGFPE");

	setup(48, 1ull << 40, 0);
	page.time_enabled = 1ull << 40;
	page.time_running = 1ull << 39;
	read_page(&s);
	tap_is(s.value, 1ull << 41, "14: scaling in 128 bits");
}

static void test_group_read(void)
{
	const uint64_t buf[] = { 3, 2000, 1000, 10, 20, 30 };
	uint64_t v[8], ena, run;
	int n = pv_group_parse(buf, sizeof(buf), 8, v, &ena, &run);
	tap_is(n, 3, "15: three members");
	tap_ok(v[0] == 10 && v[1] == 20 && v[2] == 30, "15: members read raw 10/20/30");
	for (int i = 0; i < n; i++)
		pv_count_scale(v[i], ena, run, &v[i]);
	tap_ok(v[0] == 20 && v[1] == 40 && v[2] == 60, "15: members scaled 20/40/60");
	tap_ok(ena == 2000 && run == 1000, "15: enabled/running taken");
	tap_is(pv_group_parse(buf, 0, 8, v, &ena, &run), -1, "15: a group in error (0 bytes)");
	tap_is(pv_group_parse(buf, 4 * 8, 8, v, &ena, &run), -1, "15: short buffer refused");
	tap_is(pv_group_parse(buf, sizeof(buf), 2, v, &ena, &run), -1, "15: too many members");
}

/* The kernel, played by a thread: every generation g writes offset
 * g << GEN_SHIFT, counter g mod 2^GEN_SHIFT, and times 7g, under the sequence
 * count. A read that mixes two generations shows a counter that is not its
 * offset's generation, or times of another one. The encoding holds g whole
 * (no bit of it shifted out, 7g no wrap) up to MAX_GEN: an hour or more of
 * writing, against the test's 10 s at most. The writer stops there all the
 * same, so that no run, however long, can make two generations alias. */
#define GEN_SHIFT 20
#define GEN_MASK ((1ull << GEN_SHIFT) - 1)
#define MAX_GEN (1ull << (64 - GEN_SHIFT - 3))
static struct perf_event_mmap_page shared_page;
static uint64_t hw_counter; /* the "hardware" counter, rewritten by the writer */
static int stop;

static uint64_t live_rdpmc(void *ctx, uint32_t ecx)
{
	(void)ctx;
	(void)ecx;
	return __atomic_load_n(&hw_counter, __ATOMIC_RELAXED);
}

static void *kernel_writer(void *arg)
{
	(void)arg;
	for (uint64_t g = 1; g < MAX_GEN && !__atomic_load_n(&stop, __ATOMIC_RELAXED); g++) {
		__atomic_store_n(&shared_page.lock, shared_page.lock + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&shared_page.offset, (int64_t)(g << GEN_SHIFT), __ATOMIC_RELEASE);
		__atomic_store_n(&hw_counter, g & GEN_MASK, __ATOMIC_RELEASE);
		__atomic_store_n(&shared_page.time_enabled, 7 * g, __ATOMIC_RELEASE);
		__atomic_store_n(&shared_page.time_running, 7 * g, __ATOMIC_RELEASE);
		__atomic_store_n(&shared_page.lock, shared_page.lock + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_torture(void)
{
	memset(&shared_page, 0, sizeof(shared_page));
	shared_page.capabilities = PV_CAP_BIT0_IS_DEPRECATED | PV_CAP_USER_RDPMC;
	shared_page.index = 1;
	shared_page.pmc_width = 48;
	pthread_t writer;
	pthread_create(&writer, NULL, kernel_writer, NULL);
	long reads = 0, mixed = 0, distinct = 0;
	uint64_t last_gen = 0;
	while (__atomic_load_n(&shared_page.lock, __ATOMIC_ACQUIRE) < 1000)
		; /* the writer is running */
	/* Until the writer has rewritten the page many times under our reads, or
	 * 10 s have passed on a machine too busy to run both at once. */
	time_t give_up = time(NULL) + 10;
	for (reads = 0; distinct < 20000 && ((reads & 0xfffff) || time(NULL) < give_up); reads++) {
		struct pv_rdpmc_sample s = { 0 };
		if (pv_rdpmc_read(&shared_page, live_rdpmc, fake_clock, &cpu, &s) != PV_RDPMC_OK)
			mixed++;
		uint64_t gen = s.raw >> GEN_SHIFT, counter = s.raw & GEN_MASK;
		if (counter != (gen & GEN_MASK) || s.enabled != 7 * gen || s.running != 7 * gen)
			mixed++;
		distinct += gen != last_gen;
		last_gen = gen;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(writer, NULL);
	tap_is(mixed, 0, "torture: no read mixes two generations (%ld reads)", reads);
	tap_ok(distinct >= 100, "torture: the writer really raced the readers (%ld changes seen)",
	       distinct);
}

int main(void)
{
	test_counter_arithmetic();
	test_fallbacks();
	test_retry();
	test_scaling();
	test_group_read();
	test_torture();
	return tap_done();
}
