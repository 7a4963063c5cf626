/* SPDX-License-Identifier: MIT */
/* Known costs for counters: touch_pages faults N fresh pages; heavy does 3x
 * light's work; known_loop retires a known number of instructions.
 * usage: counters PAGES */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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
	touch_pages(pages);
	for (int i = 0; i < 4; i++) {
		light();
		heavy();
	}
	known_loop(10000000);
	printf("ok\n");
	return 0;
}
