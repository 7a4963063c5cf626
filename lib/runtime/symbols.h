/* SPDX-License-Identifier: MIT */
/*
 * symbols.h — function addresses to names, at output time only.
 *
 * Uses elfutils' libdwfl over this process's own mappings, so static
 * functions (.symtab), PIE executables and shared libraries all resolve, with
 * source file:line where debug information exists. C++ names are demangled.
 * Functions of objects dlclose'd before exit are known by retired keys
 * (retire.h) and named from their object at its old place.
 */
#ifndef PV_SYMBOLS_H
#define PV_SYMBOLS_H

#include <stdint.h>
#include "model/symbol.h"
#include "runtime/retire.h"


struct pv_symbolizer;

/* NULL only if elfutils cannot even start; lookups then give raw addresses. */
struct pv_symbolizer *pv_symbols_open(const struct pv_unloaded *unloaded);
void pv_symbols_close(struct pv_symbolizer *s);

/* Fill out (strings malloc'd, freed with pv_symbol_free). s may be NULL. */
void pv_symbols_lookup(struct pv_symbolizer *s, void *addr, struct pv_symbol *out);

/* Where the function holding pc starts (the symbol elfutils gives pc, in
 * what is mapped now), or NULL when no symbol holds it. s may be NULL. */
void *pv_symbols_function(struct pv_symbolizer *s, void *pc);

/* The source file (owned by s, until its next look-up: a whole path when
 * the unit says where it was compiled) and *line of the code at pc, or
 * NULL. */
const char *pv_symbols_line(struct pv_symbolizer *s, void *pc, int *line);

/* For a retired key whose object is loaded again at the same place (a
 * plugin reloaded), the function's address there: its calls then add up
 * with those of the object loaded now. NULL otherwise. A pv_rekey_fn. */
void *pv_symbols_reloaded(void *fn, void *symbolizer);

#endif /* PV_SYMBOLS_H */
