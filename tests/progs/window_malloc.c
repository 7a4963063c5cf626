/* SPDX-License-Identifier: MIT */
/*
 * window_malloc.c — a program whose malloc, calloc, realloc and free are its
 * own, built with the hooks as the rest: whatever profviz allocates while
 * the program runs goes through instrumented code.
 *
 * usage: window_malloc SECONDS: allocates and frees in work() for about that
 * long of CPU, then says how many times work() called malloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *volatile kept; /* so that the compiler keeps every malloc */

static unsigned long work(void)
{
	unsigned long n = 0;
	for (int i = 0; i < 1000; i++, n++) {
		kept = malloc(64);
		memset(kept, i, 64);
		free(kept);
	}
	return n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	unsigned long calls = 0;
	double began = cpu_seconds();
	while (cpu_seconds() - began < seconds)
		calls += work();
	printf("%lu\n", calls);
	return 0;
}
