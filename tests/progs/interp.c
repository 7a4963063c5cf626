/* SPDX-License-Identifier: MIT */
/* An interpreter that uses longjmp for errors: every third expression fails
 * deep inside the parser. usage: interp EXPRESSIONS DEPTH [sig] */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf on_error;
static sigjmp_buf on_error_sig;
static int use_sig;
static volatile long value;

static void raise_error(int code)
{
	if (use_sig)
		siglongjmp(on_error_sig, code);
	longjmp(on_error, code);
}

static void leaf(int x)
{
	value += x;
}

static void parse_term(int i, int depth)
{
	if (depth > 1) {
		parse_term(i, depth - 1);
		return;
	}
	if (i % 3 == 0)
		raise_error(1 + i % 5);
	leaf(i);
}

static void eval_expr(int i, int depth)
{
	parse_term(i, depth);
}

static void report(long errors)
{
	printf("errors %ld value %ld\n", errors, value);
}

int main(int argc, char **argv)
{
	int n = atoi(argv[1]), depth = atoi(argv[2]);
	use_sig = argc > 3;
	long errors = 0;
	for (int i = 0; i < n; i++) {
		int failed = use_sig ? sigsetjmp(on_error_sig, 1) : setjmp(on_error);
		if (failed)
			errors++;
		else
			eval_expr(i, depth);
	}
	report(errors);
	return 0;
}
