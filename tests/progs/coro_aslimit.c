/* SPDX-License-Identifier: MIT */
/* Many coroutines under a limit on address space, then a large allocation
 * of the program's own: the runtime's shadow stacks for the contexts must
 * leave room for it. usage: coro_aslimit CONTEXTS */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <ucontext.h>

static ucontext_t main_ctx, co[200];

static void body(void)
{
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	struct rlimit as = { 512ul << 20, 512ul << 20 };
	setrlimit(RLIMIT_AS, &as);
	for (int i = 0; i < n && i < 200; i++) {
		getcontext(&co[i]);
		co[i].uc_stack.ss_sp = malloc(16384);
		co[i].uc_stack.ss_size = 16384;
		co[i].uc_link = &main_ctx;
		makecontext(&co[i], body, 0);
	}
	void *p = malloc(300ul << 20);
	printf("300 MiB after %d contexts: %s\n", n, p ? "ok" : "failed");
	return p ? 0 : 1;
}
