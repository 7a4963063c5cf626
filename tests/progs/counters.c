/* SPDX-License-Identifier: MIT */
/* Known costs for counters: touch_pages faults N fresh pages; heavy does 3x
 * light's work; known_loop retires a known number of instructions.
 * usage: counters PAGES [clocks]: with "clocks", light's and heavy's time on
 * the thread's own clocks (own_clocks.h), summed over the rounds, as a last
 * line on stdout: "light_cpu_ns A heavy_cpu_ns B light_task_clock_ns C
 * heavy_task_clock_ns D". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "own_clocks.h"

static volatile double sink;

static void touch_pages(long pages)
{
	long size = pages * sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	madvise(m, (size_t)size, MADV_NOHUGEPAGE); /* one fault per page */
	for (long off = 0; off < size; off += sysconf(_SC_PAGESIZE))
		m[off] = 1;
	munmap(m, (size_t)size);
}

static void work(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

static void light(void) { work(2000000); }
static void heavy(void) { work(6000000); }

/* 2n + 1 instructions, whatever the compiler. */
static void known_loop(long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 1000;
	int clocks = argc > 2 && !strcmp(argv[2], "clocks");
	int fd = clocks ? own_task_clock_open() : -1;
	struct own_phase l = { 0 }, h = { 0 };
	touch_pages(pages);
	for (int i = 0; i < 4; i++) {
		if (clocks)
			own_phase_begin(&l, fd);
		light();
		if (clocks) {
			own_phase_end(&l, fd);
			own_phase_begin(&h, fd);
		}
		heavy();
		if (clocks)
			own_phase_end(&h, fd);
	}
	known_loop(10000000);
	printf("ok\n");
	if (clocks)
		printf("light_cpu_ns %llu heavy_cpu_ns %llu light_task_clock_ns %llu "
		       "heavy_task_clock_ns %llu\n",
		       (unsigned long long)l.cpu_ns, (unsigned long long)h.cpu_ns,
		       (unsigned long long)l.task_clock_ns, (unsigned long long)h.task_clock_ns);
	return 0;
}
