/* SPDX-License-Identifier: MIT */
/*
 * copies.h — one box per function as its source defines it.
 *
 * A static function defined in a header is compiled into every file that
 * includes it: several addresses, one name, one file:line. The profile
 * keeps every copy apart (the JSON lists each with its address); a graph
 * shows them as one function, as its reader thinks of it.
 */
#ifndef PV_COPIES_H
#define PV_COPIES_H

#include "model/report.h"

/* Fill view with r's functions and arcs, copies merged: same name, module,
 * file and line (a function without a file:line has no copies). Functions
 * and arcs are hottest first again; each function's copies says how many
 * it stands for. view shares r's names (r must outlive it) and has no
 * paths. 0, or -1 when memory ran out. */
int pv_copies_merge(const struct pv_report *r, struct pv_report *view);
void pv_copies_free(struct pv_report *view);

/* The order copies are found in: name, module, file, line (a function
 * without a file: its address). 0 for copies of one function, so that a
 * view's box can be looked up from any of its copies. */
int pv_copies_compare(const struct pv_rfunc *a, const struct pv_rfunc *b);

#endif /* PV_COPIES_H */
