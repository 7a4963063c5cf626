/* SPDX-License-Identifier: MIT */
/*
 * htab.h — uthash as profviz uses it.
 *
 * An insertion that finds no memory does not abort the program: the element
 * is left out, and pv_htab_added() says so on the element itself, with no
 * flag to reset between insertions. Memory comes from malloc unless the
 * including file redefines uthash_malloc and uthash_free (the runtime's
 * per-thread trees take theirs from the thread's arena: runtime/cct.c).
 */
#ifndef PV_HTAB_H
#define PV_HTAB_H

#include <stdlib.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

/* Whether elt, just given to HASH_ADD through its handle hh, is in the table. */
#define pv_htab_added(elt, hh) ((elt)->hh.tbl != NULL)

#endif /* PV_HTAB_H */
