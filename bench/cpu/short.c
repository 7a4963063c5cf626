/* SPDX-License-Identifier: MIT */
/* short.c — a run too short for many samples (bench/cpu_time.py, make
 * bench-cpu).
 *
 * usage: short TOTAL_US [OUT]
 *
 * TOTAL_US of CPU in all: PAIRS calls each of heavy() and light(),
 * alternated, heavy burning 3 times light's CPU (heavy's share of the pair
 * 0.75), then rare() once, burning 1/19 of the total (5.3 %). Each burns
 * its thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) for its share; the
 * truth by the program's own clock, the CPU each took from its first clock
 * read to its last, summed, is written as one line of key=value to OUT
 * (else stderr). */
#include <stdio.h>
#include <stdlib.h>

#include "cpu.h"

#define PAIRS 90

volatile uint64_t cpu_sink = 1;

static uint64_t heavy_ns, light_ns, rare_ns;

FRAME static void heavy(uint64_t ns)
{
	heavy_ns += burn_cpu(ns);
}

FRAME static void light(uint64_t ns)
{
	light_ns += burn_cpu(ns);
}

FRAME static void rare(uint64_t ns)
{
	rare_ns += burn_cpu(ns);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || atol(argv[1]) <= 0) {
		fputs("usage: short TOTAL_US [OUT]\n", stderr);
		return 2;
	}
	uint64_t total = (uint64_t)atol(argv[1]) * 1000;
	uint64_t pair = total * 18 / 19 / PAIRS;
	for (int i = 0; i < PAIRS; i++) {
		heavy(pair * 3 / 4);
		light(pair / 4);
	}
	rare(total / 19);
	FILE *out = argc == 3 ? fopen(argv[2], "w") : stderr;
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "total_us=%s pairs=%d heavy_ns=%llu light_ns=%llu rare_ns=%llu main_ns=%llu\n",
		argv[1], PAIRS, (unsigned long long)heavy_ns, (unsigned long long)light_ns,
		(unsigned long long)rare_ns, (unsigned long long)thread_cpu_ns());
	return out == stderr || !fclose(out) ? 0 : 1;
}
