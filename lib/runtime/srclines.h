/* SPDX-License-Identifier: MIT */
/*
 * srclines.h — source file:line where the compiler wrote no .debug_aranges.
 *
 * libdwfl finds the compile unit of an address through .debug_aranges, which
 * clang does not emit unless asked (-gdwarf-aranges): every clang-built
 * function then came out without file:line. This index finds the unit from
 * the units' own address ranges instead, built once per module on first need.
 */
#ifndef PV_SRCLINES_H
#define PV_SRCLINES_H

#include <elfutils/libdwfl.h>

struct pv_srclines;

/* The file and line of addr (an address as libdwfl gives them) in m, and
 * the directory its unit was compiled in (NULL if it does not say), looked
 * up through the index kept in *cache (NULL at first, freed with
 * pv_srclines_free). 0, or -1 if there is none. file and dir are owned by
 * libdw. */
int pv_srclines_find(struct pv_srclines **cache, Dwfl_Module *m, Dwarf_Addr addr,
		     const char **file, const char **dir, int *line);
void pv_srclines_free(struct pv_srclines *cache);

#endif /* PV_SRCLINES_H */
