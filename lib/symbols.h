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
#include "retire.h"

struct pv_symbol {
	char *name;   /* demangled; "module+0xoffset" when there is no symbol */
	char *module; /* absolute path of the object, or "" */
	char *file;   /* source file, or NULL */
	int line;
};

struct pv_symbolizer;

/* NULL only if elfutils cannot even start; lookups then give raw addresses. */
struct pv_symbolizer *pv_symbols_open(const struct pv_unloaded *unloaded);
void pv_symbols_close(struct pv_symbolizer *s);

/* Fill out (strings malloc'd, freed with pv_symbol_free). s may be NULL. */
void pv_symbols_lookup(struct pv_symbolizer *s, void *addr, struct pv_symbol *out);
void pv_symbol_free(struct pv_symbol *sym);
/* to: a copy of from, with strings of its own. 0, or -1 (to left empty)
 * when memory ran out. */
int pv_symbol_copy(struct pv_symbol *to, const struct pv_symbol *from);

/* For a retired key whose object is loaded again at the same place (a
 * plugin reloaded), the function's address there: its calls then add up
 * with those of the object loaded now. NULL otherwise. A pv_rekey_fn. */
void *pv_symbols_reloaded(void *fn, void *symbolizer);

/* Demangle a C++ name if it is one; returns malloc'd text or NULL. */
char *pv_demangle(const char *name);

#endif /* PV_SYMBOLS_H */
