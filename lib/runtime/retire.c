/* SPDX-License-Identifier: MIT */
#include "runtime/retire.h"

#include <string.h>

static struct pv_retired *every_key; /* by_key */

struct pv_unloaded *pv_unloaded_note(struct pv_unloaded **list, const char *path,
				     uintptr_t bias)
{
	for (struct pv_unloaded *m = *list; m; m = m->next)
		if (m->bias == bias && strcmp(m->path, path) == 0)
			return m;
	struct pv_unloaded *m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	m->bias = bias;
	m->next = *list;
	__atomic_store_n(list, m, __ATOMIC_RELEASE); /* a dump may be reading the list */
	return m;
}

void *pv_retired_key(struct pv_unloaded *m, void *addr)
{
	struct pv_retired *r;
	/* From malloc: these records live until the process ends. */
	HASH_FIND(by_addr, m->addresses, &addr, sizeof(addr), r);
	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->addr = addr;
	r->module = m;
	HASH_ADD(by_addr, m->addresses, addr, sizeof(r->addr), r);
	if (!pv_htab_added(r, by_addr)) {
		free(r);
		return NULL;
	}
	r->self = r;
	HASH_ADD(by_key, every_key, self, sizeof(r->self), r);
	if (!pv_htab_added(r, by_key)) {
		HASH_DELETE(by_addr, m->addresses, r);
		free(r);
		return NULL;
	}
	r->next = m->records;
	__atomic_store_n(&m->records, r, __ATOMIC_RELEASE); /* a dump may be reading */
	return r;
}

int pv_is_retired_key(const void *fn)
{
	struct pv_retired *r;
	HASH_FIND(by_key, every_key, &fn, sizeof(fn), r);
	return r != NULL;
}
