/* SPDX-License-Identifier: MIT */
/* A coroutine server's shape: N connections, each a makecontext context
 * alive at once, each run twice (t_contexts.py).
 * usage: many_contexts N
 * Prints the sum of the work. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#define STACK_BYTES (16 * 1024)

static ucontext_t home;
static ucontext_t *conns;
static volatile long sum;

static void step(int i)
{
	sum += i;
}

static void serve(int i)
{
	step(i);
	swapcontext(&conns[i], &home); /* waits for its next turn */
	step(i);
}

static void drive(int n)
{
	for (int i = 0; i < n; i++)
		swapcontext(&home, &conns[i]);
	for (int i = 0; i < n; i++)
		swapcontext(&home, &conns[i]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	conns = calloc((size_t)n, sizeof(*conns));
	char *stacks = mmap(NULL, (size_t)n * STACK_BYTES, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!conns || stacks == MAP_FAILED)
		return 1;
	for (int i = 0; i < n; i++) {
		getcontext(&conns[i]);
		conns[i].uc_stack.ss_sp = stacks + (size_t)i * STACK_BYTES;
		conns[i].uc_stack.ss_size = STACK_BYTES;
		conns[i].uc_link = &home;
		makecontext(&conns[i], (void (*)(void))serve, 1, i);
	}
	drive(n);
	printf("%ld\n", sum);
	return 0;
}
