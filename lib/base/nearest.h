/* SPDX-License-Identifier: MIT */
/*
 * nearest.h — how far a mistyped name is from the names it may have meant,
 * for the messages that suggest one: functions in the command, variables
 * and events in the runtime.
 */
#ifndef PV_BASE_NEAREST_H
#define PV_BASE_NEAREST_H

#include <stddef.h>

/* The edits (a letter added, removed, changed, or two neighbours swapped)
 * that make b[0..nb) of a, ignoring case; most + 1 when it is more than
 * most (or memory ran out). */
size_t pv_edit_distance(const char *a, const char *b, size_t nb, size_t most);

/* How many edits a name as long as typed may be away and still be what was
 * meant: a quarter of its length, at least 2. */
size_t pv_edits_allowed(const char *typed);

/* Of n names, the nearest to typed within most edits, the first of equals;
 * NULL when none is that near. */
const char *pv_nearest_name(const char *typed, const char *const *names, size_t n,
			    size_t most);

#endif /* PV_BASE_NEAREST_H */
