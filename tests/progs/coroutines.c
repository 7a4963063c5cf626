/* SPDX-License-Identifier: MIT */
/* Coroutines on ucontext: co_a and co_b ping-pong with a driver through
 * swapcontext, each with nested calls; co_b yields from inside a call of its
 * own; co_a takes an argument from makecontext and ends through uc_link.
 * usage: coroutines ROUNDS [thread|migrate]
 *   (no mode) main makes the coroutines and drives them
 *   thread    a second thread makes and drives them
 *   migrate   main makes them, a second thread drives them
 *   retry     no coroutines: main leaves a recursion ROUNDS times by
 *             setcontext to a context getcontext saved, like a longjmp
 * Prints a checksum; exits with status 3. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define STACK_BYTES (256 * 1024)

static ucontext_t home, ctx_a, ctx_b; /* home: the driver's context */
static volatile unsigned long sum;
static int rounds;

static void leaf(int x)
{
	sum += (unsigned long)x;
}

static void co_step(int i)
{
	leaf(i);
}

static void co_b_step(int i)
{
	leaf(2 * i);
}

static void co_b_yield(void)
{
	swapcontext(&ctx_b, &home);
}

static void tick(void)
{
	sum += 1;
}

static void report(void)
{
	printf("%lu\n", sum);
}

/* Runs n steps, handing over to co_b after each, then ends: uc_link resumes home. */
static void co_a(int n)
{
	for (int i = 0; i < n; i++) {
		co_step(i);
		swapcontext(&ctx_a, &ctx_b);
	}
}

/* Never ends: suspended for good when the driver is done. */
static void co_b(void)
{
	for (int i = 0;; i++) {
		co_b_step(i);
		co_b_yield();
	}
}

static void make(ucontext_t *ctx, ucontext_t *link)
{
	if (getcontext(ctx) < 0) {
		perror("getcontext");
		exit(1);
	}
	ctx->uc_stack.ss_sp = malloc(STACK_BYTES);
	ctx->uc_stack.ss_size = STACK_BYTES;
	ctx->uc_link = link;
}

static void make_both(void)
{
	make(&ctx_a, &home);
	makecontext(&ctx_a, (void (*)(void))co_a, 1, rounds);
	make(&ctx_b, NULL);
	makecontext(&ctx_b, co_b, 0);
}

static void drive(void)
{
	for (int i = 0; i < rounds; i++) {
		swapcontext(&home, &ctx_a); /* back when co_b yields */
		tick();
	}
	swapcontext(&home, &ctx_a); /* back when co_a returns */
}

static ucontext_t again;
static volatile int retries;

static void bail(void)
{
	setcontext(&again);
}

static void deep(int depth)
{
	if (depth > 0)
		deep(depth - 1);
	else
		bail();
}

static void *worker(void *make_too)
{
	if (make_too)
		make_both();
	drive();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";
	rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 20000;
	if (!strcmp(mode, "")) {
		make_both();
		drive();
	} else if (!strcmp(mode, "retry")) {
		getcontext(&again); /* returns again after each bail */
		if (retries < rounds) {
			retries++;
			deep(3);
		}
		sum = (unsigned long)retries;
	} else {
		pthread_t th;
		int migrate = !strcmp(mode, "migrate");
		if (migrate)
			make_both();
		if (pthread_create(&th, NULL, worker, migrate ? NULL : &th) != 0 ||
		    pthread_join(th, NULL) != 0)
			return 1;
	}
	report();
	return 3;
}
