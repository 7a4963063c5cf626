/* SPDX-License-Identifier: MIT */
/* What the sampler meets in real programs beyond the program's own threads
 * (t_sampled_safety). usage:
 *   sampled_lib_host library CPU_MS   threads of an uninstrumented library
 *       (sampled_lib.c): one spends CPU_MS in the library's code, then
 *       CPU_MS in callback, the program's; another CPU_MS in the library's
 *       alone. Says how much CPU callback used.
 *   sampled_lib_host tail CPU_MS      front does 3 units of work and ends
 *       in a call to back (1 unit), a tail call the compiler may make a
 *       jump; CPU_MS in all. Says how much CPU each used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampled_work.h"

#define MS 1000000u

void lib_run_on_thread(void (*fn)(uint64_t), uint64_t arg, uint64_t before_ns);
void lib_busy_thread(uint64_t ns);

static uint64_t callback_ns;

static __attribute__((noinline)) void callback(uint64_t ns)
{
	uint64_t t0 = thread_cpu_ns();
	spin_cpu_ns(ns);
	callback_ns = thread_cpu_ns() - t0;
}

static uint64_t back_ns, front_ns;

static __attribute__((noinline)) void back(uint64_t n)
{
	uint64_t t0 = thread_cpu_ns();
	spin(n);
	back_ns += thread_cpu_ns() - t0;
}

static __attribute__((noinline)) void front(uint64_t n)
{
	uint64_t t0 = thread_cpu_ns();
	spin(3 * n);
	front_ns += thread_cpu_ns() - t0;
	back(n); /* its last act: a tail call where the compiler may */
}

/* Rounds of spin per ms of CPU, measured. */
static UNTRACED uint64_t rounds_per_ms(void)
{
	uint64_t t0 = thread_cpu_ns();
	spin(1000000);
	uint64_t ns = thread_cpu_ns() - t0;
	return ns ? 1000000u * (uint64_t)MS / ns : 1000;
}

int main(int argc, char **argv)
{
	uint64_t cpu_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;
	if (argc > 1 && !strcmp(argv[1], "tail")) {
		uint64_t unit = cpu_ms * rounds_per_ms() / 16;
		for (int i = 0; i < 4; i++)
			front(unit);
		printf("front_ns %llu back_ns %llu\n", (unsigned long long)front_ns,
		       (unsigned long long)back_ns);
		return 0;
	}
	lib_run_on_thread(callback, cpu_ms * MS, cpu_ms * MS);
	lib_busy_thread(cpu_ms * MS);
	printf("callback_ns %llu\n", (unsigned long long)callback_ns);
	return 0;
}
