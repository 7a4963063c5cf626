/* SPDX-License-Identifier: MIT */
/* Shapes of code gcc -O2 makes from inlined bodies whose hooks run below
 * their host's stack pointer (t_inlined_shapes.py): pop's body runs after
 * define's call, before the call's stack arguments are popped; mark's
 * bodies run in collect.part.0, the tail gcc split off collect, to which
 * collect jumps once its own frame is gone; total's body runs below the
 * array its host allocated on the stack; and walk, inlined into itself,
 * runs its copies under define's stack arguments.
 *
 * usage: inlined_shapes ROUNDS MARKS */
#include <stdio.h>
#include <stdlib.h>

struct vm {
	long *stack;
	int top;
	int due;
	long marks;
	long sum;
};

/* Eight arguments: the last two go on the stack. */
__attribute__((noinline)) long define(struct vm *vm, long a, long b, long c, long d, long e,
				      long f, long g)
{
	return vm->top + a + b + c + d + e + f + g;
}

static void pop(struct vm *vm, int n)
{
	vm->top -= n;
	if (vm->top < 0)
		abort();
}

long defprop(struct vm *vm, long x)
{
	long r = define(vm, x, 2, 3, 4, 5, 1, 0);
	pop(vm, 1);
	return r;
}

static void mark(struct vm *vm, long i)
{
	vm->marks += i & 1;
	vm->sum += i;
}

/* A cheap early exit and a long tail: gcc splits the tail off, inlines
 * the exit where collect is called directly, and calls the tail there. */
static inline void collect(struct vm *vm, int report)
{
	if (__builtin_expect(!vm->due, 1))
		return;
	for (long i = 0; i < vm->due; i++) {
		mark(vm, i);
		if (vm->stack[i % 8] > 100)
			mark(vm, vm->stack[i % 8]);
	}
	for (int j = 0; j < 8; j++)
		mark(vm, vm->stack[j] * j);
	mark(vm, vm->stack[0] * 3);
	mark(vm, vm->stack[1] * 5);
	mark(vm, vm->stack[2] * 7);
	mark(vm, vm->stack[3] * 11);
	mark(vm, vm->stack[4] * 13);
	mark(vm, vm->stack[5] * 17);
	mark(vm, vm->stack[6] * 19);
	mark(vm, vm->stack[7] * 23);
	if (report)
		printf("collected %ld marks, sum %ld\n", vm->marks, vm->sum);
	vm->due = 0;
}

/* Called through a pointer: collect's own code runs, and jumps to its tail. */
static void (*volatile collect_by_pointer)(struct vm *, int) = collect;

__attribute__((noinline)) void finish(struct vm *vm, int marks)
{
	vm->due = marks;
	collect_by_pointer(vm, 1);
}

static long total(const long *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* A variable-length array: the stack pointer moves after the enter hook. */
__attribute__((noinline)) long sum_to(int n)
{
	long v[n];
	for (int i = 0; i < n; i++)
		v[i] = i;
	return total(v, n);
}

/* Recursive, and inlined into itself a few levels deep: each copy's hooks
 * run under the stack arguments of the define before it. */
static inline long walk(struct vm *vm, long n)
{
	if (n <= 0)
		return 0;
	long r = define(vm, n, 1, 2, 3, 4, 5, 6);
	return r + walk(vm, n - 1);
}

static long (*volatile walk_by_pointer)(struct vm *, long) = walk;

/* collect's early exit inlined here, and taken every time. */
__attribute__((noinline)) long run(struct vm *vm, int rounds)
{
	long t = 0;
	for (int i = 0; i < rounds; i++) {
		vm->top = 2;
		t += defprop(vm, i) + sum_to(i % 16 + 1);
		collect(vm, 0);
	}
	return t;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long stack[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct vm vm = { stack, 0, 0, 0, 0 };
	long t = run(&vm, atoi(argv[1]));
	for (int i = 0; i < 100; i++)
		t += walk_by_pointer(&vm, 10);
	finish(&vm, atoi(argv[2]));
	printf("%ld %ld %ld\n", t, vm.marks, vm.sum);
	return 0;
}
