/*
 * symbols.h — function addresses to names, at output time only.
 *
 * Uses elfutils' libdwfl over this process's own mappings, so static
 * functions (.symtab), PIE executables and shared libraries all resolve, with
 * source file:line where debug information exists. C++ names are demangled.
 * Objects that are dlclose'd before exit are resolved while still mapped
 * (see pv_symbols_remember).
 */
#ifndef PV_SYMBOLS_H
#define PV_SYMBOLS_H

#include <stdint.h>

struct pv_symbol {
	char *name;   /* demangled; "module+0xoffset" when there is no symbol */
	char *module; /* absolute path of the object, or "" */
	char *file;   /* source file, or NULL */
	int line;
};

struct pv_symbolizer;

/* An object that was dlclose'd: where it was mapped, to resolve it still. */
struct pv_unloaded {
	char *path;
	uintptr_t bias;
	struct pv_unloaded *next;
};

/* NULL only if elfutils cannot even start; lookups then give raw addresses. */
struct pv_symbolizer *pv_symbols_open(const struct pv_unloaded *unloaded);
void pv_symbols_close(struct pv_symbolizer *s);

/* Fill out (strings malloc'd, freed with pv_symbol_free). s may be NULL. */
void pv_symbols_lookup(struct pv_symbolizer *s, void *addr, struct pv_symbol *out);
void pv_symbol_free(struct pv_symbol *sym);

/* Demangle a C++ name if it is one; returns malloc'd text or NULL. */
char *pv_demangle(const char *name);

#endif /* PV_SYMBOLS_H */
