/* SPDX-License-Identifier: MIT */
/*
 * unload.c — dlclose: when an object is unloaded, every record of its
 * functions, in the live threads' trees and the ended threads' profile, is
 * given a retired key (retire.h), so that an object loaded there later gets
 * records of its own.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "runtime/cct.h"
#include "runtime/guard.h"
#include "runtime/process.h"
#include "runtime/runtime.h"

/* An object dlclose is about to unload: its path, where it is, what it spans. */
struct closing {
	char *path;
	uintptr_t bias;
	uintptr_t lo, hi;
};

/* The loaded object at bias named name, its address range into c (1), or 0. */
static int object_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct closing *c = arg;
	const char *name = c->path; /* while searching: the link map's name */
	if (info->dlpi_addr != c->bias || !info->dlpi_name || strcmp(info->dlpi_name, name) != 0)
		return 0;
	c->lo = UINTPTR_MAX;
	c->hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < c->lo)
			c->lo = start;
		if (start + ph->p_memsz > c->hi)
			c->hi = start + ph->p_memsz;
	}
	return 1;
}

static struct closing *closing_of(void *handle)
{
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !lm->l_name[0])
		return NULL;
	struct closing *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->bias = (uintptr_t)lm->l_addr;
	c->path = lm->l_name;
	if (!dl_iterate_phdr(object_range, c) || !(c->path = strdup(lm->l_name))) {
		free(c);
		return NULL;
	}
	return c;
}

void *pv_runtime_module_closing(void *handle)
{
	if (!pv_ready || pv_config.disabled)
		return NULL;
	struct pv_guard g;
	pv_guard_enter(&g, pv_self); /* malloc may be the program's, instrumented */
	struct closing *c = closing_of(handle);
	pv_guard_leave(&g);
	return c;
}

struct retiring {
	const struct closing *c;
	struct pv_unloaded *module;
};

static void *retired_key(void *fn, void *arg)
{
	struct retiring *r = arg;
	uintptr_t a = (uintptr_t)fn;
	if (a < r->c->lo || a >= r->c->hi || pv_is_retired_key(fn))
		return NULL; /* not the object's, or retired already (a record may lie there) */
	return pv_retired_key(r->module, fn);
}

/* Retire the functions of the object if dlclose did unload it (see
 * retire.h). Other threads run their hooks meanwhile; none of them can be
 * running the object's code, which is gone. */
void pv_runtime_module_closed(void *closing)
{
	struct closing *c = closing;
	if (!c)
		return;
	struct pv_guard g;
	pv_guard_enter(&g, pv_self); /* malloc may be the program's, instrumented */
	char *still_as = c->path; /* object_range matches by name and place */
	if (!dl_iterate_phdr(object_range, c)) {
		char *path = realpath(still_as, NULL);
		sigset_t saved;
		pv_process_lock(&saved);
		struct retiring r = { c, pv_unloaded_note(&pv_unloaded, path ? path : still_as,
							  c->bias) };
		if (r.module) {
			for (struct pv_thread *t = pv_live; t; t = t->next)
				if (pv_cct_rekey(&t->cct, retired_key, &r) < 0) {
					pv_profile.losses.rekeys_incomplete++;
					pv_debug(2, "thread %d kept growing its index: some of its "
						    "calls into %s keep their keys", (int)t->tid,
						 still_as);
				}
			pv_profile_rekey(&pv_profile, retired_key, &r);
			pv_debug(2, "%s unloaded: its functions' records re-keyed", still_as);
		}
		pv_process_unlock(&saved);
		free(path);
	}
	free(c->path);
	free(c);
	pv_guard_leave(&g);
}
