/* SPDX-License-Identifier: MIT */
/*
 * diffdot.h — the graph of what changed between two runs, for graphviz
 * (diffdot.c).
 */
#ifndef PV_DIFFDOT_H
#define PV_DIFFDOT_H

#include <stdio.h>

#include "model/diff.h"

/* Write d's shown functions and arcs as one call graph coloured by the
 * change; from_a and from_b name the runs' files in the caption. 0, or -1
 * if out failed. */
int pv_write_diff_dot(FILE *out, const struct pv_diff *d, const char *from_a,
		      const char *from_b);

#endif /* PV_DIFFDOT_H */
