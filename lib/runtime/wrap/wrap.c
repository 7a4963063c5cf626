/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/wrap/wrap.h"

#include <dlfcn.h>

#include "base/sysraw.h"

static const char *const next_names[PV_NEXT_COUNT] = {
#define PV_NEXT_NAME(name) #name,
	PV_NEXT_FNS(PV_NEXT_NAME)
#undef PV_NEXT_NAME
};

/* Written once each (by start-up, or by a wrapper's first call before it),
 * read by any thread or signal handler. */
static void *next_fns[PV_NEXT_COUNT];

void pv_wrap_init(void)
{
	/* C++'s runtime's are looked up at their first call: a C program has
	 * none, and a failed dlsym leaves its message in memory from the
	 * program's allocator, before its constructors even. */
	for (int i = 0; i < PV_NEXT_CXX_FIRST; i++)
		if (!__atomic_load_n(&next_fns[i], __ATOMIC_ACQUIRE))
			__atomic_store_n(&next_fns[i], dlsym(RTLD_NEXT, next_names[i]),
					 __ATOMIC_RELEASE);
}

void *pv_next_fn(enum pv_next which)
{
	void *f = __atomic_load_n(&next_fns[which], __ATOMIC_ACQUIRE);
	if (unlikely(!f)) {
		f = dlsym(RTLD_NEXT, next_names[which]);
		if (!f)
			pv_sys_abort();
		__atomic_store_n(&next_fns[which], f, __ATOMIC_RELEASE);
	}
	return f;
}
