/* SPDX-License-Identifier: MIT */
/* pairs.c — numbered pairs of ids, in a uthash table. */
#include <stdlib.h>

#include "base/pairs.h"

int pv_pair_slot(struct pv_pair **table, unsigned *used, int first, int second, int *created)
{
	uint64_t key = (uint64_t)(uint32_t)(first + 1) << 32 | (uint32_t)(second + 1);
	struct pv_pair *e;
	*created = 0;
	HASH_FIND(hh, *table, &key, sizeof(key), e);
	if (e)
		return e->slot;
	if (!(e = malloc(sizeof(*e))))
		return -1;
	e->key = key;
	e->slot = (int)(*used)++;
	HASH_ADD(hh, *table, key, sizeof(key), e);
	if (!pv_htab_added(e, hh)) {
		free(e);
		return -1;
	}
	*created = 1;
	return e->slot;
}

void pv_pairs_free(struct pv_pair **table)
{
	struct pv_pair *e, *tmp;
	HASH_ITER(hh, *table, e, tmp) {
		HASH_DEL(*table, e);
		free(e);
	}
}
