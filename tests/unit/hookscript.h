/* SPDX-License-Identifier: MIT */
/* hookscript.h — a thread's calls played through the count-only hooks the
 * runtime ships (runtime/hooks.h, PV_MODE_COUNT) on a scripted stack, and
 * its profile handed over with sampled time as the one event, as in a
 * sampled run: what the tests of sampled time share. */
#ifndef PV_TEST_HOOKSCRIPT_H
#define PV_TEST_HOOKSCRIPT_H

#include <stdint.h>

#include "model/profile.h"
#include "runtime/handover.h"
#include "runtime/hooks.h"

#define STACK_TOP ((uintptr_t)1 << 40)
static int depth;
static struct pv_profile prof;

static void enter_indexed(void *fn, uintptr_t site, uintptr_t sp, struct pv_thread *t)
{
	pv_hook_enter_indexed(t, fn, site, sp, 0, pv_read_none, pv_thread_enter_slow);
}

/* Each call 64 bytes deeper, returning to a site of its own. */
static void enter(struct pv_thread *t, const void *fn)
{
	uintptr_t sp = STACK_TOP - 64 * (uintptr_t)++depth;
	pv_hook_enter(t, (void *)fn, sp + 1, sp, PV_MODE_COUNT, 0, pv_read_none, enter_indexed,
		      pv_thread_enter_slow);
}

static void leave(struct pv_thread *t, const void *fn)
{
	uintptr_t sp = STACK_TOP - 64 * (uintptr_t)depth--;
	pv_hook_exit(t, (void *)fn, sp + 1, sp, PV_MODE_COUNT, 0, pv_read_none,
		     pv_thread_exit_slow);
}

static void merge(struct pv_thread *t)
{
	pv_profile_clear(&prof);
	pv_profile_init(&prof, 1);
	pv_thread_hand_over(&prof, t);
}

/* The same for a thread still running, its open calls counted to now (a
 * dump's). */
__attribute__((unused)) static void merge_live(struct pv_thread *t)
{
	struct pv_thread_now now = { { 0 }, 0 };
	pv_profile_clear(&prof);
	pv_profile_init(&prof, 1);
	pv_thread_hand_over_live(&prof, t, &now);
}

static struct pv_fstat *func(const void *fn)
{
	void *key = (void *)fn;
	struct pv_fstat *f;
	HASH_FIND_PTR(prof.funcs, &key, f);
	static struct pv_fstat none;
	return f ? f : &none;
}

#endif
