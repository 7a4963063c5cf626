/* SPDX-License-Identifier: MIT */
/*
 * retire.h — functions of unloaded objects, under keys of their own.
 *
 * The hooks know a function by its address alone. Once an object is
 * dlclose'd, another may be loaded at the same addresses; its calls would
 * then land on the old object's records and take the old names. So when an
 * object is unloaded, every record whose address lies in it (in each
 * thread's tree and in the merged profile) is re-keyed to a retired key: the
 * address of a record of this file, which holds the function's address and
 * the object it belonged to. A retired key is heap memory that is never
 * freed, so no code can ever be at that address, and later calls at the old
 * address miss and make fresh records. An object unloaded twice from the same
 * place (a plugin reloaded) keeps one key per function, so its calls add up.
 */
#ifndef PV_RETIRE_H
#define PV_RETIRE_H

#include <stdint.h>
#include "base/htab.h"

struct pv_unloaded;

struct pv_retired {
	void *addr;                       /* where the function was */
	const struct pv_unloaded *module; /* what it belonged to */
	struct pv_retired *next;          /* the module's records, newest first */
	void *self;                       /* the record's own address: its key */
	UT_hash_handle by_addr;           /* in the module's table */
	UT_hash_handle by_key;            /* in the table of every retired key */
};

/* An object that was dlclose'd: where it was mapped, to name it still. */
struct pv_unloaded {
	char *path;
	uintptr_t bias;
	struct pv_retired *records;   /* read without the lock: published whole */
	struct pv_retired *addresses; /* the records by addr (under the lock) */
	struct pv_unloaded *next;     /* likewise published whole */
};

/* The module (path, bias) of *list, added if new (path copied); NULL
 * without memory. Caller holds the runtime's lock. */
struct pv_unloaded *pv_unloaded_note(struct pv_unloaded **list, const char *path,
				     uintptr_t bias);

/* The retired key of the function at addr in m, made if new; NULL without
 * memory. Caller holds the runtime's lock. */
void *pv_retired_key(struct pv_unloaded *m, void *addr);

/* Is fn a retired key? Caller holds the runtime's lock. */
int pv_is_retired_key(const void *fn);

#endif /* PV_RETIRE_H */
