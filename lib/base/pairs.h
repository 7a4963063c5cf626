/* SPDX-License-Identifier: MIT */
/*
 * pairs.h — numbered pairs of ids: an arc (caller, callee) or a call path
 * (parent, function), each end -1 or more, given the next free slot the
 * first time it is seen (pairs.c). What the slots number is the caller's.
 */
#ifndef PV_BASE_PAIRS_H
#define PV_BASE_PAIRS_H

#include <stdint.h>

#include "base/htab.h"

struct pv_pair {
	uint64_t key;
	int slot;
	UT_hash_handle hh;
};

/* The slot of (first, second) in *table; a new one, *used, when it has none
 * (*created then set). The slot, or -1 when memory ran out. */
int pv_pair_slot(struct pv_pair **table, unsigned *used, int first, int second, int *created);

void pv_pairs_free(struct pv_pair **table);

#endif /* PV_BASE_PAIRS_H */
