/* SPDX-License-Identifier: MIT */
/*
 * symtab.h — one module's symbol table, sorted once for look-ups by address.
 *
 * elfutils' dwfl_module_addrinfo scans the whole table at every call: a
 * program of 20,000 functions took seconds to name them. This index answers
 * the same question by binary search and picks among the symbols that
 * contain the address by the very rules elfutils applies (its globals first,
 * then the closest start, then binding, then the smaller size, then table
 * order). Anything those rules cannot settle from the sized symbols alone (a
 * sizeless label, an address inside a crowd of nested symbols) is left to
 * elfutils, so names never differ from its answer.
 */
#ifndef PV_SYMTAB_H
#define PV_SYMTAB_H

#include <elfutils/libdwfl.h>

struct pv_symtab;

/* The index of m's symbol table; NULL without memory or without a table. */
struct pv_symtab *pv_symtab_build(Dwfl_Module *m);
void pv_symtab_free(struct pv_symtab *t);

/* The name elfutils gives addr (owned by libdwfl), and the address where
 * that symbol starts in *start; or NULL when only elfutils can tell:
 * *undecided is then set. */
const char *pv_symtab_symbol(const struct pv_symtab *t, GElf_Addr addr, GElf_Addr *start,
			     int *undecided);

#endif /* PV_SYMTAB_H */
