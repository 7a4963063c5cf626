/* SPDX-License-Identifier: MIT */
/*
 * What hot lines cost, and how well they split: the runtime's own ring
 * (lib/runtime/pcring.c) and PC table (hotpcs.c, hotlines.c), driven the
 * way the runtime's sampler thread drives them.
 *
 * usage: hotlines cost MODE PERIOD_NS THREADS ITERATIONS
 *        hotlines split PERIOD_NS CPU_MS [UNIT [jitter]]
 *        hotlines rate
 *        hotlines churn N
 *        hotlines hold N PERIOD_NS
 *   cost: THREADS workers each spin ITERATIONS; MODE is
 *     none    nothing else runs;
 *     looker  a thread wakes every 1 ms and does nothing: the sampler
 *             thread the runtime has anyway, without hot lines;
 *     rings   the same thread drains every worker's ring (opened by the
 *             worker itself, PERIOD_NS of its CPU between samples) into
 *             the PC table at each wake-up.
 *     Prints the process's CPU time (every thread's) and the samples.
 *   split: one worker runs two functions 3:1 (the same loop, 3 UNIT and UNIT
 *     iterations a call, 20000 by default: a call's own cost is lost in
 *     them, so spin3 takes 75 % of their CPU time) for CPU_MS of CPU, a ring
 *     at PERIOD_NS drained every 1 ms; the PCs mapped to the functions as
 *     at the dump. Prints spin3's share of their PCs. jitter: the ring's
 *     descriptor is kept and, at each look after a sample, the period set
 *     anew at random between half and one and a half of PERIOD_NS.
 *   rate: spin iterations per CPU-second (the driver sizes ITERATIONS).
 *   churn: a ring opened and closed N times: what a thread's start and end
 *     pay for it.
 *   hold: N rings open at once in one thread (as N threads would hold
 *     them): how many the locked-memory limits let open, and why not more.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "runtime/hotlines.h"
#include "runtime/lock.h"

#define LOOK_NS 1000000 /* the sampler's period: 1 kHz */
#define MAX_WORKERS 16

static volatile uint64_t sink;
static struct pv_hotpcs table;
static struct pv_lock lock; /* the runtime's pv_lock, for the table and the rings */
static struct pv_pcring rings[MAX_WORKERS];
static int draining; /* the looker drains the rings */
static int workers;
static int jitter_fd = -1; /* split with jitter: the ring's event, whose period changes */
static int stop;
static uint64_t period_ns, iterations;

__attribute__((noinline, noclone)) void spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline, noclone)) void spin3(uint64_t n)
{
	for (uint64_t i = 0; i < 3 * n; i++)
		sink += i;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double process_cpu_s(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static double looker_cpu_s;
static uint64_t random_state = 88172645463325252ull;

/* The sampler thread's rhythm: every LOOK_NS, late wake-ups skipped. */
static void *looker(void *arg)
{
	(void)arg;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	uint64_t next = clock_ns(CLOCK_MONOTONIC);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		next += LOOK_NS;
		struct timespec at = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		pv_lock_take(&lock);
		uint64_t before = rings[0].samples;
		for (int i = 0; draining && i < workers; i++)
			pv_hotpcs_take(&table, &rings[i]);
		/* A new period, uniform over half to one and a half, once a sample
		 * came under the last one (its timer starts again from now). */
		if (jitter_fd >= 0 && rings[0].samples != before) {
			random_state ^= random_state << 13;
			random_state ^= random_state >> 7;
			random_state ^= random_state << 17;
			pv_pcring_period(jitter_fd, period_ns / 2 + random_state % (period_ns + 1));
		}
		pv_lock_give(&lock);
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		if (now > next)
			next = now;
	}
	looker_cpu_s = (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
	return NULL;
}

/* Open this thread's ring (keeping its descriptor in jitter_fd when
 * keep), and hand it to the looker whole. */
static void open_ring(int slot, int keep)
{
	struct pv_pcring r;
	unsigned pages = pv_pcring_pages(period_ns, 50000000);
	int fd = -1;
	int err = keep ? pv_pcring_open_keeping(&r, period_ns, pages, &fd)
		       : pv_pcring_open(&r, period_ns, pages);
	if (err < 0) {
		char why[200];
		pv_pcring_explain(err, why, sizeof(why));
		fprintf(stderr, "hotlines: no ring: %s\n", why);
		exit(2);
	}
	pv_lock_take(&lock);
	rings[slot] = r;
	jitter_fd = fd;
	pv_lock_give(&lock);
}

static void *worker(void *arg)
{
	int slot = (int)(intptr_t)arg;
	if (draining)
		open_ring(slot, 0);
	spin(iterations);
	if (draining) {
		pv_lock_take(&lock);
		pv_hotpcs_close_ring(&table, &rings[slot]);
		pv_lock_give(&lock);
	}
	return NULL;
}

static pthread_t start_looker(void)
{
	pthread_t th;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&th, NULL, looker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return th;
}

static int cost(const char *mode, int threads)
{
	int look = strcmp(mode, "none") != 0;
	workers = threads;
	draining = !strcmp(mode, "rings");
	pv_hotpcs_init(&table, 0, 0);
	double cpu0 = process_cpu_s();
	uint64_t wall0 = clock_ns(CLOCK_MONOTONIC);
	pthread_t lk = look ? start_looker() : 0;
	pthread_t th[MAX_WORKERS];
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	if (look)
		pthread_join(lk, NULL);
	double cpu = process_cpu_s() - cpu0;
	struct pv_hotpcs_account a = table.account;
	printf("mode=%s period_ns=%" PRIu64 " threads=%d cpu_s=%.4f wall_s=%.4f samples=%" PRIu64
	       " lost=%" PRIu64 " distinct_pcs=%zu looker_cpu_s=%.4f\n", mode, period_ns, threads,
	       cpu, (double)(clock_ns(CLOCK_MONOTONIC) - wall0) * 1e-9, a.samples, a.lost,
	       table.used, looker_cpu_s);
	return 0;
}

static int split(uint64_t cpu_ms, uint64_t unit, int jitter)
{
	draining = 1;
	workers = 1;
	pv_hotpcs_init(&table, 0, 0);
	pthread_t lk = start_looker();
	open_ring(0, jitter);
	uint64_t began = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	/* The clock is read every 400,000 iterations or so: its system call
	 * would otherwise take the CPU from small units. */
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - began < cpu_ms * 1000000u)
		for (uint64_t k = 0; k < 1 + 100000 / unit; k++) {
			spin3(unit);
			spin(unit);
		}
	pv_lock_take(&lock);
	pv_hotpcs_close_ring(&table, &rings[0]);
	if (jitter_fd >= 0)
		pv_pcring_drop_fd(jitter_fd);
	jitter_fd = -1;
	pv_lock_give(&lock);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(lk, NULL);
	struct pv_rfunc funcs[2] = { { .id = 0, .fn = (void *)spin3 },
				     { .id = 1, .fn = (void *)spin } };
	struct pv_report r = { .n_funcs = 2, .funcs = funcs };
	struct pv_symbolizer *syms = pv_symbols_open(NULL);
	struct pv_hotlines_account a;
	size_t n;
	struct pv_hotpcs_account read;
	struct pv_hotpc *pcs = pv_hotpcs_copy(&table, &n, &read);
	pv_hotlines_annotate(&r, pcs, n, &read, syms, PV_LINES_KEPT, &a);
	free(pcs);
	uint64_t n3 = pv_lines_samples(&funcs[0].lines), n1 = pv_lines_samples(&funcs[1].lines);
	printf("jitter=%d period_ns=%" PRIu64 " cpu_ms=%" PRIu64 " samples=%" PRIu64 " spin3=%" PRIu64
	       " spin=%" PRIu64 " outside=%" PRIu64 " lost=%" PRIu64 " ratio=%.3f"
	       " share3=%.2f\n", jitter, period_ns, cpu_ms, a.read.samples, n3, n1, a.outside,
	       a.read.lost, n1 ? (double)n3 / (double)n1 : 0,
	       n1 + n3 ? 100.0 * (double)n3 / (double)(n1 + n3) : 0);
	pv_symbols_close(syms);
	return 0;
}

static int churn(int n)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++) {
		struct pv_pcring r;
		if (pv_pcring_open(&r, 1000000, 1) < 0)
			return 2;
		pv_pcring_close(&r);
	}
	printf("open_close_us=%.1f\n", (double)(clock_ns(CLOCK_MONOTONIC) - t0) * 1e-3 / n);
	return 0;
}

static int hold(int n)
{
	struct pv_pcring *r = calloc((size_t)n, sizeof(*r));
	int opened = 0, err = 0;
	unsigned pages = pv_pcring_pages(period_ns, 50000000);
	while (opened < n && (err = pv_pcring_open(&r[opened], period_ns, pages)) == 0)
		opened++;
	char why[200] = "";
	if (err)
		pv_pcring_explain(err, why, sizeof(why));
	printf("pages_each=%u opened=%d err=%d why=\"%s\"\n", 1 + pages, opened, -err, why);
	for (int i = 0; i < opened; i++)
		pv_pcring_close(&r[i]);
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "hold")) {
		period_ns = strtoull(argv[3], NULL, 10);
		return hold(atoi(argv[2]));
	}
	if (argc == 2 && !strcmp(argv[1], "rate")) {
		uint64_t n = 100000000, t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		spin(n);
		printf("iterations_per_cpu_s=%.0f\n",
		       (double)n / ((double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e-9));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "cost")) {
		period_ns = strtoull(argv[3], NULL, 10);
		iterations = strtoull(argv[5], NULL, 10);
		int threads = atoi(argv[4]);
		if (period_ns && threads > 0 && threads <= MAX_WORKERS)
			return cost(argv[2], threads);
	}
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "split")) {
		period_ns = strtoull(argv[2], NULL, 10);
		uint64_t unit = argc >= 5 ? strtoull(argv[4], NULL, 10) : 20000;
		int jitter = argc == 6 && !strcmp(argv[5], "jitter");
		if (period_ns && unit && (argc < 6 || jitter))
			return split(strtoull(argv[3], NULL, 10), unit, jitter);
	}
	fprintf(stderr, "usage: hotlines cost none|looker|rings PERIOD_NS THREADS ITERATIONS\n"
			"       hotlines split PERIOD_NS CPU_MS [UNIT [jitter]]\n       hotlines rate\n");
	return 2;
}
