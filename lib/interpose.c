/*
 * interpose.c — libc functions the runtime must see happen.
 *
 * Each wrapper notes what the shadow stack needs to know, then calls libc's
 * own function found with dlsym(RTLD_NEXT), so the program's behaviour is
 * unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

#include "runtime.h"

/* A longjmp abandons frames whose exit hooks will never run: make this
 * thread's next hook resynchronise its shadow stack with the machine's. */
static void note_longjmp(void)
{
	struct pv_thread *t = pv_self;
	if (t->mode == PV_MODE_CLOCK || t->mode == PV_MODE_GENERIC) {
		t->jumped = 1;
		t->mode = PV_MODE_JUMPED;
	} else if (t->mode == PV_MODE_JUMPED) {
		t->jumped = 1;
	}
}

typedef void jump_fn(struct __jmp_buf_tag *, int);

static jump_fn *next_fn(jump_fn **cache, const char *name)
{
	if (!*cache)
		*cache = (jump_fn *)dlsym(RTLD_NEXT, name);
	if (!*cache)
		abort(); /* no libc longjmp: nothing sane is left to do */
	return *cache;
}

#define PV_JUMP_WRAPPER(name)                                                     \
	PV_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                         \
		static jump_fn *real;                                             \
		note_longjmp();                                                   \
		next_fn(&real, #name)(env, val);                                  \
		__builtin_unreachable();                                          \
	}

PV_JUMP_WRAPPER(longjmp)
PV_JUMP_WRAPPER(_longjmp)
PV_JUMP_WRAPPER(siglongjmp)
PV_JUMP_WRAPPER(__longjmp_chk)
