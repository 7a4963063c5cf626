/* SPDX-License-Identifier: MIT */
/* Rate, accuracy and cost of one sampler candidate (linked with timer.c,
 * perf.c, poll.c or none.c). Usage: measure rate|split|threads|cost PERIOD_NS
 * Prints one line of key=value. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "sampler.h"
#include "work.h"

static double fabs_(double x) { return x < 0 ? -x : x; }

static long unit;   /* spin() iterations of about 7 us: no multiple of a period */

static double share(const struct smp_thread *t, int s)
{
	uint64_t sum = t->weight_ns[SLOT_A] + t->weight_ns[SLOT_B];
	return sum ? (double)t->weight_ns[s] / (double)sum : 0;
}

__attribute__((noinline)) static void func_a(void) { smp_self->cur = SLOT_A; spin(3 * unit); smp_self->cur = SLOT_NONE; }
__attribute__((noinline)) static void func_b(void) { smp_self->cur = SLOT_B; spin(unit); smp_self->cur = SLOT_NONE; }

static void rate(void)
{
	struct smp_thread t = {0};
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	uint64_t t0 = thread_ns();
	t.cur = SLOT_A;
	while (thread_ns() - t0 < 1000000000u)
		spin(100 * unit);
	t.cur = SLOT_NONE;
	double cpu = (double)(thread_ns() - t0) / 1e9;
	smp_thread_end(&t);
	uint64_t hits = t.hits[0] + t.hits[1] + t.hits[2];
	uint64_t w = t.weight_ns[0] + t.weight_ns[1] + t.weight_ns[2];
	printf("name=%s samples_per_cpu_s=%.0f charged_over_cpu=%.3f foreign=%llu\n", smp_name,
	       (double)hits / cpu, (double)w / 1e9 / cpu, (unsigned long long)t.foreign);
}

/* CPU time of n calls of f, read once around them all. */
static uint64_t cpu_of(void (*f)(void), int n)
{
	uint64_t t0 = thread_ns();
	for (int i = 0; i < n; i++)
		f();
	return thread_ns() - t0;
}

/* Two functions of 3:1 work on one thread, for about 2 s of CPU. Truth: the
 * thread's CPU clock around 8000 calls of each alone, before and after (a
 * clock read around every call would add a system call's time to each side
 * and pull the truth towards 1:1). */
static void split(void)
{
	struct smp_thread t = {0};
	struct smp_thread unsampled = {0};
	smp_self = &unsampled;
	uint64_t ta = cpu_of(func_a, 8000), tb = cpu_of(func_b, 8000);
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	uint64_t start = thread_ns();
	while (thread_ns() - start < 2000000000u)
		for (int i = 0; i < 50; i++) {
			func_a();
			func_b();
		}
	smp_thread_end(&t);
	smp_self = &unsampled;
	ta += cpu_of(func_a, 8000);
	tb += cpu_of(func_b, 8000);
	double real = (double)ta / (double)(ta + tb);
	printf("name=%s share_a=%.4f truth_a=%.4f error_points=%.2f samples=%llu\n", smp_name,
	       share(&t, SLOT_A), real, 100 * (share(&t, SLOT_A) - real),
	       (unsigned long long)(t.hits[SLOT_A] + t.hits[SLOT_B]));
}

enum { NTHREADS = 4 };
struct worker { struct smp_thread t; uint64_t cpu; };

static void *equal_work(void *arg)
{
	struct worker *w = arg;
	if (smp_thread_begin(&w->t)) { perror("sampler"); exit(1); }
	uint64_t t0 = thread_ns();
	for (int i = 0; i < 25000; i++)
		func_a();   /* 25000 x 21 us: about 0.5 s of CPU per thread */
	w->cpu = thread_ns() - t0;
	smp_thread_end(&w->t);
	return 0;
}

static void threads(void)
{
	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];
	memset(w, 0, sizeof w);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], 0, equal_work, &w[i]);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], 0);
	uint64_t sum = 0, cpu = 0, samples = 0;
	for (int i = 0; i < NTHREADS; i++) {
		sum += w[i].t.weight_ns[SLOT_A];
		cpu += w[i].cpu;
		samples += w[i].t.hits[SLOT_A];
	}
	double worst_n = 0, worst_cpu = 0;
	printf("name=%s shares=", smp_name);
	for (int i = 0; i < NTHREADS; i++) {
		double s = (double)w[i].t.weight_ns[SLOT_A] / (double)sum;
		double c = (double)w[i].cpu / (double)cpu;
		printf("%s%.3f", i ? "," : "", s);
		if (fabs_(s - 1.0 / NTHREADS) > worst_n) worst_n = fabs_(s - 1.0 / NTHREADS);
		if (fabs_(s - c) > worst_cpu) worst_cpu = fabs_(s - c);
	}
	printf(" worst_vs_1_over_n_points=%.2f worst_vs_cpu_clock_points=%.2f samples=%llu\n",
	       100 * worst_n, 100 * worst_cpu, (unsigned long long)samples);
}

/* A fixed amount of work; the process's CPU time (all threads, the poll
 * sampler's included) and wall time. */
static void cost(void)
{
	struct smp_thread t = {0};
	struct rusage ru;
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	uint64_t w0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < 40000; i++) {   /* 40000 x 28 us: about 1.1 s */
		func_a();
		func_b();
	}
	uint64_t wall = clock_ns(CLOCK_MONOTONIC) - w0;
	smp_thread_end(&t);
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		     ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	printf("name=%s cpu_s=%.4f wall_s=%.4f samples=%llu\n", smp_name, cpu, (double)wall / 1e9,
	       (unsigned long long)(t.hits[0] + t.hits[1] + t.hits[2]));
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s rate|split|threads|cost PERIOD_NS\n", argv[0]);
		return 2;
	}
	/* The unit is fixed for cost (the same work in every run), calibrated
	 * otherwise. */
	unit = strcmp(argv[1], "cost") ? 7 * spin_per_us() : 7 * 1000;
	if (smp_init(atol(argv[2]))) { perror("smp_init"); return 1; }
	if (!strcmp(argv[1], "rate")) rate();
	else if (!strcmp(argv[1], "split")) split();
	else if (!strcmp(argv[1], "threads")) threads();
	else if (!strcmp(argv[1], "cost")) cost();
	else return 2;
	return 0;
}
