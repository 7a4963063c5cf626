/* SPDX-License-Identifier: MIT */
/* A coroutine that recurses past its shadow stack's first size while
 * suspended and resumed: the stack grows in place. usage: deepco */
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
static ucontext_t main_ctx, co_ctx;
static long depth_reached;
static long dive(long n) { if (n == 0) { swapcontext(&co_ctx, &main_ctx); return 0; } return 1 + dive(n - 1); }
static void co(void) { depth_reached = dive(20000); }
int main(void) {
	static char stack[64 << 20];
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack; co_ctx.uc_stack.ss_size = sizeof(stack); co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co, 0);
	swapcontext(&main_ctx, &co_ctx);
	swapcontext(&main_ctx, &co_ctx);
	printf("%ld\n", depth_reached);
	return 0;
}
