/* SPDX-License-Identifier: MIT */
/*
 * hotlines.h — the sampled PCs (hotpcs.h) as each function's hot lines, at
 * the dump: every PC goes to the function whose symbol holds it, when that
 * function is one of the profile's (an instrumented function: the profile
 * keys functions by their addresses), and to its source line there.
 */
#ifndef PV_HOTLINES_H
#define PV_HOTLINES_H

#include "model/report.h"
#include "runtime/hotpcs.h"
#include "runtime/symbols.h"

/* What became of the PCs at the dump, for the debug line. */
struct pv_hotlines_account {
	struct pv_hotpcs_account read; /* as the rings gave them */
	uint64_t placed;   /* samples given a function of the profile */
	uint64_t outside;  /* samples in code no function of the profile holds */
};

/* Give each function of r its hot lines (model/lines.h: the keep hottest)
 * from the n PCs a dump copied out of the table (pv_hotpcs_copy, with
 * read, its account), named through s. Functions r has none of get none.
 * 0, or -1 when memory ran out (r's lines then as far as they got). */
int pv_hotlines_annotate(struct pv_report *r, const struct pv_hotpc *pcs, size_t n,
			 const struct pv_hotpcs_account *read, struct pv_symbolizer *s,
			 unsigned keep, struct pv_hotlines_account *account);

#endif /* PV_HOTLINES_H */
