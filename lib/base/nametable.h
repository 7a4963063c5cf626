/* SPDX-License-Identifier: MIT */
/*
 * nametable.h — an enum's values and the words a saved profile writes for
 * them, both ways: a table of names indexed by value.
 */
#ifndef PV_BASE_NAMETABLE_H
#define PV_BASE_NAMETABLE_H

#include <string.h>

/* names[value], or fallback for a value past the table. */
static inline const char *pv_name_of(const char *const *names, unsigned n, unsigned value,
				     const char *fallback)
{
	return value < n && names[value] ? names[value] : fallback;
}

/* The value named name: its index in names[0..n), or -1. */
static inline int pv_value_named(const char *const *names, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (names[i] && !strcmp(name, names[i]))
			return (int)i;
	return -1;
}

#endif /* PV_BASE_NAMETABLE_H */
